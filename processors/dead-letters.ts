import { randomUUID } from 'node:crypto';
import type { EventLog, LogRecord, RecordPosition } from '../ingest/event-log/event-log.ts';
import type { AvroCodec } from '../ingest/schema-registry/avro-codec.ts';
import type { DeadLetter } from '../schemas/generated/index.ts';
import { allTopicSpecs, TOPICS, type TopicSpec } from '../schemas/topics.ts';

/**
 * Operator tools over the dead-letter topics the consumer runner writes (`<topic>.dlq`, one
 * `DeadLetter` record per record set aside): list them with counts, show their records, and
 * replay records back onto their source topic once the cause is fixed.
 *
 * Replays are idempotent. A replayed record carries the header `earshot.replay-of` =
 * `<dead-letter topic>:<partition>:<offset>` and is appended to the partition its original came
 * from, so the log itself records what was replayed: before replaying, the source partition is
 * read from the original's offset on, and a dead letter whose replay is already there is not
 * replayed again (after a crash mid-replay too). On a compacted topic, a dead letter whose key has
 * a newer record on that partition is not replayed either: the newer record is the truth, and
 * replaying the old one would roll it back.
 *
 * Reading uses the event log port only (a consumer in a group of its own that never commits), so
 * it works on the embedded log and on Kafka alike, and while the service runs.
 */
export const REPLAY_HEADER = 'earshot.replay-of';

export interface DeadLetterTopic {
  /** The dead-letter topic, `<source>.dlq`. */
  topic: string;
  source: string;
  /** Records it holds (retention keeps them 30 days). */
  records: number;
}

export interface ShownDeadLetter {
  /** Where the dead letter is. */
  position: RecordPosition;
  letter: DeadLetter;
  /** The original record decoded with its topic's schema, when it can be. */
  decoded?: unknown;
  /** Why the original could not be decoded. */
  undecodable?: string;
}

export interface ReplayOutcome {
  position: RecordPosition;
  source: RecordPosition;
  outcome: 'replayed' | 'already-replayed' | 'superseded' | 'would-replay';
  /** Where the replayed record is (replayed), or where the earlier replay or newer record is. */
  at?: RecordPosition;
}

/** A dead-letter topic by its name or its source topic's name. */
export function deadLetterTopic(name: string): TopicSpec {
  const specs = allTopicSpecs();
  const dlq =
    specs.find((s) => s.name === name && s.valueSchema === 'DeadLetter') ??
    specs.find((s) => s.name === `${name}.dlq` && s.valueSchema === 'DeadLetter');
  if (!dlq) {
    throw new DeadLetterError(
      `unknown topic ${name}; dead-letter topics: ${Object.values(TOPICS)
        .map((t) => t.deadLetter)
        .join(', ')}`,
    );
  }
  return dlq;
}

/** An operator request that cannot be done as asked (an unknown topic or offset). */
export class DeadLetterError extends Error {}

export async function listDeadLetterTopics(log: EventLog): Promise<DeadLetterTopic[]> {
  const infos = new Map((await log.listTopics()).map((t) => [t.name, t]));
  return Object.values(TOPICS).map((spec) => {
    const info = infos.get(spec.deadLetter);
    return {
      topic: spec.deadLetter,
      source: spec.name,
      records: info ? info.partitions.reduce((s, p) => s + (p.end - p.earliest), 0) : 0,
    };
  });
}

/**
 * Reads a topic's records from `from` (per partition; others from their earliest) up to the
 * partition ends at the time of the call, calling `onRecord` in offset order per partition.
 */
