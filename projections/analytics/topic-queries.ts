import type { AnalyticsStore, QueryParams, ScopeId } from './analytics-store.ts';
import { inWindow, scopeFilters } from './scope-filters.ts';
import type { Window } from './time-buckets.ts';

/**
 * Topics: what segments discuss (`segment_topics`, from `Segments.segments[].topics`), counted
 * over the episodes published in a window. A topic's mentions are the mention lines outside ad
 * reads that fall inside its segments (a line counts once per entity, as in the mention reads);
 * its entity categories are those of the entities those lines name. Counts come from the topic
 * rollup (`topic_episode_entities`, rollups.ts: one row per topic and episode with its counts and
 * its entities' lines), a range of the topic's rows by publication time.
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

  /**
   * Conditions on the topic rollup (`topic_episode_entities`, one row per topic and episode, with the
   * episode's podcast and publication time) for the filter (binds its parameters).
   */
  private where(params: QueryParams, f: TopicFilter): string[] {
    params.lo = f.window.start;
    params.hi = f.window.end;
    const where = [...inWindow(), ...scopeFilters(params, { podcastId: f.podcastId })];
    if (f.lang !== undefined) {
      params.lang = f.lang;
      where.push('podcast_id IN (SELECT id FROM podcasts FINAL WHERE lang = {lang:String})');
    }
    return where;
  }

  /** Every topic with segments in the filter's episodes (one topic only with `topic`). */
  async topics(f: TopicFilter, topic?: string): Promise<TopicCounts[]> {
    const params: QueryParams = {};
    const where = this.where(params, f);
    if (topic !== undefined) {
      params.topic = topic;
      where.push('topic = {topic:String}');
    }
    const rows = await this.store.query<TopicCounts>(
      `SELECT toString(topic) AS topic, count() AS episode_count, uniqExact(podcast_id) AS podcast_count,
         sum(segments) AS segment_count, sum(lines) AS mention_count
       FROM topic_episode_entities FINAL WHERE ${where.join(' AND ')}
       GROUP BY topic`,
      params,
    );
    return rows.map((r) => ({
      topic: r.topic,
      episode_count: Number(r.episode_count),
      podcast_count: Number(r.podcast_count),
      segment_count: Number(r.segment_count),
      mention_count: Number(r.mention_count),
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
   * entity category, and episodes per podcast (most first, at most `limit`). Both read the topic's
   * range of `topic_episode_entities` for the window (one row per episode on the topic, with its
   * entities' lines inside the segments), so the cost follows the window, not the corpus.
   */
  async breakdown(f: TopicFilter, topic: string, limit: number) {
    const params: QueryParams = { topic, limit };
    const where = [...this.where(params, f), 'topic = {topic:String}'].join(' AND ');
    // Lines outside ads inside the topic's segments, per entity.
    const perEntity = `SELECT entity_id, sum(n) AS n
       FROM topic_episode_entities FINAL ARRAY JOIN entity_ids AS entity_id, entity_lines AS n
       WHERE ${where} GROUP BY entity_id`;
    const [podcasts, entities, categories] = await Promise.all([
      this.store.query<{ podcast_id: string; episode_count: number }>(
        `SELECT toString(podcast_id) AS podcast_id, count() AS episode_count
         FROM topic_episode_entities FINAL WHERE ${where}
         GROUP BY podcast_id ORDER BY episode_count DESC, podcast_id ASC LIMIT {limit:UInt32}`,
        params,
      ),
      this.store.query<{ entity_id: string; mention_count: number }>(
        `SELECT entity_id, n AS mention_count FROM (${perEntity})
         ORDER BY mention_count DESC, entity_id ASC LIMIT {limit:UInt32}`,
        params,
      ),
      // Per category of the catalog's entities (those it does not know have none).
      this.store.query<{ slug: string; name: string; mention_count: number }>(
        `SELECT toString(x.category_slug) AS slug, any(x.category_name) AS name, sum(l.n) AS mention_count
         FROM (${perEntity}) AS l
         INNER JOIN (SELECT id, category_slug, category_name FROM entities FINAL) AS x ON x.id = l.entity_id
         GROUP BY x.category_slug ORDER BY mention_count DESC, slug ASC`,
        params,
      ),
    ]);
    const counted = <T extends { mention_count: number }>(r: T) => ({
      ...r,
      mention_count: Number(r.mention_count),
    });
    return {
      entities: entities.map(counted),
      categories: categories.map(counted),
      podcasts: podcasts.map((p) => ({ podcast_id: p.podcast_id, episode_count: Number(p.episode_count) })),
    };
  }
}
