import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Consumer,
  type EventLog,
  type LogRecord,
  RecordTooLargeError,
  UnknownTopicError,
} from '../../ingest/event-log/event-log.ts';
import { rangesSince, readRanges } from '../../ingest/event-log/read-ranges.ts';
import { waitFor } from '../support/wait-for.ts';

export interface EventLogFixture {
  log: EventLog;
  /** A second, independent client of the same log (another process, in production). */
  reopen(): Promise<EventLog>;
  cleanup(): Promise<void>;
}

const FOREVER = { policy: 'delete', ms: -1 } as const;

/** The behaviour every event log adapter must have. */
export function eventLogContract(adapter: string, setup: () => Promise<EventLogFixture>, timeoutMs = 15_000) {
  describe(`event log contract: ${adapter}`, () => {
    let fx: EventLogFixture;
    let log: EventLog;
    const running: Consumer[] = [];

    beforeAll(async () => {
      fx = await setup();
      log = fx.log;
    });
    afterAll(async () => {
      await Promise.all(running.map((c) => c.stop()));
      await fx?.cleanup();
    });

    async function freshTopic(partitions = 3): Promise<string> {
      const name = `contract.${randomUUID().slice(0, 8)}`;
      await log.createTopics([{ name, partitions, retention: FOREVER }]);
      return name;
    }

    function collect(
      consumer: Consumer,
      sink: LogRecord[],
      options: { commit?: boolean; concurrency?: number } = {},
    ) {
      running.push(consumer);
      return consumer.run({
        partitionsConsumedConcurrently: options.concurrency ?? 1,
        eachBatch: async (batch) => {
          sink.push(...batch.records);
          if (options.commit !== false) {
            await consumer.commit([
              { topic: batch.topic, partition: batch.partition, offset: batch.records.at(-1)!.offset + 1 },
            ]);
          }
        },
      });
    }

    async function stop(consumer: Consumer) {
      await consumer.stop();
      running.splice(running.indexOf(consumer), 1);
    }

    const rec = (key: string | null, value: string, headers?: Record<string, string>) => ({
      key,
      value: Buffer.from(value),
      headers,
    });

    it('creates topics idempotently and lists them with their partitions', async () => {
      const name = await freshTopic(4);
      await log.createTopics([{ name, partitions: 4, retention: FOREVER }]);
      const info = (await log.listTopics()).find((t) => t.name === name);
      expect(info?.partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3]);
      expect(info?.partitions.every((p) => p.end === 0)).toBe(true);
    });

    it('creates the same new topics from several callers at once (processes starting together)', async () => {
      const names = Array.from({ length: 4 }, () => `contract.${randomUUID().slice(0, 8)}`);
      const specs = names.map((name) => ({ name, partitions: 2, retention: FOREVER }));
      await Promise.all(Array.from({ length: 4 }, () => log.createTopics(specs)));
      const listed = await log.listTopics();
      for (const name of names) {
        expect(listed.find((t) => t.name === name)?.partitions.map((p) => p.partition)).toEqual([0, 1]);
      }
      await log.produce(names[0]!, [{ key: 'k', value: Buffer.from('v') }]);
    });

    it('rejects producing to an unknown topic', async () => {
      await expect(log.produce(`missing.${randomUUID()}`, [rec('k', 'v')])).rejects.toBeInstanceOf(
        UnknownTopicError,
      );
    });

    it('rejects a record larger than the topic allows and appends nothing', async () => {
      const name = `contract.${randomUUID().slice(0, 8)}`;
      await log.createTopics([{ name, partitions: 1, retention: FOREVER, maxMessageBytes: 1024 }]);
      await expect(
        log.produce(name, [rec('ok', 'small'), rec('k', 'x'.repeat(4096))]),
      ).rejects.toBeInstanceOf(RecordTooLargeError);
      const info = (await log.listTopics()).find((t) => t.name === name);
      expect(info?.partitions[0]?.end).toBe(0);
    });

    it('assigns consecutive offsets per partition and keeps each key on one partition, in order', async () => {
      const topic = await freshTopic(3);
      const keys = ['ep_a', 'ep_b', 'ep_c', 'ep_d', 'ep_e'];
      const batch = Array.from({ length: 50 }, (_, i) =>
        rec(keys[i % keys.length]!, `${keys[i % keys.length]}:${i}`),
      );
      const positions = await log.produce(topic, batch);
      expect(positions).toHaveLength(50);
      const partitionOfKey = new Map<string, number>();
      positions.forEach((p, i) => {
        const key = batch[i]!.key!;
        expect(partitionOfKey.get(key) ?? p.partition).toBe(p.partition);
        partitionOfKey.set(key, p.partition);
      });
      for (const partition of new Set(positions.map((p) => p.partition))) {
        const offsets = positions.filter((p) => p.partition === partition).map((p) => p.offset);
        expect(offsets).toEqual(offsets.map((_, i) => i));
      }
      const more = await log.produce(topic, [rec('ep_a', 'again')]);
      const previous = positions.filter((p) => p.partition === partitionOfKey.get('ep_a')).length;
      expect(more[0]).toMatchObject({ partition: partitionOfKey.get('ep_a'), offset: previous });
    });

    it('delivers every record once to a group with keys, values, headers and timestamps intact', async () => {
      const topic = await freshTopic(3);
      const before = Date.now() - 1000;
      const sent = Array.from({ length: 30 }, (_, i) =>
        rec(`k${i % 7}`, `v${i}`, { source: 'contract', n: String(i) }),
      );
      sent.push({ key: null, value: Buffer.from('keyless'), headers: undefined });
      await log.produce(topic, sent);
      const got: LogRecord[] = [];
      const consumer = log.consumer({ groupId: `g-${randomUUID()}`, topics: [topic] });
      await collect(consumer, got);
      await waitFor(() => got.length >= sent.length, { timeoutMs, what: 'all records consumed' });
      await stop(consumer);
      expect(got).toHaveLength(sent.length);
      const byValue = new Map(got.map((r) => [r.value!.toString(), r]));
      for (const s of sent) {
        const r = byValue.get(s.value.toString());
        expect(r).toBeDefined();
        expect(r!.key).toBe(s.key);
        expect(r!.headers).toEqual(s.headers ?? {});
        expect(r!.topic).toBe(topic);
        expect(r!.timestamp).toBeGreaterThan(before);
      }
      for (const key of ['k0', 'k3']) {
        const values = got.filter((r) => r.key === key).map((r) => Number(r.value!.toString().slice(1)));
        expect(values).toEqual([...values].sort((a, b) => a - b));
      }
    });

    it('resumes a group after its committed offsets and starts a new group at the end when asked', async () => {
      const topic = await freshTopic(2);
      const groupId = `g-${randomUUID()}`;
      await log.produce(
        topic,
        Array.from({ length: 10 }, (_, i) => rec(`k${i}`, `first-${i}`)),
      );
      const first: LogRecord[] = [];
      const c1 = log.consumer({ groupId, topics: [topic] });
      await collect(c1, first);
      await waitFor(() => first.length >= 10, { timeoutMs, what: 'first pass' });
      await stop(c1);

      await log.produce(
        topic,
        Array.from({ length: 5 }, (_, i) => rec(`k${i}`, `second-${i}`)),
      );
      const second: LogRecord[] = [];
      const c2 = log.consumer({ groupId, topics: [topic] });
      await collect(c2, second);
      await waitFor(() => second.length >= 5, { timeoutMs, what: 'second pass' });
      await sleep(300);
      await stop(c2);
      expect(second.map((r) => r.value!.toString()).sort()).toEqual(
        [0, 1, 2, 3, 4].map((i) => `second-${i}`).sort(),
      );

      const latest: LogRecord[] = [];
      const c3 = log.consumer({ groupId: `g-${randomUUID()}`, topics: [topic], fromBeginning: false });
      await collect(c3, latest);
      await waitFor(async () => c3.assignment().length === 2, { timeoutMs, what: 'assignment' });
      await sleep(500);
      await log.produce(topic, [rec('k1', 'after-start')]);
      await waitFor(() => latest.length >= 1, { timeoutMs, what: 'new record' });
      await stop(c3);
      expect(latest.map((r) => r.value!.toString())).toEqual(['after-start']);
    });

    it('redelivers uncommitted records to the next member of the group', async () => {
      const topic = await freshTopic(1);
      const groupId = `g-${randomUUID()}`;
      await log.produce(
        topic,
        Array.from({ length: 6 }, (_, i) => rec('k', `r${i}`)),
      );
      const seen: LogRecord[] = [];
      const c1 = log.consumer({ groupId, topics: [topic] });
      await collect(c1, seen, { commit: false });
      await waitFor(() => seen.length >= 6, { timeoutMs, what: 'first read' });
      await c1.commit([{ topic, partition: 0, offset: 3 }]);
      await stop(c1);
      const again: LogRecord[] = [];
      const c2 = log.consumer({ groupId, topics: [topic] });
      await collect(c2, again);
      await waitFor(() => again.length >= 3, { timeoutMs, what: 'redelivery' });
      await stop(c2);
      expect(again.map((r) => r.offset)).toEqual([3, 4, 5]);
    });

    it('retries a batch whose handler failed', async () => {
      const topic = await freshTopic(1);
      await log.produce(topic, [rec('k', 'a'), rec('k', 'b')]);
      let failures = 0;
      const handled: string[] = [];
      const consumer = log.consumer({ groupId: `g-${randomUUID()}`, topics: [topic] });
      running.push(consumer);
      await consumer.run({
        eachBatch: async (batch) => {
          if (failures < 2) {
            failures++;
            throw new Error('sink unavailable');
          }
          handled.push(...batch.records.map((r) => r.value!.toString()));
          await consumer.commit([{ topic, partition: 0, offset: batch.records.at(-1)!.offset + 1 }]);
        },
      });
      await waitFor(() => handled.length >= 2, { timeoutMs: timeoutMs * 2, what: 'retried batch' });
      await stop(consumer);
      expect(failures).toBe(2);
      expect(handled).toEqual(['a', 'b']);
    });

    it('splits partitions between the members of a group and loses nothing', async () => {
      const topic = await freshTopic(4);
      const groupId = `g-${randomUUID()}`;
      const got: LogRecord[] = [];
      const a = log.consumer({ groupId, topics: [topic] });
      const b = log.consumer({ groupId, topics: [topic] });
      await Promise.all([collect(a, got), collect(b, got)]);
      await waitFor(
        () => a.assignment().length + b.assignment().length === 4 && a.assignment().length === 2,
        {
          timeoutMs: timeoutMs * 2,
          what: 'balanced assignment',
        },
      );
      const assignedA = new Set(a.assignment().map((p) => p.partition));
      expect(b.assignment().some((p) => assignedA.has(p.partition))).toBe(false);
      await log.produce(
        topic,
        Array.from({ length: 40 }, (_, i) => rec(`key-${i}`, `m${i}`)),
      );
      await waitFor(() => new Set(got.map((r) => r.value!.toString())).size >= 40, {
        timeoutMs,
        what: 'all 40',
      });
      await Promise.all([stop(a), stop(b)]);
      expect(new Set(got.map((r) => r.value!.toString())).size).toBe(40);
    });

    it('gives one member partition p of every topic the group reads (co-partitioned)', async () => {
      // Odd partition counts: dealing topic-partitions out one by one would split partition p.
      const topics = [await freshTopic(3), await freshTopic(3)];
      const groupId = `g-${randomUUID()}`;
      const a = log.consumer({ groupId, topics });
      const b = log.consumer({ groupId, topics });
      await Promise.all([collect(a, []), collect(b, [])]);
      await waitFor(
        () =>
          a.assignment().length + b.assignment().length === 6 &&
          a.assignment().length > 0 &&
          b.assignment().length > 0,
        { timeoutMs: timeoutMs * 2, what: 'both members assigned' },
      );
      for (const member of [a, b]) {
        const [first, second] = topics.map((t) =>
          member
            .assignment()
            .filter((p) => p.topic === t)
            .map((p) => p.partition)
            .sort(),
        );
        expect(first!.length).toBeGreaterThan(0);
        expect(second).toEqual(first);
      }
      await Promise.all([stop(a), stop(b)]);
    });

    it('reports lag, sets committed offsets for replay, and finds offsets by time', async () => {
      const topic = await freshTopic(2);
      const groupId = `g-${randomUUID()}`;
      await log.produce(
        topic,
        Array.from({ length: 8 }, (_, i) => rec(`k${i}`, `early-${i}`)),
      );
      await sleep(50);
      const boundary = Date.now();
      await sleep(50);
      const late = await log.produce(
        topic,
        Array.from({ length: 4 }, (_, i) => rec(`k${i}`, `late-${i}`)),
      );

      const lag = await log.groupLag(groupId, [topic]);
      expect(lag.reduce((s, p) => s + p.lag, 0)).toBe(12);
      expect(lag.every((p) => p.committed === -1)).toBe(true);

      const byTime = await log.offsetsForTime(topic, boundary);
      for (const { partition, offset } of byTime) {
        const firstLate = late.filter((p) => p.partition === partition).map((p) => p.offset);
        const end = (await log.listTopics()).find((t) => t.name === topic)!.partitions[partition]!.end;
        expect(offset).toBe(firstLate.length > 0 ? Math.min(...firstLate) : end);
      }

      await log.setCommittedOffsets(groupId, topic, byTime);
      expect(await log.committedOffsets(groupId, topic)).toEqual(byTime);
      const lagAfter = await log.groupLag(groupId, [topic]);
      expect(lagAfter.reduce((s, p) => s + p.lag, 0)).toBe(4);

      const replayed: LogRecord[] = [];
      const consumer = log.consumer({ groupId, topics: [topic] });
      await collect(consumer, replayed);
      await waitFor(() => replayed.length >= 4, { timeoutMs, what: 'replay from time' });
      await sleep(200);
      await stop(consumer);
      expect(replayed.map((r) => r.value!.toString()).sort()).toEqual([
        'late-0',
        'late-1',
        'late-2',
        'late-3',
      ]);
      expect((await log.groupLag(groupId, [topic])).reduce((s, p) => s + p.lag, 0)).toBe(0);
    });

    it('lets a consumer seek within a partition it holds', async () => {
      const topic = await freshTopic(1);
      await log.produce(
        topic,
        Array.from({ length: 5 }, (_, i) => rec('k', `s${i}`)),
      );
      const got: LogRecord[] = [];
      const consumer = log.consumer({ groupId: `g-${randomUUID()}`, topics: [topic] });
      await collect(consumer, got);
      await waitFor(() => got.length >= 5, { timeoutMs, what: 'first read' });
      consumer.seek({ topic, partition: 0, offset: 2 });
      await waitFor(() => got.length >= 8, { timeoutMs, what: 'read after seek' });
      await stop(consumer);
      expect(got.slice(5).map((r) => r.offset)).toEqual([2, 3, 4]);
    });

    it('reads back what was appended since a time, and only that, through a group of its own', async () => {
      // How an interrupted HTTP ingest batch is resolved from the log (ingest/event-log/read-ranges.ts).
      const topic = await freshTopic(3);
      await log.produce(
        topic,
        Array.from({ length: 9 }, (_, i) => rec(`k${i}`, `before-${i}`)),
      );
      await sleep(50);
      const since = Date.now();
      await sleep(50);
      await log.produce(
        topic,
        Array.from({ length: 5 }, (_, i) => rec(`k${i}`, `after-${i}`, { batch: 'b1' })),
      );
      const ranges = await rangesSince(log, [topic], since);
      expect(ranges.reduce((n, r) => n + r.to - r.from, 0)).toBe(5);
      const got: LogRecord[] = [];
      await readRanges(log, `g-${randomUUID()}`, ranges, (r) => got.push(r), { timeoutMs });
      expect(got.map((r) => r.value!.toString()).sort()).toEqual(
        Array.from({ length: 5 }, (_, i) => `after-${i}`),
      );
      expect(got.every((r) => r.headers.batch === 'b1')).toBe(true);
      // Nothing appended since: nothing to read, and no consumer is started.
      const none = await rangesSince(log, [topic], Date.now() + 1000);
      expect(none.every((r) => r.to === r.from)).toBe(true);
      await readRanges(log, `g-${randomUUID()}`, none, () => expect.unreachable());
    });

    it('is visible to another client of the same log', async () => {
      const topic = await freshTopic(1);
      await log.produce(topic, [rec('k', 'shared')]);
      const other = await fx.reopen();
      try {
        const info = (await other.listTopics()).find((t) => t.name === topic);
        expect(info?.partitions[0]?.end).toBe(1);
        await other.produce(topic, [rec('k', 'from-other')]);
      } finally {
        await other.close();
      }
      const got: LogRecord[] = [];
      const consumer = log.consumer({ groupId: `g-${randomUUID()}`, topics: [topic] });
      await collect(consumer, got);
      await waitFor(() => got.length >= 2, { timeoutMs, what: 'both records' });
      await stop(consumer);
      expect(got.map((r) => r.value!.toString())).toEqual(['shared', 'from-other']);
    });
  });
}
