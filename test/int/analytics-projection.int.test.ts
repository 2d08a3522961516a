import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayGroup } from '../../infra/operations.ts';
import type { ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { analyticsProjectors } from '../../projections/analytics/analytics-projectors.ts';
import { type AnalyticsStore, migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { sponsorKey } from '../../projections/analytics/episode-sets.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type { AdReads, EpisodePublished, MentionsDetected } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { runUntilCaughtUp } from '../support/analytics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { type Corpus, derivedEvents, generateTestCorpus, produceCorpus } from '../support/corpus.ts';

type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;

const TABLES = [
  'publishers',
  'podcasts',
  'entities',
  'episodes',
  'transcript_lines',
  'transcript_words',
  'episode_speakers',
  'segments',
  'clips',
  'mention_lines',
  'entity_episodes',
  'ad_reads',
  'sponsor_ad_reads',
  'chart_rows',
  'bias_evaluations',
  'episode_mention_lines',
  'guest_appearances',
  'podcast_guest_appearances',
];
/** Rollups recomputed with a newer version each time: compared on their values. */
const RECOMPUTED: Record<string, string> = {
  episode_dates: 'published_at, id, podcast_id',
  topic_episode_entities:
    'topic, published_at, episode_id, podcast_id, segments, lines, entity_ids, entity_lines',
  guest_totals:
    'person_id, appearances, podcast_count, line_count, first_appearance, last_appearance, last_episode_id, capacities, roles',
  sponsor_totals:
    'sponsor_key, sponsor_name, company_id, ad_count, episode_reach, podcast_reach, first_seen, last_seen',
};

describe('analytics projection', () => {
  let bb: Backbone;
  let store: AnalyticsStore;
  let corpus: Corpus;
  const projectors = () => analyticsProjectors(store) as ProcessorDefinition<unknown, unknown>[];

  /** Row count and an order-independent checksum of every table, as FINAL reads see it. */
  async function snapshot() {
    const out: Record<string, { rows: number; sum: string }> = {};
    for (const table of TABLES) {
      const [r] = await store.query<{ rows: number; sum: string }>(
        `SELECT count() AS rows, toString(sum(cityHash64(*))) AS sum FROM ${table} FINAL`,
      );
      out[table] = r!;
    }
    for (const [table, columns] of Object.entries(RECOMPUTED)) {
      const [r] = await store.query<{ rows: number; sum: string }>(
        `SELECT count() AS rows, toString(sum(cityHash64(${columns}))) AS sum FROM ${table} FINAL`,
      );
      out[table] = r!;
    }
    return out;
  }

  beforeAll(async () => {
    bb = await embeddedBackbone();
    corpus = await generateTestCorpus({
      dir: path.join(bb.dir, 'corpus'),
      podcasts: 4,
      episodesPerPodcast: 3,
      seed: 5,
      asOf: Date.UTC(2026, 5, 1),
    });
    store = new ChdbAnalyticsStore(path.join(bb.dir, 'analytics'));
    await migrateAnalytics(store);
    await produceCorpus(bb.producer, corpus);
    await runUntilCaughtUp(bb, projectors(), { maxBatchItems: 7 });
  });
  afterAll(async () => {
    await store?.close();
    await bb?.close();
  });

  it('projects every record of the corpus', async () => {
    const s = await snapshot();
    expect(s.episodes!.rows).toBe(corpus.episodes.length);
    expect(s.podcasts!.rows).toBe(corpus.podcasts.length);
    expect(s.entities!.rows).toBe(corpus.entities.length);
    expect(s.transcript_lines!.rows).toBe(corpus.transcripts.reduce((n, t) => n + t.lines.length, 0));
    expect(s.transcript_words!.rows).toBe(
      corpus.transcripts.reduce((n, t) => n + t.lines.reduce((m, l) => m + (l.words?.length ?? 0), 0), 0),
    );
    expect(s.segments!.rows).toBe(corpus.segments.reduce((n, x) => n + x.segments.length, 0));
    expect(s.clips!.rows).toBe(corpus.clips.reduce((n, x) => n + x.clips.length, 0));
    expect(s.ad_reads!.rows).toBe(corpus.adReads.reduce((n, x) => n + x.ad_reads.length, 0));
    expect(s.chart_rows!.rows).toBe(corpus.charts.length);
    expect(s.bias_evaluations!.rows).toBe(corpus.bias.length);
    // One row per (entity, line), however often the line names the entity.
    const lines = new Set(
      corpus.truth.mentions
        .filter((m) => m.sense === 'entity')
        .map((m) => `${m.episode_id}/${m.line_number}/${m.entity_id}`),
    );
    expect(s.mention_lines!.rows).toBe(lines.size);
    // Every ad read knows its podcast and publication time, whichever topic was projected first.
    const [pending] = await store.query<{ n: number }>(
      "SELECT count() AS n FROM ad_reads FINAL WHERE podcast_id = '' OR published_at = toDateTime64(0, 3, 'UTC')",
    );
    expect(pending!.n).toBe(0);
  });

  it('leaves every table as it was when all topics are replayed', async () => {
    const before = await snapshot();
    for (const def of projectors()) {
      for (const topic of def.inputs)
        await replayGroup(bb.log, { topic: topic.name, group: def.groupId, fromOffset: 0 });
    }
    const runners = await runUntilCaughtUp(bb, projectors(), { maxBatchItems: 5 });
    expect(runners.reduce((n, r) => n + r.stats.consumed, 0)).toBeGreaterThan(100);
    expect(await snapshot()).toEqual(before);
    // As after a crash between writing a set's rows and recording its version: the rows are
    // written again with the same versions, and FINAL still shows each once.
    await store.command('TRUNCATE TABLE episode_versions');
    for (const def of projectors()) {
      for (const topic of def.inputs)
        await replayGroup(bb.log, { topic: topic.name, group: def.groupId, fromOffset: 0 });
    }
    await runUntilCaughtUp(bb, projectors(), { maxBatchItems: 11 });
    expect(await snapshot()).toEqual(before);
  });

  it('replaces an episode’s mentions with a newer detection, lines it no longer finds included', async () => {
    const { mentions } = derivedEvents(corpus);
    const original = mentions.find((m) => new Set(m.mentions.map((x) => x.entity_id)).size >= 2)!;
    const [kept, ...dropped] = [...new Set(original.mentions.map((x) => x.entity_id))];
    const newer: MentionsDetected = {
      ...original,
      detected_at: original.detected_at + 1000,
      mentions: original.mentions.filter((x) => x.entity_id === kept).slice(0, 1),
      entities: original.entities.filter((e) => e.entity_id === kept),
    };
    const older: MentionsDetected = { ...original, detected_at: original.detected_at - 1000 };
    await bb.producer.send(TOPICS.mentions, [{ key: newer.episode_id, value: newer }]);
    await bb.producer.send(TOPICS.mentions, [{ key: older.episode_id, value: older }]);
    await runUntilCaughtUp(bb, projectors());
    const lines = await store.query<{ entity_id: string; line_number: number }>(
      'SELECT entity_id, line_number FROM mention_lines FINAL WHERE episode_id = {e:String}',
      { e: original.episode_id },
    );
    expect(lines).toEqual([{ entity_id: kept, line_number: newer.mentions[0]!.line_number }]);
    const rollup = await store.query<{ entity_id: string; lines: number }>(
      'SELECT entity_id, lines FROM entity_episodes FINAL WHERE episode_id = {e:String}',
      { e: original.episode_id },
    );
    expect(rollup).toEqual([{ entity_id: kept, lines: 1 }]);
    expect(dropped.length).toBeGreaterThan(0);
  });

  it('completes ad reads that arrive before their episode, and follows a republished date', async () => {
    const episode = {
      ...(loadExample('EpisodePublished') as EpisodePublished),
      id: 'ep_late',
      slug: 'ep-late',
    };
    const ads = { ...(loadExample('AdReads') as AdReads), episode_id: 'ep_late' };
    await bb.producer.send(TOPICS.adReads, [{ key: ads.episode_id, value: ads }]);
    await runUntilCaughtUp(bb, projectors());
    const read = () =>
      store.query<{ id: string; podcast_id: string; published_ms: number }>(
        `SELECT id, podcast_id, toUnixTimestamp64Milli(published_at) AS published_ms FROM ad_reads FINAL
         WHERE episode_id = 'ep_late' ORDER BY id`,
      );
    expect((await read()).every((r) => r.podcast_id === '')).toBe(true);
    await bb.producer.send(TOPICS.episodes, [{ key: episode.id, value: episode }]);
    await runUntilCaughtUp(bb, projectors());
    expect(await read()).toEqual(
      ads.ad_reads.map((a) => ({
        id: a.id,
        podcast_id: episode.podcast_id,
        published_ms: episode.published_at,
      })),
    );
    const moved = { ...episode, published_at: episode.published_at + 86_400_000 };
    await bb.producer.send(TOPICS.episodes, [{ key: moved.id, value: moved }]);
    await runUntilCaughtUp(bb, projectors());
    expect((await read()).map((r) => r.published_ms)).toEqual(ads.ad_reads.map(() => moved.published_at));
    // …and back again: the ads reappear at the first time (where they had been marked deleted).
    await bb.producer.send(TOPICS.episodes, [{ key: episode.id, value: { ...episode } }]);
    await runUntilCaughtUp(bb, projectors());
    expect((await read()).map((r) => r.published_ms)).toEqual(ads.ad_reads.map(() => episode.published_at));
    const [n] = await store.query<{ n: number }>(
      "SELECT count() AS n FROM ad_reads FINAL WHERE episode_id = 'ep_late'",
    );
    expect(n!.n).toBe(ads.ad_reads.length);
  });

  it('keeps every rollup equal to what its rows give, after replaced speaker and ad-read sets and a republished date', async () => {
    const { speakers } = derivedEvents(corpus);
    // A newer identification of an episode without one of its guests.
    const original = speakers.find((x) => x.speakers.some((sp) => sp.person_id && sp.role !== 'HOST'))!;
    const gone = original.speakers.find((sp) => sp.person_id && sp.role !== 'HOST')!;
    const newer = {
      ...original,
      identified_at: original.identified_at + 1000,
      speakers: original.speakers.filter((sp) => sp !== gone),
    };
    // A newer ad-read set of an episode without the ads of one of its sponsors, alone in its batch:
    // only the markers of the replaced rows name that sponsor, and it is counted again.
    const adSet = corpus.adReads.find((x) => x.ad_reads.some((a) => !a.is_network_promo))!;
    const first = adSet.ad_reads.find((a) => !a.is_network_promo)!;
    const dropped = sponsorKey(first.company_id, first.sponsor_name);
    const kept = adSet.ad_reads.filter((a) => sponsorKey(a.company_id, a.sponsor_name) !== dropped);
    const droppedCount = async () =>
      Number(
        (
          await store.query<{ n: number }>(
            'SELECT ad_count AS n FROM sponsor_totals FINAL WHERE sponsor_key = {k:String}',
            { k: dropped },
          )
        )[0]?.n ?? 0,
      );
    const before = await droppedCount();
    await bb.producer.send(TOPICS.adReads, [{ key: adSet.episode_id, value: { ...adSet, ad_reads: kept } }]);
    await runUntilCaughtUp(bb, projectors());
    expect(await droppedCount()).toBe(before - (adSet.ad_reads.length - kept.length));
    await bb.producer.send(TOPICS.speakers, [{ key: newer.episode_id, value: newer }]);
    // An episode with topic segments, republished a day later.
    const withTopics = corpus.segments.find((x) => x.segments.some((g) => (g.topics ?? []).length > 0))!;
    const episode = corpus.episodes.find((e) => e.id === withTopics.episode_id)!;
    const moved = { ...episode, published_at: episode.published_at + 86_400_000 };
    await bb.producer.send(TOPICS.episodes, [{ key: moved.id, value: moved }]);
    await runUntilCaughtUp(bb, projectors());

    const at = await store.query<{ ms: number }>(
      'SELECT DISTINCT toUnixTimestamp64Milli(published_at) AS ms FROM topic_episode_entities FINAL WHERE episode_id = {e:String}',
      { e: episode.id },
    );
    expect(at.map((r) => Number(r.ms))).toEqual([moved.published_at]);
    // The catalog's episodes by publication time: every episode once, at its current time.
    const dates = (table: string) =>
      store.query<{ id: string; p: string; ms: number }>(
        `SELECT id, podcast_id AS p, toUnixTimestamp64Milli(published_at) AS ms FROM ${table} FINAL ORDER BY id`,
      );
    expect(await dates('episode_dates')).toEqual(await dates('episodes'));

    // Topics: segments and mention lines outside ads inside them, per (topic, episode).
    const episodes = new Map(
      (
        await store.query<{ id: string; podcast_id: string; ms: number }>(
          'SELECT id, podcast_id, toUnixTimestamp64Milli(published_at) AS ms FROM episodes FINAL',
        )
      ).map((e) => [e.id, e]),
    );
    const lines = await store.query<{ entity_id: string; episode_id: string; line_number: number }>(
      'SELECT entity_id, episode_id, line_number FROM mention_lines FINAL WHERE in_ad = 0',
    );
    const segs = await store.query<{
      topic: string;
      episode_id: string;
      first_line: number;
      last_line: number;
    }>('SELECT toString(topic) AS topic, episode_id, first_line, last_line FROM segment_topics FINAL');
    const topics = new Map<string, string>();
    // Per (topic, episode): the entities' lines inside its segments on the topic.
    const topicEntities = new Map<string, Map<string, number>>();
    for (const g of segs) {
      const e = episodes.get(g.episode_id);
      if (!e) continue;
      const k = `${g.topic}|${g.episode_id}`;
      const [segments, n] = (topics.get(k) ?? '0|0').split('|').map(Number) as [number, number];
      const inside = lines.filter(
        (l) => l.episode_id === g.episode_id && l.line_number >= g.first_line && l.line_number <= g.last_line,
      );
      topics.set(k, `${segments + 1}|${n + inside.length}|${e.podcast_id}|${Number(e.ms)}`);
      const perEntity = topicEntities.get(k) ?? new Map<string, number>();
      for (const l of inside) perEntity.set(l.entity_id, (perEntity.get(l.entity_id) ?? 0) + 1);
      topicEntities.set(k, perEntity);
    }
    const gotTopics = await store.query<{ k: string; v: string }>(
      `SELECT concat(toString(topic), '|', episode_id) AS k,
         concat(toString(segments), '|', toString(lines), '|', toString(podcast_id), '|',
           toString(toUnixTimestamp64Milli(published_at))) AS v
       FROM topic_episode_entities FINAL`,
    );
    expect(Object.fromEntries(gotTopics.map((r) => [r.k, r.v]))).toEqual(Object.fromEntries(topics));
    const gotEntities = await store.query<{ k: string; entity_ids: string[]; entity_lines: number[] }>(
      `SELECT concat(toString(topic), '|', episode_id) AS k, entity_ids, entity_lines
       FROM topic_episode_entities FINAL`,
    );
    const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    expect(
      Object.fromEntries(
        gotEntities.map((r) => [r.k, r.entity_ids.map((id, i) => [id, Number(r.entity_lines[i])])]),
      ),
    ).toEqual(Object.fromEntries([...topicEntities].map(([k, m]) => [k, sorted(m)])));
    expect([...topicEntities.values()].some((m) => m.size > 0)).toBe(true);

    // Guests: appearances, podcasts and lines per person over the identified speakers.
    const spoken = await store.query<{
      person_id: string;
      episode_id: string;
      podcast_id: string;
      line_count: number;
    }>(
      `SELECT person_id, episode_id, podcast_id, line_count FROM episode_speakers FINAL
       WHERE person_id != '' AND role != 'HOST' AND published_at > toDateTime64(0, 3, 'UTC')`,
    );
    const guests = new Map<string, { e: Set<string>; p: Set<string>; lines: number }>();
    for (const r of spoken) {
      const g = guests.get(r.person_id) ?? { e: new Set(), p: new Set(), lines: 0 };
      g.e.add(r.episode_id);
      g.p.add(r.podcast_id);
      g.lines += Number(r.line_count);
      guests.set(r.person_id, g);
    }
    const gotGuests = await store.query<{
      person_id: string;
      appearances: number;
      podcast_count: number;
      line_count: number;
    }>('SELECT person_id, appearances, podcast_count, line_count FROM guest_totals FINAL');
    expect(
      Object.fromEntries(gotGuests.map((r) => [r.person_id, [r.appearances, r.podcast_count, r.line_count]])),
    ).toEqual(Object.fromEntries([...guests].map(([id, g]) => [id, [g.e.size, g.p.size, g.lines]])));
    const goneNow = spoken.filter((r) => r.person_id === gone.person_id && r.episode_id === newer.episode_id);
    expect(goneNow).toEqual([]);

    // Sponsors: ads (network promos left out), episodes and podcasts per sponsor.
    const ads = await store.query<{ k: string; episode_id: string; podcast_id: string }>(
      `SELECT toString(sponsor_key) AS k, episode_id, toString(podcast_id) AS podcast_id FROM ad_reads FINAL
       WHERE is_network_promo = 0 AND published_at > toDateTime64(0, 3, 'UTC')`,
    );
    const sponsors = new Map<string, { n: number; e: Set<string>; p: Set<string> }>();
    for (const a of ads) {
      const x = sponsors.get(a.k) ?? { n: 0, e: new Set(), p: new Set() };
      x.n++;
      x.e.add(a.episode_id);
      x.p.add(a.podcast_id);
      sponsors.set(a.k, x);
    }
    const gotSponsors = await store.query<{
      sponsor_key: string;
      ad_count: number;
      episode_reach: number;
      podcast_reach: number;
    }>('SELECT sponsor_key, ad_count, episode_reach, podcast_reach FROM sponsor_totals FINAL');
    expect(
      Object.fromEntries(
        gotSponsors.map((r) => [r.sponsor_key, [r.ad_count, r.episode_reach, r.podcast_reach]]),
      ),
    ).toEqual(Object.fromEntries([...sponsors].map(([k, x]) => [k, [x.n, x.e.size, x.p.size]])));
    expect(sponsors.size).toBeGreaterThan(0);
    // The copy sorted by sponsor holds the rows of ad_reads.
    const copy = (table: string) =>
      store.query(
        `SELECT id, episode_id, toString(sponsor_key) AS k, toUnixTimestamp64Milli(published_at) AS ms, version
         FROM ${table} FINAL ORDER BY id`,
      );
    expect(await copy('sponsor_ad_reads')).toEqual(await copy('ad_reads'));
    expect(guests.size).toBeGreaterThan(0);
    expect(topics.size).toBeGreaterThan(0);
  });

  it('gives the same rollups when the store is emptied and rebuilt from the log', async () => {
    // Every record of the tests above — replaced sets, dates moved and moved back — again, in
    // other batches, into an empty store (as `earshot projections rebuild analytics` empties it).
    const rollups = async () => {
      const out: Record<string, { rows: number; sum: string }> = {};
      for (const [table, columns] of Object.entries(RECOMPUTED)) {
        const [r] = await store.query<{ rows: number; sum: string }>(
          `SELECT count() AS rows, toString(sum(cityHash64(${columns}))) AS sum FROM ${table} FINAL`,
        );
        out[table] = r!;
      }
      return out;
    };
    const before = await rollups();
    expect(Object.values(before).every((r) => Number(r.rows) > 0)).toBe(true);
    const tables = await store.query<{ name: string }>(
      `SELECT name FROM system.tables WHERE database = currentDatabase() AND name != 'schema_migrations'
         AND engine NOT IN ('View', 'MaterializedView')`,
    );
    for (const { name } of tables) await store.command(`TRUNCATE TABLE ${name}`);
    expect((await rollups()).sponsor_totals!.rows).toBe(0);
    for (const def of projectors()) {
      for (const topic of def.inputs)
        await replayGroup(bb.log, { topic: topic.name, group: def.groupId, fromOffset: 0 });
    }
    await runUntilCaughtUp(bb, projectors(), { maxBatchItems: 13 });
    expect(await rollups()).toEqual(before);
  });
});
