import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import {
  BatchIngest,
  type CrashPoint,
  INGEST_BATCH_HEADER,
  INGEST_ID_HEADER,
} from '../../ingest/loader/batch-ingest.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { IngestTokens } from '../../projections/state/ingest-tokens.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { catalogSlugHolders, testApi } from '../support/api.ts';
import { embeddedBackbone } from '../support/backbone.ts';

/**
 * HTTP ingest publishes each record once across interruptions. A crash is simulated in this
 * process: the batch publisher stops dead at a crash point (it throws there, so nothing after it
 * runs), and the retry goes through a new publisher instance, as after a restart. The real
 * kill -9 of a service process is test/e2e/ingest-crash.e2e.test.ts.
 */
const json = (name: Parameters<typeof loadExample>[0]) => JSON.parse(JSON.stringify(loadExample(name)));
const URL = '/v1/ingest/batches';
const INGEST_TOPICS = [TOPICS.publishers, TOPICS.podcasts, TOPICS.episodes, TOPICS.transcripts];

class SimulatedCrash extends Error {}

describe('HTTP ingest: idempotent batches', () => {
  let bb: Awaited<ReturnType<typeof embeddedBackbone>>;
  let state: IngestState;
  let api: Awaited<ReturnType<typeof testApi>>;
  let tokens: IngestTokens;
  let token: string;
  let otherToken: string;
  let current: BatchIngest;

  /** A new publisher, as a restarted process has; `crashAt` makes it stop dead there. */
  function restart(crashAt?: CrashPoint) {
    current = new BatchIngest({
      producer: bb.producer,
      log: bb.log,
      state,
      logger: silentLogger(),
      crashAt,
      crash: () => {
        throw new SimulatedCrash('simulated kill');
      },
    });
  }

  beforeAll(async () => {
    bb = await embeddedBackbone();
    state = new IngestState(path.join(bb.dir, 'ingest-state'));
    restart();
    api = await testApi({}, undefined, {
      ingest: (s) => {
        tokens = new IngestTokens(s);
        return {
          batches: { publish: (r) => current.publish(r) },
          state,
          tokens,
          slugHolders: catalogSlugHolders(s),
        };
      },
    });
    token = (await tokens.create({ name: 'partner' })).token;
    otherToken = (await tokens.create({ name: 'other partner' })).token;
  });
  afterAll(async () => {
    await api.close();
    await state.close();
    await bb.close();
  });

  /** A publisher, a podcast, `n` episodes and their transcripts. */
  function batch(suffix: string, n = 5) {
    const publisher = json('Publisher');
    publisher.id = `pub_${suffix}`;
    const podcast = json('Podcast');
    podcast.id = `pod_${suffix}`;
    podcast.slug = `pod-${suffix}`;
    podcast.publisher_id = publisher.id;
    const records: { type: string; data: Record<string, unknown> }[] = [
      { type: 'publisher', data: publisher },
      { type: 'podcast', data: podcast },
    ];
    for (let i = 0; i < n; i++) {
      const episode = json('EpisodePublished');
      episode.id = `ep_${suffix}_${i}`;
      episode.slug = `ep-${suffix}-${i}`;
      episode.podcast_id = podcast.id;
      records.push({ type: 'episode', data: episode });
    }
    for (let i = 0; i < n; i++) {
      const transcript = json('Transcript');
      transcript.episode_id = `ep_${suffix}_${i}`;
      records.push({ type: 'transcript', data: transcript });
    }
    return records;
  }

  const post = (records: unknown[], headers: Record<string, string> = {}, as = token) =>
    api.app.inject({
      method: 'POST',
      url: URL,
      headers: { authorization: `Bearer ${as}`, ...headers },
      payload: { records },
    });

  /** How many times each ingest id of `suffix` was appended to the log, by topic. */
  function appended(suffix: string): Map<string, number> {
    const seen = new Map<string, number>();
    for (const topic of INGEST_TOPICS) {
      for (let p = 0; p < topic.partitions; p++) {
        for (const r of bb.log.read(topic.name, p, 0, Number.MAX_SAFE_INTEGER)) {
          const id = r.headers[INGEST_ID_HEADER];
          if (id?.includes(`_${suffix}`)) seen.set(id, (seen.get(id) ?? 0) + 1);
        }
      }
    }
    return seen;
  }

  function expectEachOnce(suffix: string, n = 5) {
    const seen = appended(suffix);
    expect(seen.size).toBe(2 + 2 * n);
    expect(
      [...seen.values()].every((times) => times === 1),
      JSON.stringify([...seen]),
    ).toBe(true);
  }

  const full = (n = 5) => ({
    received: 2 + 2 * n,
    published: 2 + 2 * n,
    duplicates: 0,
    transcript_lines: n * (json('Transcript').lines as unknown[]).length,
    by_type: { publisher: 1, podcast: 1, episode: n, transcript: n },
  });

  it('answers a retry with the same Idempotency-Key with the first answer, and nothing is published twice', async () => {
    const records = batch('k1');
    const first = await post(records, { 'idempotency-key': 'batch-k1' });
    expect(first.statusCode, first.body).toBe(202);
    expect(first.json()).toEqual(full());
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(records, { 'idempotency-key': 'batch-k1' });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(full());
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Without the key, the records' ids are the dedup: all duplicates.
    const unkeyed = await post(records);
    expect(unkeyed.json()).toMatchObject({ published: 0, duplicates: 12 });
    // Keys are per ingest token: the other token's "batch-k1" is its own, new key.
    const other = await post(records, { 'idempotency-key': 'batch-k1' }, otherToken);
    expect(other.json()).toMatchObject({ published: 0, duplicates: 12 });
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expectEachOnce('k1');
  });

  it('refuses a key reused for another batch (422 idempotency_key_reused) and a malformed key', async () => {
    expect((await post(batch('k2'), { 'idempotency-key': 'batch-k2' })).statusCode).toBe(202);
    const reused = await post(batch('k2b'), { 'idempotency-key': 'batch-k2' });
    expect(reused.statusCode).toBe(422);
    expect(reused.headers['content-type']).toContain('application/problem+json');
    expect(reused.json()).toMatchObject({
      error_code: 'idempotency_key_reused',
      errors: [{ location: 'header.idempotency-key', value: 'batch-k2' }],
    });
    expect(appended('k2b').size).toBe(0);
    for (const bad of ['', ' padded', 'x'.repeat(256), 'tab\there']) {
      const res = await post(batch('k2c'), { 'idempotency-key': bad });
      expect(res.statusCode, bad).toBe(422);
      expect(res.json().errors[0].location).toBe('header.idempotency-key');
    }
    expect(appended('k2c').size).toBe(0);
  });

  // What an unkeyed retry reports as published after each crash point (the rest are duplicates).
  it.each([
    ['ingest-after-intent', 12],
    ['ingest-mid-append', 11], // the publisher topic was appended before the crash
    ['ingest-after-append', 0],
  ] as const)(
    'a batch interrupted at %s is published once on retry, with or without a key',
    async (point, unkeyedPublished) => {
      for (const keyed of [true, false]) {
        const suffix = `${point.replace(/-/g, '')}${keyed ? 'k' : 'u'}`;
        const records = batch(suffix);
        const headers: Record<string, string> = keyed ? { 'idempotency-key': `key-${suffix}` } : {};
        restart(point);
        const crashed = await post(records, headers);
        expect(crashed.statusCode).toBe(500);
        restart();
        const retry = await post(records, headers);
        expect(retry.statusCode, retry.body).toBe(202);
        if (keyed) {
          // The answer the first attempt would have given.
          expect(retry.json()).toEqual(full());
        } else {
          expect(retry.json()).toMatchObject({
            received: 12,
            published: unkeyedPublished,
            duplicates: 12 - unkeyedPublished,
          });
        }
        const third = await post(records, headers);
        expect(third.json()).toMatchObject(keyed ? full() : { published: 0, duplicates: 12 });
        expectEachOnce(suffix);
        expect(state.openIntents()).toEqual([]);
        expect(state.knownEpisode(`ep_${suffix}_4`)).toBe(true);
      }
    },
  );

  it('a restarted publisher resolves interrupted batches from the log before any request', async () => {
    const records = batch('boot');
    restart('ingest-after-append');
    await post(records);
    expect(state.openIntents()).toHaveLength(1);
    expect(state.knownEpisode('ep_boot_0')).toBe(false);
    restart();
    await current.recover();
    expect(state.openIntents()).toEqual([]);
    expect(state.knownEpisode('ep_boot_0')).toBe(true);
    expect(state.has('transcript:ep_boot_4')).toBe(true);
    expectEachOnce('boot');
  });

  it('an append that fails is resolved like a crash by the next request that touches it', async () => {
    const records = batch('fail');
    const producer = bb.producer;
    let calls = 0;
    const flaky = Object.create(producer) as typeof producer;
    flaky.send = async (topic, events) => {
      if (++calls === 4) throw new Error('broker unavailable');
      return producer.send(topic, events);
    };
    current = new BatchIngest({ producer: flaky, log: bb.log, state, logger: silentLogger() });
    expect((await post(records)).statusCode).toBe(500);
    expect(state.openIntents()).toHaveLength(1);
    const retry = await post(records);
    expect(retry.json()).toMatchObject({ published: 5, duplicates: 7 }); // the transcripts
    expectEachOnce('fail');
    restart();
  });

  it('two identical batches at once publish each record once', async () => {
    const records = batch('twin');
    const [a, b] = await Promise.all([post(records), post(records)]);
    const answers = [a.json(), b.json()].map((x) => x.published).sort();
    expect(answers).toEqual([0, 12]);
    expectEachOnce('twin');
    // The batch header names one batch for every record.
    const batches = new Set<string>();
    for (let p = 0; p < TOPICS.transcripts.partitions; p++) {
      for (const r of bb.log.read(TOPICS.transcripts.name, p, 0, Number.MAX_SAFE_INTEGER)) {
        if (r.headers[INGEST_ID_HEADER]?.includes('_twin')) batches.add(r.headers[INGEST_BATCH_HEADER]!);
      }
    }
    expect(batches.size).toBe(1);
  });
});

