import type { AnalyticsStore, QueryParams, ScopeId } from './analytics-store.ts';
import { idFilter, instant, scopeFilters } from './scope-filters.ts';

/**
 * Individual ad reads (placements) and the sponsor directory. Ads are dated by their episode's
 * publication time; the directory, like every other ad figure, leaves network promos out, while
 * the placements list shows them with their flag.
 */
export interface PlacementRow {
  id: string;
  episode_id: string;
  podcast_id: string;
  published_ms: number;
  sponsor_key: string;
  sponsor_name: string;
  company_id: string;
  read_type: string;
  is_network_promo: number;
  segment_id: string | null;
  start_seconds: number;
  end_seconds: number;
}

export interface PlacementFilter {
  companyId?: ScopeId;
  podcastId?: ScopeId;
  publisherId?: ScopeId;
  readType?: string;
  /** `[lo, hi)` in epoch ms; either bound may be absent. */
  lo?: number;
  hi?: number;
}

/** Keyset position: the last row of the previous page (newest first). */
export interface PlacementPosition {
  published_ms: number;
  episode_id: string;
  id: string;
}

export interface SponsorDirectoryRow {
  sponsor_key: string;
  sponsor_name: string;
  company_id: string;
  ad_count: number;
  episode_reach: number;
  podcast_reach: number;
  first_seen_ms: number;
  last_seen_ms: number;
}

export type SponsorSort = 'ad_count' | 'reach';

export interface SponsorPodcastRow {
  podcast_id: string;
  ad_count: number;
  episode_count: number;
  last_ad_ms: number;
}

const KNOWN_DATE = "published_at > toDateTime64(0, 3, 'UTC')";

/** A sponsor's stable id when it is no catalog company: `sp_` + 12 hex of SHA-256 of its key. */
export const SPONSOR_HASH_SQL = 'lower(substring(hex(SHA256(sponsor_key)), 1, 12))';

export class PlacementQueries {
  constructor(private readonly store: AnalyticsStore) {}

  private where(params: QueryParams, f: PlacementFilter): string[] {
    const where = [
      KNOWN_DATE,
      ...scopeFilters(params, { podcastId: f.podcastId, publisherId: f.publisherId }),
    ];
    // A company's ads are its sponsor's: `sponsor_key` is the company id (rows.ts), which is
    // what `sponsor_ad_reads` is sorted by first.
    if (f.companyId !== undefined)
      where.push(
        idFilter(
          params,
          'company',
          f.companyId,
          'sponsor_key = {company:String} AND company_id = {company:String}',
        ),
      );
    if (f.readType !== undefined) {
      params.read_type = f.readType;
      where.push('read_type = {read_type:String}');
    }
    if (f.lo !== undefined) {
      params.lo = f.lo;
      where.push(`published_at >= ${instant('lo')}`);
    }
    if (f.hi !== undefined) {
      params.hi = f.hi;
      where.push(`published_at < ${instant('hi')}`);
    }
    return where;
  }

