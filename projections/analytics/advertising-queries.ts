import type { AnalyticsStore, QueryParams, ScopeId } from './analytics-store.ts';
import { instant, inWindow, PUBLISHER_PODCASTS, scopeFilters } from './scope-filters.ts';
import { bucketSql, type Interval, type Window } from './time-buckets.ts';

/**
 * Sponsor and ad-read reads. Ads are dated by their episode's publication time; network promos
 * (a network advertising its own shows) are never counted as ads. A sponsor is its company when
 * the ad read names one, otherwise its normalised name.
 */
export interface SponsorTrendRow {
  sponsor_key: string;
  sponsor_name: string;
  company_id: string;
  recent: number;
  previous: number;
  recent_podcasts: number;
  last_ad_ms: number;
}

export interface SponsorStats {
  sponsor_key: string;
  ad_count: number;
  episode_reach: number;
  podcast_reach: number;
  first_seen_ms: number;
  last_seen_ms: number;
}

export interface PublisherAdTotals {
  total_ads: number;
  unique_sponsors: number;
  episode_reach: number;
  active_podcasts: number;
  host_read: number;
  pre_recorded: number;
  network_promos: number;
}

export interface PublisherSponsorRow {
  sponsor_key: string;
  sponsor_name: string;
  company_id: string;
  ad_count: number;
  episode_count: number;
  podcast_count: number;
}

export interface AdCounts {
  ads: number;
  episodes: number;
  podcasts: number;
}

const ADS = "ad_reads FINAL WHERE is_network_promo = 0 AND published_at > toDateTime64(0, 3, 'UTC')";

export class AdvertisingQueries {
  constructor(private readonly store: AnalyticsStore) {}

  /**
   * Sponsors with more ads in `[mid, hi)` than in `[lo, mid)` whose recent ads span at least
   * `minPodcastReach` podcasts, by the gain, largest first (then recent ads, then sponsor).
   */
  async sponsorTrends(
    lo: number,
    mid: number,
    hi: number,
    minPodcastReach: number,
  ): Promise<SponsorTrendRow[]> {
    const rows = await this.store.query<SponsorTrendRow>(
      `SELECT sponsor_key, any(sponsor_name) AS sponsor_name, any(company_id) AS company_id,
         countIf(published_at >= ${instant('mid')}) AS recent,
         countIf(published_at < ${instant('mid')}) AS previous,
         uniqExactIf(podcast_id, published_at >= ${instant('mid')}) AS recent_podcasts,
         toUnixTimestamp64Milli(max(published_at)) AS last_ad_ms
       FROM ${ADS} AND ${inWindow().join(' AND ')}
       GROUP BY sponsor_key
       HAVING recent > previous AND recent_podcasts >= {reach:UInt32}
       ORDER BY recent - previous DESC, recent DESC, sponsor_key ASC`,
      { lo, mid, hi, reach: minPodcastReach },
    );
    return rows.map((r) => ({
      ...r,
      recent: Number(r.recent),
      previous: Number(r.previous),
      recent_podcasts: Number(r.recent_podcasts),
      last_ad_ms: Number(r.last_ad_ms),
    }));
  }

  /** All-time figures of the given sponsors (of every sponsor without `keys`). */
  async sponsorStats(keys?: string[]): Promise<Map<string, SponsorStats>> {
    if (keys?.length === 0) return new Map();
    const rows = await this.store.query<SponsorStats>(
      `SELECT sponsor_key, count() AS ad_count, uniqExact(episode_id) AS episode_reach,
         uniqExact(podcast_id) AS podcast_reach, toUnixTimestamp64Milli(min(published_at)) AS first_seen_ms,
         toUnixTimestamp64Milli(max(published_at)) AS last_seen_ms
       FROM ${ADS} ${keys ? 'AND sponsor_key IN {keys:Array(String)}' : ''} GROUP BY sponsor_key`,
      keys ? { keys } : {},
    );
    return new Map(
      rows.map((r) => [
        r.sponsor_key,
        {
          sponsor_key: r.sponsor_key,
          ad_count: Number(r.ad_count),
          episode_reach: Number(r.episode_reach),
          podcast_reach: Number(r.podcast_reach),
          first_seen_ms: Number(r.first_seen_ms),
          last_seen_ms: Number(r.last_seen_ms),
        },
      ]),
    );
  }

