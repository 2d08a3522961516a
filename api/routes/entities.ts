import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import { NO_MATCH } from '../../projections/analytics/analytics-store.ts';
import type { TopEntityRow } from '../../projections/analytics/mention-queries.ts';
import { ListEnvelope, Position, pageQuery, pageQueryAll } from '../pagination.ts';
import { invalidParameter, problem } from '../problem.ts';
import { DateParam, withProblems } from '../schemas.ts';
import { type AnalyticsRouteOptions, compactEntities, EntityCompactFields } from '../views/analytics.ts';
import { resolveWindow } from '../windows.ts';

/** Most-mentioned entities (or exactly the ones asked for) and the entity categories. */
const MAX_IDS = 100;

const EntityWithMentions = Type.Object({
  ...EntityCompactFields,
  mention_count: Type.Integer({ description: 'mention lines outside ad reads in the window' }),
  episode_count: Type.Integer(),
  podcast_count: Type.Integer(),
});

const EntitiesQuery = Type.Object({
  ids: Type.Optional(
    Type.String({
      // At most 100 items (the pattern), 10,000 characters in all.
      maxLength: 10_000,
      pattern: '^[^,]*(,[^,]*){0,99}$',
      description:
        'comma-separated slugs or IDs, at most 100: returns exactly those (in that order), ignoring other filters and pagination; references that resolve to nothing are left out',
    }),
  ),
  podcast_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'most mentioned on this podcast' }),
  ),
  type: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'category slug (GET /v1/entities/types)' }),
  ),
  window_days: Type.Integer({
    minimum: 1,
    maximum: 365,
    default: 30,
    description: 'mentions are counted over the window of this many days ending at until (default now)',
  }),
  since: DateParam(
    'start of the window, included (a bare date from 00:00 UTC); default window_days before until. Any window: a whole archive can be ranked at once',
  ),
  until: DateParam(
    'end of the window: a bare date includes that whole UTC day, a date-time is excluded; default now',
  ),
  ...pageQuery(),
});

const TypesResponse = ListEnvelope(
  Type.Object({ slug: Type.String(), name: Type.String(), entity_count: Type.Integer() }),
);

const POSITION = Type.Object({ m: Position.count(), id: Position.id() });

export const entityRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { mentions } = opts.reads;
  const { catalog } = opts;

  app.get(
    '/v1/entities',
    {
      schema: {
        tags: ['entities'],
        summary: 'Most-mentioned entities, or the entities named by ids',
        description:
          '`q` is no longer accepted here (a 422 pointing to GET /v1/entities/search, which searches entities by name).',
        querystring: EntitiesQuery,
        response: withProblems({ 200: ListEnvelope(EntityWithMentions) }),
      },
    },
    async (request) => {
      // `q` is not in the schema (so not in the document), but unknown parameters are kept.
      const q = request.query as Static<typeof EntitiesQuery> & { q?: unknown };
      if (q.q !== undefined) {
        throw problem(
          'validation_error',
          'GET /v1/entities no longer searches; use GET /v1/entities/search?q=…',
          {
            errors: [
              {
                location: 'query.q',
                message: 'is not accepted here; search with GET /v1/entities/search',
                value: q.q,
              },
            ],
            resolve: {
              message: 'Search people, companies and knowledge-graph entities with GET /v1/entities/search.',
              action: 'use_entity_search',
              endpoint: '/v1/entities/search',
              method: 'GET',
            },
          },
        );
      }
      const window = resolveWindow(q, { defaultDays: q.window_days ?? 30 });
      const view = (
        entities: Awaited<ReturnType<typeof compactEntities>>,
        stats: Map<string, TopEntityRow>,
      ) =>
        entities.map((e) => {
          const s = stats.get(e.id);
          return {
            ...e,
            mention_count: s?.mentions ?? 0,
            episode_count: s?.episodes ?? 0,
            podcast_count: s?.podcasts ?? 0,
          };
        });
      if (q.ids !== undefined) {
        const refs = [
          ...new Set(
            q.ids
              .split(',')
              .map((r) => r.trim())
              .filter((r) => r.length > 0),
          ),
        ];
        if (refs.length > MAX_IDS) {
          throw invalidParameter('query.ids', `at most ${MAX_IDS} references; got ${refs.length}`, q.ids);
        }
        const rows = await catalog.entities(refs);
        const stats = await mentions.topEntities(window, {
          ids: rows.map((r) => r.id),
          limit: rows.length + 1,
        });
        return {
          data: view(await compactEntities(catalog, rows), new Map(stats.map((s) => [s.entity_id, s]))),
          has_more: false,
        };
      }
      const endpoint = 'entities';
      const limit = q.limit ?? 25;
      const after = app.cursors.decode(endpoint, q.cursor, POSITION);
      const podcastId =
        q.podcast_id !== undefined ? ((await catalog.podcast(q.podcast_id))?.id ?? NO_MATCH) : undefined;
      const top = await mentions.topEntities(window, {
        podcastId,
        categorySlug: q.type,
        after: after ? { m: after.m, id: after.id } : undefined,
        limit: limit + 1,
      });
      const page = top.slice(0, limit);
      const byId = await catalog.entitiesByIds(page.map((t) => t.entity_id));
      const rows = page.map((t) => byId.get(t.entity_id)).filter((r) => r !== undefined);
      const out: Static<ReturnType<typeof ListEnvelope<typeof EntityWithMentions>>> = {
        data: view(await compactEntities(catalog, rows), new Map(page.map((s) => [s.entity_id, s]))),
        has_more: top.length > limit,
      };
      if (top.length > limit) {
        const last = page.at(-1)!;
        out.cursor = app.cursors.encode(endpoint, { m: last.mentions, id: last.entity_id });
      }
      return out;
    },
  );

  app.get(
    '/v1/entities/types',
    {
      schema: {
        tags: ['entities'],
        summary: 'Entity categories (the `type` slugs), with how many entities each holds',
        querystring: Type.Object(pageQueryAll()),
        response: withProblems({ 200: TypesResponse }),
      },
    },
    async (request) => {
      const endpoint = 'entity-types';
      const after = app.cursors.decode(endpoint, request.query.cursor, Position.id());
      const limit = request.query.limit;
      const rows = await opts.lists.entityTypes(after, limit);
      const page = limit ? rows.slice(0, limit) : rows;
      const out: Static<typeof TypesResponse> = {
        data: page,
        has_more: limit !== undefined && rows.length > limit,
      };
      if (out.has_more) out.cursor = app.cursors.encode(endpoint, page.at(-1)!.slug);
      return out;
    },
  );
};
