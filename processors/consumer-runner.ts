import type { Logger } from 'pino';
import type {
  Consumer,
  EventLog,
  LogRecord,
  PartitionLag,
  RecordBatch,
} from '../ingest/event-log/event-log.ts';
import { RecordTooLargeError } from '../ingest/event-log/event-log.ts';
import type { EventProducer } from '../ingest/event-producer.ts';
import { DecodeError, EncodeError } from '../ingest/schema-registry/avro-codec.ts';
import { type ErrorKind, errorKind, PermanentWriteError } from '../projections/store-errors.ts';
import type { DeadLetter } from '../schemas/generated/index.ts';
import { type TopicSpec, topicByName } from '../schemas/topics.ts';
import type { StepResult } from './step-result.ts';

export interface DecodedRecord<V> {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  headers: Record<string, string>;
  timestamp: number;
  value: V;
}

/** Where a step's results go. Writes must be idempotent: after a crash a batch is written again. */
export interface Sink<T> {
  write(items: T[]): Promise<void>;
  /**
   * Optional: a cheap operation that succeeds while the store the sink writes to answers (a
   * `SELECT 1`). When a write keeps failing with an error nobody classified, the runner asks it:
   * a store that answers while refusing the same batch is refusing the data (the records at fault
   * are isolated and dead-lettered); a store that does not answer is down (retried with backoff).
   * Without a probe the store is taken to answer.
   */
  probe?(): Promise<void>;
}

export interface ProcessorDefinition<In, Out> {
  /** Step name: appears in logs, metrics and dead-letter records. */
  name: string;
  groupId: string;
  inputs: TopicSpec[];
  /** Pure: the same record always gives the same result. Throwing counts as a dead letter. */
  handle(record: DecodedRecord<In>): StepResult<Out>;
  sink: Sink<Out>;
  /**
   * Most items this step writes at once, when its store prefers another size than the runner's
   * (ClickHouse: fewer, larger inserts). Unset: the runner's `maxBatchItems`.
   */
  maxBatchItems?: number;
  /** Optional: releases what the step holds (state stores, timers), after the runner stopped. */
  close?(): Promise<void>;
}

/**
 * Thrown by a sink when the data itself cannot be written (a constraint, a type error), as
 * opposed to the store being unavailable; the store adapters' `StoreDataError` is one. Defined
 * with the other store errors (projections/store-errors.ts).
 */
export { PermanentWriteError };

export interface RunnerOptions {
  maxBatchItems: number;
  maxBatchWaitMs: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /**
   * Attempts of one batch failing with an unclassified error (neither permanent nor transient)
   * before the runner asks the sink's probe and, the store answering, isolates the records at
   * fault (default 5). Halves of a split batch get 2 each.
   */
  maxUnclassifiedAttempts?: number;
  partitionsConsumedConcurrently?: number;
  fromBeginning?: boolean;
}

/** Where in the step a record was dead-lettered. */
export type DeadLetterStage = 'decode' | 'handle' | 'write';

export interface RunnerStats {
  consumed: number;
  written: number;
  skipped: number;
  deadLettered: number;
  /** Dead letters by where they were set aside. */
  deadLetteredBy: Record<DeadLetterStage, number>;
  writeRetries: number;
  batches: number;
}

type Outcome<Out> =
  | Exclude<StepResult<Out>, { kind: 'dead-letter' }>
  | { kind: 'dead-letter'; step: string; stage: DeadLetterStage; reason: string };

interface Pending<Out> {
  item: Out;
  source: LogRecord;
}

interface DeadLetterEntry {
  source: LogRecord;
  /** The `step` of the dead-letter record: `decode`, the step's name (handler) or `write`. */
  step: string;
  stage: DeadLetterStage;
  reason: string;
}

/** A write the sink refuses because of the data: the batch is split to isolate the records. */
class DataFault extends Error {}

const DEFAULT_UNCLASSIFIED_ATTEMPTS = 5;
const SPLIT_UNCLASSIFIED_ATTEMPTS = 2;

/** What a sink's error means for the batch: the runner's own errors first, then the stores'. */
function writeErrorKind(err: unknown): ErrorKind {
  // A step's output that its topic's schema or size refuses will never be produced.
  if (err instanceof EncodeError || err instanceof RecordTooLargeError) return 'permanent';
  return errorKind(err);
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const { store, code } = err as { store?: unknown; code?: unknown };
  const where = [store, code].filter((x) => typeof x === 'string' || typeof x === 'number').join(' ');
  return where ? `${err.message} (${where})` : err.message;
}

