import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import { NO_MATCH } from '../../projections/analytics/analytics-store.ts';
import type { PodcastRow } from '../../projections/catalog/catalog-reader.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { notWith } from '../plugins/openapi-document.ts';
import { IncludeParam, parseIncludes } from '../premium.ts';
import { invalidParameter } from '../problem.ts';
import { WORDS_PATTERN, withProblems } from '../schemas.ts';
import { MatchQualitySchema } from '../search/views.ts';
import { type AnalyticsRouteOptions, notFound } from '../views/analytics.ts';
import { Podcast, RefParams } from '../views/catalog-records.ts';
import { rankingRecords } from '../views/rankings.ts';
import { iso } from '../windows.ts';

/** Podcasts: the list, most popular first (or by name with `q`), and one podcast by reference. */
const PODCAST_INCLUDES = ['rankings', 'bias', 'sponsors'] as const;
const PODCAST_PREMIUM = ['bias', 'sponsors'] as const;

const PodcastListQuery = Type.Object({
  publisher_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'publisher slug or ID' }),
  ),
  language: Type.Optional(
    Type.String({
      maxLength: 35,
      pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$',
      description: 'primary language subtag match',
    }),
  ),
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'category slug' })),
  q: Type.Optional(
    Type.String({
      maxLength: 500,
      pattern: WORDS_PATTERN,
      description:
        'podcast name to search for, with a word of letters or digits: answers as GET /v1/podcasts/search does (ranked by match, not with the other filters)',
    }),
  ),
  ...pageQuery(),
});
const POD_POSITION = Type.Object({ p: Position.number(), id: Position.id() });

export const podcastRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { catalog, lists, dashboardUrl } = opts;
  const { episodes, charts, ads } = opts.reads;

  async function podcastViews(rows: PodcastRow[]): Promise<Static<typeof Podcast>[]> {
    const [publishers, hosts, stats] = await Promise.all([
      catalog.publishersByIds(rows.map((r) => r.publisher_id).filter((id): id is string => !!id)),
      catalog.entitiesByIds(rows.flatMap((r) => r.hosts)),
      episodes.podcastEpisodeStats(rows.map((r) => r.id)),
    ]);
    return rows.map((r) => {
      const pub = r.publisher_id ? publishers.get(r.publisher_id) : undefined;
      const s = stats.get(r.id);
      return {
        id: r.id,
        slug: r.slug,
        directory_id: r.directory_id === null ? null : Number(r.directory_id),
        title: r.title,
        description: r.description,
        publisher: pub ? { id: pub.id, name: pub.name, slug: pub.slug } : null,
        language: r.language,
        categories: r.categories,
        hosts: r.hosts
          .map((id) => hosts.get(id))
          .filter((h) => h !== undefined)
          .map((h) => ({ id: h.id, name: h.name, slug: h.slug })),
        image_url: r.image_url,
        feed_url: r.feed_url,
        website_url: r.website_url,
        content_advisory_rating: r.content_advisory_rating,
        popularity: r.popularity,
        episode_count: s?.episodes ?? 0,
        latest_episode_at: s ? iso(s.latest_ms) : null,
      };
    });
  }

  app.get(
    '/v1/podcasts',
    {
      config: {
        queryConstraints: [notWith('q', 'publisher_id', 'language', 'category')],
      },
      schema: {
        tags: ['podcasts'],
        summary: 'Podcasts, most popular first (with q: podcasts by name, best match first)',
        querystring: PodcastListQuery,
        response: withProblems({
          200: ListEnvelope(
            Type.Object({
              ...Podcast.properties,
              match_quality: Type.Optional(MatchQualitySchema),
            }),
          ),
        }),
      },
    },
    async (request) => {
      const q = request.query as Static<typeof PodcastListQuery>;
      if (q.q !== undefined) {
        // Kept from when this path searched by name; the same results as /v1/podcasts/search.
        for (const name of ['publisher_id', 'language', 'category'] as const) {
          if (q[name] !== undefined)
            throw invalidParameter(`query.${name}`, 'cannot be combined with q', q[name]);
        }
        if (!opts.searchPodcasts) throw notFound('query.q', 'podcast search is not served here', q.q);
        return (await opts.searchPodcasts({
          q: q.q,
          ...(q.limit !== undefined ? { limit: q.limit } : {}),
          ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
        })) as { data: Static<typeof Podcast>[]; has_more: boolean };
      }
      const endpoint = 'podcasts';
      const limit = q.limit ?? 25;
      const after = app.cursors.decode(endpoint, q.cursor, POD_POSITION);
      const publisher =
        q.publisher_id !== undefined ? ((await catalog.publisher(q.publisher_id))?.id ?? NO_MATCH) : null;
      if (publisher === NO_MATCH) return { data: [], has_more: false };
      const lang = q.language ? q.language.split(/[-_]/)[0]!.toLowerCase() : null;
      const rows = await lists.podcasts({
        publisherId: publisher,
        language: lang,
        category: q.category ?? null,
        after,
        limit,
      });
      const page = await podcastViews(rows.slice(0, limit));
      const result = app.cursors.page(
        endpoint,
        rows,
        limit,
        (r) => r,
        (r) => ({ p: r.popularity ?? -1, id: r.id }),
      );
      return { ...result, data: page };
    },
  );

  app.get(
    '/v1/podcasts/:id',
    {
      schema: {
        tags: ['podcasts'],
        summary: 'One podcast by slug, ID or numeric directory ID',
        params: RefParams('podcast slug, ID or numeric directory ID'),
        querystring: Type.Object({
          include: IncludeParam(PODCAST_INCLUDES, PODCAST_PREMIUM),
        }),
        response: withProblems({ 200: Podcast }),
      },
    },
    async (request) => {
      const include = parseIncludes(
        request,
        request.query.include,
        PODCAST_INCLUDES,
        PODCAST_PREMIUM,
        dashboardUrl,
      );
      const podcast = await catalog.podcast(request.params.id);
      if (!podcast)
        throw notFound('path.id', 'no podcast has this slug, ID or directory ID', request.params.id);
      const [view] = await podcastViews([podcast]);
      const out: Static<typeof Podcast> = view!;
      if (include.has('rankings')) {
        const rows = await charts.liveRowsOf([podcast.id]);
        const publishers = await catalog.publishersByIds(podcast.publisher_id ? [podcast.publisher_id] : []);
        out.rankings = rankingRecords(rows, rows, new Map([[podcast.id, podcast]]), publishers);
      }
      if (include.has('bias')) {
        const b = await charts.latestBias(podcast.id);
        out.bias = b
          ? {
              evaluated_at: iso(Number(b.evaluated_ms)),
              political_context: b.political_context,
              is_political: Number(b.is_political) === 1,
              political_topic_percentage: b.political_topic_percentage,
              lean_score: b.lean_score,
              bias: b.bias,
              episodes_analyzed: Number(b.episodes_analyzed),
            }
          : null;
      }
      if (include.has('sponsors')) {
        const sponsors = await ads.podcastSponsors(podcast.id, 25);
        const companies = await catalog.entitiesByIds(
          sponsors.map((s) => s.company_id).filter((id) => id.length > 0),
        );
        out.sponsors = sponsors.map((s) => ({
          sponsor_name: companies.get(s.company_id)?.name ?? s.sponsor_name,
          company_id: s.company_id || null,
          ad_count: s.ad_count,
          episode_count: s.episode_count,
          last_ad_at: iso(s.last_ad_ms),
        }));
      }
      return out;
    },
  );
};
