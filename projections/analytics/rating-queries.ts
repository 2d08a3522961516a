import type { AnalyticsStore, QueryParams } from './analytics-store.ts';

/** Listener rating snapshots of one podcast (`rating_snapshots`). */
export interface RatingSnapshotRow {
  platform: string;
  country: string;
  captured_ms: number;
  average: number;
  count: number;
}

export class RatingQueries {
  constructor(private readonly store: AnalyticsStore) {}

  /** Every snapshot of the podcast, by platform, country and time (a platform or country narrows). */
  async snapshots(
    podcastId: string,
    f: { platform?: string; country?: string } = {},
  ): Promise<RatingSnapshotRow[]> {
    const params: QueryParams = { podcast: podcastId };
    const where = ['podcast_id = {podcast:String}'];
    if (f.platform !== undefined) {
      params.platform = f.platform;
      where.push('platform = {platform:String}');
    }
    if (f.country !== undefined) {
      params.country = f.country.toUpperCase();
      where.push('country = {country:String}');
    }
    const rows = await this.store.query<RatingSnapshotRow>(
      `SELECT toString(platform) AS platform, toString(country) AS country,
         toUnixTimestamp64Milli(captured_at) AS captured_ms, average, count
       FROM rating_snapshots FINAL WHERE ${where.join(' AND ')}
       ORDER BY platform, country, captured_at`,
      params,
    );
    return rows.map((r) => ({
      ...r,
      captured_ms: Number(r.captured_ms),
      average: Number(r.average),
      count: Number(r.count),
    }));
  }
}
