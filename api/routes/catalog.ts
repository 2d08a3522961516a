import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import { AdvertisingQueries } from '../../projections/analytics/advertising-queries.ts';
import { NO_MATCH } from '../../projections/analytics/analytics-store.ts';
import { ChartQueries } from '../../projections/analytics/chart-queries.ts';
import { EpisodeQueries } from '../../projections/analytics/episode-queries.ts';
import type { EntityRow, PodcastRow, PublisherRow } from '../../projections/catalog/catalog-reader.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { notWith } from '../plugins/openapi-document.ts';
import { IncludeParam, parseIncludes } from '../premium.ts';
import { invalidParameter } from '../problem.ts';
import { nullable, Timestamp, WORDS_PATTERN, withProblems } from '../schemas.ts';
import { MatchQualitySchema } from '../search/views.ts';
import { type AnalyticsRouteOptions, notFound } from '../views/analytics.ts';
import { RankingRecord, rankingRecords } from '../views/rankings.ts';
import { iso } from '../windows.ts';

/** Catalog reads: podcasts, publishers, companies and people, by reference and as lists. */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

const PublisherSummary = Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() });

const PODCAST_INCLUDES = ['rankings', 'bias', 'sponsors'] as const;
const PODCAST_PREMIUM = ['bias', 'sponsors'] as const;

const Podcast = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  directory_id: nullable(Type.Integer({ description: 'numeric ID in the public podcast directory' })),
  title: Type.String(),
  description: nullable(Type.String()),
  publisher: nullable(PublisherSummary),
  language: Type.String(),
  categories: Type.Array(
    Type.Object({ slug: Type.String(), name: Type.String(), parent_slug: nullable(Type.String()) }),
  ),
  hosts: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
  image_url: nullable(Type.String()),
  feed_url: nullable(Type.String()),
  website_url: nullable(Type.String()),
  content_advisory_rating: nullable(Type.String()),
  popularity: nullable(
    Type.Number({ description: 'global popularity percentile 0-100; null when not charting' }),
  ),
  episode_count: Type.Integer(),
  latest_episode_at: nullable(Timestamp),
  rankings: Type.Optional(
    Type.Array(RankingRecord, { description: 'include=rankings: live chart appearances' }),
  ),
  bias: Type.Optional(
    nullable(
      Type.Object(
        {
          evaluated_at: Timestamp,
          political_context: Type.String(),
          is_political: Type.Boolean(),
          political_topic_percentage: Type.Number(),
          lean_score: nullable(Type.Number()),
          bias: nullable(Type.String()),
          episodes_analyzed: Type.Integer(),
        },
        { description: 'include=bias (premium): the newest political-bias evaluation' },
      ),
    ),
  ),
  sponsors: Type.Optional(
    Type.Array(
      Type.Object({
        sponsor_name: Type.String(),
        company_id: nullable(Type.String()),
        ad_count: Type.Integer(),
        episode_count: Type.Integer(),
        last_ad_at: Timestamp,
      }),
      { description: 'include=sponsors (premium): the show’s sponsors, most ads first' },
    ),
  ),
});

const Publisher = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: nullable(Type.String()),
  website_url: nullable(Type.String()),
  image_url: nullable(Type.String()),
  podcast_count: Type.Integer(),
});

const Category = Type.Object({ name: Type.String(), slug: Type.String() });

const Company = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: nullable(Type.String()),
  domain: nullable(Type.String()),
  ticker: nullable(Type.String()),
  image_url: nullable(Type.String()),
  wikipedia_url: nullable(Type.String()),
  type: Category,
  aliases: Type.Array(Type.String()),
});

const Person = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: nullable(Type.String()),
  image_url: nullable(Type.String()),
  wikipedia_url: nullable(Type.String()),
  type: Category,
  title: nullable(Type.String()),
  company: nullable(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
  occupation: nullable(
    Type.Object({
      code: Type.String(),
      system: Type.String(),
      slug: Type.String(),
      title: Type.String(),
      group: nullable(Type.String()),
    }),
  ),
  field: nullable(Type.Object({ code: Type.String(), slug: Type.String(), title: Type.String() })),
  standing: nullable(Type.String()),
  seniority: nullable(Type.String()),
  practicing: nullable(Type.Boolean()),
});

