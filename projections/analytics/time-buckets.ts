/**
 * Time buckets shared by the analytics queries and the API: UTC hours, days, ISO weeks (starting
 * Monday) and calendar months. A window is `[start, end)` in epoch milliseconds.
 */
export const DAY_MS = 86_400_000;

export interface Window {
  start: number;
  end: number;
}

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** Start of the bucket containing `t`. */
export function bucketStart(t: number, interval: Interval): number {
  const d = new Date(t);
  switch (interval) {
    case 'hour':
      return Math.floor(t / 3_600_000) * 3_600_000;
    case 'day':
      return Math.floor(t / DAY_MS) * DAY_MS;
    case 'week': {
      const day = Math.floor(t / DAY_MS) * DAY_MS;
      const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
      return day - weekday * DAY_MS;
    }
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
}

export function nextBucket(start: number, interval: Interval): number {
  switch (interval) {
    case 'hour':
      return start + 3_600_000;
    case 'day':
      return start + DAY_MS;
    case 'week':
      return start + 7 * DAY_MS;
    case 'month': {
      const d = new Date(start);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    }
  }
}

/** SQL expression (ClickHouse) for the natural bucket start of `column`, in epoch ms. */
export function bucketSql(column: string, interval: Interval): string {
  switch (interval) {
    case 'hour':
      return `toUnixTimestamp(toStartOfHour(${column})) * 1000`;
    case 'day':
      return `toUnixTimestamp(toStartOfDay(${column})) * 1000`;
    case 'week':
      return `toUnixTimestamp(toDateTime(toMonday(${column}), 'UTC')) * 1000`;
    case 'month':
      return `toUnixTimestamp(toDateTime(toStartOfMonth(${column}), 'UTC')) * 1000`;
  }
}