describe('HTTP ingest: one ingest state shared by several processes', () => {
  it('begins a batch only if no other process began one with its records or key since they were read', async () => {
    const dir = path.join(os.tmpdir(), `earshot-shared-ingest-state-${process.pid}-${Date.now()}`);
    // Two handles on one directory, as two ingest instances of one machine open it.
    const a = new IngestState(dir);
    const b = new IngestState(dir);
    try {
      const intent = (id: string, ids: string[], key?: string) => ({
        id,
        owner: { pid: 1, instance: id },
        at: Date.now(),
        topics: ['episodes'],
        ids,
        ...(key ? { key } : {}),
      });
      // Both read the records as new; the first to write its intent wins.
      expect(a.has('episode:x') || b.has('episode:x')).toBe(false);
      expect(await a.begin(intent('ib_a', ['episode:x', 'episode:y']))).toBe(true);
      expect(await b.begin(intent('ib_b', ['episode:y', 'episode:z']))).toBe(false);
      expect(b.pendingIntentOf('episode:y')).toBe('ib_a');
      expect(b.pendingIntentOf('episode:z')).toBeUndefined();
      expect(b.intent('ib_b')).toBeUndefined();
      // Once ingested, a record cannot be begun again either.
      await a.settle('ib_a', ['episode:x', 'episode:y']);
      expect(await b.begin(intent('ib_c', ['episode:x']))).toBe(false);
      // One Idempotency-Key: the second attempt to begin under it is refused while the first is open.
      expect(await a.begin(intent('ib_d', ['episode:k1'], 'tok key-1'), 'f1')).toBe(true);
      expect(await b.begin(intent('ib_e', ['episode:k2'], 'tok key-1'), 'f1')).toBe(false);
      expect(b.idempotency('tok key-1')?.intent).toBe('ib_d');
    } finally {
      await a.close();
      await b.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
