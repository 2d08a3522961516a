import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ListEnvelope, offsetPage, pageQueryAll } from '../pagination.ts';
import { Timestamp, withProblems } from '../schemas.ts';
import { type AnalyticsRouteOptions, notFound } from '../views/analytics.ts';
import { RankingRecord, rankingRecords } from '../views/rankings.ts';
import { iso } from '../windows.ts';

/** Chart rankings: a podcast's live chart appearances, and the sources with their freshness. */
const SourceRecord = Type.Object({
  chart_type: Type.String(),
  source: Type.String(),
  current_row_count: Type.Integer(),
  latest_captured_at: Timestamp,
});

export const rankingRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { charts } = opts.reads;
  const { catalog } = opts;

  app.get(
    '/v1/podcasts/:id/rankings',
    {
      schema: {
        tags: ['rankings'],
        summary: 'Every live chart appearance of one podcast, best rank first',
        params: Type.Object({
          id: Type.String({ maxLength: 200, description: 'podcast slug, ID or numeric directory ID' }),
        }),
        querystring: Type.Object(pageQueryAll()),
        response: withProblems({ 200: ListEnvelope(RankingRecord) }),
      },
    },
    async (request) => {
      const podcast = await catalog.podcast(request.params.id);
      if (!podcast)
        throw notFound('path.id', 'no podcast has this slug, ID or directory ID', request.params.id);
      const rows = await charts.liveRowsOf([podcast.id]);
      const publishers = await catalog.publishersByIds(podcast.publisher_id ? [podcast.publisher_id] : []);
      const records = rankingRecords(rows, rows, new Map([[podcast.id, podcast]]), publishers);
      return offsetPage(
        app.cursors,
        `rankings:${podcast.id}`,
        records,
        request.query.limit,
        request.query.cursor,
      );
    },
  );

  app.get(
    '/v1/podcasts/rankings/sources',
    {
      schema: {
        tags: ['rankings'],
        summary: 'Each (source, chart type) with its live row count and newest capture',
        querystring: Type.Object(pageQueryAll()),
        response: withProblems({ 200: ListEnvelope(SourceRecord) }),
      },
    },
    async (request) => {
      const rows = (await charts.sources()).map((r) => ({
        chart_type: r.chart_type,
        source: r.source,
        current_row_count: r.current_row_count,
        latest_captured_at: iso(r.latest_captured_ms),
      }));
      return offsetPage(app.cursors, 'ranking-sources', rows, request.query.limit, request.query.cursor);
    },
  );
};
