import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import {
  ConsumerRunner,
  type DecodedRecord,
  PermanentWriteError,
  type ProcessorDefinition,
} from '../../processors/consumer-runner.ts';
import { deadLetter, ok, skip } from '../../processors/step-result.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type { DeadLetter, EpisodePublished } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { waitFor } from '../support/wait-for.ts';

type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;

const episode = (i: number, title = `Episode ${i}`): EpisodePublished => ({
  ...(loadExample('EpisodePublished') as EpisodePublished),
  id: `ep_${i}`,
  slug: `ep-${i}`,
  title,
});

/** What a store that is down throws: a refused connection (classified transient). */
const connectionRefused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** A sink that records what it was given and can be told to fail. */
class RecordingSink {
  written: string[] = [];
  calls = 0;
  largest = 0;
  failNext = 0;
  poison = new Set<string>();
  /** Items the sink refuses with an error nobody classified (neither permanent nor transient). */
  unclassified = new Set<string>();
  /** Whether the store answers the runner's probe. */
  answers = true;
  probes = 0;
  async write(items: string[]) {
    this.calls++;
    this.largest = Math.max(this.largest, items.length);
    if (this.failNext > 0) {
      this.failNext--;
      throw connectionRefused();
    }
    if (items.some((i) => this.poison.has(i))) throw new PermanentWriteError('constraint violated');
    if (items.some((i) => this.unclassified.has(i))) throw new Error('something odd about this batch');
    this.written.push(...items);
  }
  async probe() {
    this.probes++;
    if (!this.answers) throw connectionRefused();
  }
}