  /**
   * Ad reads newest first (publication time, then episode and read id, descending), after `after`.
   * `ad_reads` is sorted by publication time and `sponsor_ad_reads` by sponsor, then publication
   * time, so a page looks back from its upper bound in widening spans (7, 56, 448 days, then
   * without bound) and stops at the first span holding a whole page: every row outside a span is
   * older than every row in it, so the page is the same, and the newest pages read a small range
   * of the table — of the whole table, or of one company's range of `sponsor_ad_reads` — instead
   * of all of it (FINAL reads the whole range a query names, whatever its LIMIT). Lists filtered by
   * podcast, publisher or read type alone are sparse in time and read the whole range at once.
   */
  async placements(f: PlacementFilter, limit: number, after?: PlacementPosition): Promise<PlacementRow[]> {
    const params: QueryParams = { limit };
    const where = this.where(params, f);
    if (after) {
      Object.assign(params, { a_ms: after.published_ms, a_ep: after.episode_id, a_id: after.id });
      where.push(`(published_at, episode_id, id) < (${instant('a_ms')}, {a_ep:String}, {a_id:String})`);
    }
    const company = f.companyId;
    const byCompany = company !== undefined;
    const table = byCompany ? 'sponsor_ad_reads' : 'ad_reads';
    const sparse =
      !byCompany && (f.podcastId !== undefined || f.publisherId !== undefined || f.readType !== undefined);
    let top = after?.published_ms ?? f.hi;
    if (top === undefined && !sparse) {
      // The newest row's time (deleted or not: any upper bound serves); a company's read in key
      // order from the end of its range.
      const [row] = await this.store.query<{ ms: number }>(
        company !== undefined
          ? `SELECT toUnixTimestamp64Milli(published_at) AS ms FROM sponsor_ad_reads
             WHERE ${idFilter(params, 'company', company, 'sponsor_key = {company:String}')}
             ORDER BY sponsor_key DESC, published_at DESC LIMIT 1`
          : 'SELECT toUnixTimestamp64Milli(max(published_at)) AS ms FROM ad_reads',
        params,
      );
      top = Number(row?.ms ?? 0);
    }
    for (const days of sparse ? [undefined] : [7, 56, 448, undefined]) {
      const from = days === undefined || top === undefined ? undefined : top - days * 86_400_000;
      const bounded = from !== undefined && (f.lo === undefined || from > f.lo);
      const span = bounded ? [...where, `published_at >= ${instant('span_lo')}`] : where;
      const rows = await this.store.query<PlacementRow>(
        `SELECT id, episode_id, toString(podcast_id) AS podcast_id, toUnixTimestamp64Milli(published_at) AS published_ms,
           toString(sponsor_key) AS sponsor_key, toString(sponsor_name) AS sponsor_name, toString(company_id) AS company_id,
           toString(read_type) AS read_type, is_network_promo, segment_id, start_seconds, end_seconds
         FROM ${table} FINAL WHERE ${span.join(' AND ')}
         ORDER BY published_at DESC, episode_id DESC, id DESC LIMIT {limit:UInt32}`,
        bounded ? { ...params, span_lo: from } : params,
      );
      if (bounded && rows.length < limit) continue;
      return rows.map((r) => ({
        ...r,
        published_ms: Number(r.published_ms),
        is_network_promo: Number(r.is_network_promo),
        start_seconds: Number(r.start_seconds),
        end_seconds: Number(r.end_seconds),
      }));
    }
    return [];
  }

