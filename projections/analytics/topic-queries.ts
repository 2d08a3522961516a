import type { AnalyticsStore, QueryParams, ScopeId } from './analytics-store.ts';
import { inWindow, scopeFilters } from './scope-filters.ts';
import type { Window } from './time-buckets.ts';

/**
 * Topics: what segments discuss (`segment_topics`, from `Segments.segments[].topics`), counted
 * over the episodes published in a window. A topic's mentions are the mention lines outside ad
 * reads that fall inside its segments (a line counts once per entity, as in the mention reads);
 * its entity categories are those of the entities those lines name.
 */
export interface TopicFilter {
  podcastId?: ScopeId;
  /** Primary language subtag of the podcast. */
  lang?: string;
  window: Window;
}

export interface TopicCounts {
  topic: string;
  episode_count: number;
  podcast_count: number;
  segment_count: number;
  mention_count: number;
}

export class TopicQueries {
  constructor(private readonly store: AnalyticsStore) {}

  /** The episodes of the filter, as a subquery (binds its parameters). */
  private episodes(params: QueryParams, f: TopicFilter): string {
    params.lo = f.window.start;
    params.hi = f.window.end;
    const where = [...inWindow(), ...scopeFilters(params, { podcastId: f.podcastId })];
    if (f.lang !== undefined) {
      params.lang = f.lang;
      where.push('podcast_id IN (SELECT id FROM podcasts FINAL WHERE lang = {lang:String})');
    }
    return `SELECT id, podcast_id FROM episodes FINAL WHERE ${where.join(' AND ')}`;
  }

  /** Every topic with segments in the filter's episodes (one topic only with `topic`). */
  async topics(f: TopicFilter, topic?: string): Promise<TopicCounts[]> {
    const params: QueryParams = {};
    const episodes = this.episodes(params, f);
    const only = topic === undefined ? '' : 'AND topic = {topic:String}';
    if (topic !== undefined) params.topic = topic;
    const [segments, mentions] = await Promise.all([
      this.store.query<Omit<TopicCounts, 'mention_count'>>(
        `SELECT toString(t.topic) AS topic, uniqExact(t.episode_id) AS episode_count,
           uniqExact(e.podcast_id) AS podcast_count, count() AS segment_count
         FROM (SELECT topic, episode_id FROM segment_topics FINAL WHERE 1 ${only}) AS t
         INNER JOIN (${episodes}) AS e ON e.id = t.episode_id
         GROUP BY t.topic`,
        params,
      ),
      this.store.query<{ topic: string; mention_count: number }>(
        `SELECT toString(t.topic) AS topic, count() AS mention_count
         FROM (SELECT topic, episode_id, first_line, last_line FROM segment_topics FINAL
               WHERE episode_id IN (SELECT id FROM (${episodes})) ${only}) AS t
         INNER JOIN (SELECT episode_id, line_number FROM mention_lines FINAL
               WHERE in_ad = 0 AND episode_id IN (SELECT id FROM (${episodes}))) AS m
           ON m.episode_id = t.episode_id
         WHERE m.line_number >= t.first_line AND m.line_number <= t.last_line
         GROUP BY t.topic`,
        params,
      ),
    ]);
    const mentionsOf = new Map(mentions.map((m) => [m.topic, Number(m.mention_count)]));
    return segments.map((s) => ({
      topic: s.topic,
      episode_count: Number(s.episode_count),
      podcast_count: Number(s.podcast_count),
      segment_count: Number(s.segment_count),
      mention_count: mentionsOf.get(s.topic) ?? 0,
    }));
  }

  /** Whether any segment ever discussed `topic`. */
  async exists(topic: string): Promise<boolean> {
    const rows = await this.store.query(
      'SELECT 1 AS one FROM segment_topics FINAL WHERE topic = {topic:String} LIMIT 1',
      { topic },
    );
    return rows.length > 0;
  }

  /**
   * Inside one topic's segments: mention lines per entity (most first, at most `limit`) and per
   * entity category, and episodes per podcast (most first, at most `limit`).
   */
  async breakdown(f: TopicFilter, topic: string, limit: number) {
    const params: QueryParams = { topic, limit };
    const episodes = this.episodes(params, f);
    const lines = `SELECT m.entity_id AS entity_id
       FROM (SELECT episode_id, first_line, last_line FROM segment_topics FINAL
             WHERE topic = {topic:String} AND episode_id IN (SELECT id FROM (${episodes}))) AS t
       INNER JOIN (SELECT entity_id, episode_id, line_number FROM mention_lines FINAL
             WHERE in_ad = 0 AND episode_id IN (SELECT id FROM (${episodes}))) AS m
         ON m.episode_id = t.episode_id
       WHERE m.line_number >= t.first_line AND m.line_number <= t.last_line`;
    const [entities, categories, podcasts] = await Promise.all([
      this.store.query<{ entity_id: string; mention_count: number }>(
        `SELECT entity_id, count() AS mention_count FROM (${lines})
         GROUP BY entity_id ORDER BY mention_count DESC, entity_id ASC LIMIT {limit:UInt32}`,
        params,
      ),
      this.store.query<{ slug: string; name: string; mention_count: number }>(
        `SELECT toString(x.category_slug) AS slug, any(x.category_name) AS name, count() AS mention_count
         FROM (${lines}) AS l INNER JOIN (SELECT id, category_slug, category_name FROM entities FINAL) AS x
           ON x.id = l.entity_id
         GROUP BY x.category_slug ORDER BY mention_count DESC, slug ASC`,
        params,
      ),
      this.store.query<{ podcast_id: string; episode_count: number }>(
        `SELECT e.podcast_id AS podcast_id, uniqExact(t.episode_id) AS episode_count
         FROM (SELECT episode_id FROM segment_topics FINAL WHERE topic = {topic:String}) AS t
         INNER JOIN (${episodes}) AS e ON e.id = t.episode_id
         GROUP BY e.podcast_id ORDER BY episode_count DESC, podcast_id ASC LIMIT {limit:UInt32}`,
        params,
      ),
    ]);
    return {
      entities: entities.map((r) => ({ entity_id: r.entity_id, mention_count: Number(r.mention_count) })),
      categories: categories.map((r) => ({ ...r, mention_count: Number(r.mention_count) })),
      podcasts: podcasts.map((r) => ({ podcast_id: r.podcast_id, episode_count: Number(r.episode_count) })),
    };
  }
}
