/**
 * When deliveries are attempted: attempt 1 at once, then after each failure the next step of
 * the schedule (by default 5 s, 5 min, 30 min, 2 h — five attempts in all; the default is
 * EARSHOT_DELIVERY_RETRY_SCHEDULE in infra/config.ts), each with ±10 %
 * jitter so a receiver that comes back is not hit by every retry at the same instant. A
 * `Retry-After` the receiver sends moves the next attempt later, never earlier, and is capped
 * at the longest step of the schedule.
 */

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `"0s,5s,5m,30m,2h"` → delays in ms; one entry per attempt (the first is the delay before attempt 1). */
export function parseSchedule(text: string): number[] {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) throw new Error('expected a comma-separated list');
  return parts.map((p) => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(p);
    if (!m) throw new Error(`"${p}" is not a duration like 500ms, 5s, 5m or 2h`);
    return Math.round(Number(m[1]) * UNITS[m[2]!]!);
  });
}

export class RetrySchedule {
  constructor(
    /** Delay before each attempt; its length is the number of attempts. */
    readonly delaysMs: number[],
    private readonly jitter = 0.1,
    private readonly random: () => number = Math.random,
  ) {
    if (delaysMs.length === 0) throw new Error('a schedule needs at least one attempt');
  }

  static parse(text: string): RetrySchedule {
    return new RetrySchedule(parseSchedule(text));
  }

  get maxAttempts(): number {
    return this.delaysMs.length;
  }

  /**
   * Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed, or undefined
   * when it was the last allowed one.
   */
  nextDelay(attempt: number, retryAfterMs?: number): number | undefined {
    if (attempt >= this.delaysMs.length) return undefined;
    const base = this.delaysMs[attempt]!;
    const jittered = Math.round(base * (1 + this.jitter * (2 * this.random() - 1)));
    if (retryAfterMs === undefined) return jittered;
    const cap = Math.max(...this.delaysMs);
    return Math.max(jittered, Math.min(retryAfterMs, cap));
  }
}

/** `Retry-After` as delta-seconds or an HTTP date, in ms from `now`; undefined if absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\s*\d+\s*$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