/**
 * Runs one processor: decode → handle (pure) → batch (size and time bounds) → write → commit.
 * Offsets are committed only after the batch and its dead letters were written, so a crash
 * re-delivers, and never loses, what was not yet written.
 *
 * A failed write is treated by what its error says (projections/store-errors.ts):
 * - transient (connection lost, timeout): retried with exponential backoff and jitter for as long
 *   as it takes — the topic waits, nothing is dropped;
 * - permanent (the store refuses the data): the batch is split until the records at fault are
 *   isolated, and only those are dead-lettered;
 * - unclassified: retried a bounded number of times; if it still fails while the sink's store
 *   answers its probe, it is the data's fault and is isolated as above, else it is transient.
 * So one poison record cannot stall a topic, and a store that is down loses nothing.
 */
export class ConsumerRunner<In, Out> {
  readonly stats: RunnerStats = {
    consumed: 0,
    written: 0,
    skipped: 0,
    deadLettered: 0,
    deadLetteredBy: { decode: 0, handle: 0, write: 0 },
    writeRetries: 0,
    batches: 0,
  };
  private consumer?: Consumer;
  private buffer: Pending<Out>[] = [];
  private deadLetters: DeadLetterEntry[] = [];
  /** Wakes a retry that waits out its backoff, when the runner is told to stop. */
  private wakeRetry?: () => void;
  private positions = new Map<string, { topic: string; partition: number; offset: number }>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly opts: Required<RunnerOptions>;

  constructor(
    private readonly def: ProcessorDefinition<In, Out>,
    private readonly log: EventLog,
    private readonly producer: EventProducer,
    private readonly logger: Logger,
    options: RunnerOptions,
  ) {
    this.opts = {
      retryBaseMs: 100,
      retryMaxMs: 30_000,
      maxUnclassifiedAttempts: DEFAULT_UNCLASSIFIED_ATTEMPTS,
      partitionsConsumedConcurrently: 3,
      fromBeginning: true,
      ...options,
    };
  }

  get name(): string {
    return this.def.name;
  }

  get groupId(): string {
    return this.def.groupId;
  }

  /** The step's own batch bound, else the runner's. */
  private get maxBatchItems(): number {
    return this.def.maxBatchItems ?? this.opts.maxBatchItems;
  }

  get topics(): string[] {
    return this.def.inputs.map((t) => t.name);
  }

  async start(): Promise<void> {
    this.consumer = this.log.consumer({
      groupId: this.def.groupId,
      topics: this.topics,
      fromBeginning: this.opts.fromBeginning,
      maxBatchRecords: this.maxBatchItems,
    });
    await this.consumer.run({
      partitionsConsumedConcurrently: this.opts.partitionsConsumedConcurrently,
      eachBatch: (batch) => this.onBatch(batch),
    });
    this.logger.info(
      { step: this.def.name, group: this.def.groupId, topics: this.topics },
      'consumer started',
    );
  }

  private async onBatch(batch: RecordBatch): Promise<void> {
    for (const record of batch.records) {
      this.stats.consumed++;
      const result = await this.process(record);
      if (result.kind === 'ok') {
        for (const item of result.items) this.buffer.push({ item, source: record });
      } else if (result.kind === 'skip') {
        this.stats.skipped++;
      } else {
        this.deadLetters.push({
          source: record,
          step: result.step,
          stage: result.stage,
          reason: result.reason,
        });
      }
      this.positions.set(`${record.topic}/${record.partition}`, {
        topic: record.topic,
        partition: record.partition,
        offset: record.offset + 1,
      });
    }
    const caughtUp = batch.records.at(-1)!.offset + 1 >= batch.highWatermark;
    if (this.buffer.length >= this.maxBatchItems) {
      await this.flush(batch.heartbeat);
    } else if (caughtUp) {
      // Nothing more is waiting: write now rather than holding records for the time bound.
      this.flushInBackground();
    } else {
      this.timer ??= setTimeout(() => this.flushInBackground(), this.opts.maxBatchWaitMs);
    }
  }