  /** Ad totals over the podcasts of one publisher (all time). */
  async publisherTotals(publisherId: string): Promise<PublisherAdTotals> {
    const params = { publisher: publisherId };
    const [row] = await this.store.query<PublisherAdTotals>(
      `SELECT countIf(is_network_promo = 0) AS total_ads, uniqExactIf(sponsor_key, is_network_promo = 0) AS unique_sponsors,
         uniqExactIf(episode_id, is_network_promo = 0) AS episode_reach,
         uniqExactIf(podcast_id, is_network_promo = 0) AS active_podcasts,
         countIf(is_network_promo = 0 AND read_type = 'host_read') AS host_read,
         countIf(is_network_promo = 0 AND read_type = 'pre_recorded') AS pre_recorded,
         countIf(is_network_promo = 1) AS network_promos
       FROM ad_reads FINAL WHERE published_at > toDateTime64(0, 3, 'UTC') AND ${PUBLISHER_PODCASTS}`,
      params,
    );
    const n = (v: unknown) => Number(v ?? 0);
    return {
      total_ads: n(row?.total_ads),
      unique_sponsors: n(row?.unique_sponsors),
      episode_reach: n(row?.episode_reach),
      active_podcasts: n(row?.active_podcasts),
      host_read: n(row?.host_read),
      pre_recorded: n(row?.pre_recorded),
      network_promos: n(row?.network_promos),
    };
  }

  /** Every sponsor of one publisher's podcasts with its ads, episodes and podcasts, most ads first. */
  async publisherSponsors(publisherId: string): Promise<PublisherSponsorRow[]> {
    const rows = await this.store.query<PublisherSponsorRow>(
      `SELECT sponsor_key, any(sponsor_name) AS sponsor_name, any(company_id) AS company_id, count() AS ad_count,
         uniqExact(episode_id) AS episode_count, uniqExact(podcast_id) AS podcast_count
       FROM ${ADS} AND ${PUBLISHER_PODCASTS}
       GROUP BY sponsor_key ORDER BY ad_count DESC, sponsor_key ASC`,
      { publisher: publisherId },
    );
    return rows.map((r) => ({
      ...r,
      ad_count: Number(r.ad_count),
      episode_count: Number(r.episode_count),
      podcast_count: Number(r.podcast_count),
    }));
  }

  /** Ads of one company per bucket and over the window, optionally within one podcast or publisher. */
  async companyTimeseries(
    companyId: string,
    window: Window,
    interval: Interval,
    scope: { podcastId?: ScopeId; publisherId?: ScopeId },
  ): Promise<{ buckets: Map<number, AdCounts>; totals: AdCounts }> {
    const params: QueryParams = { company: companyId, lo: window.start, hi: window.end };
    const where = ['company_id = {company:String}', ...inWindow(), ...scopeFilters(params, scope)];
    const rows = await this.store.query<{
      bucket: number;
      total: number;
      ads: number;
      episodes: number;
      podcasts: number;
    }>(
      `SELECT ${bucketSql('published_at', interval)} AS bucket, grouping(bucket) AS total, count() AS ads,
         uniqExact(episode_id) AS episodes, uniqExact(podcast_id) AS podcasts
       FROM ${ADS} AND ${where.join(' AND ')}
       GROUP BY GROUPING SETS ((bucket), ())`,
      params,
    );
    const buckets = new Map<number, AdCounts>();
    let totals: AdCounts = { ads: 0, episodes: 0, podcasts: 0 };
    for (const r of rows) {
      const c = { ads: Number(r.ads), episodes: Number(r.episodes), podcasts: Number(r.podcasts) };
      if (Number(r.total) === 1) totals = c;
      else buckets.set(Number(r.bucket), c);
    }
    return { buckets, totals };
  }

  /** Ad reads of one episode, in air order. */
  async episodeAdReads(episodeId: string) {
    return this.store.query<{
      id: string;
      sponsor_name: string;
      company_id: string;
      read_type: string;
      is_network_promo: number;
      segment_id: string | null;
      start_seconds: number;
      end_seconds: number;
      first_line: number | null;
      last_line: number | null;
    }>(
      `SELECT id, sponsor_name, company_id, read_type, is_network_promo, segment_id, start_seconds, end_seconds,
         first_line, last_line
       FROM ad_reads FINAL WHERE episode_id = {episode:String} ORDER BY start_seconds, id`,
      { episode: episodeId },
    );
  }

  /** The sponsors of one podcast (all time), most ads first. */
  async podcastSponsors(podcastId: string, limit: number) {
    const rows = await this.store.query<PublisherSponsorRow & { last_ad_ms: number }>(
      `SELECT sponsor_key, any(sponsor_name) AS sponsor_name, any(company_id) AS company_id, count() AS ad_count,
         uniqExact(episode_id) AS episode_count, 1 AS podcast_count, toUnixTimestamp64Milli(max(published_at)) AS last_ad_ms
       FROM ${ADS} AND podcast_id = {podcast:String}
       GROUP BY sponsor_key ORDER BY ad_count DESC, sponsor_key ASC LIMIT {limit:UInt32}`,
      { podcast: podcastId, limit },
    );
    return rows.map((r) => ({
      ...r,
      ad_count: Number(r.ad_count),
      episode_count: Number(r.episode_count),
      last_ad_ms: Number(r.last_ad_ms),
    }));
  }
}