  /**
   * Sponsors over `[lo, hi)` (all time without bounds), network promos left out: every sponsor
   * whose name holds `q` (case-insensitive) when given, sorted by ads or by podcast reach.
   */
  async sponsors(
    f: { q?: string; lo?: number; hi?: number; sort: SponsorSort },
    page: { offset: number; limit: number },
  ): Promise<SponsorDirectoryRow[]> {
    const params: QueryParams = { offset: page.offset, limit: page.limit };
    const order =
      f.sort === 'reach'
        ? 'podcast_reach DESC, ad_count DESC, sponsor_key ASC'
        : 'ad_count DESC, podcast_reach DESC, sponsor_key ASC';
    if (f.q === undefined && f.lo === undefined && f.hi === undefined) {
      // Every sponsor over all time: one row each, recomputed at projection (rollups.ts).
      const rows = await this.store.query<SponsorDirectoryRow>(
        `SELECT sponsor_key, sponsor_name, company_id, ad_count, episode_reach, podcast_reach,
           toUnixTimestamp64Milli(first_seen) AS first_seen_ms, toUnixTimestamp64Milli(last_seen) AS last_seen_ms
         FROM sponsor_totals FINAL ORDER BY ${order} LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
        params,
      );
      return rows.map(directoryRow);
    }
    // The window's (sponsor, episode) rows (network promos left out): a sponsor's episodes are its rows.
    const where = this.where(params, { lo: f.lo, hi: f.hi });
    if (f.q !== undefined) {
      params.q = f.q;
      // The table names the column: the SELECT aliases `sponsor_name` to an aggregate
      where.push('positionCaseInsensitiveUTF8(sponsor_episodes.sponsor_name, {q:String}) > 0');
    }
    const rows = await this.store.query<SponsorDirectoryRow>(
      `SELECT toString(sponsor_key) AS sponsor_key, toString(any(sponsor_name)) AS sponsor_name,
         toString(any(company_id)) AS company_id, sum(ads) AS ad_count, count() AS episode_reach,
         uniqExact(podcast_id) AS podcast_reach, toUnixTimestamp64Milli(min(published_at)) AS first_seen_ms,
         toUnixTimestamp64Milli(max(published_at)) AS last_seen_ms
       FROM sponsor_episodes FINAL WHERE ${where.join(' AND ')}
       GROUP BY sponsor_key ORDER BY ${order} LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      params,
    );
    return rows.map(directoryRow);
  }

  /**
   * The key of the sponsor a reference names: a company id, an `sp_` id, or a name-only sponsor's
   * slug. Read from the sponsor totals (one row per sponsor with ads, network promos left out).
   */
  async sponsorKey(ref: { companyId?: string; hash?: string }): Promise<string | undefined> {
    if (ref.companyId !== undefined) {
      const [row] = await this.store.query<{ k: string }>(
        `SELECT sponsor_key AS k FROM sponsor_totals FINAL
         WHERE sponsor_key = {company:String} AND company_id = {company:String} LIMIT 1`,
        { company: ref.companyId },
      );
      return row?.k;
    }
    if (ref.hash !== undefined) {
      const [row] = await this.store.query<{ k: string }>(
        `SELECT sponsor_key AS k FROM sponsor_totals FINAL
         WHERE company_id = '' AND ${SPONSOR_HASH_SQL} = {hash:String} ORDER BY sponsor_key LIMIT 1`,
        { hash: ref.hash },
      );
      return row?.k;
    }
    return undefined;
  }

  /** Keys and names of the sponsors that are no catalog company (from the sponsor totals). */
  async nameOnlySponsors(): Promise<{ sponsor_key: string; sponsor_name: string }[]> {
    return this.store.query(
      "SELECT sponsor_key, sponsor_name FROM sponsor_totals FINAL WHERE company_id = ''",
    );
  }

  /**
   * One sponsor's all-time figures, its read types and its podcasts (most ads first), from its
   * range of `sponsor_ad_reads`.
   */
  async sponsor(key: string): Promise<
    | {
        row: SponsorDirectoryRow;
        readTypes: { host_read: number; pre_recorded: number };
        podcasts: SponsorPodcastRow[];
      }
    | undefined
  > {
    const params = { key };
    // The sponsor's range of the copy sorted by sponsor.
    const base = `sponsor_ad_reads FINAL WHERE sponsor_key = {key:String} AND ${KNOWN_DATE} AND is_network_promo = 0`;
    const [rows, types, podcasts] = await Promise.all([
      this.store.query<SponsorDirectoryRow>(
        `SELECT toString(sponsor_key) AS sponsor_key, toString(any(sponsor_name)) AS sponsor_name,
           toString(any(company_id)) AS company_id, count() AS ad_count, uniqExact(episode_id) AS episode_reach,
           uniqExact(podcast_id) AS podcast_reach, toUnixTimestamp64Milli(min(published_at)) AS first_seen_ms,
           toUnixTimestamp64Milli(max(published_at)) AS last_seen_ms
         FROM ${base} GROUP BY sponsor_key`,
        params,
      ),
      this.store.query<{ host_read: number; pre_recorded: number }>(
        `SELECT countIf(read_type = 'host_read') AS host_read, countIf(read_type = 'pre_recorded') AS pre_recorded
         FROM ${base}`,
        params,
      ),
      this.store.query<SponsorPodcastRow>(
        `SELECT toString(podcast_id) AS podcast_id, count() AS ad_count, uniqExact(episode_id) AS episode_count,
           toUnixTimestamp64Milli(max(published_at)) AS last_ad_ms
         FROM ${base} GROUP BY podcast_id ORDER BY ad_count DESC, podcast_id ASC`,
        params,
      ),
    ]);
    const row = rows[0];
    if (!row) return undefined;
    return {
      row: directoryRow(row),
      readTypes: {
        host_read: Number(types[0]?.host_read ?? 0),
        pre_recorded: Number(types[0]?.pre_recorded ?? 0),
      },
      podcasts: podcasts.map((p) => ({
        podcast_id: p.podcast_id,
        ad_count: Number(p.ad_count),
        episode_count: Number(p.episode_count),
        last_ad_ms: Number(p.last_ad_ms),
      })),
    };
  }
}

function directoryRow(r: SponsorDirectoryRow): SponsorDirectoryRow {
  return {
    ...r,
    ad_count: Number(r.ad_count),
    episode_reach: Number(r.episode_reach),
    podcast_reach: Number(r.podcast_reach),
    first_seen_ms: Number(r.first_seen_ms),
    last_seen_ms: Number(r.last_seen_ms),
  };
}