const RefParams = (description: string) => Type.Object({ id: Type.String({ maxLength: 200, description }) });

function companyView(e: EntityRow): Static<typeof Company> {
  return {
    id: e.id,
    slug: e.slug,
    name: e.name,
    description: e.description,
    domain: e.company_domain,
    ticker: e.company_ticker,
    image_url: e.image_url,
    wikipedia_url: e.wikipedia_url,
    type: { name: e.category_name, slug: e.category_slug },
    aliases: e.aliases,
  };
}

function personView(e: EntityRow, employer: EntityRow | undefined): Static<typeof Person> {
  const p = e.person;
  return {
    id: e.id,
    slug: e.slug,
    name: e.name,
    description: e.description,
    image_url: e.image_url,
    wikipedia_url: e.wikipedia_url,
    type: { name: e.category_name, slug: e.category_slug },
    title: p?.title ?? null,
    company: employer ? { id: employer.id, name: employer.name, slug: employer.slug } : null,
    occupation: p?.occupation ?? null,
    field: p?.field ?? null,
    standing: p?.standing ?? null,
    seniority: p?.seniority ?? null,
    practicing: p?.practicing ?? null,
  };
}

export const catalogRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { catalog, state, dashboardUrl } = opts;
  const episodes = new EpisodeQueries(opts.analytics);
  const charts = new ChartQueries(opts.analytics);
  const ads = new AdvertisingQueries(opts.analytics);

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

  app.get(
    '/v1/podcasts',
    {
      config: {
        billable: { priceCents: 1 },
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
      const rows = await state.query<PodcastRow>(
        `SELECT * FROM catalog_podcasts
         WHERE ($1::text IS NULL OR publisher_id = $1)
           AND ($2::text IS NULL OR lower(split_part(replace(language, '_', '-'), '-', 1)) = $2)
           AND ($3::text IS NULL OR categories @> jsonb_build_array(jsonb_build_object('slug', $3::text)))
           AND ($4::float8 IS NULL OR coalesce(popularity, -1) < $4 OR (coalesce(popularity, -1) = $4 AND id > $5))
         ORDER BY coalesce(popularity, -1) DESC, id ASC LIMIT $6`,
        [publisher, lang, q.category ?? null, after?.p ?? null, after?.id ?? '', limit + 1],
      );
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
      config: { billable: { priceCents: 1 } },
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

  async function publisherViews(rows: PublisherRow[]): Promise<Static<typeof Publisher>[]> {
    const counts = await state.query<{ publisher_id: string; n: number }>(
      'SELECT publisher_id, count(*)::int AS n FROM catalog_podcasts WHERE publisher_id = ANY($1::text[]) GROUP BY publisher_id',
      [rows.map((r) => r.id)],
    );
    const byId = new Map(counts.map((c) => [c.publisher_id, Number(c.n)]));
    return rows.map((r) => ({
      id: r.id,
      slug: r.slug,
      name: r.name,
      description: r.description,
      website_url: r.website_url,
      image_url: r.image_url,
      podcast_count: byId.get(r.id) ?? 0,
    }));
  }

  const NamedListQuery = Type.Object({
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'case-insensitive part of the name' }),
    ),
    ...pageQuery(),
  });
  const NAME_POSITION = Type.Object({ n: Position.name(), id: Position.id() });

  app.get(
    '/v1/podcasts/publishers',
    {
      config: { billable: { priceCents: 1 } },
      schema: {
        tags: ['publishers'],
        summary: 'Publishers by name',
        querystring: NamedListQuery,
        response: withProblems({ 200: ListEnvelope(Publisher) }),
      },
    },
    async (request) => {
      const q = request.query as Static<typeof NamedListQuery>;
      const endpoint = 'publishers';
      const limit = q.limit ?? 25;
      const after = app.cursors.decode(endpoint, q.cursor, NAME_POSITION);
      const rows = await state.query<PublisherRow>(
        `SELECT * FROM catalog_publishers
         WHERE ($1::text IS NULL OR name ILIKE '%' || $1 || '%') AND ($2::text IS NULL OR (name, id) > ($2, $3))
         ORDER BY name, id LIMIT $4`,
        [q.q !== undefined ? escapeLike(q.q) : null, after?.n ?? null, after?.id ?? '', limit + 1],
      );
      const result = app.cursors.page(
        endpoint,
        rows,
        limit,
        (r) => r,
        (r) => ({ n: r.name, id: r.id }),
      );
      return { ...result, data: await publisherViews(result.data) };
    },
  );

  app.get(
    '/v1/podcasts/publishers/:id',
    {
      config: { billable: { priceCents: 1 } },
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

  async function entityList(kind: 'COMPANY' | 'PERSON', q: Static<typeof NamedListQuery>, endpoint: string) {
    const limit = q.limit ?? 25;
    const after = app.cursors.decode(endpoint, q.cursor, NAME_POSITION);
    const rows = await state.query<EntityRow>(
      `SELECT * FROM catalog_entities
       WHERE kind = $1 AND ($2::text IS NULL OR name ILIKE '%' || $2 || '%') AND ($3::text IS NULL OR (name, id) > ($3, $4))
       ORDER BY name, id LIMIT $5`,
      [kind, q.q !== undefined ? escapeLike(q.q) : null, after?.n ?? null, after?.id ?? '', limit + 1],
    );
    return app.cursors.page(
      endpoint,
      rows,
      limit,
      (r) => r,
      (r) => ({ n: r.name, id: r.id }),
    );
  }

  async function peopleViews(rows: EntityRow[]) {
    const employers = await catalog.entitiesByIds(
      rows
        .map((r) => r.person?.company_id)
        .filter((id): id is string => typeof id === 'string' && id.length > 0),
    );
    return rows.map((r) =>
      personView(r, r.person?.company_id ? employers.get(r.person.company_id) : undefined),
    );
  }

  app.get(
    '/v1/companies',
    {
      config: { billable: { priceCents: 1 } },
      schema: {
        tags: ['companies'],
        summary: 'Companies by name',
        querystring: NamedListQuery,
        response: withProblems({ 200: ListEnvelope(Company) }),
      },
    },
    async (request) => {
      const page = await entityList('COMPANY', request.query as Static<typeof NamedListQuery>, 'companies');
      return { ...page, data: page.data.map(companyView) };
    },
  );

  app.get(
    '/v1/companies/:id',
    {
      config: { billable: { priceCents: 1 } },
      schema: {
        tags: ['companies'],
        summary: 'One company by slug, domain or ID',
        params: RefParams('company slug, domain or ID'),
        response: withProblems({ 200: Company }),
      },
    },
    async (request) => {
      const company = await catalog.company(request.params.id);
      if (!company) throw notFound('path.id', 'no company has this slug, domain or ID', request.params.id);
      return companyView(company);
    },
  );

  app.get(
    '/v1/people',
    {
      config: { billable: { priceCents: 1 } },
      schema: {
        tags: ['people'],
        summary: 'People by name',
        querystring: NamedListQuery,
        response: withProblems({ 200: ListEnvelope(Person) }),
      },
    },
    async (request) => {
      const page = await entityList('PERSON', request.query as Static<typeof NamedListQuery>, 'people');
      return { ...page, data: await peopleViews(page.data) };
    },
  );

  app.get(
    '/v1/people/:id',
    {
      config: { billable: { priceCents: 1 } },
      schema: {
        tags: ['people'],
        summary: 'One person by slug or ID',
        params: RefParams('person slug or ID'),
        response: withProblems({ 200: Person }),
      },
    },
    async (request) => {
      const person = await catalog.entity(request.params.id);
      if (person?.kind !== 'PERSON') {
        throw notFound('path.id', 'no person has this slug or ID', request.params.id);
      }
      return (await peopleViews([person]))[0]!;
    },
  );
};
