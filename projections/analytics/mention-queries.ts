import type { AnalyticsStore, QueryParams, ScopeId } from './analytics-store.ts';
import { type MentionScope, MentionSources } from './mention-scope.ts';
import { instant, inWindow, scopeFilters } from './scope-filters.ts';
import { bucketSql, type Interval, type Window } from './time-buckets.ts';

/**
 * Mention reads: timeseries, by podcast (with the change between two windows), the lines
 * themselves, top entities and an episode's entities. Which table a read scans for its scope is
 * decided in mention-scope.ts.
 */
export interface Counts {
  mentions: number;
  episodes: number;
  podcasts: number;
}

export interface TimeseriesResult {
  buckets: Map<number, Counts>;
  totals: Counts;
}

export type PodcastSort = 'mentions' | 'rising' | 'falling' | 'popularity';

/** The by-podcast sort keys (ascending; a leading `-` sorts that value descending). */
const SORT_KEY_EXPRESSIONS: Record<PodcastSort, string[]> = {
  mentions: ['-mentions', '-previous_mentions'],
  rising: ['-(mentions - previous_mentions)', '-mentions'],
  falling: ['(mentions - previous_mentions)', '-previous_mentions'],
  popularity: ['if(isNull(popularity), 1, 0)', '-ifNull(popularity, 0)', '-mentions'],
};

/** How many numbers a row's sort key (`PodcastMentionRow.key`) has, per sort. */
export const SORT_KEYS = Object.fromEntries(
  Object.entries(SORT_KEY_EXPRESSIONS).map(([sort, keys]) => [sort, keys.length]),
) as Record<PodcastSort, number>;
export type Change = 'new' | 'continuing' | 'dropped';

/**
 * How a podcast's mentions changed from the previous window to the current one, defined once:
 * the by-podcast read filters, counts and labels its rows with these conditions.
 */
const CHANGE_CONDITIONS: Record<Change, string> = {
  new: 'mentions > 0 AND previous_mentions = 0',
  continuing: 'mentions > 0 AND previous_mentions > 0',
  dropped: 'mentions = 0 AND previous_mentions > 0',
};

export interface PodcastMentionRow {
  podcast_id: string;
  change: Change;
  mentions: number;
  episodes: number;
  previous_mentions: number;
  previous_episodes: number;
  popularity: number | null;
  /** The sort key tuple after which the next page starts. */
  key: number[];
}

export interface ByPodcastTotals {
  podcasts: number;
  mentions: number;
  episodes: number;
  previous_mentions: number;
  previous_episodes: number;
  new: number;
  continuing: number;
  dropped: number;
}

export interface MentionLineRow {
  entity_id: string;
  episode_id: string;
  podcast_id: string;
  published_ms: number;
  line_number: number;
  speaker: string;
  in_ad: number;
  /** How the episode names the entity (from the rollup). */
  variants: string[];
}

export interface TopEntityRow {
  entity_id: string;
  mentions: number;
  episodes: number;
  podcasts: number;
}

export interface EpisodeEntityRow {
  entity_id: string;
  lines: number;
  ad_lines: number;
  relevance: string;
  mention_count: number;
  variants: string[];
}

/**
 * Reads of one entity's key range are small: one thread does them with less overhead than
 * several, and leaves the other core to the API and the projectors (embedded engine).
 */
const ONE_THREAD = 'SETTINGS max_threads = 1';
const MID = instant('mid');

export class MentionQueries {
  private readonly sources: MentionSources;

  constructor(private readonly store: AnalyticsStore) {
    this.sources = new MentionSources(store);
  }

