import type { AnalyticsStore, QueryParams } from './analytics-store.ts';
import { instant } from './scope-filters.ts';

/**
 * Chart rankings and political-bias aggregates. A chart is (source, chart type, country,
 * category); its live rows are those of its newest capture, whatever the source reported as
 * `is_current`.
 */
export interface ChartRow {
  id: string;
  source: string;
  chart_type: string;
  country: string;
  category_slug: string;
  category_name: string;
  category_external_id: string | null;
  category_parent_slug: string | null;
  captured_ms: number;
  source_updated_ms: number | null;
  rank: number;
  previous_rank: number | null;
  chart_total: number;
  external_id: string;
  external_url: string | null;
  growth_indicator: string | null;
  channel_subscriber_count: number | null;
  view_count: number | null;
  weekly_avg_downloads: number | null;
  reach_pct: number | null;
  show: string;
  podcast_id: string;
}

export interface RankingSourceRow {
  source: string;
  chart_type: string;
  current_row_count: number;
  latest_captured_ms: number;
}

export interface PublisherBiasRow {
  publisher_id: string;
  analyzed_podcasts: number;
  political_podcasts: number;
  avg_topic_percentage: number;
  avg_score: number | null;
  stddev: number | null;
  last_evaluated_ms: number;
  n_left: number;
  n_lean_left: number;
  n_center: number;
  n_lean_right: number;
  n_right: number;
}

const LIVE = `(source, chart_type, country, category_slug, captured_at) IN (
  SELECT source, chart_type, country, category_slug, max(captured_at) FROM chart_rows FINAL
  GROUP BY source, chart_type, country, category_slug)`;

const CHART_COLUMNS = `id, source, chart_type, country, category_slug, category_name, category_external_id,
  category_parent_slug, toUnixTimestamp64Milli(captured_at) AS captured_ms,
  if(isNull(source_updated_at), NULL, toUnixTimestamp64Milli(assumeNotNull(source_updated_at))) AS source_updated_ms,
  rank, previous_rank, chart_total, external_id, external_url, growth_indicator, channel_subscriber_count, view_count,
  weekly_avg_downloads, reach_pct, show, podcast_id`;

export class ChartQueries {
  constructor(private readonly store: AnalyticsStore) {}

  /** Live chart rows of the given podcasts, best rank first. */
  async liveRowsOf(podcastIds: string[]): Promise<ChartRow[]> {
    if (podcastIds.length === 0) return [];
    const rows = await this.store.query<ChartRow>(
      `SELECT ${CHART_COLUMNS} FROM chart_rows FINAL
       WHERE podcast_id IN {ids:Array(String)} AND ${LIVE}
       ORDER BY rank ASC, source, chart_type, country, category_slug, id`,
      { ids: podcastIds },
    );
    return rows.map(numbers);
  }

  /** Each (source, chart type) with its live row count and newest capture. */
  async sources(): Promise<RankingSourceRow[]> {
    const rows = await this.store.query<RankingSourceRow>(
      `SELECT source, chart_type, countIf(${LIVE}) AS current_row_count,
         toUnixTimestamp64Milli(max(captured_at)) AS latest_captured_ms
       FROM chart_rows FINAL GROUP BY source, chart_type ORDER BY source, chart_type`,
    );
    return rows.map((r) => ({
      ...r,
      current_row_count: Number(r.current_row_count),
      latest_captured_ms: Number(r.latest_captured_ms),
    }));
  }

