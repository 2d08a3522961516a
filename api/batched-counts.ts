import type { FastifyBaseLogger } from 'fastify';

/** How a kind of count is kept: written in batches, merged when a batch has to wait. */
export interface BatchedCountsOptions<C> {
  /** Adds one batch of counts to the store (one statement); a rejection keeps the batch. */
  write(batch: C[]): Promise<void>;
  /** Adds `from`'s numbers to `into` (same key). */
  merge(into: C, from: C): void;
  log: FastifyBaseLogger;
  /** What the log says could not be recorded, e.g. "API key usage". */
  what: string;
  /** A write follows the first count after at most this long. */
  intervalMs?: number;
}

/**
 * Counters kept in memory by key and added to a store every few seconds and when closed, one
 * batch at a time and in order. A batch the store refuses is merged back and written with the
 * next one, so a failed write loses nothing; a crash loses at most the counts of one interval.
 */
export class BatchedCounts<C> {
  private pending = new Map<string, C>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: BatchedCountsOptions<C>) {}

  /** Adds to the counter of `key`, made by `fresh` when the key has none waiting. */
  add(key: string, fresh: () => C, bump: (counter: C) => void): void {
    let counter = this.pending.get(key);
    if (!counter) {
      counter = fresh();
      this.pending.set(key, counter);
    }
    bump(counter);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.opts.intervalMs ?? 5000).unref();
  }

  /** Writes what was counted; resolves once this and every earlier flush has ended. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.opts.write([...batch.values()]);
    } catch (err) {
      this.opts.log.warn({ err }, `could not record ${this.opts.what}; kept for the next attempt`);
      for (const [key, counter] of batch) {
        const now = this.pending.get(key);
        if (now) this.opts.merge(now, counter);
        else this.pending.set(key, counter);
      }
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
