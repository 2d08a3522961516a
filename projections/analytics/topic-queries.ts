import type { AnalyticsStore, QueryParams, ScopeId } from './analytics-store.ts';
import { inWindow, scopeFilters } from './scope-filters.ts';
import type { Window } from './time-buckets.ts';

/**
 * Topics: what segments discuss (`segment_topics`, from `Segments.segments[].topics`), counted
 * over the episodes published in a window. A topic's mentions are the mention lines outside ad
 * reads that fall inside its segments (a line counts once per entity, as in the mention reads);
 * its entity categories are those of the entities those lines name. Counts come from the topic
 * rollup (`topic_episodes`, rollups.ts), the breakdown of one topic from its segments and the
 * episodes' mention lines outside ads (`episode_mention_lines`), both read by key.
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
   * Conditions on the topic rollup (`topic_episodes`, one row per topic and episode, with the
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
       FROM topic_episodes FINAL WHERE ${where.join(' AND ')}
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
   * entity category, and episodes per podcast (most first, at most `limit`). The topic's episodes
   * come from its rollup rows; their segments and mention lines are then read by key.
   */
  async breakdown(f: TopicFilter, topic: string, limit: number) {
    const params: QueryParams = { topic };
    const where = [...this.where(params, f), 'topic = {topic:String}'];
    const episodes = await this.store.query<{ episode_id: string; podcast_id: string }>(
      `SELECT episode_id, toString(podcast_id) AS podcast_id FROM topic_episodes FINAL WHERE ${where.join(' AND ')}`,
      params,
    );
    const perPodcast = new Map<string, number>();
    for (const e of episodes) perPodcast.set(e.podcast_id, (perPodcast.get(e.podcast_id) ?? 0) + 1);
    const podcasts = [...perPodcast]
      .map(([podcast_id, episode_count]) => ({ podcast_id, episode_count }))
      .sort((a, b) => b.episode_count - a.episode_count || byteOrder(a.podcast_id, b.podcast_id))
      .slice(0, limit);
    if (episodes.length === 0) return { entities: [], categories: [], podcasts };
    // Lines outside ads inside the topic's segments, per entity, with the entity's category.
    const rows = await this.store.query<{
      entity_id: string;
      mention_count: number;
      slug: string;
      name: string;
      known: number;
    }>(
      `SELECT l.entity_id AS entity_id, l.n AS mention_count, toString(x.category_slug) AS slug,
         x.category_name AS name, x.id != '' AS known
       FROM (
         SELECT entity_id, count() AS n
         FROM (SELECT t.first_line AS first_line, t.last_line AS last_line, m.entity_ids AS entity_ids,
                 m.line_numbers AS line_numbers
               FROM (SELECT episode_id, first_line, last_line FROM segment_topics FINAL
                     WHERE topic = {topic:String} AND episode_id IN {ids:Array(String)}) AS t
               INNER JOIN (SELECT episode_id, entity_ids, line_numbers FROM episode_mention_lines FINAL
                     WHERE episode_id IN {ids:Array(String)}) AS m
                 ON m.episode_id = t.episode_id)
         ARRAY JOIN entity_ids AS entity_id, line_numbers AS line_number
         WHERE line_number >= first_line AND line_number <= last_line
         GROUP BY entity_id) AS l
       LEFT JOIN (SELECT id, category_slug, category_name FROM entities FINAL) AS x ON x.id = l.entity_id`,
      { topic, ids: episodes.map((e) => e.episode_id) },
    );
    const counted = rows.map((r) => ({ ...r, mention_count: Number(r.mention_count) }));
    const entities = [...counted]
      .sort((a, b) => b.mention_count - a.mention_count || byteOrder(a.entity_id, b.entity_id))
      .slice(0, limit)
      .map((r) => ({ entity_id: r.entity_id, mention_count: r.mention_count }));
    const perCategory = new Map<string, { slug: string; name: string; mention_count: number }>();
    for (const r of counted) {
      if (Number(r.known) !== 1) continue;
      const c = perCategory.get(r.slug) ?? { slug: r.slug, name: r.name, mention_count: 0 };
      c.mention_count += r.mention_count;
      perCategory.set(r.slug, c);
    }
    const categories = [...perCategory.values()].sort(
      (a, b) => b.mention_count - a.mention_count || byteOrder(a.slug, b.slug),
    );
    return { entities, categories, podcasts };
  }
}

/** Strings in byte order, as the store sorts them. */
function byteOrder(a: string, b: string): number {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Buffer.compare(x, y);
}