  /** Mention lines, episodes and podcasts per bucket of `window`, and over the whole window. */
  async timeseries(scope: MentionScope, window: Window, interval: Interval): Promise<TimeseriesResult> {
    const params: QueryParams = { lo: window.start, hi: window.end };
    const s = await this.sources.resolve(scope, params);
    const rows = await this.store.query<{
      bucket: number;
      total: number;
      mentions: number;
      episodes: number;
      podcasts: number;
    }>(
      `SELECT ${bucketSql('published_at', interval)} AS bucket, grouping(bucket) AS total,
         ${s.mentions()} AS mentions, ${s.episodes()} AS episodes, uniqExact(podcast_id) AS podcasts
       FROM ${s.table} FINAL WHERE ${s.where.join(' AND ')}
       GROUP BY GROUPING SETS ((bucket), ())
       ${ONE_THREAD}`,
      params,
    );
    const buckets = new Map<number, Counts>();
    let totals: Counts = { mentions: 0, episodes: 0, podcasts: 0 };
    for (const r of rows) {
      const counts = {
        mentions: Number(r.mentions),
        episodes: Number(r.episodes),
        podcasts: Number(r.podcasts),
      };
      // grouping() is 1 for a column that is aggregated away (the grand total), 0 otherwise.
      if (Number(r.total) === 1) totals = counts;
      else buckets.set(Number(r.bucket), counts);
    }
    return { buckets, totals };
  }

  /**
   * Per podcast, current-window and previous-window counts, ordered by `sort`, filtered by
   * `change`, from after `after` (a previous row's `key`), at most `limit` rows; totals cover
   * every podcast whatever the filter and page.
   */
  async byPodcast(
    scope: MentionScope,
    window: Window,
    options: { sort: PodcastSort; change?: Change; after?: number[]; afterId?: string; limit: number },
  ): Promise<{ rows: PodcastMentionRow[]; totals: ByPodcastTotals }> {
    const length = window.end - window.start;
    const params: QueryParams = { lo: window.start - length, mid: window.start, hi: window.end };
    const s = await this.sources.resolve(scope, params);
    const cur = `published_at >= ${MID}`;
    const prev = `published_at < ${MID}`;
    const key = SORT_KEY_EXPRESSIONS[options.sort].map((k) => `toFloat64(${k})`);
    if (options.after && options.after.length !== key.length)
      throw new RangeError(`a ${options.sort} position has ${key.length} keys, not ${options.after.length}`);
    const changeCond = CHANGE_CONDITIONS;
    const wanted: string[] = [];
    if (options.change) wanted.push(changeCond[options.change]);
    if (options.after && options.afterId !== undefined) {
      params.after = options.after;
      params.after_id = options.afterId;
      wanted.push(
        `(tuple(${key.join(', ')}, podcast_id) > tuple(${options.after.map((_, i) => `{after:Array(Float64)}[${i + 1}]`).join(', ')}, {after_id:String}))`,
      );
    }
    params.limit = options.limit;
    // Only the popularity sort needs the podcasts' popularity here (the route reads it from the
    // catalog for the page); the other sorts skip the join.
    const byPopularity = options.sort === 'popularity';
    const popularity = byPopularity
      ? 'p.popularity AS popularity'
      : "CAST(NULL, 'Nullable(Float64)') AS popularity";
    const join = byPopularity
      ? 'LEFT JOIN (SELECT id, popularity FROM podcasts FINAL) AS p ON p.id = g.podcast_id'
      : '';
    const rows = await this.store.query<
      Omit<PodcastMentionRow, 'key'> & {
        k: number[];
        wanted: number;
        t_podcasts: number;
        t_mentions: number;
        t_episodes: number;
        t_previous_mentions: number;
        t_previous_episodes: number;
        t_new: number;
        t_continuing: number;
        t_dropped: number;
      }
    >(
      `SELECT podcast_id, mentions, episodes, previous_mentions, previous_episodes, popularity,
         multiIf(${changeCond.new}, 'new', ${changeCond.continuing}, 'continuing', 'dropped') AS change,
         [${key.join(', ')}] AS k, ${wanted.length > 0 ? wanted.join(' AND ') : '1'} AS wanted,
         count() OVER () AS t_podcasts, sum(mentions) OVER () AS t_mentions, sum(episodes) OVER () AS t_episodes,
         sum(previous_mentions) OVER () AS t_previous_mentions, sum(previous_episodes) OVER () AS t_previous_episodes,
         countIf(${changeCond.new}) OVER () AS t_new, countIf(${changeCond.continuing}) OVER () AS t_continuing,
         countIf(${changeCond.dropped}) OVER () AS t_dropped
       FROM (
         SELECT g.podcast_id AS podcast_id, g.mentions AS mentions, g.episodes AS episodes,
           g.previous_mentions AS previous_mentions, g.previous_episodes AS previous_episodes, ${popularity}
         FROM (
           SELECT podcast_id, ${s.mentions(cur)} AS mentions, ${s.episodes(cur)} AS episodes,
             ${s.mentions(prev)} AS previous_mentions, ${s.episodes(prev)} AS previous_episodes
           FROM ${s.table} FINAL WHERE ${s.where.join(' AND ')}
           GROUP BY podcast_id
         ) AS g
         ${join}
       )
       ORDER BY wanted DESC, ${key.join(', ')}, podcast_id
       LIMIT {limit:UInt32}
       ${ONE_THREAD}`,
      params,
    );
    const first = rows[0];
    const totals: ByPodcastTotals = first
      ? {
          podcasts: Number(first.t_podcasts),
          mentions: Number(first.t_mentions),
          episodes: Number(first.t_episodes),
          previous_mentions: Number(first.t_previous_mentions),
          previous_episodes: Number(first.t_previous_episodes),
          new: Number(first.t_new),
          continuing: Number(first.t_continuing),
          dropped: Number(first.t_dropped),
        }
      : {
          podcasts: 0,
          mentions: 0,
          episodes: 0,
          previous_mentions: 0,
          previous_episodes: 0,
          new: 0,
          continuing: 0,
          dropped: 0,
        };
    return {
      totals,
      rows: rows
        .filter((r) => Number(r.wanted) === 1)
        .map((r) => ({
          podcast_id: r.podcast_id,
          change: r.change,
          mentions: Number(r.mentions),
          episodes: Number(r.episodes),
          previous_mentions: Number(r.previous_mentions),
          previous_episodes: Number(r.previous_episodes),
          popularity: r.popularity === null ? null : Number(r.popularity),
          key: r.k.map(Number),
        })),
    };
  }

