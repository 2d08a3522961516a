import type { AttemptWindow } from '../../projections/state/attempt-counters.ts';

/** Where attempts are counted for every instance of the deployment (the state store). */
export interface SharedAttempts {
  hit(key: string, windowMs: number, now: number): Promise<AttemptWindow>;
}

/** Entries past this are pruned (expired first; all of them if that is not enough). */
const MAX_KNOWN = 10_000;

/**
 * Lockouts after too many attempts per key (a client address, a key prefix, an e-mail address),
 * counted in fixed windows. With `shared` (the state store) every attempt is counted there, so
 * all instances add to one count and a lockout reached through any instance holds on each; a
 * process also keeps the last window it saw per key, which answers `retryAfterMs` without a
 * store read. So a check costs nothing, a counted attempt one statement, and an instance that
 * has not yet seen a key locked elsewhere lets one more attempt through, whose count tells it:
 * across N instances a limit of L allows at most L + N − 1 attempts a window. Without `shared`
 * (or when the store fails) attempts are counted in this process only.
 */
export class Lockouts {
  private readonly known = new Map<string, AttemptWindow>();
  private readonly now: () => number;

  constructor(
    private readonly shared?: SharedAttempts,
    private readonly opts: { now?: () => number; onError?: (err: unknown) => void } = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** Milliseconds until `key` may try again, 0 when it may now (fewer than `max` attempts seen). */
  retryAfterMs(key: string, max: number): number {
    const window = this.known.get(key);
    if (!window) return 0;
    const left = window.resetAt - this.now();
    if (left <= 0) {
      this.known.delete(key);
      return 0;
    }
    return window.count >= max ? left : 0;
  }

  /** Counts one attempt of `key`; returns its window with this attempt counted. */
  async count(key: string, windowMs: number): Promise<AttemptWindow> {
    const now = this.now();
    let window: AttemptWindow | undefined;
    if (this.shared) {
      try {
        window = await this.shared.hit(key, windowMs, now);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
    window ??= this.local(key, windowMs, now);
    this.remember(key, window, now);
    return window;
  }

  private local(key: string, windowMs: number, now: number): AttemptWindow {
    const seen = this.known.get(key);
    return seen && seen.resetAt > now
      ? { count: seen.count + 1, resetAt: seen.resetAt }
      : { count: 1, resetAt: now + windowMs };
  }

  private remember(key: string, window: AttemptWindow, now: number): void {
    if (this.known.size >= MAX_KNOWN && !this.known.has(key)) {
      for (const [k, w] of this.known) if (w.resetAt <= now) this.known.delete(k);
      if (this.known.size >= MAX_KNOWN) this.known.clear();
    }
    this.known.set(key, window);
  }
}
