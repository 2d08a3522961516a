import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { invalidParameter } from './problem.ts';

/** `limit` and `cursor` query parameters; `max` and `fallback` override the 1-100 / 25 defaults. */
export function pageQuery(options: { max?: number; fallback?: number } = {}) {
  const max = options.max ?? 100;
  return {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: max,
        default: options.fallback ?? 25,
        description: `page size, 1-${max}`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({ maxLength: 4096, description: 'opaque cursor from the previous page' }),
    ),
  };
}

/** Same as pageQuery, but a missing `limit` means "everything" (per-episode lists, rankings). */
export function pageQueryAll(max = 100) {
  return {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: max, description: `page size, 1-${max}; all when omitted` }),
    ),
    cursor: Type.Optional(
      Type.String({ maxLength: 4096, description: 'opaque cursor from the previous page' }),
    ),
  };
}

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    has_more: Type.Boolean(),
    cursor: Type.Optional(
      Type.String({ description: 'pass back as `cursor` for the next page; absent on the last page' }),
    ),
  });
}

/** Opaque cursors: the endpoint they belong to and a position, base64url-encoded JSON. */
export function encodeCursor(endpoint: string, position: unknown): string {
  return Buffer.from(JSON.stringify({ e: endpoint, p: position })).toString('base64url');
}

/**
 * Reads a cursor of `endpoint` whose position matches `schema`. An unreadable cursor (garbage,
 * another endpoint's, wrong shape) is a 422 `validation_error` when `strict`, and otherwise means
 * the first page (undefined).
 */
export function decodeCursor<S extends TSchema>(
  endpoint: string,
  cursor: string | undefined,
  schema: S,
  strict = false,
): Static<S> | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      e?: unknown;
      p?: unknown;
    };
    if (parsed.e === endpoint && Value.Check(schema, parsed.p)) return parsed.p as Static<S>;
  } catch {
    // fall through: unreadable
  }
  if (strict)
    throw invalidParameter(
      'query.cursor',
      'is not a cursor of this endpoint; start again without it',
      cursor,
    );
  return undefined;
}

/**
 * Builds a page from `rows` fetched with `limit + 1`: the extra row only tells that more exist.
 * `positionOf` gives the cursor position after a row.
 */
export function pageOf<Row, Item>(
  endpoint: string,
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
  positionOf: (row: Row) => unknown,
): { data: Item[]; has_more: boolean; cursor?: string } {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const out: { data: Item[]; has_more: boolean; cursor?: string } = {
    data: pageRows.map(toItem),
    has_more: hasMore,
  };
  if (hasMore) out.cursor = encodeCursor(endpoint, positionOf(pageRows.at(-1)!));
  return out;
}