  /** A flush nobody awaits: what it could not write stays uncommitted and is delivered again. */
  private flushInBackground(): void {
    this.flush().catch((err: unknown) =>
      this.logger.warn(
        { step: this.def.name, err },
        'batch not written; its records will be delivered again',
      ),
    );
  }

  private async process(record: LogRecord): Promise<Outcome<Out>> {
    let value: In;
    try {
      value = await this.producer.codec.decode<In>(record.topic, record.value);
    } catch (err) {
      if (err instanceof DecodeError)
        return { kind: 'dead-letter', step: 'decode', stage: 'decode', reason: err.message };
      throw err;
    }
    try {
      const result = this.def.handle({ ...record, value });
      if (result.kind === 'dead-letter') return { ...result, step: this.def.name, stage: 'handle' };
      return result;
    } catch (err) {
      return {
        kind: 'dead-letter',
        step: this.def.name,
        stage: 'handle',
        reason: `handler threw: ${(err as Error).message}`,
      };
    }
  }

  /**
   * Writes everything buffered so far, then commits the offsets it covered. Serialised: each
   * flush runs after the one before it, whether that one succeeded or not.
   */
  flush(heartbeat?: () => Promise<void>): Promise<void> {
    const run = this.flushing.catch(() => undefined).then(() => this.flushNow(heartbeat));
    this.flushing = run;
    return run;
  }

