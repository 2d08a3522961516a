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
// RFC 3339 as the request schema's `date-time` format reads it: `T`, `t` or a space between date
// and time, any number of fraction digits, a leap second, `Z` or an offset (±hh, ±hhmm, ±hh:mm).
const DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[Tt\s](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;
// Written years (offsets cannot take an instant out of DateTime64's 1900-2299 from here).
const MIN_YEAR = 1910;
const MAX_YEAR = 2199;

/** Midnight UTC of a calendar date, or undefined for a day the calendar does not have. */
function utcDay(text: string): number | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(0).setUTCFullYear(y, mo - 1, d);
  const check = new Date(t);
  return check.getUTCFullYear() === y && check.getUTCMonth() === mo - 1 && check.getUTCDate() === d
    ? t
    : undefined;
}

/** Epoch ms of an RFC 3339 date-time (a leap second reads as the last millisecond before it). */
function dateTime(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const day = utcDay(m[1]!);
  const [h, min, s] = [Number(m[2]), Number(m[3]), Number(m[4])];
  const [oh, om] = [Number(m[8] ?? 0), Number(m[9] ?? 0)];
  if (day === undefined || h > 23 || min > 59 || s > 60 || oh > 23 || om > 59) return undefined;
  const ms = Number(`0.${m[5] ?? '0'}`) * 1000;
  const offset = m[6] ? 0 : (m[7] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  return day + ((h * 60 + min) * 60 + Math.min(s, 59)) * 1000 + (s === 60 ? 999 : Math.floor(ms)) - offset;
}

/**
 * Parses `since` / `until` (the values `DateParam` accepts); `endOfDay` makes a bare date mean
 * the end of that day.
 */
export function parseInstant(value: string, location: string, endOfDay: boolean): number {
  const v = value.trim();
  const isDate = DATE.test(v);
  const t = isDate ? utcDay(v) : dateTime(v);
  if (t === undefined) {
    throw invalidParameter(
      location,
      isDate ? 'is not a calendar date' : 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time',
      value,
    );
  }
  const year = Number(v.slice(0, 4));
  if (year < MIN_YEAR || year > MAX_YEAR)
    throw invalidParameter(location, `must be in the years ${MIN_YEAR}-${MAX_YEAR}`, value);
  return isDate && endOfDay ? t + DAY_MS : t;
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

/** An instant (epoch milliseconds or a Date) as RFC 3339 UTC. */
export const iso = (t: number | Date) => new Date(t).toISOString();
