import { createHash } from 'node:crypto';
import type { StateStore } from './state-store.ts';

/** One key's attempts in its current window. */
export interface AttemptWindow {
  count: number;
  /** Epoch ms the window ends at (the count starts again from 0 after it). */
  resetAt: number;
}

/** Expired rows are deleted at most this often per process. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Attempts per key in fixed windows (`attempt_counters`), one row per key for every process
 * sharing the store: a window starts with the key's first attempt and lasts `windowMs`; each
 * attempt adds one in a single statement, so two processes counting at once both count.
 */
export class AttemptCounters {
  private prunedAt = 0;

  constructor(private readonly db: StateStore) {}

  async hit(key: string, windowMs: number, now: number): Promise<AttemptWindow> {
    const rows = await this.db.query<{ count: number; reset_at: number }>(
      `INSERT INTO attempt_counters AS c (key, count, reset_at) VALUES ($1, 1, $2::bigint + $3::bigint)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN c.reset_at <= $2::bigint THEN 1 ELSE c.count + 1 END,
         reset_at = CASE WHEN c.reset_at <= $2::bigint THEN $2::bigint + $3::bigint ELSE c.reset_at END
       RETURNING count, reset_at`,
      [digest(key), now, windowMs],
    );
    if (now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now;
      await this.db.query('DELETE FROM attempt_counters WHERE reset_at < $1::bigint', [now]);
    }
    const row = rows[0]!;
    return { count: Number(row.count), resetAt: Number(row.reset_at) };
  }
}

function digest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
