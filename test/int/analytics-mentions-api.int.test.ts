import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startOfUtcDay } from '../../ingest/corpus/generate.ts';
import { OCCUPATIONS } from '../../ingest/corpus/vocabulary/occupations.ts';
import { projectedCorpus } from '../support/analytics.ts';
import { testApi } from '../support/api.ts';
import { type Corpus, inFieldOf } from '../support/corpus.ts';

/**
 * Mention reads against expected values computed here, in TypeScript, from the generator's
 * ground truth (planted mentions, speakers, the catalog) — never from the store.
 */
const DAY = 86_400_000;
const AS_OF = startOfUtcDay(Date.now());

type Fixture = Awaited<ReturnType<typeof projectedCorpus>>;
type Api = Awaited<ReturnType<typeof testApi>>;

interface TruthLine {
  entity: string;
  episode: string;
  podcast: string;
  publisher: string | null;
  published: number;
  line: number;
  speaker: string;
  role: string | null;
  inAd: boolean;
  lang: string;
  text: string;
}

interface Filters {
  entity: string;
  podcast?: string;
  publisher?: string;
  role?: 'GUEST' | 'HOST' | 'PANELIST' | 'CORRESPONDENT';
  includeAds?: boolean;
  lang?: string;
  /** Whether a guest speaker (episode, label) qualifies. */
  guest?: (episode: string, label: string) => boolean;
}

/** Every mention line of the ground truth: a line naming an entity counts once for it. */
function truthLines(c: Corpus): TruthLine[] {
  const episodes = new Map(c.episodes.map((e) => [e.id, e]));
  const podcasts = new Map(c.podcasts.map((p) => [p.id, p]));
  const transcripts = new Map(c.transcripts.map((t) => [t.episode_id, t]));
  const roles = new Map<string, string>();
  for (const s of c.truth.speakers)
    for (const sp of s.speakers) roles.set(`${s.episode_id}/${sp.label}`, sp.role);
  const out = new Map<string, TruthLine>();
  for (const m of c.truth.mentions) {
    if (m.sense !== 'entity') continue;
    const key = `${m.episode_id}/${m.line_number}/${m.entity_id}`;
    const seen = out.get(key);
    if (seen) {
      seen.inAd ||= m.in_ad;
      continue;
    }
    const e = episodes.get(m.episode_id)!;
    const p = podcasts.get(e.podcast_id)!;
    const line = transcripts.get(m.episode_id)!.lines[m.line_number - 1]!;
    out.set(key, {
      entity: m.entity_id,
      episode: e.id,
      podcast: p.id,
      publisher: p.publisher_id,
      published: e.published_at,
      line: m.line_number,
      speaker: line.speaker,
      role: roles.get(`${e.id}/${line.speaker}`) ?? null,
      inAd: m.in_ad,
      lang: p.language.split('-')[0]!.toLowerCase(),
      text: line.text,
    });
  }
  return [...out.values()];
}

/** Guest speakers (GUEST, PANELIST) of each episode whose person satisfies `test`. */
function guestSet(
  c: Corpus,
  test: (
    person: NonNullable<Corpus['entities'][number]['person']>,
    capacity: string | null,
    inField: boolean,
  ) => boolean,
) {
  const entities = new Map(c.entities.map((e) => [e.id, e]));
  const capacity = new Map(OCCUPATIONS.map((o) => [o.slug, o.capacity]));
  const qualifying = new Set<string>();
  for (const s of c.truth.speakers) {
    for (const sp of s.speakers) {
      if (!['GUEST', 'PANELIST'].includes(sp.role) || !sp.person_id) continue;
      const person = entities.get(sp.person_id)?.person;
      if (!person) continue;
      const cap = person.occupation ? (capacity.get(person.occupation.slug) ?? null) : null;
      if (test(person, cap, inFieldOf(s.episode_id, sp.label))) qualifying.add(`${s.episode_id}/${sp.label}`);
    }
  }
  const episodes = new Set([...qualifying].map((k) => k.split('/')[0]!));
  return {
    speaker: (e: string, l: string) => qualifying.has(`${e}/${l}`),
    episode: (e: string) => episodes.has(e),
  };
}

