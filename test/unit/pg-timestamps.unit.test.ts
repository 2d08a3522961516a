import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../ingest/corpus/rng.ts';
import { parseTimestamptz } from '../../projections/state/pg-timestamps.ts';

const general = pg.types.getTypeParser(1184, 'text') as (text: string) => Date | number | null;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

describe('timestamptz text parsing', () => {
  it('reads what the general parser reads, for every fraction length and offset form', () => {
    const rng = new Rng(7);
    const offsets = ['+00', '-03', '+05:30', '-09:30', '+14', '-12', '+00:45'];
    for (let i = 0; i < 5000; i++) {
      const year = rng.int(100, 9999);
      const fraction = rng.chance(0.15) ? '' : `.${pad(rng.int(0, 999_999), 6).slice(0, rng.int(1, 6))}`;
      const text = `${pad(year, 4)}-${pad(rng.int(1, 12))}-${pad(rng.int(1, 28))} ${pad(rng.int(0, 23))}:${pad(rng.int(0, 59))}:${pad(rng.int(0, 59))}${fraction}${rng.pick(offsets)}`;
      const fast = parseTimestamptz(text) as Date;
      expect(fast).toBeInstanceOf(Date);
      expect(fast.getTime(), text).toBe((general(text) as Date).getTime());
    }
  });

  it('hands forms it does not read itself to the general parser', () => {
    for (const text of [
      'infinity',
      '-infinity',
      '0044-03-15 12:00:00+00 BC',
      '12026-01-01 00:00:00+00',
      '0050-06-01 00:00:00+00',
      '1890-01-01 00:00:00+00:53:28',
      '2026-11-22 05:10:17.5Z',
    ]) {
      expect(parseTimestamptz(text), text).toEqual(general(text));
    }
  });

  it('reads a known instant exactly', () => {
    expect((parseTimestamptz('2026-11-22 05:10:17.123456+05:30') as Date).toISOString()).toBe(
      '2026-11-21T23:40:17.123Z',
    );
  });
});
