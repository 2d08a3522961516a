import { FormatRegistry, type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type SecretBox, SIGNED_TOKEN_PATTERN, TokenSigner } from '../processors/alerts/index.ts';
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
      Type.String({ maxLength: 1024, description: 'opaque cursor from the previous page' }),
    ),
  };
}

/**
 * The `cursor` of an endpoint that reads cursors strictly (the episode feed): the schema states
 * the signed form, so a value of another form is a 422 by validation, as is, later, a
 * well-formed one this endpoint did not issue.
 */
export const StrictCursorParam = Type.Optional(
  Type.String({
    maxLength: 1024,
    pattern: SIGNED_TOKEN_PATTERN,
    description: 'cursor from the previous page; one this endpoint did not issue is a 422',
  }),
);

/** Same as pageQuery, but a missing `limit` means "everything" (per-episode lists, rankings). */
export function pageQueryAll(max = 100) {
  return {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: max, description: `page size, 1-${max}; all when omitted` }),
    ),
    cursor: Type.Optional(
      Type.String({ maxLength: 1024, description: 'opaque cursor from the previous page' }),
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

/**
 * Building blocks of cursor positions. A decoded position is checked against its schema before
 * any of it reaches a query, so each one bounds what its store accepts: ids and names are
 * non-empty bounded strings, offsets and counts non-negative safe integers, epoch milliseconds
 * inside the range of ClickHouse DateTime64, line and word numbers UInt32, instants the exact
 * `Date#toISOString()` form of a real date.
 */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
if (!FormatRegistry.Has('instant'))
  FormatRegistry.Set('instant', (v) => {
    const ms = Date.parse(v);
    return INSTANT.test(v) && Number.isFinite(ms) && new Date(ms).toISOString() === v;
  });

export const Position = {
  /** A row id or slug. */
  id: (options: { minLength?: number } = {}) =>
    Type.String({ minLength: options.minLength ?? 1, maxLength: 200 }),
  /** A name the list is sorted by. */
  name: () => Type.String({ maxLength: 2000 }),
  /** An offset into a list of at most `max` items. */
  offset: (max = 1_000_000) => Type.Integer({ minimum: 0, maximum: max }),
  /** A count (mentions, lines): UInt64 in the store, a safe integer here. */
  count: () => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  /** A UInt32 (line number, word index). */
  uint32: () => Type.Integer({ minimum: 0, maximum: 4_294_967_295 }),
  /** Epoch milliseconds from 1900 to 2299 (ClickHouse DateTime64). */
  epochMs: () => Type.Integer({ minimum: -2_208_988_800_000, maximum: 10_413_791_999_999 }),
  /** A finite number (float8 / Float64 sort keys). */
  number: () => Type.Number(),
  /** An instant as `Date#toISOString()` writes it (timestamptz keys). */
  instant: () => Type.String({ format: 'instant' }),
};

/**
 * Opaque cursors: the endpoint they belong to and a position, signed. A cursor is
 * `base64url(JSON {e, p}).base64url(HMAC-SHA256)` under a key derived from the service's secrets
 * key (`EARSHOT_SECRETS_KEY` or the data dir's key file), so every API process that shares that
 * key reads the others' cursors, and a client can neither forge one nor edit a position. A
 * cursor is read only when its signature verifies, it names this endpoint and its position
 * passes the endpoint's schema; anything else is unreadable.
 */
export class Cursors {
  private readonly signer: TokenSigner;

  constructor(box: SecretBox) {
    this.signer = new TokenSigner(box, 'api-cursor');
  }

  encode(endpoint: string, position: unknown): string {
    return this.signer.sign({ e: endpoint, p: position });
  }

  /**
   * Reads a cursor of `endpoint` whose position matches `schema`. An unreadable cursor (garbage,
   * unsigned, another endpoint's, out of range) is a 422 `validation_error` when `strict`, and
   * otherwise means the first page (undefined).
   */
  decode<S extends TSchema>(
    endpoint: string,
    cursor: string | undefined,
    schema: S,
    strict = false,
  ): Static<S> | undefined {
    if (cursor === undefined || cursor === '') return undefined;
    const payload = this.signer.verify<{ e?: unknown; p?: unknown }>(cursor);
    if (payload && payload.e === endpoint && Value.Check(schema, payload.p)) return payload.p as Static<S>;
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
  page<Row, Item>(
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
    if (hasMore) out.cursor = this.encode(endpoint, positionOf(pageRows.at(-1)!));
    return out;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The API's cursor codec (signed with a key derived from the secrets key). */
    cursors: Cursors;
  }
}

/** A page of an in-memory list, by offset; `limit` absent means everything. */
export function offsetPage<T>(
  cursors: Cursors,
  endpoint: string,
  items: T[],
  limit: number | undefined,
  cursor: string | undefined,
) {
  const offset = cursors.decode(endpoint, cursor, Position.offset()) ?? 0;
  const end = limit === undefined ? items.length : offset + limit;
  const out: { data: T[]; has_more: boolean; cursor?: string } = {
    data: items.slice(offset, end),
    has_more: end < items.length,
  };
  if (out.has_more) out.cursor = cursors.encode(endpoint, end);
  return out;
}
