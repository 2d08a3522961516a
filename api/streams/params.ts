import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { IncludeParam, parseIncludes } from '../premium.ts';
import { invalidParameter } from '../problem.ts';
import { RECORD_INCLUDES, type RecordInclude } from '../views/episode-record.ts';

/** `period`: a month or a day by UTC publication date. */
export const PeriodParam = Type.String({
  maxLength: 10,
  pattern: '^\\d{4}-\\d{2}(-\\d{2})?$',
  description: 'YYYY-MM (a month) or YYYY-MM-DD (a day), by UTC publication date; years 1910-2199',
});

export interface Period {
  period: string;
  /** First and last day, `YYYY-MM-DD`. */
  from: string;
  to: string;
}

/** Reads a period the pattern admitted; a month or day that does not exist is a 422 naming it. */
export function parsePeriod(text: string): Period {
  const [y, m, d] = text.split('-').map(Number) as [number, number, number | undefined];
  const bad = (message: string) => invalidParameter('query.period', message, text);
  if (y < 1910 || y > 2199) throw bad('the year must be 1910-2199');
  if (m < 1 || m > 12) throw bad('there is no such month');
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const pad = (n: number) => String(n).padStart(2, '0');
  const month = `${y}-${pad(m)}`;
  if (d === undefined) return { period: text, from: `${month}-01`, to: `${month}-${pad(last)}` };
  if (d < 1 || d > last) throw bad(`there is no such day: ${month} has ${last} days`);
  return { period: text, from: text, to: text };
}

const OFFERED = [...RECORD_INCLUDES, 'all'] as const;

/** `include`: heavy relations to keep in each record; comma-separated; default all. */
export const RecordIncludeParam = IncludeParam(OFFERED, []);

/** The heavy relations asked for: all three when `include` is absent or names `all`. */
export function parseRecordIncludes(
  request: FastifyRequest,
  raw: string | undefined,
  dashboardUrl: string,
): Set<RecordInclude> {
  if (raw === undefined) return new Set(RECORD_INCLUDES);
  const wanted = parseIncludes(request, raw, OFFERED, [], dashboardUrl);
  if (wanted.has('all')) return new Set(RECORD_INCLUDES);
  return new Set([...wanted].filter((v): v is RecordInclude => v !== 'all'));
}

/** A stable name of an include set (`clips,segments,transcript`; `none`). */
export function includeKey(include: ReadonlySet<RecordInclude>): string {
  return [...include].sort().join(',') || 'none';
}

/**
 * The resume position of a reconnecting event stream: the `Last-Event-ID` header (what an
 * EventSource sends when it reconnects) over the `cursor` parameter, with where it came from.
 */
export function resumeToken(
  request: FastifyRequest,
  cursor: string | undefined,
): { token: string; location: string } | undefined {
  const header = request.headers['last-event-id'];
  if (typeof header === 'string' && header.length > 0)
    return { token: header, location: 'header.last-event-id' };
  if (cursor !== undefined && cursor.length > 0) return { token: cursor, location: 'query.cursor' };
  return undefined;
}
