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
 * opposed to the store being unavailable. Any other error is treated as transient.
 */
export class PermanentWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentWriteError';
  }
}

export interface RunnerOptions {
  maxBatchItems: number;
  maxBatchWaitMs: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  partitionsConsumedConcurrently?: number;
  fromBeginning?: boolean;
}

export interface RunnerStats {
  consumed: number;
  written: number;
  skipped: number;
  deadLettered: number;
  writeRetries: number;
  batches: number;
}

type Outcome<Out> =
  | Exclude<StepResult<Out>, { kind: 'dead-letter' }>
  | { kind: 'dead-letter'; step: string; reason: string };

interface Pending<Out> {
  item: Out;
  source: LogRecord;
}

/**
 * Runs one processor: decode → handle (pure) → batch (size and time bounds) → write → commit.
 * Offsets are committed only after the batch and its dead letters were written, so a crash
 * re-delivers, and never loses, what was not yet written. Transient sink failures are retried
 * with exponential backoff and jitter for as long as it takes; a batch the sink refuses as
 * permanently unwritable is split until the records at fault are isolated and dead-lettered,
 * so one poison record cannot stall a topic.
 */
export class ConsumerRunner<In, Out> {
  readonly stats: RunnerStats = {
    consumed: 0,
    written: 0,
    skipped: 0,
    deadLettered: 0,
    writeRetries: 0,
    batches: 0,
  };
  private consumer?: Consumer;
  private buffer: Pending<Out>[] = [];
  private deadLetters: { source: LogRecord; step: string; reason: string }[] = [];
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
        this.deadLetters.push({ source: record, step: result.step, reason: result.reason });
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
      void this.flush();
    } else {
      this.timer ??= setTimeout(() => void this.flush(), this.opts.maxBatchWaitMs);
    }
  }

  private async process(record: LogRecord): Promise<Outcome<Out>> {
    let value: In;
    try {
      value = await this.producer.codec.decode<In>(record.topic, record.value);
    } catch (err) {
      if (err instanceof DecodeError) return { kind: 'dead-letter', step: 'decode', reason: err.message };
      throw err;
    }
    try {
      const result = this.def.handle({ ...record, value });
      if (result.kind === 'dead-letter') return { ...result, step: this.def.name };
      return result;
    } catch (err) {
      return { kind: 'dead-letter', step: this.def.name, reason: `handler threw: ${(err as Error).message}` };
    }
  }

  /** Writes everything buffered so far, then commits the offsets it covered. Serialised. */
  flush(heartbeat?: () => Promise<void>): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushNow(heartbeat));
    return this.flushing;
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
    for (const f of failed) deadLetters.push({ source: f.source, step: 'write', reason: f.reason });
    if (deadLetters.length > 0) await this.retrying(() => this.writeDeadLetters(deadLetters), heartbeat);
    this.stats.batches++;
    this.stats.written += items.length - failed.length;
    this.stats.deadLettered += deadLetters.length;
    await this.retrying(() => this.consumer!.commit(positions), heartbeat);
    if (deadLetters.length > 0) {
      this.logger.warn(
        { step: this.def.name, count: deadLetters.length, first: deadLetters[0]!.reason },
        'records dead-lettered',
      );
    }
  }

  /** Writes items; returns those the sink permanently refuses, isolated one by one. */
  private async writeIsolating(
    items: Pending<Out>[],
    heartbeat?: () => Promise<void>,
  ): Promise<(Pending<Out> & { reason: string })[]> {
    if (items.length === 0) return [];
    try {
      await this.retrying(() => this.def.sink.write(items.map((p) => p.item)), heartbeat);
      return [];
    } catch (err) {
      if (!(err instanceof PermanentWriteError)) throw err;
      if (items.length === 1) return [{ ...items[0]!, reason: `write failed: ${err.message}` }];
      const mid = Math.ceil(items.length / 2);
      return [
        ...(await this.writeIsolating(items.slice(0, mid), heartbeat)),
        ...(await this.writeIsolating(items.slice(mid), heartbeat)),
      ];
    }
  }

  private async writeDeadLetters(
    entries: { source: LogRecord; step: string; reason: string }[],
  ): Promise<void> {
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

  /** Retries a transient operation with exponential backoff and full jitter. */
  private async retrying<T>(op: () => Promise<T>, heartbeat?: () => Promise<void>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await op();
      } catch (err) {
        // While stopping, give up after a few attempts: what was not committed is re-delivered.
        if (err instanceof PermanentWriteError || (this.stopped && attempt >= 3)) throw err;
        this.stats.writeRetries++;
        const delay =
          Math.random() * Math.min(this.opts.retryMaxMs, this.opts.retryBaseMs * 2 ** (attempt - 1));
        this.logger.warn(
          { step: this.def.name, attempt, delayMs: Math.round(delay), err },
          'write failed; retrying',
        );
        await new Promise((r) => setTimeout(r, delay));
        await heartbeat?.().catch(() => undefined);
      }
    }
  }

  lag(): Promise<PartitionLag[]> {
    return this.log.groupLag(this.def.groupId, this.topics);
  }

  /** Stops consuming, writes and commits what was handed over, leaves the group. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
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
