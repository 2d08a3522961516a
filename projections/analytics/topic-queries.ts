import { type AnalyticsStore, NO_MATCH, type QueryParams, type ScopeId } from './analytics-store.ts';
import { instant, inWindow, scopeFilters } from './scope-filters.ts';
import type { Window } from './time-buckets.ts';

const DAY = 86_400_000;

/** The whole UTC days inside a window, `[from, to)` in epoch ms; undefined when it holds none. */
function wholeDays(w: Window): { from: number; to: number } | undefined {
  const from = Math.ceil(w.start / DAY) * DAY;
  const to = Math.floor(w.end / DAY) * DAY;
  return from < to ? { from, to } : undefined;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Topics: what segments discuss (`segment_topics`, from `Segments.segments[].topics`), counted
 * over the episodes published in a window. A topic's mentions are the mention lines outside ad
 * reads that fall inside its segments (a line counts once per entity, as in the mention reads);
 * its entity categories are those of the entities those lines name. Counts come from the topic
 * rollup (`topic_episode_entities`, rollups.ts: one row per topic and episode with its counts and
 * its entities' lines), a range of the topic's rows by publication time; the lists take the whole
 * UTC days of their window from its day rollups (`topic_days`, `podcast_topic_days`,
 * `topic_podcasts`) and only the partial first and last day from it, so a year's list reads one
 * row per topic and day and one per topic and podcast, not one per topic and episode.
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
    const days = f.lang === undefined ? wholeDays(f.window) : undefined;
    const rows = await (days && f.podcastId !== NO_MATCH
      ? this.fromDays(f, days, topic)
      : this.fromEpisodes(f, topic));
    return rows.map((r) => ({
      topic: r.topic,
      episode_count: Number(r.episode_count),
      podcast_count: Number(r.podcast_count),
      segment_count: Number(r.segment_count),
      mention_count: Number(r.mention_count),
    }));
  }

  /** The topic counts from every topic-episode row of the window (with a language filter, or a window shorter than a day). */
  private fromEpisodes(f: TopicFilter, topic?: string): Promise<TopicCounts[]> {
    const params: QueryParams = {};
    const where = this.where(params, f);
    if (topic !== undefined) {
      params.topic = topic;
      where.push('topic = {topic:String}');
    }
    return this.store.query<TopicCounts>(
      `SELECT toString(topic) AS topic, count() AS episode_count, uniqExact(podcast_id) AS podcast_count,
         sum(segments) AS segment_count, sum(lines) AS mention_count
       FROM topic_episode_entities FINAL WHERE ${where.join(' AND ')}
       GROUP BY topic`,
      params,
    );
  }

  /**
   * The topic counts from the day rollups for the window's whole days, and from the topic-episode
   * rows for the rest of the window (before its first and after its last whole day). Podcasts are
   * the (topic, podcast) pairs with a day inside the whole days and those of the partial days;
   * for one podcast, its own day rows.
   */
  private fromDays(
    f: TopicFilter,
    days: { from: number; to: number },
    topic?: string,
  ): Promise<TopicCounts[]> {
    const params: QueryParams = {
      lo: f.window.start,
      hi: f.window.end,
      mid_lo: days.from,
      mid_hi: days.to,
      day_lo: isoDay(days.from),
      day_hi: isoDay(days.to),
    };
    const onTopic = topic === undefined ? '' : ' AND topic = {topic:String}';
    if (topic !== undefined) params.topic = topic;
    const edges = `((published_at >= ${instant('lo')} AND published_at < ${instant('mid_lo')})
        OR (published_at >= ${instant('mid_hi')} AND published_at < ${instant('hi')}))${onTopic}`;
    const inWholeDays = `day >= {day_lo:Date} AND day < {day_hi:Date}${onTopic}`;
    if (f.podcastId !== undefined) {
      params.podcast = f.podcastId;
      return this.store.query<TopicCounts>(
        `SELECT toString(topic) AS topic, sum(e) AS episode_count, 1 AS podcast_count, sum(s) AS segment_count,
           sum(l) AS mention_count
         FROM (
           SELECT topic, episodes AS e, segments AS s, lines AS l FROM podcast_topic_days FINAL
           WHERE podcast_id = {podcast:String} AND ${inWholeDays}
           UNION ALL
           SELECT topic, toUInt64(1) AS e, toUInt64(segments) AS s, toUInt64(lines) AS l FROM topic_episode_entities FINAL
           WHERE podcast_id = {podcast:String} AND ${edges})
         GROUP BY topic`,
        params,
      );
    }
    // Distinct podcasts: the pairs with a day among the whole days, and those of the partial days.
    params.d_lo = Math.round(days.from / DAY);
    params.d_hi = Math.round(days.to / DAY);
    return this.store.query<TopicCounts>(
      `SELECT toString(c.topic) AS topic, c.e AS episode_count, p.n AS podcast_count, c.s AS segment_count,
         c.l AS mention_count
       FROM (
         SELECT topic, sum(e) AS e, sum(s) AS s, sum(l) AS l FROM (
           SELECT topic, episodes AS e, segments AS s, lines AS l FROM topic_days FINAL WHERE ${inWholeDays}
           UNION ALL
           SELECT topic, toUInt64(1) AS e, toUInt64(segments) AS s, toUInt64(lines) AS l
           FROM topic_episode_entities FINAL WHERE ${edges})
         GROUP BY topic) AS c
       INNER JOIN (
         SELECT topic, uniqExact(podcast_id) AS n FROM (
           SELECT topic, podcast_id FROM topic_podcasts FINAL
           WHERE arrayExists(d -> d >= {d_lo:UInt16} AND d < {d_hi:UInt16}, days)${onTopic}
           UNION ALL
           SELECT topic, podcast_id FROM topic_episode_entities FINAL WHERE ${edges})
         GROUP BY topic) AS p ON p.topic = c.topic`,
      params,
    );
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
    // Per entity (the first `limit`) and per category of the catalog's entities (those it does not
    // know have none: a NULL category, left out) in one pass over the range, as two grouping sets.
    const [podcasts, grouped] = await Promise.all([
      this.store.query<{ podcast_id: string; episode_count: number }>(
        `SELECT toString(podcast_id) AS podcast_id, count() AS episode_count
         FROM topic_episode_entities FINAL WHERE ${where}
         GROUP BY podcast_id ORDER BY episode_count DESC, podcast_id ASC LIMIT {limit:UInt32}`,
        params,
      ),
      this.store.query<{
        by_category: number;
        entity_id: string;
        slug: string | null;
        name: string;
        mention_count: number;
      }>(
        `SELECT by_category, entity_id, slug, name, mention_count FROM (
           SELECT grouping(l.entity_id) AS by_category, l.entity_id AS entity_id, x.slug AS slug,
             any(x.name) AS name, sum(l.n) AS mention_count,
             row_number() OVER (PARTITION BY by_category ORDER BY mention_count DESC, entity_id ASC, slug ASC) AS rank
           FROM (${perEntity}) AS l
           LEFT JOIN (SELECT id, toNullable(toString(category_slug)) AS slug, toString(category_name) AS name
                      FROM entities FINAL) AS x ON x.id = l.entity_id
           GROUP BY GROUPING SETS ((l.entity_id), (x.slug)))
         WHERE by_category = 1 OR rank <= {limit:UInt32}
         ORDER BY by_category, mention_count DESC, entity_id ASC, slug ASC`,
        params,
      ),
    ]);
    const entities = grouped
      .filter((r) => Number(r.by_category) === 0)
      .map((r) => ({ entity_id: r.entity_id, mention_count: r.mention_count }));
    const categories = grouped
      .filter((r) => Number(r.by_category) === 1 && r.slug !== null)
      .map((r) => ({ slug: r.slug!, name: r.name, mention_count: r.mention_count }));
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
