import {
  bucketStart,
  DAY_MS,
  type Interval,
  nextBucket,
  type Window,
} from '../projections/analytics/time-buckets.ts';
import { invalidParameter } from './problem.ts';

export { DAY_MS, type Interval, type Window };

/**
 * Time windows and buckets of the analytics reads. A window is `[start, end)` in epoch ms.
 *
 * - `since` is included; a bare date means 00:00 UTC of that day.
 * - `until` is excluded; a bare date includes that whole UTC day (the window ends at 00:00 UTC of
 *   the next day), a date-time is the exact end.
 * - Buckets are UTC hours, days, ISO weeks (Monday) or calendar months; the first and last are
 *   clipped to the window, so bucket sums equal the window's totals.
 */
export const MAX_BUCKETS = 1000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})$/;

/** Parses `since` / `until`; `endOfDay` makes a bare date mean the end of that day. */
export function parseInstant(value: string, location: string, endOfDay: boolean): number {
  const v = value.trim();
  const date = DATE.exec(v);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const t = Date.UTC(y, m - 1, d);
    const check = new Date(t);
    if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) {
      throw invalidParameter(location, 'is not a calendar date', value);
    }
    return endOfDay ? t + DAY_MS : t;
  }
  if (DATE_TIME.test(v)) {
    const t = Date.parse(v.replace(' ', 'T'));
    if (!Number.isNaN(t)) return t;
  }
  throw invalidParameter(location, 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time', value);
}

/**
 * The window of `since` / `until` (`until` defaults to now, `since` to `defaultDays` before
 * `until`), refused when empty or longer than `maxDays`.
 */
export function resolveWindow(
  query: { since?: string; until?: string },
  options: { defaultDays: number; maxDays?: number; now?: number },
): Window {
  const end =
    query.until !== undefined ? parseInstant(query.until, 'query.until', true) : (options.now ?? Date.now());
  const start =
    query.since !== undefined
      ? parseInstant(query.since, 'query.since', false)
      : end - options.defaultDays * DAY_MS;
  if (start >= end) {
    throw invalidParameter(
      'query.since',
      'must be before until',
      query.since ?? new Date(start).toISOString(),
    );
  }
  if (options.maxDays !== undefined && end - start > options.maxDays * DAY_MS) {
    throw invalidParameter(
      query.since !== undefined ? 'query.since' : 'query.until',
      `the window spans at most ${options.maxDays} days; this one spans ${((end - start) / DAY_MS).toFixed(2)}`,
      query.since ?? query.until,
    );
  }
  return { start, end };
}

export interface Bucket {
  /** Natural start of the bucket (the key the queries group by). */
  key: number;
  start: number;
  end: number;
}

/** The buckets covering `window`, clipped to it; more than `max` is a 422 on `location`. */
export function bucketsOf(
  window: Window,
  interval: Interval,
  location = 'query.interval',
  max = MAX_BUCKETS,
): Bucket[] {
  const out: Bucket[] = [];
  for (let key = bucketStart(window.start, interval); key < window.end; key = nextBucket(key, interval)) {
    if (out.length === max) {
      throw invalidParameter(
        location,
        `the window has more than ${max} ${interval} buckets; use a longer interval or a shorter window`,
        interval,
      );
    }
    out.push({
      key,
      start: Math.max(key, window.start),
      end: Math.min(nextBucket(key, interval), window.end),
    });
  }
  return out;
}

export const iso = (t: number) => new Date(t).toISOString();
