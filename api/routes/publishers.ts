import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { PublisherRow } from '../../projections/catalog/catalog-reader.ts';
import { ListEnvelope } from '../pagination.ts';
import { withProblems } from '../schemas.ts';
import { type AnalyticsRouteOptions, notFound } from '../views/analytics.ts';
import { NamedListQuery, namePage, Publisher, RefParams } from '../views/catalog-records.ts';

/** Publishers: the list by name, and one publisher by reference. */
export const publisherRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { catalog, lists } = opts;

  async function publisherViews(rows: PublisherRow[]): Promise<Static<typeof Publisher>[]> {
    const counts = await lists.podcastCounts(rows.map((r) => r.id));
    return rows.map((r) => ({
      id: r.id,
      slug: r.slug,
      name: r.name,
      description: r.description,
      website_url: r.website_url,
      image_url: r.image_url,
      podcast_count: counts.get(r.id) ?? 0,
    }));
  }

  app.get(
    '/v1/podcasts/publishers',
    {
      schema: {
        tags: ['publishers'],
        summary: 'Publishers by name',
        querystring: NamedListQuery,
        response: withProblems({ 200: ListEnvelope(Publisher) }),
      },
    },
    async (request) => {
      const q = request.query as Static<typeof NamedListQuery>;
      const result = await namePage(app.cursors, 'publishers', q, (page) => lists.publishers(page));
      return { ...result, data: await publisherViews(result.data) };
    },
  );

  app.get(
    '/v1/podcasts/publishers/:id',
    {
      schema: {
        tags: ['publishers'],
        summary: 'One publisher by slug or ID',
        params: RefParams('publisher slug or ID'),
        response: withProblems({ 200: Publisher }),
      },
    },
    async (request) => {
      const publisher = await catalog.publisher(request.params.id);
      if (!publisher) throw notFound('path.id', 'no publisher has this slug or ID', request.params.id);
      return (await publisherViews([publisher]))[0]!;
    },
  );
};
