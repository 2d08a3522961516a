import type { Logger } from 'pino';
import type {
  Consumer,
  EventLog,
  LogRecord,
  PartitionLag,
  RecordBatch,
} from '../ingest/event-log/event-log.ts';
import type { EventProducer } from '../ingest/event-producer.ts';
import { DecodeError } from '../ingest/schema-registry/avro-codec.ts';
import { PermanentWriteError } from '../projections/store-errors.ts';
import type { TopicSpec } from '../schemas/topics.ts';
import { type DeadLetterSource, writeDeadLetters } from './dead-letter-writer.ts';
import { type Pending as SinkPending, SinkWriter } from './sink-writer.ts';
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
  /**
   * Optional: told the step's consumer once it runs, so a step that keeps state per key can ask
   * which partitions it holds (the alert matcher's timer and backfill).
   */
  started?(consumer: { assignment(): { topic: string; partition: number }[] }): void;
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

type Pending<Out> = SinkPending<Out, LogRecord>;

interface DeadLetterEntry extends DeadLetterSource {
  stage: DeadLetterStage;
}

/** Unclassified write errors tolerated before the sink's probe decides (maxUnclassifiedAttempts). */
const DEFAULT_UNCLASSIFIED_ATTEMPTS = 5;

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
  private readonly writer: SinkWriter<Out>;
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
    this.writer = new SinkWriter(def.name, def.sink, logger, {
      ...this.opts,
      onRetry: () => {
        this.stats.writeRetries++;
      },
    });
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
    this.def.started?.(this.consumer);
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
      failed.push(...(await this.writer.writeIsolating(items.slice(i, i + this.maxBatchItems), heartbeat)));
    }
    // A record whose several items were refused is set aside once.
    const refused = new Map<LogRecord, string>();
    for (const f of failed) if (!refused.has(f.source)) refused.set(f.source, f.reason);
    for (const [source, reason] of refused)
      deadLetters.push({ source, step: 'write', stage: 'write', reason });
    if (deadLetters.length > 0)
      await this.writer.retrying(
        () => writeDeadLetters(this.producer, this.def.groupId, deadLetters),
        heartbeat,
      );
    this.stats.batches++;
    this.stats.written += items.length - failed.length;
    this.stats.deadLettered += deadLetters.length;
    for (const d of deadLetters) this.stats.deadLetteredBy[d.stage]++;
    await this.writer.retrying(() => this.consumer!.commit(positions), heartbeat);
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

  /** The partitions this member holds now (none before it started). */
  assignment(): { topic: string; partition: number }[] {
    return this.consumer?.assignment() ?? [];
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
    this.writer.stop();
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