export async function readRange(
  log: EventLog,
  topic: string,
  from: Map<number, number>,
  onRecord: (record: LogRecord) => void | Promise<void>,
  options: { partitions?: number[]; batchRecords?: number } = {},
): Promise<void> {
  const info = (await log.listTopics()).find((t) => t.name === topic);
  if (!info) throw new DeadLetterError(`unknown topic ${topic}`);
  const wanted = new Set(options.partitions ?? info.partitions.map((p) => p.partition));
  const start = new Map<number, number>();
  const end = new Map<number, number>();
  const tail = new Map<number, number>();
  for (const p of info.partitions) {
    start.set(p.partition, Math.max(p.earliest, from.get(p.partition) ?? p.earliest));
    end.set(p.partition, wanted.has(p.partition) ? p.end : p.earliest);
    tail.set(p.partition, p.end);
  }
  const pending = new Set(
    info.partitions.filter((p) => start.get(p.partition)! < end.get(p.partition)!).map((p) => p.partition),
  );
  if (pending.size === 0) return;
  const consumer = log.consumer({
    groupId: `earshot.reader.${randomUUID()}`,
    topics: [topic],
    fromBeginning: true,
    maxBatchRecords: options.batchRecords ?? 200,
  });
  let failure: unknown;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const seeked = new Set<number>();
  await consumer.run({
    eachBatch: async (batch) => {
      if (failure !== undefined) return;
      // Skip ahead once: to the first offset wanted, or past a partition not wanted at all.
      const first = pending.has(batch.partition) ? start.get(batch.partition)! : tail.get(batch.partition)!;
      const last = end.get(batch.partition)!;
      if (batch.records[0]!.offset < first && !seeked.has(batch.partition)) {
        seeked.add(batch.partition);
        consumer.seek({ topic, partition: batch.partition, offset: first });
        return;
      }
      if (!pending.has(batch.partition)) return;
      try {
        for (const record of batch.records) {
          if (record.offset >= first && record.offset < last) await onRecord(record);
        }
      } catch (err) {
        failure = err;
        finish();
        return;
      }
      if (batch.records.at(-1)!.offset + 1 >= last) {
        pending.delete(batch.partition);
        if (pending.size === 0) finish();
      }
    },
  });
  try {
    await finished;
  } finally {
    await consumer.stop();
  }
  if (failure !== undefined) throw failure;
}

async function readLetters(
  log: EventLog,
  codec: AvroCodec,
  dlq: TopicSpec,
  select: (position: RecordPosition) => boolean,
): Promise<{ position: RecordPosition; letter: DeadLetter }[]> {
  const out: { position: RecordPosition; letter: DeadLetter }[] = [];
  await readRange(log, dlq.name, new Map(), async (record) => {
    const position = { topic: record.topic, partition: record.partition, offset: record.offset };
    if (!select(position)) return;
    out.push({ position, letter: await codec.decode<DeadLetter>(dlq.name, record.value) });
  });
  return out.sort(
    (a, b) => a.position.partition - b.position.partition || a.position.offset - b.position.offset,
  );
}

function selector(offsets: number[] | undefined): (p: RecordPosition) => boolean {
  if (!offsets || offsets.length === 0) return () => true;
  const set = new Set(offsets);
  return (p) => set.has(p.offset);
}

function checkFound(offsets: number[] | undefined, found: { position: RecordPosition }[], topic: string) {
  if (!offsets) return;
  const missing = offsets.filter((o) => !found.some((f) => f.position.offset === o));
  if (missing.length > 0)
    throw new DeadLetterError(`no dead letter at offset ${missing.join(', ')} of ${topic}`);
}

/** The dead letters of a topic (all, or those at `offsets`), with their originals decoded when possible. */
export async function showDeadLetters(
  log: EventLog,
  codec: AvroCodec,
  topic: string,
  options: { offsets?: number[]; limit?: number } = {},
): Promise<ShownDeadLetter[]> {
  const dlq = deadLetterTopic(topic);
  const letters = await readLetters(log, codec, dlq, selector(options.offsets));
  checkFound(options.offsets, letters, dlq.name);
  const shown: ShownDeadLetter[] = [];
  for (const { position, letter } of letters.slice(0, options.limit ?? letters.length)) {
    try {
      shown.push({ position, letter, decoded: await codec.decode(letter.source_topic, letter.value) });
    } catch (err) {
      shown.push({ position, letter, undecodable: (err as Error).message });
    }
  }
  return shown;
}

