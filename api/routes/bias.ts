import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { PublisherBiasRow } from '../../projections/analytics/chart-queries.ts';
import { ListEnvelope, offsetPage, pageQuery } from '../pagination.ts';
import { requirePremiumEndpoint } from '../premium.ts';
import { invalidParameter } from '../problem.ts';
import { DateParam, StringEnum, Timestamp, withProblems } from '../schemas.ts';
import type { AnalyticsRouteOptions } from '../views/analytics.ts';
import { parseInstant } from '../windows.ts';

/**
 * Publisher political-bias leaderboard (premium). Each podcast counts with its newest evaluation
 * in `[since, until)` (and in `political_context` when given); publishers with fewer analyzed
 * podcasts than `min_analyzed_podcasts` are not ranked, and the score and diversity metrics also
 * need `min_political_podcasts` political podcasts.
 */
export const METRICS = [
  'most_left_leaning',
  'most_right_leaning',
  'most_political',
  'most_diverse',
  'most_monolithic',
  'most_analyzed',
] as const;
export type Metric = (typeof METRICS)[number];
export const CONTEXTS = ['US', 'UK', 'EU', 'CANADA', 'AUSTRALIA', 'INDIA', 'OTHER', 'UNKNOWN'] as const;
export const DEFAULT_MIN_POLITICAL = 2;

/** Metrics that rank by lean (score) or its spread (diversity); the others rank by coverage. */
const NEEDS_POLITICAL: readonly Metric[] = [
  'most_left_leaning',
  'most_right_leaning',
  'most_diverse',
  'most_monolithic',
];
const BIAS_LABELS = ['CENTER', 'LEAN_LEFT', 'LEAN_RIGHT', 'LEFT', 'RIGHT'] as const;

const LeaderboardRow = Type.Object({
  rank: Type.Integer(),
  publisher: Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() }),
  coverage: Type.Object({
    analyzed_coverage: Type.Number({ description: 'analyzed_podcasts / total_podcasts, 0-1' }),
    analyzed_podcasts: Type.Integer(),
    total_podcasts: Type.Integer(),
  }),
  political_content: Type.Object({
    podcasts: Type.Integer({ description: 'analyzed podcasts judged political' }),
    share: Type.Number({ description: 'podcasts / analyzed_podcasts, 0-1' }),
    avg_topic_percentage: Type.Number({ description: 'mean share of airtime on political topics, 0-100' }),
  }),
  lean: Type.Object({
    avg_score: Type.Union([Type.Number(), Type.Null()], {
      description: '-1 (left) to +1 (right), political podcasts',
    }),
    dominant_bias: Type.Union([Type.String(), Type.Null()]),
    stddev: Type.Union([Type.Number(), Type.Null()], {
      description: 'spread of lean across political podcasts',
    }),
  }),
  last_evaluated_at: Timestamp,
});

const LeaderboardQuery = Type.Object({
  metric: StringEnum(METRICS, { default: 'most_political' }),
  political_context: Type.Optional(
    StringEnum(CONTEXTS, { description: 'restricts the evaluations before aggregation' }),
  ),
  min_analyzed_podcasts: Type.Integer({ minimum: 1, maximum: 500, default: 5 }),
  min_political_podcasts: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 500,
      description: `applied to score and diversity metrics (default ${DEFAULT_MIN_POLITICAL}); ignored for the others`,
    }),
  ),
  since: DateParam('analyses evaluated on or after'),
  until: DateParam('analyses evaluated strictly before'),
  ...pageQuery(),
});

function dominant(r: PublisherBiasRow): string | null {
  const counts: Record<(typeof BIAS_LABELS)[number], number> = {
    CENTER: r.n_center,
    LEAN_LEFT: r.n_lean_left,
    LEAN_RIGHT: r.n_lean_right,
    LEFT: r.n_left,
    RIGHT: r.n_right,
  };
  let best: string | null = null;
  let n = 0;
  for (const label of BIAS_LABELS) {
    if (counts[label] > n) {
      best = label;
      n = counts[label];
    }
  }
  return best;
}

