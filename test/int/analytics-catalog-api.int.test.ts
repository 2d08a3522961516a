import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startOfUtcDay } from '../../ingest/corpus/generate.ts';
import type { ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { analyticsProjectors } from '../../projections/analytics/analytics-projectors.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import type { EpisodePublished } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { projectedCorpus, runUntilCaughtUp } from '../support/analytics.ts';
import { testApi } from '../support/api.ts';

/**
 * Sponsor, ad, ranking, bias, catalog, episode and transcript reads against expected values
 * computed here from the raw events of the generated corpus.
 */
const DAY = 86_400_000;
const AS_OF = startOfUtcDay(Date.now());

type Fixture = Awaited<ReturnType<typeof projectedCorpus>>;
type Api = Awaited<ReturnType<typeof testApi>>;

interface LeaderboardRow {
  rank: number;
  coverage: unknown;
  political_content: { podcasts: number; avg_topic_percentage: number };
  lean: { avg_score: number | null; stddev: number | null };
  last_evaluated_at: string;
}

function qs(params: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');
}

describe('catalog, advertising, ranking, bias, episode and transcript reads', () => {
  let fx: Fixture;
  let api: Api;
  const get = async (url: string, key = api.keys.business!) => {
    const r = await api.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    return { status: r.statusCode, body: r.json() };
  };
  const iso = (t: number) => new Date(t).toISOString();

  /** Ad reads joined with their episode, as the raw events say. */
  const ads = () => {
    const episodes = new Map(fx.corpus.episodes.map((e) => [e.id, e]));
    const podcasts = new Map(fx.corpus.podcasts.map((p) => [p.id, p]));
    return fx.corpus.adReads.flatMap((a) =>
      a.ad_reads.map((r) => {
        const e = episodes.get(a.episode_id)!;
        return {
          ...r,
          episode: e.id,
          podcast: e.podcast_id,
          publisher: podcasts.get(e.podcast_id)!.publisher_id,
          published: e.published_at,
          sponsor: r.company_id ?? `name:${r.sponsor_name.toLowerCase()}`,
        };
      }),
    );
  };

  beforeAll(async () => {
    fx = await projectedCorpus({ podcasts: 12, episodesPerPodcast: 8, seed: 33, asOf: AS_OF });
    api = await testApi({ rateLimitPerMinute: 100_000 }, undefined, {
      state: fx.state,
      analytics: fx.analytics,
    });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await fx?.close();
  });

  it('sponsor trends: ads of the trailing window against the one before, by gain, with reach and all-time figures', async () => {
    const windowDays = 30;
    const now = Date.now();
    const all = ads().filter((a) => !a.is_network_promo);
    const recentFrom = now - windowDays * DAY;
    const previousFrom = now - 2 * windowDays * DAY;
    const keys = [...new Set(all.map((a) => a.sponsor))];
    const expected = keys
      .map((key) => {
        const mine = all.filter((a) => a.sponsor === key);
        const recent = mine.filter((a) => a.published >= recentFrom && a.published < now);
        const previous = mine.filter((a) => a.published >= previousFrom && a.published < recentFrom);
        return {
          key,
          ad_count_delta: recent.length - previous.length,
          recent_ad_count: recent.length,
          previous_ad_count: previous.length,
          reach: new Set(recent.map((a) => a.podcast)).size,
          ad_count: mine.length,
          episode_reach: new Set(mine.map((a) => a.episode)).size,
          podcast_reach: new Set(mine.map((a) => a.podcast)).size,
          first_seen_at: iso(Math.min(...mine.map((a) => a.published))),
          last_seen_at: iso(Math.max(...mine.map((a) => a.published))),
        };
      })
      .filter((r) => r.ad_count_delta > 0 && r.reach >= 2)
      .sort(
        (a, b) =>
          b.ad_count_delta - a.ad_count_delta ||
          b.recent_ad_count - a.recent_ad_count ||
          (a.key < b.key ? -1 : 1),
      );
    expect(expected.length).toBeGreaterThan(0);
    const got: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const { status, body } = await get(
        `/v1/podcasts/advertising/sponsors/trends?${qs({ window_days: windowDays, min_podcast_reach: 2, limit: 3, cursor })}`,
      );
      expect(status).toBe(200);
      got.push(...body.data);
      cursor = body.cursor;
    } while (cursor);
    expect(
      got.map((r) => {
        const row = r as {
          ad_count_delta: number;
          recent_ad_count: number;
          previous_ad_count: number;
          sponsor: Record<string, unknown>;
        };
        return {
          ad_count_delta: row.ad_count_delta,
          recent_ad_count: row.recent_ad_count,
          previous_ad_count: row.previous_ad_count,
          ad_count: row.sponsor.ad_count,
          episode_reach: row.sponsor.episode_reach,
          podcast_reach: row.sponsor.podcast_reach,
          first_seen_at: row.sponsor.first_seen_at,
          last_seen_at: row.sponsor.last_seen_at,
        };
      }),
    ).toEqual(expected.map(({ key: _k, reach: _r, ...rest }) => rest));
    const first = got[0] as {
      sponsor: { id: string; company: { id: string; slug: string; image_mode: string } | null };
    };
    if (first.sponsor.company) expect(first.sponsor.company.id).toBe(first.sponsor.id);
  });

  it('publisher advertising profile: every field from the raw ad reads, network promos excluded', async () => {
    for (const publisher of fx.corpus.publishers) {
      const catalogSize = fx.corpus.podcasts.filter((p) => p.publisher_id === publisher.id).length;
      const mine = ads().filter((a) => a.publisher === publisher.id);
      const paid = mine.filter((a) => !a.is_network_promo);
      const bySponsor = new Map<string, typeof paid>();
      for (const a of paid) bySponsor.set(a.sponsor, [...(bySponsor.get(a.sponsor) ?? []), a]);
      const active = new Set(paid.map((a) => a.podcast)).size;
      const sponsors = [...bySponsor].map(([key, list]) => ({
        key,
        ad_count: list.length,
        episode_count: new Set(list.map((a) => a.episode)).size,
        podcast_count: new Set(list.map((a) => a.podcast)).size,
      }));
      const { status, body } = await get(`/v1/podcasts/publishers/${publisher.slug}/advertising`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        publisher: { id: publisher.id, name: publisher.name, slug: publisher.slug },
        total_ads: paid.length,
        network_promos: mine.length - paid.length,
        unique_sponsors: bySponsor.size,
        episode_reach: new Set(paid.map((a) => a.episode)).size,
        coverage: {
          active_podcasts: active,
          total_podcasts: catalogSize,
          active_coverage: active / catalogSize,
        },
        read_type_breakdown: {
          host_read: paid.filter((a) => a.read_type === 'host_read').length,
          pre_recorded: paid.filter((a) => a.read_type === 'pre_recorded').length,
        },
        network_buyers_count: sponsors.filter(
          (s) => s.podcast_count >= 3 && s.podcast_count / catalogSize >= 0.25,
        ).length,
      });
      expect(body.ads_per_active_podcast).toBeCloseTo(paid.length / active, 10);
      const top = [...sponsors]
        .sort((a, b) => b.ad_count - a.ad_count || (a.key < b.key ? -1 : 1))
        .slice(0, 10);
      expect(
        body.top_sponsors.map(
          (s: {
            ad_count: number;
            episode_count: number;
            podcast_count: number;
            podcast_coverage: number;
          }) => [s.ad_count, s.episode_count, s.podcast_count, s.podcast_coverage],
        ),
      ).toEqual(
        top.map((s) => [s.ad_count, s.episode_count, s.podcast_count, s.podcast_count / catalogSize]),
      );
    }
    expect((await get('/v1/podcasts/publishers/nobody/advertising')).status).toBe(404);
  });

  it('ad timeseries: a company over time, in the corpus, one show, one publisher; unresolved scope is zero-filled', async () => {
    const paid = ads().filter((a) => !a.is_network_promo && a.company_id);
    const counts = new Map<string, number>();
    for (const a of paid) counts.set(a.company_id!, (counts.get(a.company_id!) ?? 0) + 1);
    const company = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    const entity = fx.corpus.entities.find((e) => e.id === company)!;
    const since = AS_OF - 120 * DAY;
    const mine = paid.filter((a) => a.company_id === company && a.published >= since && a.published < AS_OF);
    const podcast = fx.corpus.podcasts.find((p) => p.id === mine[0]!.podcast)!;
    const publisher = fx.corpus.publishers.find((p) => p.id === podcast.publisher_id)!;
    const scopes: [Record<string, string>, typeof mine][] = [
      [{}, mine],
      [{ podcast_id: podcast.slug }, mine.filter((a) => a.podcast === podcast.id)],
      [{ publisher_id: publisher.id }, mine.filter((a) => a.publisher === publisher.id)],
      [{ podcast_id: 'no-such-show' }, []],
      [{ publisher_id: 'no-such-publisher' }, []],
    ];
    for (const [scope, want] of scopes) {
      const { status, body } = await get(
        `/v1/podcasts/advertising/timeseries?${qs({ company_id: entity.company!.domain!, ...scope, since: iso(since), until: iso(AS_OF), interval: 'week' })}`,
      );
      expect(status).toBe(200);
      expect(body.company.id).toBe(company);
      expect(body.totals).toEqual({
        ad_count: want.length,
        episode_count: new Set(want.map((a) => a.episode)).size,
        podcast_count: new Set(want.map((a) => a.podcast)).size,
      });
      expect(body.buckets.length).toBeGreaterThanOrEqual(17);
      for (const b of body.buckets) {
        const inB = want.filter((a) => a.published >= Date.parse(b.start) && a.published < Date.parse(b.end));
        expect(b.ad_count).toBe(inB.length);
      }
    }
    const tooMany = await get(
      `/v1/podcasts/advertising/timeseries?${qs({ company_id: company, since: '2020-01-01', until: '2026-01-01' })}`,
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors[0].location).toBe('query.interval');
  });

  it('a reference that resolves to nothing matches nothing, and no placeholder id reaches a store', async () => {
    const analyticsQuery = vi.spyOn(fx.analytics, 'query');
    const stateQuery = vi.spyOn(fx.state, 'query');
    try {
      const company = fx.corpus.entities.find((e) => e.kind === 'COMPANY')!.id;
      const pods = await get('/v1/podcasts?publisher_id=no-such-publisher');
      expect(pods).toEqual({ status: 200, body: { data: [], has_more: false } });
      for (const scope of [{ podcast_id: 'no-such-show' }, { publisher_id: 'no-such-publisher' }]) {
        const ads = await get(`/v1/podcasts/advertising/timeseries?${qs({ company_id: company, ...scope })}`);
        expect(ads.status).toBe(200);
        expect(ads.body.totals).toEqual({ ad_count: 0, episode_count: 0, podcast_count: 0 });
      }
      const sent = [...analyticsQuery.mock.calls, ...stateQuery.mock.calls].map((c) => c[1]);
      expect(sent.length).toBeGreaterThan(0);
      expect(JSON.stringify(sent)).not.toContain('\\u0000');
    } finally {
      analyticsQuery.mockRestore();
      stateQuery.mockRestore();
    }
  });

  it('rankings: live rows of each chart’s newest capture, best rank, sources with counts', async () => {
    const charts = new Map<string, number>();
    for (const r of fx.corpus.charts) {
      const key = `${r.source}/${r.chart_type}/${r.country}/${r.category.slug}`;
      charts.set(key, Math.max(charts.get(key) ?? 0, r.captured_at));
    }
    const live = fx.corpus.charts.filter(
      (r) => r.captured_at === charts.get(`${r.source}/${r.chart_type}/${r.country}/${r.category.slug}`),
    );
    const podcastId = live.find((r) => r.podcast_id)!.podcast_id!;
    const podcast = fx.corpus.podcasts.find((p) => p.id === podcastId)!;
    const mine = live.filter((r) => r.podcast_id === podcastId);
    const { status, body } = await get(`/v1/podcasts/${podcast.directory_id}/rankings`);
    expect(status).toBe(200);
    expect(body.has_more).toBe(false);
    expect(body.data.map((r: { id: string }) => r.id).sort()).toEqual(mine.map((r) => r.id).sort());
    expect(body.data.map((r: { rank: number }) => r.rank)).toEqual(
      mine.map((r) => r.rank).sort((a, b) => a - b),
    );
    const best = Math.min(...mine.map((r) => r.rank));
    for (const r of body.data) {
      expect(r.is_current).toBe(true);
      expect(r.podcast).toMatchObject({ id: podcast.id, slug: podcast.slug, popularity: podcast.popularity });
      expect(r.podcast.best_rank.rank).toBe(best);
      const raw = mine.find((m) => m.id === r.id)!;
      expect(r).toMatchObject({
        source: raw.source,
        chart_type: raw.chart_type,
        previous_rank: raw.previous_rank,
        chart_total: raw.chart_total,
        country: raw.country,
        category: { slug: raw.category.slug, name: raw.category.name },
        show: { name: raw.show.name, total_episodes: raw.show.total_episodes },
        captured_at: iso(raw.captured_at),
      });
    }
    const paged = await get(`/v1/podcasts/${podcast.slug}/rankings?limit=1`);
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.has_more).toBe(mine.length > 1);
    const sources = await get('/v1/podcasts/rankings/sources');
    const pairs = new Map<string, { n: number; latest: number }>();
    for (const r of fx.corpus.charts) {
      const k = `${r.source}/${r.chart_type}`;
      const p = pairs.get(k) ?? { n: 0, latest: 0 };
      p.latest = Math.max(p.latest, r.captured_at);
      pairs.set(k, p);
    }
    for (const r of live) pairs.get(`${r.source}/${r.chart_type}`)!.n++;
    expect(
      sources.body.data.map(
        (s: {
          source: string;
          chart_type: string;
          current_row_count: number;
          latest_captured_at: string;
        }) => [`${s.source}/${s.chart_type}`, s.current_row_count, s.latest_captured_at],
      ),
    ).toEqual([...pairs].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => [k, v.n, iso(v.latest)]));
  });

  it('bias leaderboard: newest evaluation per podcast in the window, per publisher, ranked by each metric', async () => {
    const evals = fx.corpus.bias;
    const times = evals.map((e) => e.evaluated_at).sort((a, b) => a - b);
    const since = times[1]!;
    const until = times.at(-2)! + 1;
    const newest = new Map<string, (typeof evals)[number]>();
    for (const e of evals) {
      if (e.evaluated_at < since || e.evaluated_at >= until) continue;
      const seen = newest.get(e.podcast_id);
      if (!seen || e.evaluated_at > seen.evaluated_at) newest.set(e.podcast_id, e);
    }
    const podcasts = new Map(fx.corpus.podcasts.map((p) => [p.id, p]));
    const rows = fx.corpus.publishers.map((pub) => {
      const mine = [...newest.values()].filter((e) => podcasts.get(e.podcast_id)?.publisher_id === pub.id);
      const political = mine.filter((e) => e.is_political && e.lean_score !== null);
      const mean = political.reduce((s, e) => s + e.lean_score!, 0) / political.length;
      const sd = Math.sqrt(political.reduce((s, e) => s + (e.lean_score! - mean) ** 2, 0) / political.length);
      return {
        id: pub.id,
        analyzed: mine.length,
        political: mine.filter((e) => e.is_political).length,
        total: fx.corpus.podcasts.filter((p) => p.publisher_id === pub.id).length,
        avg: political.length > 0 ? mean : null,
        sd: political.length > 0 ? sd : null,
        topic: mine.reduce((s, e) => s + e.political_topic_percentage, 0) / Math.max(1, mine.length),
        last: Math.max(...mine.map((e) => e.evaluated_at)),
      };
    });
    const metrics: Record<string, (a: (typeof rows)[number], b: (typeof rows)[number]) => number> = {
      most_left_leaning: (a, b) => a.avg! - b.avg!,
      most_right_leaning: (a, b) => b.avg! - a.avg!,
      most_political: (a, b) =>
        b.political / b.analyzed - a.political / a.analyzed || b.political - a.political,
      most_diverse: (a, b) => b.sd! - a.sd!,
      most_monolithic: (a, b) => a.sd! - b.sd!,
      most_analyzed: (a, b) => b.analyzed / b.total - a.analyzed / a.total || b.analyzed - a.analyzed,
    };
    for (const [metric, order] of Object.entries(metrics)) {
      const needsPolitical = !['most_political', 'most_analyzed'].includes(metric);
      const expected = rows
        .filter((r) => r.analyzed >= 1 && (!needsPolitical || (r.political >= 1 && r.avg !== null)))
        .sort((a, b) => order(a, b) || (a.id < b.id ? -1 : 1));
      const { status, body } = await get(
        `/v1/podcasts/bias/publishers/leaderboard?${qs({ metric, min_analyzed_podcasts: 1, min_political_podcasts: 1, since: iso(since), until: iso(until) })}`,
      );
      expect(status).toBe(200);
      expect(
        body.data.map((r: { publisher: { id: string } }) => r.publisher.id),
        metric,
      ).toEqual(expected.map((r) => r.id));
      body.data.forEach((r: LeaderboardRow, i: number) => {
        const e = expected[i]!;
        expect(r.rank).toBe(i + 1);
        expect(r.coverage).toEqual({
          analyzed_podcasts: e.analyzed,
          total_podcasts: e.total,
          analyzed_coverage: e.analyzed / e.total,
        });
        expect(r.political_content.podcasts).toBe(e.political);
        expect(r.political_content.avg_topic_percentage).toBeCloseTo(e.topic, 9);
        if (e.avg === null) expect(r.lean.avg_score).toBeNull();
        else expect(r.lean.avg_score).toBeCloseTo(e.avg, 9);
        if (e.sd !== null) expect(r.lean.stddev).toBeCloseTo(e.sd, 9);
        expect(r.last_evaluated_at).toBe(iso(e.last));
      });
    }
    const strict = await get('/v1/podcasts/bias/publishers/leaderboard?min_analyzed_podcasts=500');
    expect(strict.body.data).toEqual([]);
    const context = fx.corpus.bias[0]!.political_context;
    const inContext = await get(
      `/v1/podcasts/bias/publishers/leaderboard?${qs({ political_context: context, min_analyzed_podcasts: 1, metric: 'most_analyzed' })}`,
    );
    const analyzed = inContext.body.data.reduce(
      (n: number, r: { coverage: { analyzed_podcasts: number } }) => n + r.coverage.analyzed_podcasts,
      0,
    );
    const contextPodcasts = new Set(
      evals.filter((e) => e.political_context === context).map((e) => e.podcast_id),
    );
    expect(analyzed).toBe([...contextPodcasts].filter((id) => podcasts.get(id)?.publisher_id).length);
    for (const [url, location] of [
      ['/v1/podcasts/bias/publishers/leaderboard?metric=most_loud', 'query.metric'],
      ['/v1/podcasts/bias/publishers/leaderboard?political_context=MARS', 'query.political_context'],
      ['/v1/podcasts/bias/publishers/leaderboard?min_analyzed_podcasts=0', 'query.min_analyzed_podcasts'],
      [
        '/v1/podcasts/bias/publishers/leaderboard?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z',
        'query.since',
      ],
    ] as const) {
      const r = await get(url);
      expect(r.status, url).toBe(422);
      expect(r.body.errors[0].location).toBe(location);
    }
  });

  it('premium endpoints and premium include sections need a plan with premium endpoints', async () => {
    for (const plan of ['starter', 'growth', 'team']) {
      for (const url of [
        '/v1/podcasts/advertising/sponsors/trends',
        `/v1/podcasts/publishers/${fx.corpus.publishers[0]!.slug}/advertising`,
        `/v1/podcasts/advertising/timeseries?company_id=${fx.corpus.entities.find((e) => e.kind === 'COMPANY')!.id}`,
        '/v1/podcasts/bias/publishers/leaderboard',
      ]) {
        const r = await get(url, api.keys[plan]);
        expect(r.status, `${plan} ${url}`).toBe(403);
        expect(r.body.error_code).toBe('premium_required');
      }
      const episode = fx.corpus.episodes[0]!.id;
      const r = await get(
        `/v1/podcasts/episodes/${episode}?include=segments,entities,ad_reads`,
        api.keys[plan],
      );
      expect(r.status).toBe(403);
      expect(r.body.errors[0]).toMatchObject({
        location: 'query.include',
        value: 'segments,entities,ad_reads',
      });
      expect(r.body.errors[0].message).toContain('entities, ad_reads');
      expect(
        (await get(`/v1/podcasts/episodes/${episode}?include=segments,speakers`, api.keys[plan])).status,
      ).toBe(200);
      expect(
        (await get(`/v1/podcasts/${fx.corpus.podcasts[0]!.id}?include=bias`, api.keys[plan])).status,
      ).toBe(403);
    }
    const unknown = await get(`/v1/podcasts/episodes/${fx.corpus.episodes[0]!.id}?include=everything`);
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].location).toBe('query.include');
  });

  it('podcasts, publishers, companies and people by reference and as lists', async () => {
    const podcast = fx.corpus.podcasts.find((p) => p.popularity !== null)!;
    const episodes = fx.corpus.episodes.filter((e) => e.podcast_id === podcast.id);
    for (const ref of [podcast.id, podcast.slug, String(podcast.directory_id)]) {
      const { status, body } = await get(`/v1/podcasts/${ref}?include=rankings,bias,sponsors`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        id: podcast.id,
        title: podcast.title,
        language: podcast.language,
        popularity: podcast.popularity,
        categories: podcast.categories,
        episode_count: episodes.length,
        latest_episode_at: iso(Math.max(...episodes.map((e) => e.published_at))),
      });
      expect(body.hosts.map((h: { id: string }) => h.id)).toEqual(podcast.hosts);
      const paid = ads().filter((a) => a.podcast === podcast.id && !a.is_network_promo);
      expect(body.sponsors.reduce((n: number, s: { ad_count: number }) => n + s.ad_count, 0)).toBe(
        paid.length,
      );
      const newest = fx.corpus.bias
        .filter((b) => b.podcast_id === podcast.id)
        .sort((a, b) => b.evaluated_at - a.evaluated_at)[0];
      if (newest)
        expect(body.bias).toMatchObject({
          political_context: newest.political_context,
          is_political: newest.is_political,
        });
    }
    const list: { id: string; popularity: number | null }[] = [];
    let cursor: string | undefined;
    do {
      const { body } = await get(`/v1/podcasts?${qs({ limit: 5, cursor })}`);
      list.push(...body.data);
      cursor = body.cursor;
    } while (cursor);
    expect(list.map((p) => p.id)).toEqual(
      [...fx.corpus.podcasts]
        .sort((a, b) => (b.popularity ?? -1) - (a.popularity ?? -1) || (a.id < b.id ? -1 : 1))
        .map((p) => p.id),
    );
    const publisher = fx.corpus.publishers[0]!;
    const byPublisher = await get(`/v1/podcasts?${qs({ publisher_id: publisher.slug, limit: 100 })}`);
    expect(byPublisher.body.data.map((p: { id: string }) => p.id).sort()).toEqual(
      fx.corpus.podcasts
        .filter((p) => p.publisher_id === publisher.id)
        .map((p) => p.id)
        .sort(),
    );
    // An unknown publisher has no podcasts: an empty list, not an error.
    const unknown = await get(`/v1/podcasts?${qs({ publisher_id: 'no-such-publisher' })}`);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ data: [], has_more: false });
    const pub = await get(`/v1/podcasts/publishers/${publisher.slug}`);
    expect(pub.body).toMatchObject({
      id: publisher.id,
      name: publisher.name,
      podcast_count: byPublisher.body.data.length,
    });
    const search = await get(
      `/v1/podcasts/publishers?q=${encodeURIComponent(publisher.name.slice(1, 5).toUpperCase())}`,
    );
    expect(search.body.data.map((p: { id: string }) => p.id)).toContain(publisher.id);
    const company = fx.corpus.entities.find((e) => e.kind === 'COMPANY' && e.company?.domain)!;
    const co = await get(`/v1/companies/${company.company!.domain}`);
    expect(co.body).toMatchObject({ id: company.id, name: company.name, ticker: company.company!.ticker });
    const person = fx.corpus.entities.find((e) => e.kind === 'PERSON' && e.person?.company_id)!;
    const pe = await get(`/v1/people/${person.slug}`);
    expect(pe.body).toMatchObject({
      id: person.id,
      occupation: person.person!.occupation,
      company: { id: person.person!.company_id },
    });
    expect((await get(`/v1/people/${company.slug}`)).status).toBe(404);
    const people = await get(`/v1/people?q=${encodeURIComponent(person.name.split(' ')[1]!)}`);
    expect(people.body.data.map((p: { id: string }) => p.id)).toContain(person.id);
  });

  it('episode feed: every episode in arrival order, a cursor that persists as the resume position, 422 on garbage', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let last: { has_more: boolean; cursor: string } | undefined;
    do {
      const { status, body } = await get(`/v1/podcasts/episodes?${qs({ limit: 20, cursor })}`);
      expect(status).toBe(200);
      seen.push(...body.data.map((e: { id: string }) => e.id));
      expect(typeof body.cursor).toBe('string');
      last = body;
      cursor = body.has_more ? body.cursor : undefined;
    } while (cursor);
    expect(seen.sort()).toEqual(fx.corpus.episodes.map((e) => e.id).sort());
    const resume = last!.cursor;
    const idle = await get(`/v1/podcasts/episodes?${qs({ cursor: resume })}`);
    expect(idle.body).toEqual({ data: [], has_more: false, cursor: resume });
    const fresh: EpisodePublished = {
      ...fx.corpus.episodes[0]!,
      id: 'ep_fresh',
      slug: 'ep-fresh',
      title: 'Fresh',
    };
    await fx.bb.producer.send(TOPICS.episodes, [{ key: fresh.id, value: fresh }]);
    await runUntilCaughtUp(fx.bb, [
      catalogProjector(fx.state, () => fx.catalog.invalidate()) as ProcessorDefinition<unknown, unknown>,
      ...(analyticsProjectors(fx.analytics) as ProcessorDefinition<unknown, unknown>[]),
    ]);
    const next = await get(`/v1/podcasts/episodes?${qs({ cursor: resume })}`);
    expect(next.body.data.map((e: { id: string }) => e.id)).toEqual(['ep_fresh']);
    expect(next.body.cursor).not.toBe(resume);
    const podcast = fx.corpus.podcasts[2]!;
    const ofPodcast = await get(`/v1/podcasts/episodes?${qs({ podcast_id: podcast.slug, limit: 100 })}`);
    expect(ofPodcast.body.data.map((e: { id: string }) => e.id).sort()).toEqual(
      fx.corpus.episodes
        .filter((e) => e.podcast_id === podcast.id)
        .map((e) => e.id)
        .sort(),
    );
    for (const garbage of [
      'nonsense',
      Buffer.from(JSON.stringify({ e: 'mentions', p: {} })).toString('base64url'),
    ]) {
      const bad = await get(`/v1/podcasts/episodes?cursor=${garbage}`);
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].location).toBe('query.cursor');
    }
  });

  it('episode read with sections, and the transcript, its mentions by entity and its words', async () => {
    const transcript = fx.corpus.transcripts.find((t) => t.lines.some((l) => l.words))!;
    const episode = fx.corpus.episodes.find((e) => e.id === transcript.episode_id)!;
    const { status, body } = await get(
      `/v1/podcasts/episodes/${episode.slug}?include=speakers,segments,clips,entities,ad_reads`,
    );
    expect(status).toBe(200);
    const truthSpeakers = fx.corpus.truth.speakers.find((s) => s.episode_id === episode.id)!.speakers;
    expect(
      body.speakers.map((s: { label: string; role: string; line_count: number }) => [
        s.label,
        s.role,
        s.line_count,
      ]),
    ).toEqual(
      [...truthSpeakers]
        .sort((a, b) => (a.label < b.label ? -1 : 1))
        .map((s) => [s.label, s.role, s.line_count]),
    );
    const segments = fx.corpus.segments.find((s) => s.episode_id === episode.id)!.segments;
    expect(body.segments.map((s: { id: string }) => s.id)).toEqual(segments.map((s) => s.id));
    const clips = fx.corpus.clips.find((c) => c.episode_id === episode.id)!.clips;
    expect(body.clips.map((c: { id: string }) => c.id)).toEqual(
      [...clips]
        .sort((a, b) => b.engagement_score - a.engagement_score || (a.id < b.id ? -1 : 1))
        .map((c) => c.id),
    );
    expect(body.ad_reads.map((a: { id: string }) => a.id).sort()).toEqual(
      fx.corpus.adReads
        .find((a) => a.episode_id === episode.id)!
        .ad_reads.map((a) => a.id)
        .sort(),
    );
    const planted = fx.corpus.truth.mentions.filter(
      (m) => m.episode_id === episode.id && m.sense === 'entity',
    );
    const linesOf = new Map<string, Set<number>>();
    for (const m of planted)
      linesOf.set(m.entity_id, (linesOf.get(m.entity_id) ?? new Set()).add(m.line_number));
    expect(
      Object.fromEntries(
        body.entities.map((e: { entity: { id: string }; line_count: number }) => [e.entity.id, e.line_count]),
      ),
    ).toEqual(Object.fromEntries([...linesOf].map(([id, s]) => [id, s.size])));

    const t = await get(`/v1/podcasts/episodes/${episode.id}/transcript`);
    expect(t.body.language).toBe(transcript.language);
    expect(
      t.body.lines.map((l: { number: number; text: string; speaker: string }) => [
        l.number,
        l.speaker,
        l.text,
      ]),
    ).toEqual(transcript.lines.map((l) => [l.number, l.speaker, l.text]));
    expect(t.body.has_more).toBe(false);
    // Paged with limit: every line once, in order, then has_more false and no cursor.
    const paged: number[] = [];
    let lineCursor: string | undefined;
    do {
      const page = await get(
        `/v1/podcasts/episodes/${episode.id}/transcript?${qs({ limit: 3, cursor: lineCursor })}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.lines.length).toBeLessThanOrEqual(3);
      paged.push(...page.body.lines.map((l: { number: number }) => l.number));
      lineCursor = page.body.cursor;
      expect(page.body.has_more).toBe(lineCursor !== undefined);
    } while (lineCursor);
    expect(paged).toEqual(transcript.lines.map((l) => l.number));

    const entities: { entity: { id: string }; lines: { number: number; text: string }[] }[] = [];
    let cursor: string | undefined;
    do {
      const page = await get(
        `/v1/podcasts/episodes/${episode.id}/transcript/mentions?${qs({ limit: 2, cursor })}`,
      );
      expect(page.status).toBe(200);
      entities.push(...page.body.entities);
      cursor = page.body.cursor;
    } while (cursor);
    expect(new Set(entities.map((e) => e.entity.id))).toEqual(new Set(linesOf.keys()));
    for (const e of entities) {
      expect(e.lines.map((l) => l.number)).toEqual([...linesOf.get(e.entity.id)!].sort((a, b) => a - b));
      for (const l of e.lines) expect(l.text).toBe(transcript.lines[l.number - 1]!.text);
    }
    const everything = await get(`/v1/podcasts/episodes/${episode.id}/transcript/mentions`);
    expect(everything.body.entities).toHaveLength(linesOf.size);

    const words = transcript.lines.flatMap((l) => (l.words ?? []).map((w) => [l.number, w.word]));
    const got: unknown[] = [];
    cursor = undefined;
    do {
      const page = await get(
        `/v1/podcasts/episodes/${episode.id}/transcript/words?${qs({ limit: 500, cursor })}`,
      );
      got.push(...page.body.words.map((w: { line_number: number; word: string }) => [w.line_number, w.word]));
      cursor = page.body.cursor;
    } while (cursor);
    expect(got).toEqual(words);
    const big = await get(`/v1/podcasts/episodes/${episode.id}/transcript/words?limit=5000`);
    expect(big.body.words).toHaveLength(Math.min(5000, words.length));
    expect((await get(`/v1/podcasts/episodes/${episode.id}/transcript/words?limit=5001`)).status).toBe(422);
    expect((await get('/v1/podcasts/episodes/no-such-episode/transcript')).status).toBe(404);
  });

  it('documents every read in a valid OpenAPI document, with prices', async () => {
    const res = await api.app.inject({ method: 'GET', url: '/openapi.json' });
    const doc = res.json() as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    for (const path of [
      '/v1/podcasts/mentions',
      '/v1/podcasts/mentions/timeseries',
      '/v1/podcasts/mentions/by-podcast',
      '/v1/entities',
      '/v1/entities/types',
      '/v1/podcasts/advertising/sponsors/trends',
      '/v1/podcasts/publishers/{id}/advertising',
      '/v1/podcasts/advertising/timeseries',
      '/v1/podcasts/{id}/rankings',
      '/v1/podcasts/rankings/sources',
      '/v1/podcasts/bias/publishers/leaderboard',
      '/v1/podcasts/episodes',
      '/v1/podcasts/episodes/{id}',
      '/v1/podcasts/episodes/{id}/transcript',
      '/v1/podcasts/episodes/{id}/transcript/mentions',
      '/v1/podcasts/episodes/{id}/transcript/words',
    ]) {
      expect(doc.paths[path]?.get?.['x-payment-info'], path).toMatchObject({ price: { currency: 'USD' } });
    }
  });
});