export const replayId = (p: RecordPosition) => `${p.topic}:${p.partition}:${p.offset}`;

/**
 * Appends the selected dead letters' original records (key, bytes and headers unchanged, plus
 * REPLAY_HEADER) to the partition they came from, skipping those already replayed and, on a
 * compacted topic, those whose key has a newer record. `offsets` selects dead letters by offset
 * (the dead-letter topics have one partition); none selects every one.
 */
export async function replayDeadLetters(
  log: EventLog,
  codec: AvroCodec,
  topic: string,
  options: { offsets?: number[]; dryRun?: boolean; onProgress?: (message: string) => void } = {},
): Promise<ReplayOutcome[]> {
  const dlq = deadLetterTopic(topic);
  const letters = await readLetters(log, codec, dlq, selector(options.offsets));
  checkFound(options.offsets, letters, dlq.name);
  const source = allTopicSpecs().find((s) => s.deadLetter === dlq.name && s.name !== dlq.name)!;
  const compacted = source.retention.policy === 'compact';
  const outcomes: ReplayOutcome[] = [];
  // One pass over each source partition, from the earliest original selected on it.
  const byPartition = new Map<number, { position: RecordPosition; letter: DeadLetter }[]>();
  for (const l of letters) {
    const list = byPartition.get(l.letter.source_partition) ?? [];
    list.push(l);
    byPartition.set(l.letter.source_partition, list);
  }
  for (const [partition, list] of byPartition) {
    options.onProgress?.(
      `${source.name} partition ${partition}: looking for earlier replays of ${list.length} record(s)`,
    );
    const replayed = new Map<string, RecordPosition>();
    const newest = new Map<string | null, number>();
    const from = Math.min(...list.map((l) => l.letter.source_offset)) + 1;
    await readRange(
      log,
      source.name,
      new Map([[partition, from]]),
      (record) => {
        const of = record.headers[REPLAY_HEADER];
        const at = { topic: record.topic, partition: record.partition, offset: record.offset };
        if (of) replayed.set(of, at);
        else newest.set(record.key, record.offset);
      },
      { partitions: [partition] },
    );
    const fresh: { position: RecordPosition; letter: DeadLetter }[] = [];
    for (const l of list) {
      const id = replayId(l.position);
      const src = { topic: source.name, partition, offset: l.letter.source_offset };
      const earlier = replayed.get(id);
      const newer = newest.get(l.letter.key);
      if (earlier)
        outcomes.push({ position: l.position, source: src, outcome: 'already-replayed', at: earlier });
      else if (compacted && newer !== undefined && newer > l.letter.source_offset) {
        outcomes.push({
          position: l.position,
          source: src,
          outcome: 'superseded',
          at: { topic: source.name, partition, offset: newer },
        });
      } else fresh.push(l);
    }
    if (options.dryRun) {
      for (const l of fresh)
        outcomes.push({
          position: l.position,
          source: { topic: source.name, partition, offset: l.letter.source_offset },
          outcome: 'would-replay',
        });
      continue;
    }
    for (let i = 0; i < fresh.length; i += 100) {
      const chunk = fresh.slice(i, i + 100);
      const positions = await log.produce(
        source.name,
        chunk.map((l) => ({
          key: l.letter.key,
          value: l.letter.value,
          headers: { ...l.letter.headers, [REPLAY_HEADER]: replayId(l.position) },
          partition,
        })),
      );
      chunk.forEach((l, j) => {
        outcomes.push({
          position: l.position,
          source: { topic: source.name, partition, offset: l.letter.source_offset },
          outcome: 'replayed',
          at: positions[j],
        });
      });
      options.onProgress?.(
        `${source.name} partition ${partition}: replayed ${Math.min(i + 100, fresh.length)} of ${fresh.length}`,
      );
    }
  }
  return outcomes.sort((a, b) => a.position.offset - b.position.offset);
}
