import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AnalyticsQueryError,
  type AnalyticsStore,
  compactAnalytics,
  migrateAnalytics,
} from '../../projections/analytics/analytics-store.ts';
import { PlacementQueries } from '../../projections/analytics/placement-queries.ts';
import { Rollups } from '../../projections/analytics/rollups.ts';
import { TABLES } from '../../projections/analytics/tables.ts';
import { TopicQueries } from '../../projections/analytics/topic-queries.ts';
import { errorKind } from '../../projections/store-errors.ts';

export interface AnalyticsStoreFixture {
  store: AnalyticsStore;
  cleanup(): Promise<void>;
}

/**
 * The behaviour every analytics store adapter must have: the schema files run unchanged, values
 * and parameters round-trip the same way, replacing tables deduplicate under FINAL, and the SQL
 * features the reads rely on work.
 */
export function analyticsStoreContract(adapter: string, setup: () => Promise<AnalyticsStoreFixture>) {
  describe(`analytics store contract: ${adapter}`, () => {
    let fx: AnalyticsStoreFixture;
    let store: AnalyticsStore;
    const t = `contract_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
    const columns = ['k', 'at', 'n', 'big', 'x', 'note', 'tags', 'version', 'is_deleted'];

    beforeAll(async () => {
      fx = await setup();
      store = fx.store;
      await migrateAnalytics(store);
      await store.command(`CREATE TABLE ${t} (
        k String, at DateTime64(3, 'UTC'), n UInt32, big UInt64, x Float64, note Nullable(String), tags Array(String),
        version UInt64, is_deleted UInt8
      ) ENGINE = ReplacingMergeTree(version, is_deleted) ORDER BY k`);
    });
    afterAll(async () => {
      await store?.command(`DROP TABLE IF EXISTS ${t}`);
      await fx?.cleanup();
    });

    it('applies every schema file once and records it', async () => {
      expect(await migrateAnalytics(store)).toEqual([]);
      const names = (
        await store.query<{ name: string }>('SELECT name FROM schema_migrations FINAL ORDER BY name')
      ).map((r) => r.name);
      expect(names).toEqual(
        expect.arrayContaining([
          '001_catalog.sql',
          '002_episodes.sql',
          '003_mentions.sql',
          '004_advertising.sql',
        ]),
      );
      const tables = (
        await store.query<{ name: string }>(
          'SELECT name FROM system.tables WHERE database = currentDatabase()',
        )
      ).map((r) => r.name);
      expect(tables).toEqual(
        expect.arrayContaining([
          'episodes',
          'mention_lines',
          'entity_episodes',
          'ad_reads',
          'chart_rows',
          'people',
        ]),
      );
    });

    it('round-trips strings, nulls, arrays, times and 64-bit integers the same way', async () => {
      const awkward = `it's "quoted"\ttab\nnewline \\ backslash — ünïcødé 🎙️`;
      const at = Date.UTC(2026, 2, 4, 5, 6, 7, 89);
      await store.insert(t, columns, [
        ['a', at, 42, 9_007_199_254_740_000, 1.5, awkward, ['x', awkward], 1, 0],
        ['b', at, 0, 0, -0.25, null, [], 1, 0],
      ]);
      const rows = await store.query(
        `SELECT k, toUnixTimestamp64Milli(at) AS at, n, big, x, note, tags FROM ${t} FINAL ORDER BY k`,
      );
      expect(rows).toEqual([
        { k: 'a', at, n: 42, big: 9_007_199_254_740_000, x: 1.5, note: awkward, tags: ['x', awkward] },
        { k: 'b', at, n: 0, big: 0, x: -0.25, note: null, tags: [] },
      ]);
    });

    it('binds parameters by type and never splices them into the SQL', async () => {
      const rows = await store.query<{ k: string }>(
        `SELECT k FROM ${t} FINAL WHERE k IN {ks:Array(String)} AND n >= {min:UInt32}
           AND at >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ({maybe:Nullable(String)} IS NULL OR k = {maybe:Nullable(String)})
           AND x < {xs:Array(Float64)}[2]
         ORDER BY k`,
        { ks: ['a', 'b', "' OR 1=1 --"], min: 0, from: 0, maybe: null, xs: [0, 2.5] },
      );
      expect(rows.map((r) => r.k)).toEqual(['a', 'b']);
      const none = await store.query(`SELECT k FROM ${t} FINAL WHERE k = {k:String}`, { k: "a' OR '1'='1" });
      expect(none).toEqual([]);
    });

    it('keeps the newest version of a key under FINAL, and hides deleted keys', async () => {
      const at = Date.UTC(2026, 0, 1);
      const replay = [
        ['r', at, 1, 1, 0, 'one', [], 1, 0],
        ['s', at, 1, 1, 0, 'one', [], 1, 0],
      ];
      await store.insert(t, columns, replay);
      await store.insert(t, columns, replay);
      await store.insert(t, columns, [['r', at, 2, 2, 0, 'two', [], 2, 0]]);
      await store.insert(t, columns, [['r', at, 0, 0, 0, 'stale', [], 1, 0]]);
      await store.command(
        `INSERT INTO ${t} (k, version, is_deleted) SELECT k, 5, 1 FROM ${t} FINAL WHERE k = {k:String}`,
        {
          k: 's',
        },
      );
      const rows = await store.query<{ k: string; note: string }>(
        `SELECT k, note FROM ${t} FINAL WHERE k IN ('r', 's') ORDER BY k`,
      );
      expect(rows).toEqual([{ k: 'r', note: 'two' }]);
    });

    it('compacts overlapping parts into one without changing what FINAL reads', async () => {
      const c = `${t}_compact`;
      await store.command(`CREATE TABLE ${c} AS ${t}`);
      try {
        const at = Date.UTC(2026, 4, 1);
        const row = (k: string, n: number, version: number, deleted = 0) => [
          k,
          at,
          n,
          n,
          0,
          null,
          [],
          version,
          deleted,
        ];
        // Four inserts, four overlapping parts: a replay, a newer version, a deletion.
        await store.insert(c, columns, [row('a', 1, 1), row('b', 1, 1), row('c', 1, 1)]);
        await store.insert(c, columns, [row('a', 1, 1), row('b', 1, 1), row('c', 1, 1)]);
        await store.insert(c, columns, [row('b', 2, 2)]);
        await store.insert(c, columns, [row('c', 0, 3, 1)]);
        const read = () => store.query<{ k: string; n: number }>(`SELECT k, n FROM ${c} FINAL ORDER BY k`);
        const parts = async () => {
          const [r] = await store.query<{ n: number }>(
            `SELECT count() AS n FROM system.parts WHERE active AND database = currentDatabase() AND table = {t:String}`,
            { t: c },
          );
          return Number(r?.n ?? 0);
        };
        const before = await read();
        expect(before).toEqual([
          { k: 'a', n: 1 },
          { k: 'b', n: 2 },
        ]);
        // (The engine's own merges may have got there first; usually they have not yet.)
        const partsBefore = await parts();
        expect(await compactAnalytics(store, { tables: [c] })).toEqual(partsBefore > 1 ? [c] : []);
        expect(await parts()).toBe(1);
        expect(await read()).toEqual(before);
        // Nothing to do once a table is one part.
        expect(await compactAnalytics(store, { tables: [c] })).toEqual([]);
      } finally {
        await store.command(`DROP TABLE IF EXISTS ${c}`);
      }
    });

    it('inserts rows already encoded as JSONCompactEachRow lines, in chunks', async () => {
      const awkward = `tab\there "quoted" \\ newline\n ünï`;
      const line = (k: string, n: number) =>
        `${JSON.stringify([k, Date.UTC(2026, 1, 2), n, n, 0.5, awkward, [awkward], 1, 0])}\n`;
      await store.insertJson(t, columns, [line('j1', 1) + line('j2', 2), line('j3', 3), '']);
      const rows = await store.query<{ k: string; n: number; note: string; tags: string[] }>(
        `SELECT k, n, note, tags FROM ${t} FINAL WHERE startsWith(k, 'j') ORDER BY k`,
      );
      expect(rows).toEqual([1, 2, 3].map((n) => ({ k: `j${n}`, n, note: awkward, tags: [awkward] })));
    });

    it('inserts a large batch in one call', async () => {
      const rows = Array.from({ length: 30_000 }, (_, i) => [
        `big-${i}`,
        i,
        i,
        i,
        i / 2,
        null,
        [String(i)],
        1,
        0,
      ]);
      await store.insert(t, columns, rows);
      const [r] = await store.query<{ c: number; s: number }>(
        `SELECT count() AS c, sum(n) AS s FROM ${t} FINAL WHERE startsWith(k, 'big-')`,
      );
      expect(r).toEqual({ c: 30_000, s: (29_999 * 30_000) / 2 });
    });

    it('supports the grouping sets, window functions and tuple comparisons the reads use', async () => {
      const rows = await store.query<{ g: number; total: number; c: number; all: number }>(
        `SELECT g, total, c, all FROM (
           SELECT n % 3 AS g, grouping(g) AS total, count() AS c, sum(count()) OVER () AS all
           FROM ${t} FINAL WHERE startsWith(k, 'big-') GROUP BY GROUPING SETS ((g), ())
         ) ORDER BY total, g`,
      );
      expect(rows.map((r) => [Number(r.g), Number(r.total), Number(r.c)])).toEqual([
        [0, 0, 10_000],
        [1, 0, 10_000],
        [2, 0, 10_000],
        [0, 1, 30_000],
      ]);
      const [cmp] = await store.query<{ after: number }>(
        'SELECT tuple(-3.0, 2.0, {id:String}) > tuple({k:Array(Float64)}[1], {k:Array(Float64)}[2], {id2:String}) AS after',
        { id: 'b', k: [-3, 2], id2: 'a' },
      );
      expect(Number(cmp?.after)).toBe(1);
    });

    it('recomputes the rollups of the list reads, counting a replayed recompute once', async () => {
      const id = (name: string) => `${t}-${name}`;
      const day = Date.UTC(2026, 0, 10);
      const v = 4 * 1000 + 1;
      await store.insert(
        'episodes',
        ['id', 'slug', 'podcast_id', 'title', 'published_at', 'people', 'available_at', 'version'],
        [
          [id('e1'), id('e1'), id('p1'), 'one', day, '[]', day, 1],
          [id('e2'), id('e2'), id('p2'), 'two', day + 86_400_000, '[]', day, 1],
        ],
      );
      await store.insert(
        'segment_topics',
        ['topic', 'episode_id', 'segment_id', 'first_line', 'last_line', 'version', 'is_deleted'],
        [
          [id('topic'), id('e1'), 's1', 1, 10, v, 0],
          [id('topic'), id('e1'), 's2', 20, 30, v, 0],
          [id('topic'), id('e2'), 's1', 1, 5, v, 0],
        ],
      );
      await store.insert(
        'episode_mention_lines',
        ['episode_id', 'entity_ids', 'line_numbers', 'version', 'is_deleted'],
        [[id('e1'), [id('a'), id('b'), id('a'), id('c')], [2, 2, 25, 15], v, 0]],
      );
      // Two of the entities in the catalog, each in a category of its own (the third is unknown).
      await store.insert(
        'entities',
        ['id', 'slug', 'kind', 'name', 'category_slug', 'category_name', 'version'],
        [
          [id('a'), id('a'), 'COMPANY', 'A', id('cat1'), 'One', 1],
          [id('b'), id('b'), 'PERSON', 'B', id('cat2'), 'Two', 1],
        ],
      );
      await store.insert(
        'episode_versions',
        ['kind', 'episode_id', 'version'],
        [
          ['segments', id('e1'), 1000],
          ['segments', id('e2'), 1000],
        ],
      );
      const guest = (episode: string, podcast: string, at: number, lines: number) => [
        id('person'),
        id(episode),
        'S1',
        id(podcast),
        at,
        'GUEST',
        lines,
        'researcher',
        1,
        v,
        0,
      ];
      await store.insert('guest_appearances', TABLES.guest_appearances, [
        guest('e1', 'p1', day, 7),
        guest('e2', 'p2', day + 86_400_000, 3),
      ]);
      const ad = (n: string, episode: string, podcast: string, at: number, promo = 0, company = '') => [
        id(episode),
        id(n),
        id(podcast),
        at,
        company || id('sponsor'),
        company ? 'Company' : 'Sponsor',
        company,
        company ? 'pre_recorded' : 'host_read',
        promo,
        null,
        0,
        30,
        null,
        null,
        4 * 1000 + 2,
        0,
      ];
      const ads = [
        ad('a1', 'e1', 'p1', day),
        ad('a2', 'e1', 'p1', day),
        ad('a3', 'e2', 'p2', day + 86_400_000),
        ad('a4', 'e2', 'p2', day + 86_400_000, 1),
        // A company's ads: its sponsor key is its id.
        ad('c1', 'e1', 'p1', day, 0, id('co')),
        ad('c2', 'e2', 'p2', day + 86_400_000, 0, id('co')),
      ];
      await store.insert('ad_reads', TABLES.ad_reads, ads);
      await store.insert('sponsor_ad_reads', TABLES.sponsor_ad_reads, ads);
      const rollups = new Rollups(store);
      for (let i = 0; i < 2; i++) {
        await rollups.topics([id('e1'), id('e2'), id('unknown')]);
        await rollups.guests([id('e1'), id('e2')], [id('person')]);
        await rollups.sponsors([id('sponsor'), id('co')]);
        await rollups.sponsorEpisodes([id('e1'), id('e2')]);
      }
      const topics = await new TopicQueries(store).topics(
        { window: { start: day, end: day + 2 * 86_400_000 } },
        id('topic'),
      );
      // e1: lines 2 (twice: entities a and b) and 25 in its segments, 15 between them
      expect(topics).toEqual([
        { topic: id('topic'), episode_count: 2, podcast_count: 2, segment_count: 3, mention_count: 3 },
      ]);
      // The same lines per entity, from the topic's range of topic_episode_entities.
      const breakdown = await new TopicQueries(store).breakdown(
        { window: { start: day, end: day + 2 * 86_400_000 } },
        id('topic'),
        10,
      );
      expect(breakdown.entities).toEqual([
        { entity_id: id('a'), mention_count: 2 },
        { entity_id: id('b'), mention_count: 1 },
      ]);
      expect(breakdown.categories).toEqual([
        { slug: id('cat1'), name: 'One', mention_count: 2 },
        { slug: id('cat2'), name: 'Two', mention_count: 1 },
      ]);
      expect(breakdown.podcasts).toEqual([
        { podcast_id: id('p1'), episode_count: 1 },
        { podcast_id: id('p2'), episode_count: 1 },
      ]);
      const [person] = await store.query<{ appearances: number; podcast_count: number; line_count: number }>(
        'SELECT appearances, podcast_count, line_count FROM guest_totals FINAL WHERE person_id = {p:String}',
        { p: id('person') },
      );
      expect(person).toEqual({ appearances: 2, podcast_count: 2, line_count: 10 });
      const [sponsor] = await store.query<{ ad_count: number; episode_reach: number; podcast_reach: number }>(
        'SELECT ad_count, episode_reach, podcast_reach FROM sponsor_totals FINAL WHERE sponsor_key = {k:String}',
        { k: id('sponsor') },
      );
      expect(sponsor).toEqual({ ad_count: 3, episode_reach: 2, podcast_reach: 2 });
      // One sponsor's figures and a company's placements, from their ranges of sponsor_ad_reads.
      const placements = new PlacementQueries(store);
      const one = await placements.sponsor(id('sponsor'));
      expect(one?.row).toMatchObject({ ad_count: 3, episode_reach: 2, podcast_reach: 2 });
      expect(one?.readTypes).toEqual({ host_read: 3, pre_recorded: 0 });
      expect(one?.podcasts.map((p) => [p.podcast_id, p.ad_count, p.episode_count])).toEqual([
        [id('p1'), 2, 1],
        [id('p2'), 1, 1],
      ]);
      const ofCompany = await placements.placements({ companyId: id('co') }, 10);
      expect(ofCompany.map((r) => [r.id, r.podcast_id, r.published_ms])).toEqual([
        [id('c2'), id('p2'), day + 86_400_000],
        [id('c1'), id('p1'), day],
      ]);
      expect(await placements.sponsorKey({ companyId: id('co') })).toBe(id('co'));
      // Sponsors over a window, from the (sponsor, episode) rows: promos left out, each ad once.
      const windowed = async () =>
        (
          await placements.sponsors(
            { lo: day, hi: day + 2 * 86_400_000, sort: 'reach' },
            { offset: 0, limit: 1000 },
          )
        )
          .filter((r) => r.sponsor_key.startsWith(`${t}-`))
          .map((r) => [r.sponsor_key, r.ad_count, r.episode_reach, r.podcast_reach]);
      expect(await windowed()).toEqual([
        [id('sponsor'), 3, 2, 2],
        [id('co'), 2, 2, 2],
      ]);
      // e2's ad a3 is replaced by nothing: its (sponsor, episode) row goes.
      await store.insert(
        'ad_reads',
        ['episode_id', 'id', 'published_at', 'sponsor_key', 'version', 'is_deleted'],
        [[id('e2'), id('a3'), day + 86_400_000, id('sponsor'), 4 * 2000, 1]],
      );
      await rollups.sponsorEpisodes([id('e2')]);
      expect(await windowed()).toEqual([
        [id('co'), 2, 2, 2],
        [id('sponsor'), 2, 1, 1],
      ]);
      // A newer ad-read set of e2 without its ad: the marker names the sponsor, the totals drop it.
      await store.insert(
        'sponsor_ad_reads',
        ['episode_id', 'id', 'published_at', 'sponsor_key', 'version', 'is_deleted'],
        [[id('e2'), id('a3'), day + 86_400_000, id('sponsor'), 4 * 2000, 1]],
      );
      await rollups.sponsors([id('sponsor')]);
      const [dropped] = await store.query<{ ad_count: number; podcast_reach: number }>(
        'SELECT ad_count, podcast_reach FROM sponsor_totals FINAL WHERE sponsor_key = {k:String}',
        { k: id('sponsor') },
      );
      expect(dropped).toEqual({ ad_count: 2, podcast_reach: 1 });
      // A newer speakers set without the person: the marker keeps naming them, the totals drop them.
      await store.insert(
        'guest_appearances',
        ['person_id', 'episode_id', 'label', 'version', 'is_deleted'],
        [[id('person'), id('e2'), 'S1', 4 * 2000, 1]],
      );
      await rollups.guests([id('e2')], []);
      const [after] = await store.query<{ appearances: number }>(
        'SELECT appearances FROM guest_totals FINAL WHERE person_id = {p:String}',
        { p: id('person') },
      );
      expect(after).toEqual({ appearances: 1 });
    });

    it('versions rollups by the store clock: a host whose clock runs ahead cannot outlast a later recompute', async () => {
      const id = (name: string) => `${t}-clock-${name}`;
      const day = Date.UTC(2026, 0, 12);
      const ad = (n: string) => [
        id('e1'),
        id(n),
        id('p1'),
        day,
        id('sponsor'),
        'Sponsor',
        '',
        'host_read',
        0,
        null,
        0,
        30,
        null,
        null,
        4 * 1000 + 2,
        0,
      ];
      const adCount = async () =>
        Number(
          (
            await store.query<{ ad_count: number }>(
              'SELECT ad_count FROM sponsor_totals FINAL WHERE sponsor_key = {k:String}',
              { k: id('sponsor') },
            )
          )[0]?.ad_count,
        );
      // One instance, on a host whose clock runs a minute ahead, recomputes after the first ad…
      await store.insert('sponsor_ad_reads', TABLES.sponsor_ad_reads, [ad('a1')]);
      const realNow = Date.now.bind(Date);
      const ahead = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 60_000);
      try {
        await new Rollups(store).sponsors([id('sponsor')]);
      } finally {
        ahead.mockRestore();
      }
      expect(await adCount()).toBe(1);
      // …another instance after the second ad: its figures, which count both, are the ones kept.
      await store.insert('sponsor_ad_reads', TABLES.sponsor_ad_reads, [ad('a2')]);
      await new Rollups(store).sponsors([id('sponsor')]);
      expect(await adCount()).toBe(2);
    });

    it('keeps the topic day rollups with the episodes: whole days from them, partial days from the episodes', async () => {
      const id = (name: string) => `${t}-days-${name}`;
      const H = 3_600_000;
      const D = 24 * H;
      const day = Date.UTC(2026, 1, 10);
      const v = 5 * 1000 + 1;
      const episode = (e: string, p: string, at: number, version: number) => [
        id(e),
        id(e),
        id(p),
        e,
        at,
        '[]',
        at,
        version,
      ];
      // e1 in the first partial day of the window below, e2 on its whole day, e3 in its last
      // partial day, e4 outside it; p1 has e1 and e3.
      await store.insert(
        'episodes',
        ['id', 'slug', 'podcast_id', 'title', 'published_at', 'people', 'available_at', 'version'],
        [
          episode('e1', 'p1', day + 10 * H, 1),
          episode('e2', 'p2', day + D + 5 * H, 1),
          episode('e3', 'p1', day + 2 * D + 3 * H, 1),
          episode('e4', 'p3', day + 2 * D + 9 * H, 1),
        ],
      );
      const episodes = ['e1', 'e2', 'e3', 'e4'];
      await store.insert(
        'segment_topics',
        ['topic', 'episode_id', 'segment_id', 'first_line', 'last_line', 'version', 'is_deleted'],
        episodes.map((e) => [id('topic'), id(e), 's1', 1, 10, v, 0]),
      );
      await store.insert(
        'episode_versions',
        ['kind', 'episode_id', 'version'],
        episodes.map((e) => ['segments', id(e), 1000]),
      );
      const rollups = new Rollups(store);
      const topics = new TopicQueries(store);
      const counts = async (start: number, end: number, podcastId?: string) =>
        (
          await topics.topics(
            { window: { start, end }, ...(podcastId ? { podcastId: id(podcastId) } : {}) },
            id('topic'),
          )
        ).map((r) => [r.episode_count, r.podcast_count, r.segment_count]);
      for (let i = 0; i < 2; i++) await rollups.topics(episodes.map(id));
      const [dayRows] = await store.query<{ n: number }>(
        'SELECT count() AS n FROM topic_days FINAL WHERE topic = {t:String}',
        { t: id('topic') },
      );
      expect(Number(dayRows!.n)).toBe(3);
      // From 08:00 on day 0 to 04:00 on day 2: e1 and e3 from the partial days, e2 from its whole day.
      expect(await counts(day + 8 * H, day + 2 * D + 4 * H)).toEqual([[3, 2, 3]]);
      expect(await counts(day + 8 * H, day + 2 * D + 4 * H, 'p1')).toEqual([[2, 1, 2]]);
      expect(await counts(day + 8 * H, day + 2 * D + 4 * H, 'p3')).toEqual([]);
      // Whole days only, and a window of under a day (episode rows only).
      expect(await counts(day, day + 3 * D)).toEqual([[4, 3, 4]]);
      expect(await counts(day + 2 * D + 2 * H, day + 2 * D + 10 * H)).toEqual([[2, 2, 2]]);
      // e3 moves to day 5: its old day rows go, its new ones come (the old keys are recomputed too).
      await store.insert(
        'episodes',
        ['id', 'slug', 'podcast_id', 'title', 'published_at', 'people', 'available_at', 'version'],
        [episode('e3', 'p1', day + 5 * D + H, 2)],
      );
      await rollups.topics([id('e3')]);
      expect(await counts(day + 8 * H, day + 2 * D + 4 * H)).toEqual([[2, 2, 2]]);
      expect(await counts(day, day + 3 * D)).toEqual([[3, 3, 3]]);
      expect(await counts(day, day + 3 * D, 'p1')).toEqual([[1, 1, 1]]);
      expect(await counts(day + 5 * D, day + 6 * D, 'p1')).toEqual([[1, 1, 1]]);
    });

    it('answers concurrent queries', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.query<{ c: number }>(`SELECT count() AS c FROM ${t} FINAL WHERE n >= {i:UInt32}`, { i }),
        ),
      );
      expect(results.map((r) => r[0]!.c)).toHaveLength(8);
    });

    it('reports what the engine refuses as AnalyticsQueryError with its code', async () => {
      const err = await store.query(`SELECT no_such_column FROM ${t}`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AnalyticsQueryError);
      expect((err as AnalyticsQueryError).code).toBe(47);
      const bad = await store.insert(t, ['k', 'at'], [['x', 'not a time']]).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(AnalyticsQueryError);
    });

    it('says whether a refusal is about the data (permanent) or not, and quotes no row in its message', async () => {
      const row = (k: string, n: unknown) => [k, 1000, n, 1, 0, null, [], 1, 0];
      const surrogate = await store.insert(t, columns, [row('half \ud83d pair', 1)]).catch((e: unknown) => e);
      expect(surrogate).toBeInstanceOf(AnalyticsQueryError);
      expect(errorKind(surrogate)).toBe('permanent');
      const negative = await store.insert(t, columns, [row('secret-key-value', -1)]).catch((e: unknown) => e);
      expect(errorKind(negative)).toBe('permanent');
      expect((negative as Error).message).not.toContain('\n');
      expect((negative as Error).message).not.toContain('secret-key-value');
      // A mistake in the statement is neither: it is not the data's fault, nor worth retrying.
      const unknown = await store.query(`SELECT no_such_column FROM ${t}`).catch((e: unknown) => e);
      expect(errorKind(unknown)).toBe('unknown');
    });
  });
}
