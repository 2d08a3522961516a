import type { Logger } from 'pino';
import { RecordTooLargeError } from '../ingest/event-log/event-log.ts';
import { EncodeError } from '../ingest/schema-registry/avro-codec.ts';
import { type ErrorKind, errorKind } from '../projections/store-errors.ts';

/** An item to write and the record it came from (dead-lettered when the item is refused). */
export interface Pending<Out, Source> {
  item: Out;
  source: Source;
}

/** What the writer writes to: a step's sink. */
export interface WriteTarget<Out> {
  write(items: Out[]): Promise<void>;
  probe?(): Promise<void>;
}

export interface SinkWriterOptions {
  retryBaseMs: number;
  retryMaxMs: number;
  /** Attempts of a batch failing with an unclassified error before the store's probe is asked. */
  maxUnclassifiedAttempts: number;
  /** Counts each retry (the runner's statistics). */
  onRetry: () => void;
}

/** A write the sink refuses because of the data: the batch is split to isolate the records. */
class DataFault extends Error {}

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
 * The consumer runner's writes, retried as their errors say (projections/store-errors.ts):
 * transient ones with backoff and jitter until they pass, permanent ones by splitting the batch
 * until the records at fault are isolated, unclassified ones a bounded number of times before
 * the store's probe decides between the data and an outage. Once stopped, a write waiting out a
 * backoff is woken and given a last few attempts.
 */
export class SinkWriter<Out> {
  private stopped = false;
  /** Wakes a retry that waits out its backoff, when the runner is told to stop. */
  private wakeRetry?: () => void;

  constructor(
    private readonly step: string,
    private readonly sink: WriteTarget<Out>,
    private readonly logger: Logger,
    private readonly opts: SinkWriterOptions,
  ) {}

  /** No more waiting: retries give up after a few attempts from now on. */
  stop(): void {
    this.stopped = true;
    this.wakeRetry?.();
  }

  /**
   * Writes items; returns those the sink refuses because of the data, isolated one by one by
   * splitting the batch in halves (the other records of a refused batch are written).
   */
  async writeIsolating<Source>(
    items: Pending<Out, Source>[],
    heartbeat?: () => Promise<void>,
    split = false,
  ): Promise<(Pending<Out, Source> & { reason: string })[]> {
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
    items: Pending<Out, unknown>[],
    unclassifiedAttempts: number,
    heartbeat?: () => Promise<void>,
  ): Promise<void> {
    let unclassified = 0;
    for (let attempt = 1; ; attempt++) {
      let kind: ErrorKind;
      try {
        await this.sink.write(items.map((p) => p.item));
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
        this.opts.onRetry();
        const delay = this.backoff(attempt);
        this.logger.warn(
          { step: this.step, attempt, kind, items: items.length, delayMs: Math.round(delay), err },
          'write failed; retrying',
        );
        await this.pause(delay);
        await heartbeat?.().catch(() => undefined);
      }
    }
  }

  private async storeAnswers(): Promise<boolean> {
    if (!this.sink.probe) return true;
    try {
      await this.sink.probe();
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

  /**
   * Retries an operation on the event log (dead letters, commits) with exponential backoff and
   * full jitter until it passes; while stopping, gives up after a few attempts (what was not
   * committed is delivered again).
   */
  async retrying<T>(op: () => Promise<T>, heartbeat?: () => Promise<void>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await op();
      } catch (err) {
        if (this.stopped && attempt >= 3) throw err;
        this.opts.onRetry();
        const delay = this.backoff(attempt);
        this.logger.warn(
          { step: this.step, attempt, delayMs: Math.round(delay), err },
          'event log write failed; retrying',
        );
        await this.pause(delay);
        await heartbeat?.().catch(() => undefined);
      }
    }
  }
}