  /** Per-bucket current-window counts of the given podcasts. */
  async podcastBuckets(
    scope: MentionScope,
    window: Window,
    interval: Interval,
    podcastIds: string[],
  ): Promise<Map<string, Map<number, Counts>>> {
    const out = new Map<string, Map<number, Counts>>();
    if (podcastIds.length === 0) return out;
    const params: QueryParams = { lo: window.start, hi: window.end, pids: podcastIds };
    const s = await this.sources.resolve(scope, params);
    const rows = await this.store.query<{
      podcast_id: string;
      bucket: number;
      mentions: number;
      episodes: number;
    }>(
      `SELECT podcast_id, ${bucketSql('published_at', interval)} AS bucket, ${s.mentions()} AS mentions, ${s.episodes()} AS episodes
       FROM ${s.table} FINAL WHERE ${s.where.join(' AND ')} AND podcast_id IN {pids:Array(String)}
       GROUP BY podcast_id, bucket
       ${ONE_THREAD}`,
      params,
    );
    for (const r of rows) {
      const m = out.get(r.podcast_id) ?? new Map<number, Counts>();
      m.set(Number(r.bucket), { mentions: Number(r.mentions), episodes: Number(r.episodes), podcasts: 1 });
      out.set(r.podcast_id, m);
    }
    return out;
  }

  /** The mention lines themselves, newest episode first, then in line order. */
  async lines(
    scope: MentionScope,
    window: Window,
    options: { after?: { p: number; e: string; l: number }; limit: number },
  ): Promise<MentionLineRow[]> {
    const params: QueryParams = { lo: window.start, hi: window.end, limit: options.limit };
    const s = await this.sources.resolve(scope, params, true);
    if (options.after) {
      params.ap = options.after.p;
      params.ae = options.after.e;
      params.al = options.after.l;
      s.where.push(`(published_at < ${instant('ap')}
        OR (published_at = ${instant('ap')}
          AND (episode_id < {ae:String} OR (episode_id = {ae:String} AND line_number > {al:UInt32}))))`);
    }
    const rows = await this.store.query<Omit<MentionLineRow, 'variants'>>(
      `SELECT entity_id, episode_id, podcast_id, toUnixTimestamp64Milli(published_at) AS published_ms, line_number,
         speaker, in_ad
       FROM mention_lines FINAL WHERE ${s.where.join(' AND ')}
       ORDER BY published_at DESC, episode_id DESC, line_number ASC
       LIMIT {limit:UInt32}
       ${ONE_THREAD}`,
      params,
    );
    const variants = await this.variantsOf(
      scope.entityId,
      rows.map((r) => r.episode_id),
    );
    return rows.map((r) => ({ ...r, variants: variants.get(r.episode_id) ?? [] }));
  }

