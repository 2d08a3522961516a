import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfUtcDay } from '../../ingest/corpus/generate.ts';
import { projectedCorpus } from '../support/analytics.ts';
import { testApi } from '../support/api.ts';

/**
 * Ad placements, the sponsor directory, guests and the episode timeseries, against values
 * computed here from the generated corpus's records and ground truth (never by the same query).
 */
const DAY = 86_400_000;
const AS_OF = startOfUtcDay(Date.now());

type Fixture = Awaited<ReturnType<typeof projectedCorpus>>;
type Api = Awaited<ReturnType<typeof testApi>>;
type Page<T> = { data: T[]; has_more: boolean; cursor?: string };

const iso = (t: number) => new Date(t).toISOString();
const sponsorKey = (companyId: string | null, name: string) =>
  companyId ?? `name:${name.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ')}`;
const sponsorIdOf = (key: string, companyId: string | null) =>
  companyId ?? `sp_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
/** Byte order, as the store sorts strings. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('catalog surface: placements, sponsors, guests, episode timeseries', () => {
  let fx: Fixture;
  let api: Api;
  const get = async (url: string, key = api.keys.business!) => {
    const r = await api.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    return { status: r.statusCode, body: r.json() };
  };
  /** Every page of a list read, following cursors. */
  async function all<T>(url: string): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 500; i++) {
      const sep = url.includes('?') ? '&' : '?';
      const r = await get(cursor ? `${url}${sep}cursor=${encodeURIComponent(cursor)}` : url);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const page = r.body as Page<T>;
      out.push(...page.data);
      if (!page.has_more) {
        expect(page.cursor).toBeUndefined();
        return out;
      }
      cursor = page.cursor;
    }
    throw new Error('too many pages');
  }

  const ads = () => {
    const episodes = new Map(fx.corpus.episodes.map((e) => [e.id, e]));
    const podcasts = new Map(fx.corpus.podcasts.map((p) => [p.id, p]));
    return fx.corpus.adReads.flatMap((a) =>
      a.ad_reads.map((r) => {
        const e = episodes.get(a.episode_id)!;
        const key = sponsorKey(r.company_id ?? null, r.sponsor_name);
        return {
          ...r,
          episode: e.id,
          podcast: e.podcast_id,
          publisher: podcasts.get(e.podcast_id)!.publisher_id,
          published: e.published_at,
          key,
          sponsor_id: sponsorIdOf(key, r.company_id ?? null),
        };
      }),
    );
  };

  beforeAll(async () => {
    fx = await projectedCorpus({ podcasts: 12, episodesPerPodcast: 8, seed: 41, asOf: AS_OF });
    api = await testApi({ rateLimitPerMinute: 100_000 }, undefined, {
      state: fx.state,
      analytics: fx.analytics,
    });
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await fx?.close();
  });

  describe('route_not_found against real catalog reads', () => {
    it('answers a path word in the place of a podcast id as no route, and a real slug as the podcast', async () => {
      const podcast = fx.corpus.podcasts[0]!;
      for (const url of [
        '/v1/podcasts/advertising/rankings',
        '/v1/podcasts/advertising/guests',
        '/v1/podcasts/mentions/rankings',
        '/v1/sponsors/x/y',
        '/v1/guests/anyone',
      ]) {
        const r = await get(url);
        expect(r.status, url).toBe(404);
        expect(r.body.error_code, url).toBe('route_not_found');
      }
      // `/v1/podcasts/episodes/guests` stays a lookup of an episode slugged "guests"
      // (`/v1/podcasts/episodes/:id`): the router matches the static `episodes` first
      expect((await get('/v1/podcasts/episodes/guests')).body.errors[0].location).toBe('path.id');
      expect((await get(`/v1/podcasts/${podcast.slug}/rankings`)).status).toBe(200);
      expect((await get(`/v1/podcasts/${podcast.slug}/guests`)).status).toBe(200);
      const unknown = await get('/v1/podcasts/no-such-show/guests');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error_code).toBe('not_found');
      expect(unknown.body.errors[0].location).toBe('path.id');
    });
  });

  describe('GET /v1/podcasts/advertising/placements', () => {
    const order = (a: ReturnType<typeof ads>[number], b: ReturnType<typeof ads>[number]) =>
      b.published - a.published || cmp(b.episode, a.episode) || cmp(b.id, a.id);

    it('lists every ad read newest first, with network promos flagged, across pages', async () => {
      const expected = ads().sort(order);
      expect(expected.some((a) => a.is_network_promo)).toBe(true);
      const got = await all<Record<string, unknown>>('/v1/podcasts/advertising/placements?limit=37');
      expect(got.map((p) => p.id)).toEqual(expected.map((a) => a.id));
      const first = got[0] as {
        sponsor: { id: string; name: string };
        episode: { id: string; podcast: { id: string } };
        start_seconds: number;
        end_seconds: number;
        duration_seconds: number;
        read_type: string;
        is_network_promo: boolean;
        published_at: string;
        publisher_id: string;
      };
      const a = expected[0]!;
      expect(first).toMatchObject({
        sponsor: { id: a.sponsor_id },
        episode: { id: a.episode, podcast: { id: a.podcast } },
        start_seconds: a.start_seconds,
        end_seconds: a.end_seconds,
        read_type: a.read_type,
        is_network_promo: a.is_network_promo,
        published_at: iso(a.published),
        publisher_id: a.publisher,
      });
      expect(first.duration_seconds).toBeCloseTo(a.end_seconds - a.start_seconds, 6);
    });

    it('filters by company (slug), podcast, publisher, read type and window', async () => {
      const all0 = ads();
      const company = fx.corpus.entities.find(
        (e) => e.kind === 'COMPANY' && all0.filter((a) => a.company_id === e.id).length >= 3,
      )!;
      const byCompany = all0.filter((a) => a.company_id === company.id).sort(order);
      const got = await all<{ id: string }>(
        `/v1/podcasts/advertising/placements?company_id=${company.slug}&limit=2`,
      );
      expect(got.map((p) => p.id)).toEqual(byCompany.map((a) => a.id));

      const podcast = fx.corpus.podcasts[3]!;
      const since = AS_OF - 60 * DAY;
      const until = AS_OF - 10 * DAY;
      const scoped = all0
        .filter(
          (a) =>
            a.publisher === podcast.publisher_id &&
            a.read_type === 'host_read' &&
            a.published >= since &&
            a.published < until,
        )
        .sort(order);
      expect(scoped.length).toBeGreaterThan(0);
      const got2 = await all<{ id: string }>(
        `/v1/podcasts/advertising/placements?publisher_id=${podcast.publisher_id}&read_type=host_read&since=${iso(since)}&until=${iso(until)}&limit=5`,
      );
      expect(got2.map((p) => p.id)).toEqual(scoped.map((a) => a.id));
      const onePodcast = all0.filter((a) => a.podcast === podcast.id).sort(order);
      const got3 = await all<{ id: string }>(
        `/v1/podcasts/advertising/placements?podcast_id=${podcast.slug}&limit=100`,
      );
      expect(got3.map((p) => p.id)).toEqual(onePodcast.map((a) => a.id));
      // a reference that resolves to nothing matches nothing
      const none = await get('/v1/podcasts/advertising/placements?company_id=no-such-company');
      expect(none.body).toEqual({ data: [], has_more: false });
    });

    it('refuses an unreadable cursor with 422 validation_error, and a cursor with other filters', async () => {
      const bad = await get('/v1/podcasts/advertising/placements?cursor=garbage');
      expect(bad.status).toBe(422);
      expect(bad.body.error_code).toBe('validation_error');
      expect(bad.body.errors[0].location).toBe('query.cursor');
      const first = await get('/v1/podcasts/advertising/placements?limit=3');
      const other = await get(
        `/v1/podcasts/advertising/placements?limit=3&read_type=host_read&cursor=${encodeURIComponent(first.body.cursor)}`,
      );
      expect(other.status).toBe(422);
      expect(other.body.error_code).toBe('validation_error');
    });

    it('is premium: 403 premium_required on a plan without premium endpoints', async () => {
      const r = await get('/v1/podcasts/advertising/placements', api.keys.team!);
      expect(r.status).toBe(403);
      expect(r.body.error_code).toBe('premium_required');
    });
  });

  describe('GET /v1/sponsors and /v1/sponsors/{id}', () => {
    const directory = (filter: (a: ReturnType<typeof ads>[number]) => boolean = () => true) => {
      const bySponsor = new Map<string, ReturnType<typeof ads>>();
      for (const a of ads().filter((x) => !x.is_network_promo && filter(x))) {
        const list = bySponsor.get(a.key) ?? [];
        list.push(a);
        bySponsor.set(a.key, list);
      }
      return [...bySponsor.entries()].map(([key, list]) => ({
        key,
        id: list[0]!.sponsor_id,
        name: list[0]!.sponsor_name,
        company_id: list[0]!.company_id ?? null,
        ad_count: list.length,
        episode_reach: new Set(list.map((a) => a.episode)).size,
        podcast_reach: new Set(list.map((a) => a.podcast)).size,
        first: Math.min(...list.map((a) => a.published)),
        last: Math.max(...list.map((a) => a.published)),
        list,
      }));
    };

    it('ranks every sponsor by ads, or by podcast reach, with all-time figures', async () => {
      const expected = directory().sort(
        (a, b) => b.ad_count - a.ad_count || b.podcast_reach - a.podcast_reach || cmp(a.key, b.key),
      );
      type Row = {
        id: string;
        ad_count: number;
        episode_reach: number;
        podcast_reach: number;
        first_seen_at: string;
        last_seen_at: string;
      };
      const got = await all<Row>('/v1/sponsors?limit=9');
      expect(got.map((s) => [s.id, s.ad_count, s.episode_reach, s.podcast_reach])).toEqual(
        expected.map((s) => [s.id, s.ad_count, s.episode_reach, s.podcast_reach]),
      );
      expect(got[0]!.first_seen_at).toBe(iso(expected[0]!.first));
      expect(got[0]!.last_seen_at).toBe(iso(expected[0]!.last));
      const byReach = [...expected].sort(
        (a, b) => b.podcast_reach - a.podcast_reach || b.ad_count - a.ad_count || cmp(a.key, b.key),
      );
      const got2 = await all<Row>('/v1/sponsors?sort=reach&limit=100');
      expect(got2.map((s) => s.id)).toEqual(byReach.map((s) => s.id));
    });

    it('searches by part of the name, and counts within a window', async () => {
      const target = directory()[0]!;
      const part = target.name.slice(1, 4).toUpperCase();
      const expected = directory()
        .filter((s) => s.list.some((a) => a.sponsor_name.toLowerCase().includes(part.toLowerCase())))
        .map((s) => s.id)
        .sort();
      const got = await all<{ id: string }>(`/v1/sponsors?q=${encodeURIComponent(part)}`);
      expect(got.map((s) => s.id).sort()).toEqual(expected);
      const since = AS_OF - 30 * DAY;
      const windowed = directory((a) => a.published >= since).sort(
        (a, b) => b.ad_count - a.ad_count || b.podcast_reach - a.podcast_reach || cmp(a.key, b.key),
      );
      const got2 = await all<{ id: string; ad_count: number; episode_reach: number; podcast_reach: number }>(
        `/v1/sponsors?since=${iso(since)}&limit=100`,
      );
      expect(got2.map((s) => [s.id, s.ad_count, s.episode_reach, s.podcast_reach])).toEqual(
        windowed.map((s) => [s.id, s.ad_count, s.episode_reach, s.podcast_reach]),
      );
    });

    it('reads one sponsor by company slug, domain, ID or sp_ ID, with read types and podcasts', async () => {
      const sponsors = directory();
      const company = sponsors.find((s) => s.company_id !== null)!;
      const entity = fx.corpus.entities.find((e) => e.id === company.company_id)!;
      const hostRead = company.list.filter((a) => a.read_type === 'host_read').length;
      const perPodcast = new Map<string, number>();
      for (const a of company.list) perPodcast.set(a.podcast, (perPodcast.get(a.podcast) ?? 0) + 1);
      for (const ref of [entity.id, entity.slug, entity.company?.domain].filter(Boolean) as string[]) {
        const r = await get(`/v1/sponsors/${encodeURIComponent(ref)}`);
        expect(r.status, ref).toBe(200);
        expect(r.body).toMatchObject({
          id: entity.id,
          ad_count: company.ad_count,
          podcast_reach: company.podcast_reach,
          read_types: { host_read: hostRead, pre_recorded: company.ad_count - hostRead },
          company: { id: entity.id, slug: entity.slug },
          episode_reach: company.episode_reach,
          first_seen_at: iso(company.first),
          last_seen_at: iso(company.last),
        });
        expect(
          Object.fromEntries(
            (r.body.podcasts as { podcast: { id: string }; ad_count: number }[]).map((p) => [
              p.podcast.id,
              p.ad_count,
            ]),
          ),
        ).toEqual(Object.fromEntries(perPodcast));
      }
      const named = sponsors.find((s) => s.company_id === null);
      if (named) {
        const r = await get(`/v1/sponsors/${named.id}`);
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ id: named.id, ad_count: named.ad_count, company: null });
      }
      const missing = await get('/v1/sponsors/sp_000000000000');
      expect(missing.status).toBe(404);
      expect(missing.body.error_code).toBe('not_found');
    });
  });

  describe('guests', () => {
    const appearances = (podcastId?: string, since = Number.NEGATIVE_INFINITY) => {
      const episodes = new Map(fx.corpus.episodes.map((e) => [e.id, e]));
      const byPerson = new Map<
        string,
        { episodes: Set<string>; podcasts: Set<string>; last: number; lines: number }
      >();
      for (const t of fx.corpus.truth.speakers) {
        const e = episodes.get(t.episode_id)!;
        if (podcastId && e.podcast_id !== podcastId) continue;
        if (e.published_at < since) continue;
        for (const s of t.speakers) {
          if (!s.person_id || s.role === 'HOST') continue;
          const g = byPerson.get(s.person_id) ?? {
            episodes: new Set(),
            podcasts: new Set(),
            last: 0,
            lines: 0,
          };
          g.episodes.add(e.id);
          g.podcasts.add(e.podcast_id);
          g.last = Math.max(g.last, e.published_at);
          g.lines += s.line_count;
          byPerson.set(s.person_id, g);
        }
      }
      return [...byPerson.entries()]
        .map(([id, g]) => ({
          id,
          appearances: g.episodes.size,
          podcasts: g.podcasts.size,
          last: g.last,
          lines: g.lines,
        }))
        .sort((a, b) => b.appearances - a.appearances || b.last - a.last || cmp(a.id, b.id));
    };

    it('GET /v1/guests: every non-host speaker person, most appearances first, with occupation', async () => {
      const expected = appearances();
      expect(expected.length).toBeGreaterThan(5);
      type Row = {
        person: { id: string; name: string };
        appearances: number;
        podcast_count: number;
        line_count: number;
        last_appearance_at: string;
        roles: string[];
        occupation: { slug: string } | null;
      };
      const got = await all<Row>('/v1/guests?limit=8');
      expect(
        got.map((g) => [g.person.id, g.appearances, g.podcast_count, g.line_count, g.last_appearance_at]),
      ).toEqual(expected.map((g) => [g.id, g.appearances, g.podcasts, g.lines, iso(g.last)]));
      const person = fx.corpus.entities.find((e) => e.id === got[0]!.person.id)!;
      expect(got[0]!.person.name).toBe(person.name);
      expect(got[0]!.occupation?.slug ?? null).toBe(person.person?.occupation?.slug ?? null);
      expect(got[0]!.roles).not.toContain('HOST');
    });

    it('GET /v1/podcasts/{id}/guests: one podcast, by slug or directory ID; guest_standing narrows', async () => {
      const podcast = fx.corpus.podcasts.find((p) => appearances(p.id).length > 0)!;
      const expected = appearances(podcast.id);
      const got = await all<{ person: { id: string }; appearances: number }>(
        `/v1/podcasts/${podcast.slug}/guests?limit=3`,
      );
      expect(got.map((g) => [g.person.id, g.appearances])).toEqual(
        expected.map((g) => [g.id, g.appearances]),
      );
      if (podcast.directory_id != null) {
        const byDir = await get(`/v1/podcasts/${podcast.directory_id}/guests?limit=100`);
        expect(byDir.body.data.map((g: { person: { id: string } }) => g.person.id)).toEqual(
          expected.map((g) => g.id),
        );
      }
      const standing = new Map(fx.corpus.entities.map((e) => [e.id, e.person?.standing ?? null]));
      const established = appearances().filter((g) => standing.get(g.id) === 'established');
      const got2 = await all<{ person: { id: string } }>('/v1/guests?guest_standing=established&limit=100');
      expect(got2.map((g) => g.person.id)).toEqual(established.map((g) => g.id));
    });
    it('sorts every guest by latest appearance, and a podcast’s guests over a window, across pages', async () => {
      const recent = appearances().sort(
        (a, b) => b.last - a.last || b.appearances - a.appearances || cmp(a.id, b.id),
      );
      const got = await all<{ person: { id: string }; appearances: number; last_appearance_at: string }>(
        '/v1/guests?sort=recent&limit=7',
      );
      expect(got.map((g) => [g.person.id, g.appearances, g.last_appearance_at])).toEqual(
        recent.map((g) => [g.id, g.appearances, iso(g.last)]),
      );
      // The podcast with most guests, from an episode's publication time (included) on.
      const podcast = [...fx.corpus.podcasts].sort(
        (a, b) => appearances(b.id).length - appearances(a.id).length,
      )[0]!;
      const times = fx.corpus.episodes
        .filter((e) => e.podcast_id === podcast.id)
        .map((e) => e.published_at)
        .sort((a, b) => a - b);
      const since = times[Math.floor(times.length / 2)]!;
      const expected = appearances(podcast.id, since);
      expect(expected.length).toBeGreaterThan(0);
      const total = (list: ReturnType<typeof appearances>) => list.reduce((n, g) => n + g.appearances, 0);
      expect(total(expected)).toBeLessThan(total(appearances(podcast.id)));
      const got2 = await all<{ person: { id: string }; appearances: number; line_count: number }>(
        `/v1/podcasts/${podcast.id}/guests?since=${iso(since)}&limit=2`,
      );
      expect(got2.map((g) => [g.person.id, g.appearances, g.line_count])).toEqual(
        expected.map((g) => [g.id, g.appearances, g.lines]),
      );
    });
  });

  describe('topics', () => {
    /** Topic segments of the episodes published in [since, until), from the corpus records. */
    const topicTruth = (
      since: number,
      until: number,
      podcastId?: string,
      keep: (e: Fixture['corpus']['episodes'][number]) => boolean = () => true,
    ) => {
      const episodes = new Map(
        fx.corpus.episodes
          .filter((e) => e.published_at >= since && e.published_at < until)
          .filter((e) => !podcastId || e.podcast_id === podcastId)
          .filter(keep)
          .map((e) => [e.id, e]),
      );
      const mentionLines = new Map<string, { entity: string; line: number }[]>();
      const seen = new Set<string>();
      for (const m of fx.corpus.truth.mentions) {
        if (m.sense !== 'entity' || m.in_ad || !episodes.has(m.episode_id)) continue;
        const k = `${m.episode_id}/${m.line_number}/${m.entity_id}`;
        if (seen.has(k)) continue; // a line counts once per entity
        seen.add(k);
        const list = mentionLines.get(m.episode_id) ?? [];
        list.push({ entity: m.entity_id, line: m.line_number });
        mentionLines.set(m.episode_id, list);
      }
      const out = new Map<
        string,
        {
          episodes: Set<string>;
          podcasts: Set<string>;
          segments: number;
          mentions: number;
          byEntity: Map<string, number>;
        }
      >();
      for (const set of fx.corpus.segments) {
        const e = episodes.get(set.episode_id);
        if (!e) continue;
        for (const seg of set.segments) {
          for (const topic of seg.topics ?? []) {
            const t = out.get(topic) ?? {
              episodes: new Set(),
              podcasts: new Set(),
              segments: 0,
              mentions: 0,
              byEntity: new Map(),
            };
            t.episodes.add(e.id);
            t.podcasts.add(e.podcast_id);
            t.segments++;
            for (const m of mentionLines.get(e.id) ?? []) {
              if (m.line < seg.first_line || m.line > seg.last_line) continue;
              t.mentions++;
              t.byEntity.set(m.entity, (t.byEntity.get(m.entity) ?? 0) + 1);
            }
            out.set(topic, t);
          }
        }
      }
      return out;
    };

    it('GET /v1/topics: topics of the window with episode, podcast, segment and mention counts', async () => {
      const since = AS_OF - 60 * DAY;
      const until = AS_OF;
      const truth = topicTruth(since, until);
      expect(truth.size).toBeGreaterThan(2);
      type Row = {
        id: string;
        name: string;
        episode_count: number;
        podcast_count: number;
        segment_count: number;
        mention_count: number;
      };
      const got = await all<Row>(`/v1/topics?since=${iso(since)}&until=${iso(until)}&limit=3`);
      const expected = [...truth.entries()]
        .map(([id, t]) => ({
          id,
          episodes: t.episodes.size,
          podcasts: t.podcasts.size,
          segments: t.segments,
          mentions: t.mentions,
        }))
        .sort((a, b) => b.episodes - a.episodes || b.mentions - a.mentions || cmp(a.id, b.id));
      expect(
        got.map((t) => [t.id, t.episode_count, t.podcast_count, t.segment_count, t.mention_count]),
      ).toEqual(expected.map((t) => [t.id, t.episodes, t.podcasts, t.segments, t.mentions]));
      const podcast = fx.corpus.podcasts[1]!;
      const one = topicTruth(since, until, podcast.id);
      const got2 = await all<Row>(
        `/v1/topics?podcast_id=${podcast.slug}&since=${iso(since)}&until=${iso(until)}`,
      );
      expect(Object.fromEntries(got2.map((t) => [t.id, t.episode_count]))).toEqual(
        Object.fromEntries([...one.entries()].map(([id, t]) => [id, t.episodes.size])),
      );
    });

    it('GET /v1/topics/{id}: counts, the categories and entities mentioned inside its segments', async () => {
      const since = AS_OF - 60 * DAY;
      const until = AS_OF;
      const truth = topicTruth(since, until);
      const [id, t] = [...truth.entries()].sort((a, b) => b[1].mentions - a[1].mentions)[0]!;
      const r = await get(`/v1/topics/${id}?since=${iso(since)}&until=${iso(until)}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ id, episode_count: t.episodes.size, mention_count: t.mentions });
      const entities = new Map(fx.corpus.entities.map((e) => [e.id, e]));
      const byCategory = new Map<string, number>();
      for (const [entity, n] of t.byEntity) {
        const slug = entities.get(entity)!.category.slug;
        byCategory.set(slug, (byCategory.get(slug) ?? 0) + n);
      }
      expect(
        Object.fromEntries(
          (r.body.categories as { slug: string; mention_count: number }[]).map((c) => [
            c.slug,
            c.mention_count,
          ]),
        ),
      ).toEqual(Object.fromEntries(byCategory));
      const top = [...t.byEntity.entries()].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0])).slice(0, 10);
      expect(
        (r.body.top_entities as { entity: { id: string }; mention_count: number }[]).map((e) => [
          e.entity.id,
          e.mention_count,
        ]),
      ).toEqual(top);
      // Episodes on the topic per podcast, most first (then by podcast id).
      const perPodcast = new Map<string, number>();
      const podcastOf = new Map(fx.corpus.episodes.map((e) => [e.id, e.podcast_id]));
      for (const e of t.episodes)
        perPodcast.set(podcastOf.get(e)!, (perPodcast.get(podcastOf.get(e)!) ?? 0) + 1);
      const topPodcasts = [...perPodcast.entries()]
        .sort((a, b) => b[1] - a[1] || cmp(a[0], b[0]))
        .slice(0, 10);
      expect(topPodcasts.length).toBeGreaterThan(1);
      expect(
        (r.body.top_podcasts as { podcast: { id: string }; episode_count: number }[]).map((p) => [
          p.podcast.id,
          p.episode_count,
        ]),
      ).toEqual(topPodcasts);
      const missing = await get('/v1/topics/no-such-topic');
      expect(missing.status).toBe(404);
      expect(missing.body.error_code).toBe('not_found');
    });
    it('counts topics exactly at the window’s edges, by language and podcast, across pages', async () => {
      type Row = {
        id: string;
        episode_count: number;
        podcast_count: number;
        segment_count: number;
        mention_count: number;
      };
      const rows = (truth: ReturnType<typeof topicTruth>) =>
        [...truth.entries()]
          .map(([id, t]) => [id, t.episodes.size, t.podcasts.size, t.segments, t.mentions] as const)
          .sort((a, b) => b[1] - a[1] || b[4] - a[4] || cmp(a[0], b[0]));
      const view = (got: Row[]) =>
        got.map((t) => [t.id, t.episode_count, t.podcast_count, t.segment_count, t.mention_count]);
      // `since` at an episode's publication time includes it, `until` at another's excludes it.
      const times = [...new Set(fx.corpus.episodes.map((e) => e.published_at))].sort((a, b) => a - b);
      const since = times[Math.floor(times.length / 4)]!;
      const until = times[Math.floor((times.length * 3) / 4)]!;
      const edges = topicTruth(since, until);
      expect(edges.size).toBeGreaterThan(2);
      expect(view(await all<Row>(`/v1/topics?since=${iso(since)}&until=${iso(until)}&limit=2`))).toEqual(
        rows(edges),
      );
      const justAfter = topicTruth(since + 1, until + 1);
      expect(
        view(await all<Row>(`/v1/topics?since=${iso(since + 1)}&until=${iso(until + 1)}&limit=100`)),
      ).toEqual(rows(justAfter));
      // By language: the primary subtag of the podcast's language.
      const langOf = new Map(fx.corpus.podcasts.map((p) => [p.id, p.language.split('-')[0]!.toLowerCase()]));
      const counts = new Map<string, number>();
      for (const l of langOf.values()) counts.set(l, (counts.get(l) ?? 0) + 1);
      const lang = [...counts.entries()].sort((a, b) => a[1] - b[1] || cmp(a[0], b[0]))[0]![0];
      const start = AS_OF - 365 * DAY;
      const byLang = topicTruth(start, AS_OF, undefined, (e) => langOf.get(e.podcast_id) === lang);
      expect(
        view(await all<Row>(`/v1/topics?language=${lang}&since=${iso(start)}&until=${iso(AS_OF)}&limit=4`)),
      ).toEqual(rows(byLang));
      // One topic within one podcast: its counts, entities and the podcast as the only top podcast.
      const podcast = fx.corpus.podcasts.find((p) => topicTruth(start, AS_OF, p.id).size > 0)!;
      const one = topicTruth(start, AS_OF, podcast.id);
      const [id, t] = [...one.entries()].sort((a, b) => b[1].mentions - a[1].mentions || cmp(a[0], b[0]))[0]!;
      const r = await get(
        `/v1/topics/${id}?podcast_id=${podcast.slug}&since=${iso(start)}&until=${iso(AS_OF)}`,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({
        episode_count: t.episodes.size,
        segment_count: t.segments,
        mention_count: t.mentions,
      });
      expect(
        (r.body.top_podcasts as { podcast: { id: string }; episode_count: number }[]).map((p) => [
          p.podcast.id,
          p.episode_count,
        ]),
      ).toEqual([[podcast.id, t.episodes.size]]);
      const top = [...t.byEntity.entries()].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0])).slice(0, 10);
      expect(
        (r.body.top_entities as { entity: { id: string }; mention_count: number }[]).map((e) => [
          e.entity.id,
          e.mention_count,
        ]),
      ).toEqual(top);
    });
  });

  describe('GET /v1/podcasts/{id}/ratings', () => {
    it('gives the latest rating per platform and country, the history in the window and the overall figure', async () => {
      const podcast = fx.corpus.podcasts[5]!;
      const snaps = fx.corpus.ratings.filter((r) => r.podcast_id === podcast.id);
      expect(snaps.length).toBeGreaterThan(0);
      const groups = new Map<string, typeof snaps>();
      for (const r of snaps)
        groups.set(`${r.platform}/${r.country}`, [...(groups.get(`${r.platform}/${r.country}`) ?? []), r]);
      const since = AS_OF - 21 * DAY;
      const expected = [...groups.values()]
        .map((list) => {
          const sorted = [...list].sort((a, b) => a.captured_at - b.captured_at);
          const latest = sorted.at(-1)!;
          return {
            platform: latest.platform,
            country: latest.country,
            average: latest.average,
            count: latest.count,
            captured_at: iso(latest.captured_at),
            history: sorted
              .filter((r) => r.captured_at >= since)
              .map((r) => ({ captured_at: iso(r.captured_at), average: r.average, count: r.count })),
          };
        })
        .sort((a, b) => b.count - a.count || cmp(a.platform + a.country, b.platform + b.country));
      const r = await get(`/v1/podcasts/${podcast.slug}/ratings?since=${iso(since).slice(0, 10)}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toEqual(expected);
      const total = expected.reduce((n, x) => n + x.count, 0);
      expect(r.body.overall.count).toBe(total);
      expect(r.body.overall.average).toBeCloseTo(
        expected.reduce((n, x) => n + x.average * x.count, 0) / total,
        3,
      );
      const platform = expected[0]!.platform;
      const one = await get(`/v1/podcasts/${podcast.id}/ratings?platform=${platform}&limit=1`);
      expect(one.body.data).toHaveLength(1);
      expect(one.body.has_more).toBe(expected.filter((x) => x.platform === platform).length > 1);
      expect((await get('/v1/podcasts/no-such-show/ratings')).body.error_code).toBe('not_found');
    });
  });

  describe('public embeds', () => {
    const clipWithLines = () => {
      const transcripts = new Map(fx.corpus.transcripts.map((t) => [t.episode_id, t]));
      for (const set of fx.corpus.clips)
        for (const clip of set.clips) {
          const lines = transcripts.get(set.episode_id)!.lines;
          const own = lines.filter(
            (l) => l.start_seconds >= clip.start_seconds && l.end_seconds <= clip.end_seconds,
          );
          const outside = lines.filter(
            (l) => l.end_seconds < clip.start_seconds || l.start_seconds > clip.end_seconds,
          );
          if (own.length > 0 && outside.length > 0) return { episodeId: set.episode_id, clip, own, outside };
        }
      throw new Error('no clip with lines');
    };
    const escapeText = (t: string) =>
      t
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;');

    it('serves the clip player without a credential: framable, cacheable, only the clip’s own lines', async () => {
      const { clip, own, outside } = clipWithLines();
      const r = await api.app.inject({ method: 'GET', url: `/v1/embed/clips/${clip.id}` });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.headers['content-security-policy']).toContain('frame-ancestors *');
      expect(r.headers['x-frame-options']).toBeUndefined();
      expect(r.headers['cache-control']).toBe('public, max-age=300');
      expect(r.headers['set-cookie']).toBeUndefined();
      expect(r.body).toContain(escapeText(clip.title));
      if (clip.intro_statement) expect(r.body).toContain(escapeText(clip.intro_statement));
      if (clip.audio_url) expect(r.body).toContain(`src="${escapeText(clip.audio_url)}"`);
      for (const l of own) expect(r.body).toContain(escapeText(l.text));
      // (a sentence said again outside the clip is the clip's line too)
      const ownText = new Set(own.map((l) => l.text));
      const others = outside.filter((l) => !ownText.has(l.text));
      expect(others.length).toBeGreaterThan(0);
      for (const l of others) expect(r.body).not.toContain(`<blockquote>${escapeText(l.text)}</blockquote>`);
      expect(r.body.match(/<blockquote>/g)).toHaveLength(own.length);
      expect(r.body).toContain('type="application/json+oembed"');
      const missing = await api.app.inject({ method: 'GET', url: '/v1/embed/clips/clip_none' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error_code).toBe('not_found');
    });

    it('serves the episode card and oEmbed for both, refusing URLs that are not its embeds', async () => {
      const episode = fx.corpus.episodes[0]!;
      const card = await api.app.inject({ method: 'GET', url: `/v1/embed/episodes/${episode.slug}` });
      expect(card.statusCode).toBe(200);
      expect(card.body).toContain(escapeText(episode.title));
      const { clip } = clipWithLines();
      const base = 'http://127.0.0.1:8080';
      for (const [url, title] of [
        [`${base}/v1/embed/clips/${clip.id}`, clip.title],
        [`${base}/v1/embed/episodes/${episode.id}`, episode.title],
      ] as const) {
        const r = await api.app.inject({
          method: 'GET',
          url: `/v1/embed/oembed?url=${encodeURIComponent(url)}&format=json&maxwidth=300`,
        });
        expect(r.statusCode, r.body).toBe(200);
        const body = r.json();
        expect(body).toMatchObject({
          version: '1.0',
          type: 'rich',
          title,
          width: 300,
          provider_name: 'Earshot',
        });
        expect(body.html).toContain(`<iframe src="${url}"`);
      }
      for (const url of ['https://elsewhere.example/v1/embed/clips/x', `${base}/v1/podcasts`, 'not a url']) {
        const r = await api.app.inject({
          method: 'GET',
          url: `/v1/embed/oembed?url=${encodeURIComponent(url)}`,
        });
        expect(r.statusCode, url).toBe(422);
        expect(r.json().errors[0].location).toBe('query.url');
      }
      // oEmbed 1.0 (2.3.4): a format the provider does not serve is 501 Not Implemented.
      const xml = await api.app.inject({
        method: 'GET',
        url: `/v1/embed/oembed?url=${encodeURIComponent(`${base}/v1/embed/episodes/${episode.id}`)}&format=xml`,
      });
      expect(xml.statusCode).toBe(501);
      expect(xml.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(xml.json()).toMatchObject({
        status: 501,
        error_code: 'not_implemented',
        errors: [{ location: 'query.format', value: 'xml' }],
      });
    });

    it('rate-limits the embeds per client address: 429 with Retry-After, other addresses unaffected', async () => {
      // Its own API on the same stores, with a limit of 3 a minute (public routes count per address).
      const limited = await testApi({ rateLimitPerMinute: 3 }, undefined, {
        state: fx.state,
        analytics: fx.analytics,
      });
      try {
        const { clip } = clipWithLines();
        const urls = [
          `/v1/embed/clips/${clip.id}`,
          `/v1/embed/episodes/${fx.corpus.episodes[0]!.id}`,
          `/v1/embed/oembed?url=${encodeURIComponent(`http://127.0.0.1:8080/v1/embed/clips/${clip.id}`)}`,
          `/v1/embed/clips/${clip.id}`,
        ];
        const answers = [];
        for (const url of urls)
          answers.push(await limited.app.inject({ method: 'GET', url, remoteAddress: '198.51.100.77' }));
        expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 429]);
        const refused = answers[3]!;
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(refused.json()).toMatchObject({ status: 429, error_code: 'rate_limited' });
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
        const other = await limited.app.inject({
          method: 'GET',
          url: urls[0]!,
          remoteAddress: '198.51.100.78',
        });
        expect(other.statusCode).toBe(200);
      } finally {
        await limited.close();
      }
    });
  });

  describe('GET /v1/podcasts/episodes/timeseries', () => {
    const dayOf = (t: number) => Math.floor(t / DAY) * DAY;

    it('counts episodes per day over the window, with totals, filtered by podcast, language and entity', async () => {
      const since = AS_OF - 40 * DAY;
      const until = AS_OF;
      const inWindow = fx.corpus.episodes.filter((e) => e.published_at >= since && e.published_at < until);
      const r = await get(`/v1/podcasts/episodes/timeseries?since=${iso(since)}&until=${iso(until)}`);
      expect(r.status).toBe(200);
      expect(r.body.buckets).toHaveLength(40);
      expect(r.body.totals).toEqual({
        episode_count: inWindow.length,
        podcast_count: new Set(inWindow.map((e) => e.podcast_id)).size,
      });
      for (const b of r.body.buckets as { start: string; episode_count: number }[]) {
        const start = Date.parse(b.start);
        expect(b.episode_count, b.start).toBe(inWindow.filter((e) => dayOf(e.published_at) === start).length);
      }

      const podcast = fx.corpus.podcasts[2]!;
      const one = await get(
        `/v1/podcasts/episodes/timeseries?podcast_id=${podcast.slug}&since=${iso(since)}&until=${iso(until)}&interval=week`,
      );
      expect(one.body.totals.episode_count).toBe(inWindow.filter((e) => e.podcast_id === podcast.id).length);
      expect((one.body.buckets as { episode_count: number }[]).reduce((n, b) => n + b.episode_count, 0)).toBe(
        one.body.totals.episode_count,
      );

      const lang = fx.corpus.podcasts.find((p) => !p.language.startsWith('en'))?.language.slice(0, 2) ?? 'en';
      const langPodcasts = new Set(
        fx.corpus.podcasts.filter((p) => p.language.toLowerCase().startsWith(lang)).map((p) => p.id),
      );
      const byLang = await get(
        `/v1/podcasts/episodes/timeseries?language=${lang}&since=${iso(since)}&until=${iso(until)}&interval=month`,
      );
      expect(byLang.body.totals.episode_count).toBe(
        inWindow.filter((e) => langPodcasts.has(e.podcast_id)).length,
      );

      // the entity's mentions outside ad reads, from the ground truth
      const counts = new Map<string, Set<string>>();
      for (const m of fx.corpus.truth.mentions) {
        if (m.sense !== 'entity' || m.in_ad) continue;
        const set = counts.get(m.entity_id) ?? new Set();
        set.add(m.episode_id);
        counts.set(m.entity_id, set);
      }
      const [entityId, episodes] = [...counts.entries()].sort((a, b) => b[1].size - a[1].size)[0]!;
      const entity = fx.corpus.entities.find((e) => e.id === entityId)!;
      const byEntity = await get(
        `/v1/podcasts/episodes/timeseries?entity_id=${entity.slug}&since=${iso(since)}&until=${iso(until)}`,
      );
      expect(byEntity.body.totals.episode_count).toBe(inWindow.filter((e) => episodes.has(e.id)).length);
    });

    it('is the static path, not an episode slug; refuses more than 1,000 buckets', async () => {
      const r = await get('/v1/podcasts/episodes/timeseries?since=2020-01-01&until=2026-01-01&interval=day');
      expect(r.status).toBe(422);
      expect(r.body.errors[0].location).toBe('query.interval');
      const none = await get('/v1/podcasts/episodes/timeseries?podcast_id=no-such-show');
      expect(none.status).toBe(200);
      expect(none.body.totals).toEqual({ episode_count: 0, podcast_count: 0 });
    });
  });

  it('documents every new operation in /openapi.json', async () => {
    const doc = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const p of [
      '/v1/topics',
      '/v1/topics/{id}',
      '/v1/podcasts/advertising/placements',
      '/v1/sponsors',
      '/v1/sponsors/{id}',
      '/v1/guests',
      '/v1/podcasts/{id}/guests',
      '/v1/podcasts/{id}/ratings',
      '/v1/embed/clips/{id}',
      '/v1/embed/episodes/{id}',
      '/v1/embed/oembed',
      '/v1/podcasts/episodes/timeseries',
    ])
      expect(doc.paths[p]?.get, p).toBeDefined();
  });
});
