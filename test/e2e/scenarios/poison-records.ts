import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backbone, openBackbone } from '../../../infra/composition.ts';
import { loadConfig } from '../../../infra/config.ts';
import { silentLogger } from '../../../infra/logger.ts';
import { showDeadLetters } from '../../../processors/dead-letters.ts';
import { loadExample } from '../../../schemas/avro-schemas.ts';
import type {
  AlertMatched,
  DeliveryRequested,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  Publisher,
  SpeakersIdentified,
  Transcript,
} from '../../../schemas/generated/index.ts';
import { TOPICS, type TopicSpec } from '../../../schemas/topics.ts';
import { spawnEarshot } from '../../support/service-process.ts';
import { waitFor } from '../../support/wait-for.ts';

/**
 * Poison records, one topic family at a time, on the running service (every role, embedded
 * engines, no demo; started by `start.e2e.test.ts` on an empty data dir, whose start checks run
 * on the same service): records a step cannot process reach the log by another way than the validated ingest
 * paths (a producer of its own, an older version). Each family gets
 * - bytes no step can decode: every consumer of the topic dead-letters them (step decode);
 * - a record the store behind a step refuses for good: a NUL (U+0000) in a string, refused by
 *   PostgreSQL/PGlite; a negative line number, refused by the analytics store's UInt32 columns;
 * then an ordinary record. The ordinary record is projected, every consumer commits past the
 * poison, /readyz stays 200 (and counts the dead letters), and SIGTERM finishes within 5 s.
 * A restart on the same data dir is ready again and dead-letters nothing twice.
 */
const ex = <T>(name: Parameters<typeof loadExample>[0]) => structuredClone(loadExample(name)) as T;
const NUL = 'poison \u0000 text';

function publisher(): Publisher {
  return { ...ex<Publisher>('Publisher'), id: 'pub_good', slug: 'pub-good' };
}
function podcast(id: string, title = `Podcast ${id}`): Podcast {
  return {
    ...ex<Podcast>('Podcast'),
    id,
    slug: id.replaceAll('_', '-'),
    directory_id: null,
    title,
    publisher_id: 'pub_good',
  };
}
function episode(id: string, title = `Episode ${id}`): EpisodePublished {
  return {
    ...ex<EpisodePublished>('EpisodePublished'),
    id,
    slug: id.replaceAll('_', '-'),
    podcast_id: 'pod_good',
    title,
  };
}
function transcript(episodeId: string, firstLine = 1): Transcript {
  const t = ex<Transcript>('Transcript');
  return { ...t, episode_id: episodeId, lines: t.lines.map((l, i) => ({ ...l, number: firstLine + i })) };
}
function mentions(episodeId: string, line: number): MentionsDetected {
  const m = ex<MentionsDetected>('MentionsDetected');
  return {
    ...m,
    episode_id: episodeId,
    podcast_id: 'pod_good',
    mentions: m.mentions.map((x) => ({ ...x, line_number: line })),
  };
}
function speakers(episodeId: string, lineCount: number): SpeakersIdentified {
  const s = ex<SpeakersIdentified>('SpeakersIdentified');
  return {
    ...s,
    episode_id: episodeId,
    podcast_id: 'pod_good',
    speakers: s.speakers.map((x) => ({ ...x, line_count: lineCount })),
  };
}
function match(id: string, title = 'Joining me today'): AlertMatched {
  const m = ex<AlertMatched>('AlertMatched');
  m.windows[0]!.lines[0]!.text = title;
  return { ...m, id, alert_id: 'alrt_poison_test', project_id: 'proj_poison_test', source_id: 'ep_good' };
}
function delivery(id: string, email: string): DeliveryRequested {
  return {
    ...ex<DeliveryRequested>('DeliveryRequested'),
    delivery_id: id,
    alert_id: 'alrt_poison_test',
    project_id: 'proj_poison_test',
    channel: {
      type: 'EMAIL',
      email,
      webhook_connection_id: null,
      chat_connection_id: null,
      chat_channel_id: null,
    },
  };
}

interface Expected {
  topic: TopicSpec;
  key: string;
  /** The consumer groups that must have set it aside, and at which step. */
  groups: string[];
  step: 'decode' | 'write';
}

type Service = Awaited<ReturnType<typeof spawnEarshot>>;

/**
 * The service the scenario runs on: started without the demo, with `EARSHOT_BOOTSTRAP_API_KEY`
 * = `key` and `CONSUMER_BATCH_WAIT_MS=50`. The scenario's last test stops it and starts it
 * again (`svc` is then the new process, which the caller stops).
 */
export interface PoisonService {
  /** Set by the caller's `beforeAll` (and by the restart). */
  svc?: Service;
  key: string;
  dataDir: string;
}

/** Declares the suite; its hooks run when it is reached, after the tests declared before it. */
export function poisonRecords(service: PoisonService): void {
  describe('poison records on the running service', () => suite(service));
}