/** Ranks publisher rows by a metric; returns eligible rows in order. Pure. */
export function rankPublishers(
  rows: (PublisherBiasRow & { total_podcasts: number })[],
  metric: Metric,
  minAnalyzed: number,
  minPolitical: number,
) {
  const share = (r: PublisherBiasRow) =>
    r.analyzed_podcasts > 0 ? r.political_podcasts / r.analyzed_podcasts : 0;
  const coverage = (r: PublisherBiasRow & { total_podcasts: number }) =>
    r.total_podcasts > 0 ? r.analyzed_podcasts / r.total_podcasts : 0;
  const eligible = rows.filter(
    (r) =>
      r.analyzed_podcasts >= minAnalyzed &&
      (!NEEDS_POLITICAL.includes(metric) ||
        (r.political_podcasts >= minPolitical && r.avg_score !== null && r.stddev !== null)),
  );
  const by: Record<Metric, (a: (typeof rows)[number], b: (typeof rows)[number]) => number> = {
    most_left_leaning: (a, b) => a.avg_score! - b.avg_score!,
    most_right_leaning: (a, b) => b.avg_score! - a.avg_score!,
    most_political: (a, b) => share(b) - share(a) || b.political_podcasts - a.political_podcasts,
    most_diverse: (a, b) => b.stddev! - a.stddev!,
    most_monolithic: (a, b) => a.stddev! - b.stddev!,
    most_analyzed: (a, b) => coverage(b) - coverage(a) || b.analyzed_podcasts - a.analyzed_podcasts,
  };
  return eligible.sort((a, b) => by[metric](a, b) || (a.publisher_id < b.publisher_id ? -1 : 1));
}

export const biasRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { charts } = opts.reads;
  const { catalog, dashboardUrl } = opts;

  app.get(
    '/v1/podcasts/bias/publishers/leaderboard',
    {
      schema: {
        tags: ['bias'],
        summary: 'Publishers ranked by a political-bias metric (premium)',
        querystring: LeaderboardQuery,
        response: withProblems({ 200: ListEnvelope(LeaderboardRow) }),
      },
    },
    async (request) => {
      requirePremiumEndpoint(request, dashboardUrl);
      const q = request.query as Static<typeof LeaderboardQuery>;
      const since = q.since !== undefined ? parseInstant(q.since, 'query.since', false) : undefined;
      const until = q.until !== undefined ? parseInstant(q.until, 'query.until', false) : undefined;
      if (since !== undefined && until !== undefined && since >= until) {
        throw invalidParameter('query.since', 'must be before until', q.since);
      }
      const metric = (q.metric ?? 'most_political') as Metric;
      const [rows, totals] = await Promise.all([
        charts.publisherBias({ since, until, context: q.political_context }),
        charts.podcastsPerPublisher(),
      ]);
      const ranked = rankPublishers(
        rows.map((r) => ({ ...r, total_podcasts: totals.get(r.publisher_id) ?? r.analyzed_podcasts })),
        metric,
        q.min_analyzed_podcasts ?? 5,
        q.min_political_podcasts ?? DEFAULT_MIN_POLITICAL,
      );
      const endpoint = `bias-leaderboard:${metric}`;
      const page = offsetPage(app.cursors, endpoint, ranked, q.limit ?? 25, q.cursor);
      const offset = ranked.indexOf(page.data[0]!);
      const publishers = await catalog.publishersByIds(page.data.map((r) => r.publisher_id));
      return {
        ...page,
        data: page.data.map((r, i) => {
          const p = publishers.get(r.publisher_id);
          return {
            rank: offset + i + 1,
            publisher: { id: r.publisher_id, name: p?.name ?? '', slug: p?.slug ?? '' },
            coverage: {
              analyzed_coverage: r.total_podcasts > 0 ? r.analyzed_podcasts / r.total_podcasts : 0,
              analyzed_podcasts: r.analyzed_podcasts,
              total_podcasts: r.total_podcasts,
            },
            political_content: {
              podcasts: r.political_podcasts,
              share: r.analyzed_podcasts > 0 ? r.political_podcasts / r.analyzed_podcasts : 0,
              avg_topic_percentage: r.avg_topic_percentage,
            },
            lean: { avg_score: r.avg_score, dominant_bias: dominant(r), stddev: r.stddev },
            last_evaluated_at: new Date(r.last_evaluated_ms).toISOString(),
          };
        }),
      };
    },
  );
};
