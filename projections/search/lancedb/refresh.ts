/**
 * When the LanceDB index refreshes (folds new rows into its full-text and vector indexes and
 * compacts fragments). A refresh rewrites every fragment that lost more than a tenth of its rows
 * to replacements; on a million-line table that takes minutes, and writers wait for it.
 */

/** Pausing at least this many times a refresh's duration between refreshes keeps writers going. */
const REFRESH_PAUSE_FACTOR = 3;

/**
 * How long a scheduled refresh waits: at least `delayMs` of quiet, and no sooner than `intervalMs`
 * — or REFRESH_PAUSE_FACTOR times the last refresh's duration, when that is longer — after the
 * last refresh ended.
 */
export function refreshWait(t: {
  now: number;
  lastRefreshAt: number;
  lastRefreshMs: number;
  intervalMs: number;
  delayMs: number;
}): number {
  const pause = Math.max(t.intervalMs, REFRESH_PAUSE_FACTOR * t.lastRefreshMs);
  return Math.max(t.delayMs, t.lastRefreshAt + pause - t.now);
}

export interface RefreshScheduleOptions {
  intervalMs: number;
  delayMs: number;
  /** Where a failed scheduled refresh is reported (it is then scheduled again). */
  onError: (err: unknown) => void;
  /** Runs a refresh in its turn with the index's writers (a refresh rewrites what they touch). */
  inTurn: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * Runs refreshes one after another, now (`now`) or once writes pause (`schedule`), and times
 * them from when their turn comes. `run` answers whether it had anything to refresh; only a
 * refresh that did counts as the last one.
 */
export class RefreshSchedule {
  private lastRefresh = 0;
  private lastRefreshMs = 0;
  private running: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly run: () => Promise<boolean>,
    private readonly options: RefreshScheduleOptions,
  ) {}

  /** A refresh after the one under way (a scheduled one is then not needed). */
  now(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.running.catch(() => {}).then(() => this.options.inTurn(() => this.timed()));
    return this.running;
  }

  /** A refresh once writes pause for `delayMs`, at most one per `intervalMs`, in the background. */
  schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    const wait = refreshWait({
      now: Date.now(),
      lastRefreshAt: this.lastRefresh,
      lastRefreshMs: this.lastRefreshMs,
      intervalMs: this.options.intervalMs,
      delayMs: this.options.delayMs,
    });
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.now().catch((err) => {
        this.options.onError(err);
        this.schedule();
      });
    }, wait);
    this.timer.unref();
  }

  /** No more scheduled refreshes; waits for the one under way. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running.catch(() => {});
  }

  private async timed(): Promise<void> {
    const started = Date.now();
    let refreshed = true;
    try {
      refreshed = await this.run();
    } finally {
      if (refreshed) {
        this.lastRefresh = Date.now();
        this.lastRefreshMs = this.lastRefresh - started;
      }
    }
  }
}
