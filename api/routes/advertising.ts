import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { AdCounts, AdvertisingQueries } from '../../projections/analytics/advertising-queries.ts';
import { NO_MATCH, type ScopeId } from '../../projections/analytics/analytics-store.ts';
import { slug } from '../../schemas/text-folding.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { requirePremiumEndpoint } from '../premium.ts';
import { StringEnum, Timestamp, withProblems } from '../schemas.ts';
import { type AnalyticsRouteOptions, notFound, WindowQuery } from '../views/analytics.ts';
import { SponsorSchema, sponsorCompany, sponsorId } from '../views/sponsors.ts';
import { bucketsOf, DAY_MS, iso, resolveWindow } from '../windows.ts';

/**
 * Sponsors and ads (premium): trending sponsors, a publisher's advertising profile, a company's ad
 * timeseries. Network promos (a network advertising its own shows) never count as ads.
 */
/**
 * Sponsor trends may be up to an hour old (spec). A cached ranking is fresh for 10 minutes; after
 * that it is still served (up to 50 minutes old) while one refresh runs in the background, so only
 * the first request of a (window_days, min_podcast_reach) pair waits for the engine.
 */
const TREND_CACHE_MS = 10 * 60_000;
const TREND_STALE_MS = 50 * 60_000;
const TOP_SPONSORS = 10;
/** A network buyer advertises on at least this many of a publisher's podcasts … */
const NETWORK_BUYER_MIN_PODCASTS = 3;
/** … and on at least this share of its catalog. */
const NETWORK_BUYER_MIN_SHARE = 0.25;

const TrendRow = Type.Object({
  ad_count_delta: Type.Integer(),
  previous_ad_count: Type.Integer(),
  recent_ad_count: Type.Integer(),
  last_ad_at: Timestamp,
  sponsor: SponsorSchema,
});

const TrendsQuery = Type.Object({
  window_days: Type.Integer({
    minimum: 1,
    maximum: 90,
    default: 7,
    description: 'length of each comparison window',
  }),
  min_podcast_reach: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 3,
    description: 'only sponsors whose in-window ads span at least this many podcasts',
  }),
  ...pageQuery(),
});

const ProfileResponse = Type.Object({
  publisher: Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() }),
  total_ads: Type.Integer({ description: 'ad reads on the publisher’s podcasts, network promos excluded' }),
  network_promos: Type.Integer({ description: 'network promos, not counted in total_ads' }),
  unique_sponsors: Type.Integer(),
  episode_reach: Type.Integer({ description: 'distinct episodes with ads' }),
  ads_per_active_podcast: Type.Number({ description: 'mean ads across podcasts with at least one ad' }),
  coverage: Type.Object({
    active_coverage: Type.Number({ description: 'active_podcasts / total_podcasts, 0-1' }),
    active_podcasts: Type.Integer(),
    total_podcasts: Type.Integer(),
  }),
  read_type_breakdown: Type.Object({ host_read: Type.Integer(), pre_recorded: Type.Integer() }),
  top_sponsors: Type.Array(
    Type.Object({
      sponsor_name: Type.String(),
      company_id: Type.Union([Type.String(), Type.Null()]),
      slug: Type.String(),
      ad_count: Type.Integer(),
      episode_count: Type.Integer(),
      podcast_count: Type.Integer(),
      podcast_coverage: Type.Number({
        description: 'share of the publisher’s podcasts the sponsor is on, 0-1',
      }),
    }),
  ),
  network_buyers_count: Type.Integer({
    description: 'sponsors on at least 3 podcasts and at least 25% of the publisher catalog',
  }),
});

const AdTimeseriesQuery = Type.Object({
  company_id: Type.String({ minLength: 1, maxLength: 200, description: 'company slug, domain or ID' }),
  podcast_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'one show (slug, ID or directory ID)' }),
  ),
  publisher_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'one publisher’s catalog (slug or ID)' }),
  ),
  ...WindowQuery,
  interval: StringEnum(['day', 'week', 'month'] as const, { default: 'day' }),
});

const AdBucket = Type.Object({
  start: Timestamp,
  end: Timestamp,
  ad_count: Type.Integer(),
  episode_count: Type.Integer(),
  podcast_count: Type.Integer(),
});

const AdTimeseriesResponse = Type.Object({
  company: Type.Object({
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    domain: Type.Union([Type.String(), Type.Null()]),
  }),
  start: Timestamp,
  end: Timestamp,
  interval: Type.String(),
  totals: Type.Object({
    ad_count: Type.Integer(),
    episode_count: Type.Integer(),
    podcast_count: Type.Integer(),
  }),
  buckets: Type.Array(AdBucket),
});