function suite(service: PoisonService): void {
  let svc: Service;
  let KEY: string;
  let bb: Backbone;
  const expected: Expected[] = [];
  const get = (path: string) => fetch(`${svc.url}${path}`, { headers: { 'x-api-key': KEY } });

  async function ready(): Promise<{ status: number; body: Record<string, never> }> {
    const res = await fetch(`${svc.url}/readyz`);
    return { status: res.status, body: (await res.json()) as Record<string, never> };
  }

  /** Total lag of every step, from the metrics read. */
  async function totalLag(): Promise<number> {
    const text = await (await fetch(`${svc.url}/metrics`)).text();
    const lines = text.split('\n').filter((l) => l.startsWith('earshot_consumer_lag{'));
    if (lines.length === 0) return Number.NaN;
    return lines.reduce((s, l) => s + Number(l.split(' ').at(-1)), 0);
  }

  async function garbage(topic: TopicSpec, key: string, groups: string[]) {
    await bb.eventLog.produce(topic.name, [{ key, value: Buffer.from('{"not": "avro"}') }]);
    expected.push({ topic, key, groups, step: 'decode' });
  }

  async function settle(what: string, visible: () => Promise<boolean> = async () => true) {
    await waitFor(async () => (await totalLag()) === 0 && (await visible()), {
      what,
      timeoutMs: 90_000,
      stepMs: 250,
    });
    const r = await ready();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }

  beforeAll(async () => {
    svc = service.svc!;
    KEY = service.key;
    await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
      what: '/readyz 200',
      timeoutMs: 90_000,
      stepMs: 250,
    });
    bb = await openBackbone(
      loadConfig({ ...process.env, EARSHOT_DATA_DIR: service.dataDir }),
      silentLogger(),
    );
  }, 120_000);

  afterAll(async () => {
    await bb?.close();
  });

  it('catalog: the podcast after a poison one is projected', async () => {
    await garbage(TOPICS.podcasts, 'pod_garbage', [
      'projector.catalog',
      'projector.search-names',
      'projector.analytics-catalog',
    ]);
    await bb.producer.send(TOPICS.podcasts, [{ key: 'pod_nul', value: podcast('pod_nul', NUL) }]);
    expected.push({ topic: TOPICS.podcasts, key: 'pod_nul', groups: ['projector.catalog'], step: 'write' });
    await bb.producer.send(TOPICS.publishers, [{ key: 'pub_good', value: publisher() }]);
    await bb.producer.send(TOPICS.podcasts, [{ key: 'pod_good', value: podcast('pod_good') }]);
    await settle(
      'the good podcast projected',
      async () => (await get('/v1/podcasts/pod_good')).status === 200,
    );
    expect((await get('/v1/podcasts/pod_nul')).status).toBe(404);
  }, 120_000);

  it('episodes and transcripts: the episode and transcript after poison ones are projected', async () => {
    await garbage(TOPICS.episodes, 'ep_garbage', ['projector.catalog', 'projector.analytics-catalog']);
    await garbage(TOPICS.transcripts, 'ep_garbage', [
      'projector.search',
      'projector.analytics-transcripts',
      'mentions',
      'speakers',
    ]);
    await bb.producer.send(TOPICS.episodes, [
      { key: 'ep_nul', value: episode('ep_nul', NUL) },
      { key: 'ep_negative', value: episode('ep_negative') },
      { key: 'ep_good', value: episode('ep_good') },
    ]);
    expected.push({ topic: TOPICS.episodes, key: 'ep_nul', groups: ['projector.catalog'], step: 'write' });
    // Line numbers below zero: the analytics store's UInt32 line columns refuse them.
    await bb.producer.send(TOPICS.transcripts, [
      { key: 'ep_negative', value: transcript('ep_negative', -3) },
      { key: 'ep_good', value: transcript('ep_good') },
    ]);
    expected.push({
      topic: TOPICS.transcripts,
      key: 'ep_negative',
      groups: ['projector.analytics-transcripts'],
      step: 'write',
    });
    await settle('the good episode and transcript projected', async () => {
      const res = await get('/v1/podcasts/episodes/ep_good/transcript');
      return res.status === 200 && ((await res.json()) as { lines?: unknown[] }).lines?.length === 3;
    });
    expect((await get('/v1/podcasts/episodes/ep_good')).status).toBe(200);
  }, 120_000);

  it('mentions and speakers: the records after poison ones are processed', async () => {
    await garbage(TOPICS.mentions, 'ep_garbage', [
      'projector.search',
      'projector.analytics-mentions',
      'processor.alert-matcher',
    ]);
    await garbage(TOPICS.speakers, 'ep_garbage', [
      'projector.search',
      'projector.analytics-mentions',
      'processor.alert-matcher',
    ]);
    await bb.producer.send(TOPICS.mentions, [
      { key: 'ep_negative_m', value: mentions('ep_negative_m', -1) },
      { key: 'ep_good_m', value: mentions('ep_good_m', 2) },
    ]);
    await bb.producer.send(TOPICS.speakers, [
      { key: 'ep_negative_s', value: speakers('ep_negative_s', -1) },
      { key: 'ep_good_s', value: speakers('ep_good_s', 2) },
    ]);
    expected.push({
      topic: TOPICS.mentions,
      key: 'ep_negative_m',
      groups: ['projector.analytics-mentions'],
      step: 'write',
    });
    expected.push({
      topic: TOPICS.speakers,
      key: 'ep_negative_s',
      groups: ['projector.analytics-mentions'],
      step: 'write',
    });
    await settle('mentions and speakers caught up');
  }, 120_000);

  it('alerts and deliveries: the match after a poison one is projected', async () => {
    await garbage(TOPICS.alertMatches, 'alrt_garbage', [
      'projector.alert-matches',
      'processor.delivery-planner',
    ]);
    await garbage(TOPICS.deliveriesRequested, 'alrt_garbage', [
      'projector.deliveries',
      'senders.delivery-scheduler',
    ]);
    await bb.producer.send(TOPICS.alertMatches, [
      { key: 'alrt_poison_test', value: match('match_nul', NUL) },
      { key: 'alrt_poison_test', value: match('match_good') },
    ]);
    expected.push({
      topic: TOPICS.alertMatches,
      key: 'alrt_poison_test',
      groups: ['projector.alert-matches'],
      step: 'write',
    });
    await bb.producer.send(TOPICS.deliveriesRequested, [
      { key: 'alrt_poison_test', value: delivery('dlv_nul', `nul\u0000@example.com`) },
    ]);
    expected.push({
      topic: TOPICS.deliveriesRequested,
      key: 'alrt_poison_test',
      // The senders' schedule keeps the channel as JSON text, which holds the escaped NUL.
      groups: ['projector.deliveries'],
      step: 'write',
    });
    await settle('alert matches caught up');
  }, 120_000);

  it('every poison record is in its dead-letter topic, set aside by the steps that could not process it', async () => {
    for (const e of expected) {
      const letters = (await showDeadLetters(bb.eventLog, bb.codec, e.topic.name)).filter(
        (d) => d.letter.key === e.key && d.letter.step === e.step,
      );
      const what = `${e.topic.name} ${e.key} (${e.step}): ${JSON.stringify(letters.map((d) => [d.letter.consumer_group, d.letter.reason]))}`;
      expect(letters.length, what).toBeGreaterThan(0);
      const groups = letters.map((d) => d.letter.consumer_group);
      for (const g of e.groups) expect(groups, what).toContain(g);
      for (const d of letters) {
        expect(d.letter.source_topic).toBe(e.topic.name);
        expect(d.letter.source_offset).toBeGreaterThanOrEqual(0);
        expect(d.letter.reason.length).toBeGreaterThan(0);
      }
      if (e.step === 'decode') {
        // Every consumer of the topic refuses bytes nobody can decode.
        expect(new Set(groups).size, what).toBeGreaterThanOrEqual(e.groups.length);
        expect(letters[0]!.undecodable).toMatch(/magic byte/);
      }
    }
    // No good record was set aside.
    for (const topic of Object.values(TOPICS)) {
      const letters = await showDeadLetters(bb.eventLog, bb.codec, topic.name);
      expect(
        letters.filter((d) => /good/.test(d.letter.key ?? '') && !/garbage/.test(d.letter.key ?? '')),
      ).toEqual([]);
    }
    const r = await ready();
    expect(r.status).toBe(200);
    const detail = (
      r.body as unknown as { checks: { consumers: { detail: { dead_letters: Record<string, number> } } } }
    ).checks.consumers.detail;
    expect(detail.dead_letters['catalog-projector']).toBeGreaterThanOrEqual(4);
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    expect(metrics).toMatch(/earshot_dead_letters_total\{step="catalog-projector",stage="write"\} [1-9]/);
    expect(metrics).toMatch(/earshot_dead_letters_total\{step="catalog-projector",stage="decode"\} [1-9]/);
  });

  it('stops cleanly within 5 s on SIGTERM, and a restart is ready again without setting anything aside twice', async () => {
    const counts = async () =>
      (await bb.eventLog.listTopics())
        .filter((t) => t.name.endsWith('.dlq'))
        .reduce((s, t) => s + t.partitions.reduce((n, p) => n + p.end - p.earliest, 0), 0);
    const before = await counts();
    const stopping = Date.now();
    const exit = await svc.stop('SIGTERM');
    expect(Date.now() - stopping, svc.output().slice(-2000)).toBeLessThan(5_000);
    expect(exit.code, svc.output().slice(-2000)).toBe(0);
    expect(svc.output()).toContain('earshot stopped');

    svc = await spawnEarshot(['start'], {
      EARSHOT_DATA_DIR: service.dataDir,
      EARSHOT_DEMO: 'off',
      EARSHOT_BOOTSTRAP_API_KEY: KEY,
    });
    service.svc = svc;
    await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
      what: '/readyz 200 after a restart',
      timeoutMs: 90_000,
      stepMs: 250,
    });
    expect((await get('/v1/podcasts/pod_good')).status).toBe(200);
    expect(await counts()).toBe(before);
    const stopping2 = Date.now();
    expect((await svc.stop('SIGTERM')).code).toBe(0);
    expect(Date.now() - stopping2).toBeLessThan(5_000);
  }, 150_000);
}
