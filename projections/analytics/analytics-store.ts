import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorKind, firstLine, statementShape } from '../store-errors.ts';

/**
 * Analytics store port: a ClickHouse dialect engine for the projections the aggregate reads need.
 * The same SQL runs on the embedded engine (chdb) and on a ClickHouse server. Parameters are
 * ClickHouse query parameters (`{name:Type}`), bound by the engine, never spliced into SQL.
 * 64-bit integers come back as numbers on both adapters.
 */
export type QueryParams = Record<string, unknown>;

/**
 * The id a filter names after resolving a reference (slug, domain, id) through the catalog, or
 * NO_MATCH when the reference resolved to nothing: such a filter matches no row. NO_MATCH is a
 * symbol, so it cannot be bound as a parameter by mistake; `idFilter` (scope-filters.ts) turns it
 * into a predicate that is false, and no placeholder value ever reaches an engine.
 */
export const NO_MATCH: unique symbol = Symbol('no match');
export type ScopeId = string | typeof NO_MATCH;

export interface AnalyticsStore {
  readonly kind: string;
  /** Rows of a SELECT as objects keyed by column name. */
  query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]>;
  /** A statement without result rows: DDL, `INSERT … SELECT`, `OPTIMIZE`. */
  command(sql: string, params?: QueryParams): Promise<void>;
  /**
   * Inserts rows, each an array of values in `columns` order (JSON-compatible: strings, numbers,
   * arrays, null; DateTime64(3) columns take epoch milliseconds), as one insert.
   */
  insert(table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void>;
  /**
   * Inserts rows already encoded as `JSONCompactEachRow` lines (each chunk a whole number of
   * newline-terminated lines, values in `columns` order), as one insert.
   */
  insertJson(table: string, columns: readonly string[], chunks: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * ClickHouse error codes that mean "this data cannot be written or read as given" (the same input
 * fails the same way every time): cannot parse text / escape sequence / quoted string / input /
 * date / datetime / number / array, type mismatch, argument out of bound, cannot convert, incorrect
 * data, string too large, sizes of arrays differ, value out of range, memory limit (a batch too
 * large: split, it fits).
 */
const DATA_ERRORS = new Set([6, 25, 26, 27, 38, 41, 53, 69, 70, 72, 117, 130, 131, 190, 241, 321, 457]);
/**
 * Codes that mean "try again": timeout, too many queries or parts, no free connection, socket
 * timeout, network error, table read-only (replica), query cancelled, system error, cannot
 * schedule, keeper, connection.
 */
const UNAVAILABLE_ERRORS = new Set([159, 164, 202, 203, 209, 210, 242, 252, 394, 425, 439, 999, 1000]);

/**
 * Raised by either adapter when the engine refuses a statement; carries the engine's code and the
 * statement's shape (ClickHouse parameters are bound separately, so it holds no values), and says
 * whether the refusal is about the data (`permanent`) or the engine (`transient`), as
 * projections/store-errors.ts defines them.
 */
export class AnalyticsQueryError extends Error {
  readonly permanent: boolean;
  readonly transient: boolean;
  readonly sql: string;
  constructor(
    message: string,
    readonly code: number | undefined,
    sql: string,
    /** A lost connection or timeout reported without an engine code. */
    unavailable = false,
  ) {
    super(firstLine(message));
    this.name = 'AnalyticsQueryError';
    this.sql = statementShape(sql);
    this.permanent = code !== undefined && DATA_ERRORS.has(code);
    this.transient = unavailable || (code !== undefined && UNAVAILABLE_ERRORS.has(code));
  }
}

export const CLICKHOUSE_SCHEMA_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../schemas/clickhouse',
);

/** The adapters' wrapping of an engine or client error, with its code when it has one. */
export function analyticsError(err: unknown, sql: string, code: number | undefined): AnalyticsQueryError {
  if (err instanceof AnalyticsQueryError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const unavailable = code === undefined && (errorKind(err) === 'transient' || /timeout/i.test(message));
  return new AnalyticsQueryError(message, code, sql, unavailable);
}

/** Splits a migration file into statements (each ends with `;` at the end of a line). */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((s) =>
      s
        .split('\n')
        .filter((line) => !/^\s*--/.test(line))
        .join('\n')
        .trim(),
    )
    .filter((s) => s.length > 0);
}

/**
 * Applies `schemas/clickhouse/NNN_name.sql` in order, each once, and records them. Statements are
 * idempotent (`IF NOT EXISTS`), so two processes migrating at once do no harm.
 */
export async function migrateAnalytics(
  store: AnalyticsStore,
  dir = CLICKHOUSE_SCHEMA_DIR,
): Promise<string[]> {
  await store.command(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name String, applied_at DateTime64(3, 'UTC')
  ) ENGINE = ReplacingMergeTree ORDER BY name`);
  const done = new Set(
    (await store.query<{ name: string }>('SELECT name FROM schema_migrations FINAL')).map((r) => r.name),
  );
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file)) continue;
    for (const statement of splitStatements(fs.readFileSync(path.join(dir, file), 'utf8'))) {
      await store.command(statement);
    }
    await store.insert('schema_migrations', ['name', 'applied_at'], [[file, Date.now()]]);
    applied.push(file);
  }
  return applied;
}

/**
 * The tables the aggregate reads scan by key range with FINAL. FINAL merges the ranges of every
 * active part that overlaps the read; after a bulk load (a backfill, a rebuild, the benchmark) the
 * engine's own merges leave several overlapping parts and each read pays for merging them.
 */
export const COMPACTED_TABLES = [
  'entity_episodes',
  'mention_lines',
  'ad_reads',
  'sponsor_ad_reads',
  'episode_speakers',
  'episode_dates',
  'topic_episode_entities',
  'topic_days',
  'podcast_topic_days',
  'topic_podcasts',
  'sponsor_episodes',
  'podcast_guest_appearances',
  'guest_totals',
  'sponsor_totals',
] as const;

/**
 * Merges each table that has more than `minParts` active parts into one (`OPTIMIZE … FINAL`),
 * keeping the newest version of each row. Returns the tables compacted.
 */
export async function compactAnalytics(
  store: AnalyticsStore,
  options: { tables?: readonly string[]; minParts?: number } = {},
): Promise<string[]> {
  const tables = options.tables ?? COMPACTED_TABLES;
  const parts = await store.query<{ table: string; parts: number }>(
    `SELECT table, count() AS parts FROM system.parts
     WHERE active AND database = currentDatabase() AND table IN {tables:Array(String)} GROUP BY table`,
    { tables: [...tables] },
  );
  const done: string[] = [];
  for (const { table, parts: n } of parts) {
    if (Number(n) <= (options.minParts ?? 1)) continue;
    await store.command(`OPTIMIZE TABLE ${table} FINAL`);
    done.push(table);
  }
  return done;
}

/** Rows per insert statement: large enough for throughput, small enough to bound memory. */
export const INSERT_CHUNK_ROWS = 250_000;