const adCounts = (c: AdCounts | undefined) => ({
  ad_count: c?.ads ?? 0,
  episode_count: c?.episodes ?? 0,
  podcast_count: c?.podcasts ?? 0,
});

export const advertisingRoutes: FastifyPluginAsyncTypebox<AnalyticsRouteOptions> = async (app, opts) => {
  const { ads } = opts.reads;
  const { catalog, dashboardUrl } = opts;
  type TrendRows = Awaited<ReturnType<AdvertisingQueries['sponsorTrends']>>;
  type Stats = Awaited<ReturnType<AdvertisingQueries['sponsorStats']>>;
  const trendCache = new Map<string, { at: number; rows: TrendRows; refreshing?: boolean }>();
  // All-time figures of every sponsor: one pass, shared by every window (cached like the trends).
  let allStats: { at: number; stats: Promise<Stats>; refreshing?: boolean } | undefined;
  const loadStats = () => {
    const stats = ads.sponsorStats();
    const entry = { at: Date.now(), stats };
    stats.then(
      () => {
        allStats = entry;
      },
      () => {
        if (allStats === entry) allStats = undefined;
      },
    );
    return entry;
  };
  const sponsorStats = (): Promise<Stats> => {
    const age = allStats ? Date.now() - allStats.at : Number.POSITIVE_INFINITY;
    if (!allStats || age > TREND_STALE_MS) allStats = loadStats();
    else if (age > TREND_CACHE_MS && !allStats.refreshing) {
      allStats.refreshing = true;
      loadStats();
    }
    return allStats.stats;
  };

  /**
   * The ranked sponsors of a window (cached); all-time figures and company records are added
   * per page.
   */
  async function trends(windowDays: number, minReach: number) {
    const key = `${windowDays}/${minReach}`;
    const load = async () => {
      const now = Date.now();
      const length = windowDays * DAY_MS;
      const rows = await ads.sponsorTrends(now - 2 * length, now - length, now, minReach);
      if (trendCache.size > 1000) trendCache.clear();
      const entry = { at: now, rows };
      trendCache.set(key, entry);
      return entry;
    };
    const hit = trendCache.get(key);
    const age = hit ? Date.now() - hit.at : Number.POSITIVE_INFINITY;
    if (hit && age <= TREND_CACHE_MS) return hit;
    if (hit && age <= TREND_STALE_MS) {
      if (!hit.refreshing) {
        hit.refreshing = true;
        load().catch(() => {
          hit.refreshing = false;
        });
      }
      return hit;
    }
    return load();
  }

  async function trendViews(rows: TrendRows): Promise<Static<typeof TrendRow>[]> {
    const [stats, companies] = await Promise.all([
      sponsorStats(),
      catalog.entitiesByIds(rows.map((r) => r.company_id).filter((id) => id.length > 0)),
    ]);
    return rows.map((r) => {
      const s = stats.get(r.sponsor_key);
      const company = r.company_id ? companies.get(r.company_id) : undefined;
      return {
        ad_count_delta: r.recent - r.previous,
        previous_ad_count: r.previous,
        recent_ad_count: r.recent,
        last_ad_at: iso(r.last_ad_ms),
        sponsor: {
          id: sponsorId(r.sponsor_key, r.company_id),
          name: company?.name ?? r.sponsor_name,
          ad_count: s?.ad_count ?? r.recent + r.previous,
          episode_reach: s?.episode_reach ?? 0,
          podcast_reach: s?.podcast_reach ?? 0,
          first_seen_at: iso(s?.first_seen_ms ?? r.last_ad_ms),
          last_seen_at: iso(s?.last_seen_ms ?? r.last_ad_ms),
          company: company ? sponsorCompany(company) : null,
        },
      };
    });
  }

  app.get(
    '/v1/podcasts/advertising/sponsors/trends',
    {
      schema: {
        tags: ['advertising'],
        summary: 'Sponsors whose ad volume is accelerating (premium)',
        description:
          'Ads in the trailing window against the equal window before it, by episode publication time, ranked by the gain. Results may be cached for up to an hour (here: refreshed after 10 minutes, never older than an hour).',
        querystring: TrendsQuery,
        response: withProblems({ 200: ListEnvelope(TrendRow) }),
      },
    },
    async (request) => {
      requirePremiumEndpoint(request, dashboardUrl);
      const q = request.query;
      const { rows } = await trends(q.window_days ?? 7, q.min_podcast_reach ?? 3);
      const endpoint = `sponsor-trends:${q.window_days ?? 7}:${q.min_podcast_reach ?? 3}`;
      const limit = q.limit ?? 25;
      const offset = app.cursors.decode(endpoint, q.cursor, Position.offset()) ?? 0;
      const page = await trendViews(rows.slice(offset, offset + limit));
      const out: Static<ReturnType<typeof ListEnvelope<typeof TrendRow>>> = {
        data: page,
        has_more: offset + limit < rows.length,
      };
      if (out.has_more) out.cursor = app.cursors.encode(endpoint, offset + limit);
      return out;
    },
  );

  app.get(
    '/v1/podcasts/publishers/:id/advertising',
    {
      schema: {
        tags: ['advertising'],
        summary: 'Advertising profile of a publisher (premium)',
        params: Type.Object({ id: Type.String({ maxLength: 200, description: 'publisher slug or ID' }) }),
        response: withProblems({ 200: ProfileResponse }),
      },
    },
    async (request) => {
      requirePremiumEndpoint(request, dashboardUrl);
      const publisher = await catalog.publisher(request.params.id);
      if (!publisher) throw notFound('path.id', 'no publisher has this slug or ID', request.params.id);
      const [totals, sponsors, totalPodcasts] = await Promise.all([
        ads.publisherTotals(publisher.id),
        ads.publisherSponsors(publisher.id),
        opts.lists.podcastCount(publisher.id),
      ]);
      const companies = await catalog.entitiesByIds(
        sponsors
          .slice(0, TOP_SPONSORS)
          .map((s) => s.company_id)
          .filter((id) => id.length > 0),
      );
      const share = (n: number) => (totalPodcasts > 0 ? n / totalPodcasts : 0);
      return {
        publisher: { id: publisher.id, name: publisher.name, slug: publisher.slug },
        total_ads: totals.total_ads,
        network_promos: totals.network_promos,
        unique_sponsors: totals.unique_sponsors,
        episode_reach: totals.episode_reach,
        ads_per_active_podcast: totals.active_podcasts > 0 ? totals.total_ads / totals.active_podcasts : 0,
        coverage: {
          active_coverage: share(totals.active_podcasts),
          active_podcasts: totals.active_podcasts,
          total_podcasts: totalPodcasts,
        },
        read_type_breakdown: { host_read: totals.host_read, pre_recorded: totals.pre_recorded },
        top_sponsors: sponsors.slice(0, TOP_SPONSORS).map((s) => {
          const company = s.company_id ? companies.get(s.company_id) : undefined;
          return {
            sponsor_name: company?.name ?? s.sponsor_name,
            company_id: s.company_id || null,
            slug: company?.slug ?? slug(s.sponsor_name),
            ad_count: s.ad_count,
            episode_count: s.episode_count,
            podcast_count: s.podcast_count,
            podcast_coverage: share(s.podcast_count),
          };
        }),
        network_buyers_count: sponsors.filter(
          (s) =>
            s.podcast_count >= NETWORK_BUYER_MIN_PODCASTS &&
            share(s.podcast_count) >= NETWORK_BUYER_MIN_SHARE,
        ).length,
      };
    },
  );

  app.get(
    '/v1/podcasts/advertising/timeseries',
    {
      schema: {
        tags: ['advertising'],
        summary: 'Ad volume of a company over time, in the whole corpus, one show or one publisher (premium)',
        description:
          'Default window: the 30 days before until. A podcast_id or publisher_id that resolves to nothing yields zero-filled buckets. At most 1,000 buckets.',
        querystring: AdTimeseriesQuery,
        response: withProblems({ 200: AdTimeseriesResponse }),
      },
    },
    async (request) => {
      requirePremiumEndpoint(request, dashboardUrl);
      const q = request.query as Static<typeof AdTimeseriesQuery>;
      const window = resolveWindow(q, { defaultDays: 30 });
      const interval = q.interval ?? 'day';
      const buckets = bucketsOf(window, interval);
      const company = await catalog.company(q.company_id);
      if (!company)
        throw notFound('query.company_id', 'no company has this slug, domain or ID', q.company_id);
      const scope: { podcastId?: ScopeId; publisherId?: ScopeId } = {};
      if (q.podcast_id !== undefined) scope.podcastId = (await catalog.podcast(q.podcast_id))?.id ?? NO_MATCH;
      if (q.publisher_id !== undefined)
        scope.publisherId = (await catalog.publisher(q.publisher_id))?.id ?? NO_MATCH;
      const result = await ads.companyTimeseries(company.id, window, interval, scope);
      return {
        company: { id: company.id, name: company.name, slug: company.slug, domain: company.company_domain },
        start: iso(window.start),
        end: iso(window.end),
        interval,
        totals: adCounts(result.totals),
        buckets: buckets.map((b) => ({
          start: iso(b.start),
          end: iso(b.end),
          ...adCounts(result.buckets.get(b.key)),
        })),
      };
    },
  );
};
