import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { type ClickHouseClient, type ClickHouseSettings, createClient } from '@clickhouse/client';
import {
  type AnalyticsQueryError,
  type AnalyticsStore,
  analyticsError,
  INSERT_CHUNK_ROWS,
  type QueryParams,
} from './analytics-store.ts';
import { engineSettings } from './engine-settings.ts';

/** The server's settings (engine-settings.ts), sent with every request. */
export const CLIENT_SETTINGS = engineSettings('clickhouse') as ClickHouseSettings;

/**
 * The analytics store on a ClickHouse server over HTTP (`@clickhouse/client`). `CLICKHOUSE_URL`
 * may carry credentials and a database as its path (`http://user:pass@host:8123/earshot`); the
 * database is created when missing.
 */
export class ClickHouseAnalyticsStore implements AnalyticsStore {
  readonly kind: string = 'clickhouse';

  constructor(private readonly client: ClickHouseClient) {}

  /** Connects to the server at `url`, creating the database named by its path (default `earshot`). */
  static async connect(url: string): Promise<ClickHouseAnalyticsStore> {
    const parsed = new URL(url);
    const database = decodeURIComponent(parsed.pathname.replace(/^\/+|\/+$/g, '')) || 'earshot';
    const username = decodeURIComponent(parsed.username) || 'default';
    const password = decodeURIComponent(parsed.password);
    parsed.pathname = '/';
    parsed.username = '';
    parsed.password = '';
    const base = { url: parsed.toString().replace(/\/$/, ''), username, password };
    const admin = createClient(base);
    try {
      await admin.command({ query: `CREATE DATABASE IF NOT EXISTS \`${database.replaceAll('`', '')}\`` });
    } finally {
      await admin.close();
    }
    return new ClickHouseAnalyticsStore(
      createClient({ ...base, database, clickhouse_settings: CLIENT_SETTINGS, request_timeout: 120_000 }),
    );
  }

  async query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    try {
      const rs = await this.client.query({
        query: sql,
        query_params: params,
        format: 'JSON',
        clickhouse_settings: CLIENT_SETTINGS,
      });
      return (await rs.json<T>()).data;
    } catch (err) {
      throw wrap(err, sql);
    }
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    try {
      await this.client.command({ query: sql, query_params: params, clickhouse_settings: CLIENT_SETTINGS });
    } catch (err) {
      throw wrap(err, sql);
    }
  }

  async insert(table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK_ROWS) {
      try {
        await this.client.insert({
          table,
          values: rows.slice(i, i + INSERT_CHUNK_ROWS) as unknown[][],
          format: 'JSONCompactEachRow',
          columns: columns as [string, ...string[]],
          clickhouse_settings: CLIENT_SETTINGS,
        });
      } catch (err) {
        throw wrap(err, `INSERT INTO ${table}`);
      }
    }
  }

  async insertJson(table: string, columns: readonly string[], chunks: readonly string[]): Promise<void> {
    if (chunks.every((c) => c.length === 0)) return;
    try {
      // The lines are the request body; the statement travels as the query parameter.
      const result = await this.client.exec({
        query: `INSERT INTO ${table} (${columns.join(', ')}) FORMAT JSONCompactEachRow`,
        values: Readable.from(chunks.filter((c) => c.length > 0)),
        clickhouse_settings: CLIENT_SETTINGS,
      });
      result.stream.resume();
      await finished(result.stream);
    } catch (err) {
      throw wrap(err, `INSERT INTO ${table}`);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function wrap(err: unknown, sql: string): AnalyticsQueryError {
  const e = err as { code?: unknown };
  const code = typeof e.code === 'string' && /^\d+$/.test(e.code) ? Number(e.code) : undefined;
  return analyticsError(err, sql, code);
}