describe('consumer runner', () => {
  let bb: Backbone;
  let runner: ConsumerRunner<EpisodePublished, string> | undefined;
  beforeEach(async () => {
    bb = await embeddedBackbone();
  });
  afterEach(async () => {
    await runner?.stop();
    runner = undefined;
    await bb.close();
  });

  function start(
    sink: RecordingSink,
    handle: ProcessorDefinition<EpisodePublished, string>['handle'] = (r) => ok(r.value.title),
    options: Partial<ConstructorParameters<typeof ConsumerRunner>[4]> = {},
  ) {
    const def: ProcessorDefinition<EpisodePublished, string> = {
      name: 'title-collector',
      groupId: `test-${randomUUID()}`,
      inputs: [TOPICS.episodes],
      handle,
      sink,
    };
    runner = new ConsumerRunner(def, bb.log, bb.producer, silentLogger(), {
      maxBatchItems: 100,
      maxBatchWaitMs: 50,
      retryBaseMs: 5,
      retryMaxMs: 20,
      ...options,
    });
    return runner.start().then(() => runner!);
  }

  async function deadLetters(): Promise<DeadLetter[]> {
    const topic = TOPICS.episodes.deadLetter;
    const out: DeadLetter[] = [];
    for (let partition = 0; partition < 1; partition++) {
      for (const r of bb.log.read(topic, partition, 0, 1000))
        out.push(await bb.codec.decode<DeadLetter>(topic, r.value));
    }
    return out;
  }

  const totalLag = async (r: ConsumerRunner<EpisodePublished, string>) =>
    (await r.lag()).reduce((s, p) => s + p.lag, 0);

  it('decodes, handles, writes and then commits every record', async () => {
    await bb.producer.send(
      TOPICS.episodes,
      Array.from({ length: 250 }, (_, i) => ({ key: `ep_${i}`, value: episode(i) })),
    );
    const sink = new RecordingSink();
    const r = await start(sink);
    await waitFor(async () => (await totalLag(r)) === 0, { what: 'lag 0' });
    expect(sink.written.sort()).toEqual(Array.from({ length: 250 }, (_, i) => `Episode ${i}`).sort());
    expect(r.stats).toMatchObject({ consumed: 250, written: 250, deadLettered: 0 });
    expect(sink.largest).toBeLessThanOrEqual(100);
    expect(sink.calls).toBeGreaterThanOrEqual(3);
  });

  it("writes batches of the step's own size when the step sets one", async () => {
    await bb.producer.send(
      TOPICS.episodes,
      Array.from({ length: 1000 }, (_, i) => ({ key: `ep_${i}`, value: episode(i) })),
    );
    const sink = new RecordingSink();
    runner = new ConsumerRunner(
      {
        name: 'large-batches',
        groupId: `test-${randomUUID()}`,
        inputs: [TOPICS.episodes],
        handle: (r) => ok(r.value.title),
        sink,
        maxBatchItems: 400,
      },
      bb.log,
      bb.producer,
      silentLogger(),
      { maxBatchItems: 100, maxBatchWaitMs: 50 },
    );
    await runner.start();
    await waitFor(async () => (await totalLag(runner!)) === 0, { what: 'lag 0' });
    expect(sink.written).toHaveLength(1000);
    expect(sink.largest).toBeGreaterThan(100);
    expect(sink.largest).toBeLessThanOrEqual(400);
  });

  it('dead-letters bad bytes, unknown schema ids, records of another topic and handler failures, and goes on', async () => {
    const good = bb.codec.encode(TOPICS.episodes.name, episode(1));
    const unknownId = Buffer.from(good);
    unknownId.writeUInt32BE(424242, 1);
    const foreign = bb.codec.encode(TOPICS.publishers.name, loadExample('Publisher'));
    await bb.log.produce(TOPICS.episodes.name, [
      { key: 'bad-bytes', value: Buffer.from('{"not":"avro"}') },
      { key: 'unknown-id', value: unknownId },
      { key: 'foreign', value: foreign },
      { key: 'ep_1', value: good },
    ]);
    await bb.producer.send(TOPICS.episodes, [
      { key: 'ep_2', value: episode(2, 'explode') },
      { key: 'ep_3', value: episode(3, 'ignore me') },
      { key: 'ep_4', value: episode(4, 'reject me') },
      { key: 'ep_5', value: episode(5) },
    ]);
    const sink = new RecordingSink();
    const r = await start(sink, (rec: DecodedRecord<EpisodePublished>) => {
      if (rec.value.title === 'explode') throw new Error('boom');
      if (rec.value.title === 'ignore me') return skip('not interesting');
      if (rec.value.title === 'reject me') return deadLetter('title is not allowed');
      return ok(rec.value.title);
    });
    await waitFor(async () => (await totalLag(r)) === 0, { what: 'lag 0' });
    expect(sink.written.sort()).toEqual(['Episode 1', 'Episode 5']);
    const dlq = await deadLetters();
    const byKey = new Map(dlq.map((d) => [d.key, d]));
    expect(byKey.get('bad-bytes')).toMatchObject({ step: 'decode', source_topic: TOPICS.episodes.name });
    expect(byKey.get('bad-bytes')!.reason).toMatch(/magic byte/);
    expect(byKey.get('bad-bytes')!.value).toEqual(Buffer.from('{"not":"avro"}'));
    expect(byKey.get('unknown-id')!.reason).toMatch(/unknown schema id 424242/);
    expect(byKey.get('foreign')).toMatchObject({ step: 'decode' });
    expect(byKey.get('ep_2')).toMatchObject({ step: 'title-collector', reason: 'handler threw: boom' });
    expect(byKey.get('ep_4')).toMatchObject({ step: 'title-collector', reason: 'title is not allowed' });
    expect(byKey.has('ep_3')).toBe(false);
    expect(dlq).toHaveLength(5);
    for (const d of dlq) {
      expect(d.consumer_group).toBe(r.groupId);
      expect(d.source_offset).toBeGreaterThanOrEqual(0);
    }
    expect(r.stats).toMatchObject({ consumed: 8, written: 2, skipped: 1, deadLettered: 5 });
  });

  it('retries a failing sink with backoff and commits only after the write succeeded', async () => {
    await bb.producer.send(TOPICS.episodes, [{ key: 'ep_1', value: episode(1) }]);
    const sink = new RecordingSink();
    sink.failNext = 3;
    const r = await start(sink);
    await waitFor(() => sink.written.length === 1, { what: 'written after retries' });
    await waitFor(async () => (await totalLag(r)) === 0, { what: 'committed' });
    expect(sink.calls).toBe(4);
    expect(r.stats.writeRetries).toBeGreaterThanOrEqual(3);
  });

  it('does not commit while the sink is down, so a restart re-delivers', async () => {
    await bb.producer.send(TOPICS.episodes, [{ key: 'ep_1', value: episode(1) }]);
    const sink = new RecordingSink();
    sink.failNext = Number.MAX_SAFE_INTEGER;
    const r = await start(sink, undefined, { retryBaseMs: 10, retryMaxMs: 20 });
    // More attempts than an unclassified error gets: a store that is down is never the data's fault.
    await waitFor(() => sink.calls >= 12, { what: 'attempts' });
    expect(await totalLag(r)).toBe(1);
    expect(await deadLetters()).toEqual([]);
    const groupId = r.groupId;
    await r.stop().catch(() => undefined);
    runner = undefined;
    expect((await bb.log.groupLag(groupId, [TOPICS.episodes.name])).reduce((s, p) => s + p.lag, 0)).toBe(1);
  });

  it('isolates a record the sink can never write and dead-letters only that one', async () => {
    await bb.producer.send(
      TOPICS.episodes,
      Array.from({ length: 20 }, (_, i) => ({ key: `ep_${i}`, value: episode(i) })),
    );
    const sink = new RecordingSink();
    sink.poison.add('Episode 13');
    const r = await start(sink, undefined, { maxBatchItems: 1000, maxBatchWaitMs: 200 });
    await waitFor(async () => (await totalLag(r)) === 0, { what: 'lag 0', timeoutMs: 15_000 });
    expect(sink.written).toHaveLength(19);
    expect(sink.written).not.toContain('Episode 13');
    const dlq = await deadLetters();
    expect(dlq).toHaveLength(1);
    expect(dlq[0]).toMatchObject({ key: 'ep_13', step: 'write' });
    expect(dlq[0]!.reason).toMatch(/constraint violated/);
  });

  it('dead-letters a record the sink keeps refusing with an unclassified error while its store answers', async () => {
    await bb.producer.send(
      TOPICS.episodes,
      Array.from({ length: 20 }, (_, i) => ({ key: `ep_${i}`, value: episode(i) })),
    );
    const sink = new RecordingSink();
    sink.unclassified.add('Episode 7');
    const r = await start(sink, undefined, { maxBatchItems: 1000, maxBatchWaitMs: 200 });
    await waitFor(async () => (await totalLag(r)) === 0, { what: 'lag 0', timeoutMs: 15_000 });
    expect(sink.written.sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `Episode ${i}`)
        .filter((t) => t !== 'Episode 7')
        .sort(),
    );
    const dlq = await deadLetters();
    expect(dlq).toHaveLength(1);
    expect(dlq[0]).toMatchObject({
      key: 'ep_7',
      step: 'write',
      source_topic: TOPICS.episodes.name,
      consumer_group: r.groupId,
    });
    expect(dlq[0]!.reason).toMatch(
      /^write failed: something odd about this batch \(\d+ attempts; the store answers\)$/,
    );
    expect(sink.probes).toBeGreaterThan(0);
    expect(r.stats.deadLetteredBy).toEqual({ decode: 0, handle: 0, write: 1 });
  });

  it('keeps retrying an unclassified failure while the store does not answer its probe, and writes once it does', async () => {
    await bb.producer.send(TOPICS.episodes, [{ key: 'ep_1', value: episode(1) }]);
    const sink = new RecordingSink();
    sink.unclassified.add('Episode 1');
    sink.answers = false;
    const r = await start(sink, undefined, { maxUnclassifiedAttempts: 2 });
    await waitFor(() => sink.probes >= 3, { what: 'several probes' });
    expect(await totalLag(r)).toBe(1);
    expect(await deadLetters()).toEqual([]);
    sink.answers = true;
    sink.unclassified.clear();
    await waitFor(async () => (await totalLag(r)) === 0, { what: 'written once the store is back' });
    expect(sink.written).toEqual(['Episode 1']);
    expect(await deadLetters()).toEqual([]);
  });

  it('stops at once even while a batch waits out a long backoff', async () => {
    await bb.producer.send(TOPICS.episodes, [{ key: 'ep_1', value: episode(1) }]);
    const sink = new RecordingSink();
    sink.failNext = Number.MAX_SAFE_INTEGER;
    const r = await start(sink, undefined, { retryBaseMs: 60_000, retryMaxMs: 60_000 });
    await waitFor(() => sink.calls >= 1, { what: 'a first attempt' });
    await new Promise((resolve) => setTimeout(resolve, 100)); // now in a backoff of up to a minute
    const groupId = r.groupId;
    const stopping = Date.now();
    await r.stop();
    runner = undefined;
    expect(Date.now() - stopping).toBeLessThan(1_000);
    expect((await bb.log.groupLag(groupId, [TOPICS.episodes.name])).reduce((s, p) => s + p.lag, 0)).toBe(1);
  });

  it('writes and commits what it holds when stopped', async () => {
    const sink = new RecordingSink();
    const r = await start(sink, undefined, { maxBatchItems: 10_000, maxBatchWaitMs: 60_000 });
    // Keep the consumer behind the high watermark so the runner holds records for the time bound.
    await bb.producer.send(
      TOPICS.episodes,
      Array.from({ length: 3000 }, (_, i) => ({ key: `ep_${i}`, value: episode(i) })),
    );
    await waitFor(() => r.stats.consumed >= 1, { what: 'something consumed' });
    const groupId = r.groupId;
    await r.stop();
    runner = undefined;
    const lag = (await bb.log.groupLag(groupId, [TOPICS.episodes.name])).reduce((s, p) => s + p.lag, 0);
    expect(sink.written.length).toBe(r.stats.consumed);
    expect(lag).toBe(3000 - r.stats.consumed);
  });
});
