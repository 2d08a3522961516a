import type { AnalyticsStore, QueryParams, ScopeId } from './analytics-store.ts';
import { type GuestCriteria, MentionSources } from './mention-scope.ts';
import { instant, scopeFilters } from './scope-filters.ts';
import { bucketSql, type Interval, type Window } from './time-buckets.ts';

/**
 * Guests — people identified as a speaker in any role but host — and episodes published over
 * time. Both read what the speaker step and the catalog projected (`episode_speakers`,
 * `episode_dates`, `entity_episodes`); all-time guests read their rollup (`guest_totals`), one
 * podcast's guests its range of `podcast_guest_appearances` (rollups.ts).
 */
export interface GuestRow {
  person_id: string;
  appearances: number;
  podcast_count: number;
  line_count: number;
  last_appearance_ms: number;
  first_appearance_ms: number;
  /** Distinct speaking capacities of the appearances counted (empty capacities left out). */
  capacities: string[];
  /** Distinct speaker roles of those appearances (GUEST, PANELIST, …). */
  roles: string[];
  /** Episode id of the last appearance. */
  last_episode_id: string;
}

export interface GuestFilter {
  podcastId?: ScopeId;
  publisherId?: ScopeId;
  guest?: GuestCriteria;
  lo?: number;
  hi?: number;
}

export type GuestSort = 'appearances' | 'recent';

export interface EpisodeTimeseriesFilter {
  podcastId?: ScopeId;
  publisherId?: ScopeId;
  /** Primary language subtag of the podcast (`fr` for `fr-CA`). */
  lang?: string;
  /** Only episodes mentioning this entity outside ad reads. */
  entityId?: ScopeId;
}

function guestRow(r: GuestRow): GuestRow {
  return {
    ...r,
    appearances: Number(r.appearances),
    podcast_count: Number(r.podcast_count),
    line_count: Number(r.line_count),
    last_appearance_ms: Number(r.last_appearance_ms),
    first_appearance_ms: Number(r.first_appearance_ms),
  };
}

export class GuestQueries {
  private readonly sources: MentionSources;

  constructor(private readonly store: AnalyticsStore) {
    this.sources = new MentionSources(store);
  }

  /** Guests of the filter, most appearances (or latest appearance) first; one row per person. */
  async guests(
    f: GuestFilter,
    sort: GuestSort,
    page: { offset: number; limit: number },
  ): Promise<GuestRow[]> {
    const params: QueryParams = { offset: page.offset, limit: page.limit };
    const order =
      sort === 'recent'
        ? 'last_appearance_ms DESC, appearances DESC, person_id ASC'
        : 'appearances DESC, last_appearance_ms DESC, person_id ASC';
    const unfiltered =
      f.podcastId === undefined &&
      f.publisherId === undefined &&
      f.lo === undefined &&
      f.hi === undefined &&
      (f.guest === undefined || Object.keys(f.guest).length === 0);
    if (unfiltered) {
      // Every guest over all time: one row per person, recomputed at projection (rollups.ts).
      const rows = await this.store.query<GuestRow>(
        `SELECT person_id, appearances, podcast_count, line_count,
           toUnixTimestamp64Milli(last_appearance) AS last_appearance_ms,
           toUnixTimestamp64Milli(first_appearance) AS first_appearance_ms,
           capacities, roles, last_episode_id
         FROM guest_totals FINAL ORDER BY ${order} LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
        params,
      );
      return rows.map(guestRow);
    }
    // One podcast: its range of the podcast-sorted guest rows; otherwise every speaker.
    const table = typeof f.podcastId === 'string' ? 'podcast_guest_appearances' : 'episode_speakers';
    const where = [
      ...(table === 'episode_speakers' ? ["person_id != ''", "role != 'HOST'"] : []),
      "published_at > toDateTime64(0, 3, 'UTC')",
      ...scopeFilters(params, { podcastId: f.podcastId, publisherId: f.publisherId }),
    ];
    if (f.lo !== undefined) {
      params.lo = f.lo;
      where.push(`published_at >= ${instant('lo')}`);
    }
    if (f.hi !== undefined) {
      params.hi = f.hi;
      where.push(`published_at < ${instant('hi')}`);
    }
    if (f.guest && Object.keys(f.guest).length > 0)
      where.push(...(await this.sources.guestConditions(f.guest, params)));
    const rows = await this.store.query<GuestRow>(
      `SELECT person_id, uniqExact(episode_id) AS appearances, uniqExact(podcast_id) AS podcast_count,
         sum(line_count) AS line_count,
         toUnixTimestamp64Milli(max(published_at)) AS last_appearance_ms,
         toUnixTimestamp64Milli(min(published_at)) AS first_appearance_ms,
         arraySort(arrayFilter(c -> c != '', groupUniqArray(toString(capacity)))) AS capacities,
         arraySort(groupUniqArray(toString(role))) AS roles,
         argMax(episode_id, (published_at, episode_id)) AS last_episode_id
       FROM ${table} FINAL WHERE ${where.join(' AND ')}
       GROUP BY person_id ORDER BY ${order} LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      params,
    );
    return rows.map(guestRow);
  }

  /** Episodes published per bucket of `window`, and over the whole window. */
  async episodeTimeseries(
    f: EpisodeTimeseriesFilter,
    window: Window,
    interval: Interval,
  ): Promise<{
    buckets: Map<number, { episodes: number; podcasts: number }>;
    episodes: number;
    podcasts: number;
  }> {
    const params: QueryParams = { lo: window.start, hi: window.end };
    const where = [
      `published_at >= ${instant('lo')}`,
      `published_at < ${instant('hi')}`,
      ...scopeFilters(params, { podcastId: f.podcastId, publisherId: f.publisherId }),
    ];
    if (f.lang !== undefined) {
      params.lang = f.lang;
      where.push('podcast_id IN (SELECT id FROM podcasts FINAL WHERE lang = {lang:String})');
    }
    if (f.entityId !== undefined) {
      if (typeof f.entityId !== 'string') where.push('0');
      else {
        params.entity = f.entityId;
        where.push(
          `id IN (SELECT episode_id FROM entity_episodes FINAL WHERE entity_id = {entity:String}
             AND lines > ad_lines AND published_at >= ${instant('lo')} AND published_at < ${instant('hi')})`,
        );
      }
    }
    const rows = await this.store.query<{
      bucket: number;
      total: number;
      episodes: number;
      podcasts: number;
    }>(
      `SELECT ${bucketSql('published_at', interval)} AS bucket, grouping(bucket) AS total,
         uniqExact(id) AS episodes, uniqExact(podcast_id) AS podcasts
       FROM episode_dates FINAL WHERE ${where.join(' AND ')}
       GROUP BY GROUPING SETS ((bucket), ())`,
      params,
    );
    const buckets = new Map<number, { episodes: number; podcasts: number }>();
    let totals = { episodes: 0, podcasts: 0 };
    for (const r of rows) {
      const c = { episodes: Number(r.episodes), podcasts: Number(r.podcasts) };
      if (Number(r.total) === 1) totals = c;
      else buckets.set(Number(r.bucket), c);
    }
    return { buckets, ...totals };
  }
}
