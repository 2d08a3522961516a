import fs from 'node:fs';
import { drainPending, Session } from 'chdb';
import {
  type AnalyticsQueryError,
  type AnalyticsStore,
  analyticsError,
  INSERT_CHUNK_ROWS,
  type QueryParams,
} from './analytics-store.ts';
import { engineSettings } from './engine-settings.ts';

/** Rows encoded between two yields to the event loop (a few milliseconds of work). */
const ENCODE_SLICE_ROWS = 5000;

/** The engine's settings (engine-settings.ts) as connection arguments. */
const CONNECTION_ARGS = Object.entries(engineSettings('chdb')).map(([name, value]) => `--${name}=${value}`);

interface JsonResult<T> {
  data: T[];
}

/**
 * The embedded analytics store: ClickHouse in-process (chdb), data under `dir`. The engine is a
 * process singleton (one data directory per process). Queries and inserts run on the libuv
 * thread pool, never on the event loop.
 */
export class ChdbAnalyticsStore implements AnalyticsStore {
  readonly kind = 'chdb';
  private session?: Session;

  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.session = new Session(dir, { connectionArgs: CONNECTION_ARGS });
  }

  private open(): Session {
    if (!this.session) throw new Error('analytics store is closed');
    return this.session;
  }

  async query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    const session = this.open();
    try {
      const result = params
        ? await session.queryBindAsync(sql, params, { format: 'JSON' })
        : await session.queryAsync(sql, { format: 'JSON' });
      const text = result.text();
      if (text.length === 0) return [];
      return (JSON.parse(text) as JsonResult<T>).data;
    } catch (err) {
      throw wrap(err, sql);
    }
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    const session = this.open();
    try {
      if (params) await session.queryBindAsync(sql, params, { format: 'Null' });
      else await session.queryAsync(sql, { format: 'Null' });
    } catch (err) {
      throw wrap(err, sql);
    }
  }

  async insert(table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK_ROWS) {
      const chunk = rows.slice(i, i + INSERT_CHUNK_ROWS);
      // Encode in slices, yielding between them: the API shares this thread with the projectors.
      const parts: string[] = [];
      for (let j = 0; j < chunk.length; j += ENCODE_SLICE_ROWS) {
        if (j > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        let payload = '';
        for (const row of chunk.slice(j, j + ENCODE_SLICE_ROWS)) payload += `${JSON.stringify(row)}\n`;
        parts.push(payload);
      }
      await this.insertJson(table, columns, parts);
    }
  }

  async insertJson(table: string, columns: readonly string[], chunks: readonly string[]): Promise<void> {
    const session = this.open();
    // One copy into one buffer: no joined string of the whole batch.
    let size = 0;
    for (const c of chunks) size += Buffer.byteLength(c);
    if (size === 0) return;
    const values = Buffer.allocUnsafe(size);
    let offset = 0;
    for (const c of chunks) offset += values.write(c, offset);
    try {
      await session.insert({ table, values, format: 'JSONCompactEachRow', columns });
    } catch (err) {
      throw wrap(err, `INSERT INTO ${table}`);
    }
  }

  /**
   * Closes the connection and waits until the engine has really let it go. chdb defers the
   * teardown while a query or insert still runs on a libuv thread; a process that exits before it
   * ran destroys the engine's globals under its still-running threads (a SIGSEGV after a clean
   * stop, seen once in about ten SIGTERMs under load).
   */
  async close(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    session?.close();
    await drainPending();
  }
}

function wrap(err: unknown, sql: string): AnalyticsQueryError {
  return analyticsError(err, sql, (err as { clickhouseCode?: number }).clickhouseCode);
}