  /** How each episode names the entity. */
  private async variantsOf(entityId: string, episodeIds: string[]): Promise<Map<string, string[]>> {
    if (episodeIds.length === 0) return new Map();
    const rows = await this.store.query<{ episode_id: string; variants: string[] }>(
      `SELECT episode_id, variants FROM entity_episodes FINAL
       WHERE entity_id = {entity:String} AND episode_id IN {episodes:Array(String)}`,
      { entity: entityId, episodes: [...new Set(episodeIds)] },
    );
    return new Map(rows.map((r) => [r.episode_id, r.variants]));
  }

  /**
   * Entities by mention lines (outside ad reads) in `window`, most first; `ids` restricts to those
   * entities (without paging), `podcastId` to one show, `categorySlug` to one category.
   */
  async topEntities(
    window: Window,
    options: {
      ids?: string[];
      podcastId?: ScopeId;
      categorySlug?: string;
      after?: { m: number; id: string };
      limit: number;
    },
  ): Promise<TopEntityRow[]> {
    const params: QueryParams = { lo: window.start, hi: window.end, limit: options.limit };
    const where = [...inWindow(), 'lines > ad_lines'];
    if (options.ids) {
      params.ids = options.ids;
      where.push('entity_id IN {ids:Array(String)}');
    }
    where.push(...scopeFilters(params, { podcastId: options.podcastId }));
    if (options.categorySlug !== undefined) {
      params.category = options.categorySlug;
      where.push('entity_id IN (SELECT id FROM entities FINAL WHERE category_slug = {category:String})');
    }
    const having: string[] = [];
    if (options.after) {
      params.am = options.after.m;
      params.aid = options.after.id;
      having.push('(mentions < {am:UInt64} OR (mentions = {am:UInt64} AND entity_id > {aid:String}))');
    }
    const rows = await this.store.query<TopEntityRow>(
      `SELECT entity_id, sum(lines - ad_lines) AS mentions, count() AS episodes, uniqExact(podcast_id) AS podcasts
       FROM entity_episodes FINAL WHERE ${where.join(' AND ')}
       GROUP BY entity_id ${having.length > 0 ? `HAVING ${having.join(' AND ')}` : ''}
       ORDER BY mentions DESC, entity_id ASC LIMIT {limit:UInt32}`,
      params,
    );
    return rows.map((r) => ({
      entity_id: r.entity_id,
      mentions: Number(r.mentions),
      episodes: Number(r.episodes),
      podcasts: Number(r.podcasts),
    }));
  }

  /** The entities one episode mentions, most mention lines first. */
  async episodeEntities(episodeId: string): Promise<EpisodeEntityRow[]> {
    const rows = await this.store.query<EpisodeEntityRow>(
      `SELECT entity_id, lines, ad_lines, relevance, mention_count, variants FROM entity_episodes FINAL
       WHERE episode_id = {episode:String} AND lines > 0 ORDER BY lines DESC, entity_id ASC`,
      { episode: episodeId },
    );
    return rows.map((r) => ({
      ...r,
      lines: Number(r.lines),
      ad_lines: Number(r.ad_lines),
      mention_count: Number(r.mention_count),
    }));
  }

  /** Mention lines of one episode for the given entities, in line order. */
  async episodeMentionLines(
    episodeId: string,
    entityIds: string[],
  ): Promise<Omit<MentionLineRow, 'variants'>[]> {
    if (entityIds.length === 0) return [];
    return this.store.query<Omit<MentionLineRow, 'variants'>>(
      `SELECT entity_id, episode_id, podcast_id, toUnixTimestamp64Milli(published_at) AS published_ms, line_number,
         speaker, in_ad
       FROM mention_lines FINAL WHERE episode_id = {episode:String} AND entity_id IN {ids:Array(String)}
       ORDER BY line_number, entity_id`,
      { episode: episodeId, ids: entityIds },
    );
  }
}