  /**
   * Per publisher, over the newest evaluation of each podcast evaluated in `[since, until)` (and
   * in `context` when given): analyzed and political podcasts, mean political airtime, mean and
   * spread of the lean of political podcasts, and how many carry each bias label.
   */
  async publisherBias(options: {
    since?: number;
    until?: number;
    context?: string;
  }): Promise<PublisherBiasRow[]> {
    const params: QueryParams = {};
    const where: string[] = [];
    if (options.since !== undefined) {
      params.since = options.since;
      where.push(`evaluated_at >= ${instant('since')}`);
    }
    if (options.until !== undefined) {
      params.until = options.until;
      where.push(`evaluated_at < ${instant('until')}`);
    }
    if (options.context !== undefined) {
      params.context = options.context;
      where.push('political_context = {context:String}');
    }
    const rows = await this.store.query<PublisherBiasRow>(
      `SELECT p.publisher_id AS publisher_id, count() AS analyzed_podcasts, countIf(e.is_political = 1) AS political_podcasts,
         avg(e.topic) AS avg_topic_percentage,
         avgIf(e.lean, e.is_political = 1 AND isNotNull(e.lean)) AS avg_score,
         stddevPopIf(e.lean, e.is_political = 1 AND isNotNull(e.lean)) AS stddev,
         toUnixTimestamp64Milli(max(e.latest_at)) AS last_evaluated_ms,
         countIf(e.is_political = 1 AND e.bias = 'LEFT') AS n_left,
         countIf(e.is_political = 1 AND e.bias = 'LEAN_LEFT') AS n_lean_left,
         countIf(e.is_political = 1 AND e.bias = 'CENTER') AS n_center,
         countIf(e.is_political = 1 AND e.bias = 'LEAN_RIGHT') AS n_lean_right,
         countIf(e.is_political = 1 AND e.bias = 'RIGHT') AS n_right
       FROM (
         SELECT podcast_id, argMax(is_political, (evaluated_at, id)) AS is_political,
           argMax(political_topic_percentage, (evaluated_at, id)) AS topic,
           argMax(lean_score, (evaluated_at, id)) AS lean, argMax(bias, (evaluated_at, id)) AS bias,
           max(evaluated_at) AS latest_at
         FROM bias_evaluations FINAL ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
         GROUP BY podcast_id
       ) AS e
       INNER JOIN (SELECT id, publisher_id FROM podcasts FINAL WHERE publisher_id != '') AS p ON p.id = e.podcast_id
       GROUP BY p.publisher_id`,
      params,
    );
    const num = (v: unknown) => (v === null || v === undefined || Number.isNaN(Number(v)) ? null : Number(v));
    return rows.map((r) => ({
      publisher_id: r.publisher_id,
      analyzed_podcasts: Number(r.analyzed_podcasts),
      political_podcasts: Number(r.political_podcasts),
      avg_topic_percentage: Number(r.avg_topic_percentage),
      avg_score: Number(r.political_podcasts) > 0 ? num(r.avg_score) : null,
      stddev: Number(r.political_podcasts) > 0 ? num(r.stddev) : null,
      last_evaluated_ms: Number(r.last_evaluated_ms),
      n_left: Number(r.n_left),
      n_lean_left: Number(r.n_lean_left),
      n_center: Number(r.n_center),
      n_lean_right: Number(r.n_lean_right),
      n_right: Number(r.n_right),
    }));
  }

  /** Podcasts per publisher in the catalog. */
  async podcastsPerPublisher(): Promise<Map<string, number>> {
    const rows = await this.store.query<{ publisher_id: string; n: number }>(
      `SELECT publisher_id, count() AS n FROM podcasts FINAL WHERE publisher_id != '' GROUP BY publisher_id`,
    );
    return new Map(rows.map((r) => [r.publisher_id, Number(r.n)]));
  }

  /** Newest bias evaluation of one podcast. */
  async latestBias(podcastId: string) {
    const [row] = await this.store.query<{
      id: string;
      evaluated_ms: number;
      political_context: string;
      is_political: number;
      political_topic_percentage: number;
      lean_score: number | null;
      bias: string | null;
      episodes_analyzed: number;
      model: string;
    }>(
      `SELECT id, toUnixTimestamp64Milli(evaluated_at) AS evaluated_ms, political_context, is_political,
         political_topic_percentage, lean_score, bias, episodes_analyzed, model
       FROM bias_evaluations FINAL WHERE podcast_id = {podcast:String}
       ORDER BY evaluated_at DESC, id DESC LIMIT 1`,
      { podcast: podcastId },
    );
    return row;
  }
}

function numbers(r: ChartRow): ChartRow {
  return {
    ...r,
    captured_ms: Number(r.captured_ms),
    source_updated_ms: r.source_updated_ms === null ? null : Number(r.source_updated_ms),
    rank: Number(r.rank),
    previous_rank: r.previous_rank === null ? null : Number(r.previous_rank),
    chart_total: Number(r.chart_total),
  };
}