function select(
  lines: TruthLine[],
  f: Filters,
  start: number,
  end: number,
  guests?: ReturnType<typeof guestSet>,
) {
  return lines.filter((l) => {
    if (l.entity !== f.entity || l.published < start || l.published >= end) return false;
    if (f.podcast && l.podcast !== f.podcast) return false;
    if (f.publisher && l.publisher !== f.publisher) return false;
    if (!f.includeAds && l.inAd) return false;
    if (f.lang && l.lang !== f.lang) return false;
    if (f.role && l.role !== f.role) return false;
    if (guests) {
      const onSpeaker = f.role === 'GUEST' || f.role === 'PANELIST';
      if (onSpeaker ? !guests.speaker(l.episode, l.speaker) : !guests.episode(l.episode)) return false;
    }
    return true;
  });
}

/** An independent bucket function: UTC days, Monday weeks, calendar months. */
function bucketOf(t: number, interval: string): number {
  const d = new Date(t);
  if (interval === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (interval === 'day') return day;
  return day - ((d.getUTCDay() + 6) % 7) * DAY;
}

function summarize(lines: TruthLine[]) {
  return {
    mention_count: lines.length,
    episode_count: new Set(lines.map((l) => l.episode)).size,
    podcast_count: new Set(lines.map((l) => l.podcast)).size,
  };
}

function qs(params: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');
}

describe('mention reads', () => {
  let fx: Fixture;
  let api: Api;
  let lines: TruthLine[];
  let top: string[];
  const get = async (url: string, key = api.keys.business!) => {
    const r = await api.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    return { status: r.statusCode, body: r.json() };
  };
  const iso = (t: number) => new Date(t).toISOString();
  // A window of 60 days ending 10 days before the corpus's reference day.
  const END = AS_OF - 10 * DAY;
  const START = END - 60 * DAY;
  const window = { since: iso(START), until: iso(END) };

  beforeAll(async () => {
    fx = await projectedCorpus({ podcasts: 10, episodesPerPodcast: 8, seed: 21, asOf: AS_OF });
    api = await testApi({ rateLimitPerMinute: 100_000 }, undefined, {
      state: fx.state,
      analytics: fx.analytics,
    });
    lines = truthLines(fx.corpus);
    const counts = new Map<string, number>();
    for (const l of lines)
      if (!l.inAd && l.published >= START && l.published < END)
        counts.set(l.entity, (counts.get(l.entity) ?? 0) + 1);
    top = [...counts].sort((a, b) => b[1] - a[1]).map(([e]) => e);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await fx?.close();
  });

  it('timeseries: every bucket of the window, each and the totals as the ground truth says', async () => {
    for (const entity of top.slice(0, 4)) {
      for (const interval of ['day', 'week', 'month']) {
        const { status, body } = await get(
          `/v1/podcasts/mentions/timeseries?${qs({ entity_id: entity, interval, ...window })}`,
        );
        expect(status).toBe(200);
        const want = select(lines, { entity }, START, END);
        expect(body.totals).toEqual(summarize(want));
        expect(body.start).toBe(iso(START));
        expect(body.end).toBe(iso(END));
        const expected = new Map<number, TruthLine[]>();
        for (const l of want) {
          const b = bucketOf(l.published, interval);
          expected.set(b, [...(expected.get(b) ?? []), l]);
        }
        const first = bucketOf(START, interval);
        expect(Date.parse(body.buckets[0].start)).toBe(START);
        expect(Date.parse(body.buckets.at(-1).end)).toBe(END);
        for (const b of body.buckets) {
          const key = Math.max(bucketOf(Date.parse(b.start), interval), first);
          expect({ start: b.start, ...summarize(expected.get(key) ?? []) }).toEqual({
            start: b.start,
            mention_count: b.mention_count,
            episode_count: b.episode_count,
            podcast_count: b.podcast_count,
          });
        }
        const sum = body.buckets.reduce((n: number, b: { mention_count: number }) => n + b.mention_count, 0);
        expect(sum).toBe(want.length);
        if (interval === 'day') expect(body.buckets).toHaveLength(60);
      }
    }
  });

  it('by-podcast: the four sorts, paged, with totals over every podcast and matching the timeseries', async () => {
    // The entity named on the most podcasts across both windows.
    const reach = new Map<string, Set<string>>();
    for (const l of lines) {
      if (l.inAd || l.published < START - (END - START) || l.published >= END) continue;
      reach.set(l.entity, (reach.get(l.entity) ?? new Set()).add(l.podcast));
    }
    const entity = [...reach].sort((a, b) => b[1].size - a[1].size || (a[0] < b[0] ? -1 : 1))[0]![0];
    const want = select(lines, { entity }, START, END);
    const previous = select(lines, { entity }, START - (END - START), START);
    const podcasts = new Map(fx.corpus.podcasts.map((p) => [p.id, p]));
    const rows = [...new Set([...want, ...previous].map((l) => l.podcast))].map((id) => {
      const cur = want.filter((l) => l.podcast === id);
      const prev = previous.filter((l) => l.podcast === id);
      return {
        podcast_id: id,
        mention_count: cur.length,
        episode_count: new Set(cur.map((l) => l.episode)).size,
        previous_mention_count: prev.length,
        previous_episode_count: new Set(prev.map((l) => l.episode)).size,
        mention_count_delta: cur.length - prev.length,
        change: cur.length > 0 ? (prev.length > 0 ? 'continuing' : 'new') : 'dropped',
        popularity: podcasts.get(id)!.popularity,
      };
    });
    type R = (typeof rows)[number];
    const byId = (a: R, b: R) => (a.podcast_id < b.podcast_id ? -1 : 1);
    const orders: Record<string, (a: R, b: R) => number> = {
      mentions: (a, b) =>
        b.mention_count - a.mention_count ||
        b.previous_mention_count - a.previous_mention_count ||
        byId(a, b),
      rising: (a, b) =>
        b.mention_count_delta - a.mention_count_delta || b.mention_count - a.mention_count || byId(a, b),
      falling: (a, b) =>
        a.mention_count_delta - b.mention_count_delta ||
        b.previous_mention_count - a.previous_mention_count ||
        byId(a, b),
      popularity: (a, b) =>
        (a.popularity === null ? 1 : 0) - (b.popularity === null ? 1 : 0) ||
        (b.popularity ?? 0) - (a.popularity ?? 0) ||
        b.mention_count - a.mention_count ||
        byId(a, b),
    };
    const totals = {
      podcast_count: rows.length,
      mention_count: want.length,
      episode_count: new Set(want.map((l) => l.episode)).size,
      previous_mention_count: previous.length,
      previous_episode_count: new Set(previous.map((l) => l.episode)).size,
      mention_count_delta: want.length - previous.length,
      new_count: rows.filter((r) => r.change === 'new').length,
      continuing_count: rows.filter((r) => r.change === 'continuing').length,
      dropped_count: rows.filter((r) => r.change === 'dropped').length,
    };
    expect(rows.length).toBeGreaterThan(2);
    for (const sort of Object.keys(orders)) {
      for (const change of [undefined, 'new', 'continuing', 'dropped']) {
        const got: unknown[] = [];
        let cursor: string | undefined;
        let echo = window;
        do {
          const { status, body } = await get(
            `/v1/podcasts/mentions/by-podcast?${qs({ entity_id: entity, sort, change, limit: 2, cursor, ...echo })}`,
          );
          expect(status).toBe(200);
          expect(body.totals).toEqual(totals);
          echo = { since: body.start, until: body.end };
          got.push(
            ...body.data.map((r: R & { podcast: { popularity: number | null } }) => ({
              ...r,
              popularity: r.podcast.popularity,
              podcast: undefined,
            })),
          );
          cursor = body.cursor;
          expect(body.has_more).toBe(cursor !== undefined);
        } while (cursor);
        const expected = rows.filter((r) => !change || r.change === change).sort(orders[sort]);
        expect(got.map((r) => ({ ...(r as object), podcast: undefined }))).toEqual(
          expected.map((r) => ({ ...r, podcast: undefined })),
        );
      }
    }
    const ts = await get(`/v1/podcasts/mentions/timeseries?${qs({ entity_id: entity, ...window })}`);
    expect(ts.body.totals.mention_count).toBe(totals.mention_count);
    expect(ts.body.totals.episode_count).toBe(totals.episode_count);
    expect(ts.body.totals.podcast_count).toBe(rows.filter((r) => r.mention_count > 0).length);
  });

  it('by-podcast: per-podcast buckets when an interval is given', async () => {
    const entity = top[1]!;
    const { body } = await get(
      `/v1/podcasts/mentions/by-podcast?${qs({ entity_id: entity, interval: 'week', limit: 100, ...window })}`,
    );
    for (const row of body.data) {
      const mine = select(lines, { entity, podcast: row.podcast_id }, START, END);
      const total = row.buckets.reduce((n: number, b: { mention_count: number }) => n + b.mention_count, 0);
      expect(total).toBe(mine.length);
      for (const b of row.buckets) {
        const inBucket = mine.filter(
          (l) => l.published >= Date.parse(b.start) && l.published < Date.parse(b.end),
        );
        expect(b.mention_count).toBe(inBucket.length);
        expect(b.episode_count).toBe(new Set(inBucket.map((l) => l.episode)).size);
      }
    }
  });

  it('filters by role, ads, language, podcast, publisher and company reference like the ground truth', async () => {
    const podcasts = fx.corpus.podcasts;
    const companies = new Map(fx.corpus.entities.filter((e) => e.kind === 'COMPANY').map((e) => [e.id, e]));
    const adEntity = lines.find((l) => l.inAd && companies.has(l.entity))!.entity;
    const cases: { params: Record<string, string | boolean>; filters: Filters }[] = [];
    for (const entity of [...top.slice(0, 3), adEntity]) {
      cases.push({ params: { entity_id: entity, include_ads: true }, filters: { entity, includeAds: true } });
      for (const role of ['HOST', 'GUEST', 'PANELIST', 'CORRESPONDENT'] as const) {
        cases.push({ params: { entity_id: entity, role: role.toLowerCase() }, filters: { entity, role } });
      }
      cases.push({ params: { entity_id: entity, role: 'mention' }, filters: { entity } });
      for (const lang of ['en', 'fr', 'de']) {
        cases.push({
          params: { entity_id: entity, language: lang === 'fr' ? 'fr-CA' : lang },
          filters: { entity, lang },
        });
      }
      cases.push({
        params: { entity_id: entity, podcast_id: podcasts[0]!.slug },
        filters: { entity, podcast: podcasts[0]!.id },
      });
      const publisher = fx.corpus.publishers[0]!;
      cases.push({
        params: { entity_id: entity, publisher_id: publisher.slug },
        filters: { entity, publisher: publisher.id },
      });
    }
    const company = companies.get(adEntity)!;
    cases.push({
      params: { company_id: company.company!.domain!, include_ads: true },
      filters: { entity: adEntity, includeAds: true },
    });
    let nonEmpty = 0;
    for (const { params, filters } of cases) {
      const want = select(lines, filters, START, END);
      if (want.length > 0) nonEmpty++;
      const ts = await get(
        `/v1/podcasts/mentions/timeseries?${qs({ ...params, interval: 'month', ...window })}`,
      );
      expect(ts.status).toBe(200);
      expect(ts.body.totals, JSON.stringify(params)).toEqual(summarize(want));
      const bp = await get(`/v1/podcasts/mentions/by-podcast?${qs({ ...params, limit: 100, ...window })}`);
      expect(bp.body.totals.mention_count, JSON.stringify(params)).toBe(want.length);
    }
    expect(nonEmpty).toBeGreaterThan(cases.length / 2);
    const missing = await get(
      `/v1/podcasts/mentions/timeseries?${qs({ entity_id: top[0], podcast_id: 'no-such-show', ...window })}`,
    );
    expect(missing.body.totals).toEqual({ mention_count: 0, episode_count: 0, podcast_count: 0 });
  });

  it('applies every guest_* filter to the guests of the episode (or, with role=guest, to the speaking guest)', async () => {
    const occupations = new Map(OCCUPATIONS.map((o) => [o.slug, o]));
    const cases: { params: Record<string, string | boolean>; test: Parameters<typeof guestSet>[1] }[] = [
      {
        params: { guest_occupation: 'chief-executive' },
        test: (p) => p.occupation?.slug === 'chief-executive',
      },
      {
        params: { guest_occupation: 'Financial analyst' },
        test: (p) => p.occupation?.slug === 'financial-analyst',
      },
      { params: { guest_occupation: '2631' }, test: (p) => p.occupation?.code === '2631' },
      { params: { guest_occupation: '19-3011' }, test: (p) => p.occupation?.slug === 'economist' },
      { params: { guest_occupation: 'CEO' }, test: (p) => p.occupation?.slug === 'chief-executive' },
      {
        params: { guest_occupation: 'Managing directors and chief executives' },
        test: (p) => p.occupation?.group === 'Managing directors and chief executives',
      },
      // Not an occupation: a capacity (or research field) instead.
      { params: { guest_occupation: 'researcher' }, test: (_p, cap) => cap === 'researcher' },
      { params: { guest_field: 'economics' }, test: (p) => p.field?.slug === 'economics' },
      { params: { guest_field: 'Economics' }, test: (p) => p.field?.title === 'Economics' },
      { params: { guest_standing: 'established' }, test: (p) => p.standing === 'established' },
      {
        params: { guest_seniority: 'senior' },
        test: (p) => p.seniority === 'senior' || p.seniority === 'distinguished',
      },
      { params: { guest_capacity: 'executive_founder' }, test: (_p, cap) => cap === 'executive_founder' },
      { params: { guest_practicing: true }, test: (p) => p.practicing === true },
      { params: { guest_in_field: false }, test: (_p, _c, inField) => !inField },
      {
        params: {
          guest_occupation: 'financial-analyst',
          guest_in_field: true,
          guest_standing: 'established',
        },
        test: (p, _c, inField) =>
          p.occupation?.slug === 'financial-analyst' && inField && p.standing === 'established',
      },
    ];
    expect(occupations.size).toBeGreaterThan(0);
    let nonEmpty = 0;
    const entities = [
      ...new Set(lines.filter((l) => l.role === 'GUEST' || l.role === 'PANELIST').map((l) => l.entity)),
    ];
    const sample = [...entities.slice(0, 3), ...top.slice(0, 2)];
    // A window covering the whole corpus (90 days) so that guests are frequent enough.
    const since = AS_OF - 90 * DAY;
    for (const { params, test } of cases) {
      const guests = guestSet(fx.corpus, test);
      for (const entity of sample) {
        for (const role of [undefined, 'GUEST', 'HOST'] as const) {
          const want = select(lines, { entity, role }, since, AS_OF, guests);
          if (want.length > 0) nonEmpty++;
          const { status, body } = await get(
            `/v1/podcasts/mentions/timeseries?${qs({ entity_id: entity, role: role?.toLowerCase(), ...params, interval: 'month', since: iso(since), until: iso(AS_OF) })}`,
          );
          expect(status).toBe(200);
          expect(body.totals, JSON.stringify({ entity, role, params })).toEqual(summarize(want));
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(10);
  });

  it('lists the mention lines themselves, newest first, paged, with their text', async () => {
    const entity = top[0]!;
    const want = select(lines, { entity }, START, END).sort(
      (a, b) =>
        b.published - a.published ||
        (a.episode < b.episode ? 1 : a.episode > b.episode ? -1 : 0) ||
        a.line - b.line,
    );
    const got: { episode: { id: string }; line: { number: number; text: string } }[] = [];
    let cursor: string | undefined;
    do {
      const { status, body } = await get(
        `/v1/podcasts/mentions?${qs({ entity_id: entity, limit: 7, cursor, ...window })}`,
      );
      expect(status).toBe(200);
      got.push(...body.data);
      cursor = body.cursor;
    } while (cursor);
    expect(got.map((m) => `${m.episode.id}/${m.line.number}/${m.line.text}`)).toEqual(
      want.map((l) => `${l.episode}/${l.line}/${l.text}`),
    );
    // Rule 6: the lines of one by-podcast row are the mentions of that podcast in the same window.
    const bp = await get(
      `/v1/podcasts/mentions/by-podcast?${qs({ entity_id: entity, limit: 1, ...window })}`,
    );
    const row = bp.body.data[0];
    const lineList = await get(
      `/v1/podcasts/mentions?${qs({ entity_id: entity, podcast_id: row.podcast_id, limit: 100, since: bp.body.start, until: bp.body.end })}`,
    );
    expect(lineList.body.data).toHaveLength(row.mention_count);
  });

  it('windows: 7-day default ending now, a bare until date covering its whole UTC day, echoed bounds', async () => {
    const entity = top[0]!;
    const before = Date.now();
    const { body } = await get(`/v1/podcasts/mentions/timeseries?${qs({ entity_id: entity })}`);
    const end = Date.parse(body.end);
    expect(end).toBeGreaterThanOrEqual(before);
    expect(end - Date.parse(body.start)).toBe(7 * DAY);
    expect(body.totals).toEqual(summarize(select(lines, { entity }, end - 7 * DAY, end)));
    // The day of the entity's newest mention: a bare date includes it, a date-time at 00:00 does not.
    const newest = Math.max(...select(lines, { entity }, START, END).map((l) => l.published));
    const day = new Date(newest).toISOString().slice(0, 10);
    const dayStart = Date.parse(`${day}T00:00:00Z`);
    const bare = await get(
      `/v1/podcasts/mentions/timeseries?${qs({ entity_id: entity, since: iso(dayStart - 30 * DAY), until: day })}`,
    );
    expect(bare.body.end).toBe(iso(dayStart + DAY));
    expect(bare.body.totals).toEqual(
      summarize(select(lines, { entity }, dayStart - 30 * DAY, dayStart + DAY)),
    );
    const exact = await get(
      `/v1/podcasts/mentions/timeseries?${qs({ entity_id: entity, since: iso(dayStart - 30 * DAY), until: iso(dayStart) })}`,
    );
    expect(exact.body.totals.mention_count).toBeLessThan(bare.body.totals.mention_count);
    const bp = await get(
      `/v1/podcasts/mentions/by-podcast?${qs({ entity_id: entity, since: day, until: day })}`,
    );
    expect([bp.body.start, bp.body.end, bp.body.previous_start]).toEqual([
      iso(dayStart),
      iso(dayStart + DAY),
      iso(dayStart - DAY),
    ]);
  });

  it('archives: entities ranked over any since/until, timeseries and lines over more than 90 days', async () => {
    // The whole corpus (130 days) and a window that ended long ago, as on an archive.
    const archive = { since: iso(AS_OF - 130 * DAY), until: iso(AS_OF) };
    const old = { since: iso(AS_OF - 130 * DAY), until: iso(AS_OF - 70 * DAY) };
    const rank = (start: number, end: number) => {
      const m = new Map<string, number>();
      for (const l of lines)
        if (!l.inAd && l.published >= start && l.published < end) m.set(l.entity, (m.get(l.entity) ?? 0) + 1);
      return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id, n]) => [id, n]);
    };
    for (const [w, start, end] of [
      [archive, AS_OF - 130 * DAY, AS_OF],
      [old, AS_OF - 130 * DAY, AS_OF - 70 * DAY],
    ] as const) {
      const got: [string, number][] = [];
      let cursor: string | undefined;
      do {
        const { status, body } = await get(`/v1/entities?${qs({ ...w, limit: 100, cursor })}`);
        expect(status).toBe(200);
        got.push(...body.data.map((e: { id: string; mention_count: number }) => [e.id, e.mention_count]));
        cursor = body.cursor;
      } while (cursor);
      expect(got.length).toBeGreaterThan(0);
      expect(got).toEqual(rank(start, end));
    }
    const entity = top[0]!;
    const want = select(lines, { entity }, AS_OF - 130 * DAY, AS_OF);
    const series = await get(
      `/v1/podcasts/mentions/timeseries?${qs({ entity_id: entity, interval: 'week', ...archive })}`,
    );
    expect(series.status).toBe(200);
    expect(series.body.totals).toEqual(summarize(want));
    let count = 0;
    let cursor: string | undefined;
    do {
      const { status, body } = await get(
        `/v1/podcasts/mentions?${qs({ entity_id: entity, limit: 100, cursor, ...archive })}`,
      );
      expect(status).toBe(200);
      count += body.data.length;
      cursor = body.cursor;
    } while (cursor);
    expect(count).toBe(want.length);
    // The podcasts read keeps its 90-day window; the timeseries its 1,000 buckets.
    const capped = await get(`/v1/podcasts/mentions/by-podcast?${qs({ entity_id: entity, ...archive })}`);
    expect(capped.status).toBe(422);
    expect(capped.body.errors[0].location).toBe('query.since');
    const hourly = await get(
      `/v1/podcasts/mentions/timeseries?${qs({ entity_id: entity, interval: 'hour', ...archive })}`,
    );
    expect(hourly.status).toBe(422);
    expect(hourly.body.errors[0].location).toBe('query.interval');
  });

  it('refuses bad parameters with a 422 naming the parameter', async () => {
    const e = top[0]!;
    const cases: [string, string][] = [
      [`/v1/podcasts/mentions/by-podcast?entity_id=${e}&since=2026-01-01&until=2026-04-15`, 'query.since'],
      [`/v1/podcasts/mentions/timeseries?entity_id=${e}&since=2026-03-01&until=2026-02-01`, 'query.since'],
      [
        `/v1/podcasts/mentions/timeseries?entity_id=${e}&since=2026-01-01&until=2026-03-01&interval=hour`,
        'query.interval',
      ],
      [`/v1/podcasts/mentions/timeseries?entity_id=${e}&interval=year`, 'query.interval'],
      [`/v1/podcasts/mentions/by-podcast?entity_id=${e}&sort=loudest`, 'query.sort'],
      [`/v1/podcasts/mentions/by-podcast?entity_id=${e}&change=gone`, 'query.change'],
      [`/v1/podcasts/mentions/by-podcast?entity_id=${e}&role=boss`, 'query.role'],
      [`/v1/podcasts/mentions/by-podcast?entity_id=${e}&guest_seniority=junior`, 'query.guest_seniority'],
      [
        `/v1/podcasts/mentions/by-podcast?entity_id=${e}&guest_occupation=${'x'.repeat(201)}`,
        'query.guest_occupation',
      ],
      [`/v1/podcasts/mentions/by-podcast?entity_id=${e}&since=yesterday`, 'query.since'],
      [`/v1/podcasts/mentions/by-podcast?entity_id=${e}&until=2026-02-30`, 'query.until'],
      [`/v1/podcasts/mentions?entity_id=${e}&limit=101`, 'query.limit'],
      ['/v1/podcasts/mentions/timeseries', 'query.entity_id'],
      [`/v1/entities?ids=${Array.from({ length: 101 }, (_, i) => `e${i}`).join(',')}`, 'query.ids'],
      ['/v1/entities?q=apple', 'query.q'],
    ];
    for (const [url, location] of cases) {
      const { status, body } = await get(url);
      expect(status, url).toBe(422);
      expect(body.error_code).toBe('validation_error');
      expect(
        body.errors.map((x: { location: string }) => x.location),
        url,
      ).toContain(location);
    }
    const q = await get('/v1/entities?q=apple');
    expect(q.body.resolve.endpoint).toBe('/v1/entities/search');
    const unknown = await get('/v1/podcasts/mentions/timeseries?entity_id=no-such-entity');
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].location).toBe('query.entity_id');
  });

  it('a reference that resolves to nothing matches nothing, and no placeholder id reaches a store', async () => {
    const analyticsQuery = vi.spyOn(fx.analytics, 'query');
    try {
      const e = top[0]!;
      for (const scope of [{ podcast_id: 'no-such-show' }, { publisher_id: 'no-such-publisher' }]) {
        const series = await get(
          `/v1/podcasts/mentions/timeseries?${qs({ entity_id: e, ...scope, ...window })}`,
        );
        expect(series.status).toBe(200);
        expect(series.body.totals).toEqual({ mention_count: 0, episode_count: 0, podcast_count: 0 });
        const byPodcast = await get(`/v1/podcasts/mentions/by-podcast?${qs({ entity_id: e, ...scope })}`);
        expect(byPodcast.status).toBe(200);
        expect(byPodcast.body.data).toEqual([]);
      }
      const lines = await get(`/v1/podcasts/mentions?${qs({ entity_id: e, episode_id: 'no-such-episode' })}`);
      expect(lines.status).toBe(200);
      expect(lines.body.data).toEqual([]);
      const entities = await get('/v1/entities?podcast_id=no-such-show');
      expect(entities).toEqual({ status: 200, body: { data: [], has_more: false } });
      const sent = analyticsQuery.mock.calls.map((c) => c[1]);
      expect(sent.length).toBeGreaterThan(0);
      expect(JSON.stringify(sent)).not.toContain('\\u0000');
    } finally {
      analyticsQuery.mockRestore();
    }
  });

  it('entities: most mentioned over the trailing window, exactly the ids asked for, by podcast and type', async () => {
    const now = Date.now();
    const recent = (l: TruthLine, days: number) =>
      !l.inAd && l.published >= now - days * DAY && l.published < now;
    const rank = (pool: TruthLine[]) => {
      const m = new Map<string, TruthLine[]>();
      for (const l of pool) m.set(l.entity, [...(m.get(l.entity) ?? []), l]);
      return [...m]
        .map(([id, ls]) => ({
          id,
          mention_count: ls.length,
          episode_count: new Set(ls.map((l) => l.episode)).size,
        }))
        .sort((a, b) => b.mention_count - a.mention_count || (a.id < b.id ? -1 : 1));
    };
    const all: { id: string; mention_count: number; episode_count: number }[] = [];
    let cursor: string | undefined;
    do {
      const { body } = await get(`/v1/entities?${qs({ window_days: 60, limit: 10, cursor })}`);
      all.push(
        ...body.data.map((e: { id: string; mention_count: number; episode_count: number }) => ({
          id: e.id,
          mention_count: e.mention_count,
          episode_count: e.episode_count,
        })),
      );
      cursor = body.cursor;
    } while (cursor);
    expect(all).toEqual(rank(lines.filter((l) => recent(l, 60))));
    const podcast = fx.corpus.podcasts[1]!;
    const onPodcast = await get(
      `/v1/entities?${qs({ window_days: 120, podcast_id: podcast.slug, limit: 100 })}`,
    );
    expect(onPodcast.body.data.map((e: { id: string }) => e.id)).toEqual(
      rank(lines.filter((l) => recent(l, 120) && l.podcast === podcast.id)).map((r) => r.id),
    );
    const entities = new Map(fx.corpus.entities.map((e) => [e.id, e]));
    const category = entities.get(top[0]!)!.category.slug;
    const ofType = await get(`/v1/entities?${qs({ window_days: 120, type: category, limit: 100 })}`);
    expect(ofType.body.data.map((e: { id: string }) => e.id)).toEqual(
      rank(lines.filter((l) => recent(l, 120) && entities.get(l.entity)!.category.slug === category)).map(
        (r) => r.id,
      ),
    );
    const ids = [entities.get(top[2]!)!.slug, 'nobody-at-all', top[0]!, fx.corpus.entities[0]!.id];
    const bulk = await get(`/v1/entities?${qs({ ids: ids.join(','), type: 'ignored', limit: 1 })}`);
    expect(bulk.body.has_more).toBe(false);
    expect(bulk.body.data.map((e: { id: string }) => e.id)).toEqual(
      [top[2], top[0], fx.corpus.entities[0]!.id].filter((v, i, a) => a.indexOf(v) === i),
    );
    const types = await get('/v1/entities/types');
    expect(types.body.data.map((t: { slug: string }) => t.slug)).toEqual(
      [...new Set(fx.corpus.entities.map((e) => e.category.slug))].sort(),
    );
  });
});
