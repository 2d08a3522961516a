import type { ArchiveStore, LiveEntry } from './archive-store.ts';

export interface LiveFeedOptions {
  /** How often the live order is read while a stream waits (default 250 ms). */
  pollMs?: number;
  /** Recent entries kept in memory for streams at or near the end (default 4096). */
  ringSize?: number;
}

/**
 * The live order (`archive_live`) as one API process follows it: one reader per process, however
 * many streams are open. It reads the store while some stream waits for a position past what it
 * has seen — every `pollMs`, and at once when `nudge()` says the archive projector of this process
 * wrote — and keeps the newest entries in a ring, so streams at the end are served from memory and
 * woken together. A stream further back reads the store itself (`after`).
 *
 * Positions are the store's, so they mean the same on every API process sharing it and after a
 * restart.
 */
export class LiveFeed {
  readonly pollMs: number;
  private readonly ringSize: number;
  /** Entries with `base < seq <= tail`, in order. */
  private ring: LiveEntry[] = [];
  private base = 0;
  private tail = 0;
  private opened?: Promise<void>;
  private waiters = new Set<() => void>();
  private timer?: NodeJS.Timeout;
  private reading?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly store: ArchiveStore,
    options: LiveFeedOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.ringSize = options.ringSize ?? 4096;
  }

  private open(): Promise<void> {
    this.opened ??= this.store.liveHead().then((head) => {
      this.base = head;
      this.tail = head;
    });
    return this.opened;
  }

  /** The highest position handed out (read from the store: every process agrees). */
  async head(): Promise<number> {
    await this.open();
    return Math.max(this.tail, await this.store.liveHead());
  }

  /** The archive projector of this process wrote: read now rather than at the next poll. */
  nudge(): void {
    if (this.opened && !this.stopped) void this.read();
  }

  private read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.again = false;
          const { entries } = await this.store.liveAfter(this.tail, 1000);
          if (entries.length === 0) continue;
          this.ring.push(...entries);
          this.tail = entries.at(-1)!.seq;
          if (this.ring.length > this.ringSize) {
            const dropped = this.ring.splice(0, this.ring.length - this.ringSize);
            this.base = dropped.at(-1)!.seq;
          }
          if (entries.length === 1000) this.again = true;
          const woken = [...this.waiters];
          this.waiters.clear();
          for (const wake of woken) wake();
        } while (this.again && !this.stopped);
      } catch {
        // The next poll tries again; streams keep waiting meanwhile.
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  /**
   * Entries after `seq` (at most `limit`): from memory when the ring covers `seq`, else from the
   * store. `held`: the store's order stops at an episode whose record is being rebuilt.
   */
  async after(seq: number, limit: number): Promise<{ entries: LiveEntry[]; held: boolean }> {
    await this.open();
    if (seq >= this.base) {
      let i = this.ring.length;
      while (i > 0 && this.ring[i - 1]!.seq > seq) i--;
      return { entries: this.ring.slice(i, i + limit), held: false };
    }
    return this.store.liveAfter(seq, limit);
  }

  /**
   * Resolves once an entry past `seq` has been read, or after `timeoutMs`, or when `signal`
   * aborts; the feed reads the store every `pollMs` while anyone waits.
   */
  async wait(seq: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    await this.open();
    if (this.tail > seq || this.stopped || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters.delete(done);
        this.idle();
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
      if (!this.timer) {
        // Idle until now: what it has seen may be old, so read at once too.
        this.timer = setInterval(() => void this.read(), this.pollMs);
        void this.read();
      }
    });
  }

  private idle(): void {
    if (this.waiters.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Wakes every waiting stream and stops reading. */
  stop(): void {
    this.stopped = true;
    for (const wake of [...this.waiters]) wake();
    this.idle();
  }
}