  private async flushNow(heartbeat?: () => Promise<void>): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const items = this.buffer;
    const deadLetters = this.deadLetters;
    const positions = [...this.positions.values()];
    if (items.length === 0 && deadLetters.length === 0 && positions.length === 0) return;
    this.buffer = [];
    this.deadLetters = [];
    this.positions = new Map();
    const failed: (Pending<Out> & { reason: string })[] = [];
    for (let i = 0; i < items.length; i += this.maxBatchItems) {
      failed.push(...(await this.writeIsolating(items.slice(i, i + this.maxBatchItems), heartbeat)));
    }
    // A record whose several items were refused is set aside once.
    const refused = new Map<LogRecord, string>();
    for (const f of failed) if (!refused.has(f.source)) refused.set(f.source, f.reason);
    for (const [source, reason] of refused)
      deadLetters.push({ source, step: 'write', stage: 'write', reason });
    if (deadLetters.length > 0) await this.retrying(() => this.writeDeadLetters(deadLetters), heartbeat);
    this.stats.batches++;
    this.stats.written += items.length - failed.length;
    this.stats.deadLettered += deadLetters.length;
    for (const d of deadLetters) this.stats.deadLetteredBy[d.stage]++;
    await this.retrying(() => this.consumer!.commit(positions), heartbeat);
    for (const d of deadLetters) {
      this.logger.warn(
        {
          step: this.def.name,
          stage: d.stage,
          topic: d.source.topic,
          partition: d.source.partition,
          offset: d.source.offset,
          reason: d.reason,
        },
        'record dead-lettered',
      );
    }
  }

  /**
   * Writes items; returns those the sink refuses because of the data, isolated one by one by
   * splitting the batch in halves (the other records of a refused batch are written).
   */
  private async writeIsolating(
    items: Pending<Out>[],
    heartbeat?: () => Promise<void>,
    split = false,
  ): Promise<(Pending<Out> & { reason: string })[]> {
    if (items.length === 0) return [];
    try {
      const attempts = split
        ? Math.min(SPLIT_UNCLASSIFIED_ATTEMPTS, this.opts.maxUnclassifiedAttempts)
        : this.opts.maxUnclassifiedAttempts;
      await this.writeWithRetries(items, attempts, heartbeat);
      return [];
    } catch (err) {
      if (!(err instanceof DataFault)) throw err;
      if (items.length === 1) return [{ ...items[0]!, reason: `write failed: ${err.message}` }];
      const mid = Math.ceil(items.length / 2);
      return [
        ...(await this.writeIsolating(items.slice(0, mid), heartbeat, true)),
        ...(await this.writeIsolating(items.slice(mid), heartbeat, true)),
      ];
    }
  }

  /**
   * One batch, retried as its errors say: transient ones with backoff until they pass (or the
   * runner stops), unclassified ones `unclassifiedAttempts` times; a permanent error, or an
   * unclassified one that persists while the store answers the sink's probe, is a DataFault.
   */
  private async writeWithRetries(
    items: Pending<Out>[],
    unclassifiedAttempts: number,
    heartbeat?: () => Promise<void>,
  ): Promise<void> {
    let unclassified = 0;
    for (let attempt = 1; ; attempt++) {
      let kind: ErrorKind;
      try {
        await this.def.sink.write(items.map((p) => p.item));
        return;
      } catch (err) {
        kind = writeErrorKind(err);
        if (kind === 'permanent') throw new DataFault(describe(err));
        if (this.stopped && attempt >= 3) throw err;
        if (kind === 'unknown' && ++unclassified >= unclassifiedAttempts) {
          if (await this.storeAnswers())
            throw new DataFault(`${describe(err)} (${unclassified} attempts; the store answers)`);
          unclassified = 0; // the store is down: this is an outage, not the data
        }
        this.stats.writeRetries++;
        const delay = this.backoff(attempt);
        this.logger.warn(
          { step: this.def.name, attempt, kind, items: items.length, delayMs: Math.round(delay), err },
          'write failed; retrying',
        );
        await this.pause(delay);
        await heartbeat?.().catch(() => undefined);
      }
    }
  }

  private async storeAnswers(): Promise<boolean> {
    if (!this.def.sink.probe) return true;
    try {
      await this.def.sink.probe();
      return true;
    } catch {
      return false;
    }
  }

  private backoff(attempt: number): number {
    return Math.random() * Math.min(this.opts.retryMaxMs, this.opts.retryBaseMs * 2 ** (attempt - 1));
  }

  /** Waits out a backoff; returns at once when the runner is stopping (it then gives up soon). */
  private pause(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.wakeRetry === done) self.wakeRetry = undefined;
        resolve();
      }
      this.wakeRetry = done;
    });
  }

  private async writeDeadLetters(entries: DeadLetterEntry[]): Promise<void> {
    const byTopic = new Map<TopicSpec, { key: string | null; value: DeadLetter }[]>();
    const now = Date.now();
    for (const { source, step, reason } of entries) {
      const spec = topicByName(source.topic);
      const dlq = topicByName(spec?.deadLetter ?? `${source.topic}.dlq`);
      if (!dlq) throw new Error(`no dead-letter topic declared for ${source.topic}`);
      const list = byTopic.get(dlq) ?? [];
      list.push({
        key: source.key,
        value: {
          source_topic: source.topic,
          source_partition: source.partition,
          source_offset: source.offset,
          source_timestamp: source.timestamp,
          key: source.key,
          value: source.value,
          headers: source.headers,
          step,
          consumer_group: this.def.groupId,
          reason,
          failed_at: now,
        },
      });
      byTopic.set(dlq, list);
    }
    for (const [dlq, events] of byTopic) await this.producer.send(dlq, events);
  }

  /**
   * Retries an operation on the event log (dead letters, commits) with exponential backoff and
   * full jitter until it passes; while stopping, gives up after a few attempts (what was not
   * committed is delivered again).
   */
  private async retrying<T>(op: () => Promise<T>, heartbeat?: () => Promise<void>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await op();
      } catch (err) {
        if (this.stopped && attempt >= 3) throw err;
        this.stats.writeRetries++;
        const delay = this.backoff(attempt);
        this.logger.warn(
          { step: this.def.name, attempt, delayMs: Math.round(delay), err },
          'event log write failed; retrying',
        );
        await this.pause(delay);
        await heartbeat?.().catch(() => undefined);
      }
    }
  }

  lag(): Promise<PartitionLag[]> {
    return this.log.groupLag(this.def.groupId, this.topics);
  }

  /**
   * Stops consuming, writes and commits what was handed over, leaves the group. A batch waiting
   * out a backoff is woken and given a last few attempts, so stopping never waits behind a store
   * that is down: what could not be written stays uncommitted and is delivered again.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.wakeRetry?.();
    try {
      await this.consumer?.stop(() => this.flush());
    } catch (err) {
      this.logger.error(
        { step: this.def.name, err, pending: this.buffer.length },
        'could not write before stopping; uncommitted records will be delivered again',
      );
    }
    await this.def
      .close?.()
      .catch((err: unknown) => this.logger.error({ step: this.def.name, err }, 'close failed'));
    this.logger.info({ step: this.def.name, ...this.stats }, 'consumer stopped');
  }
}
