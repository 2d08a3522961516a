import { createHash } from 'node:crypto';
import pg from 'pg';
import type { StateStore, Transaction } from './state-store.ts';

const INT8_OID = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * Parameterised statements run as named prepared statements: each connection parses and plans a
 * statement once and afterwards only binds and executes it, which takes that work off the server
 * for the hot reads (key lookups, pages of a list). Statement texts built at run time (IN lists of
 * varying length, bulk inserts) would each stay prepared on every connection, so only the first
 * MAX_PREPARED distinct texts are prepared; the rest run unprepared.
 */
const MAX_PREPARED = 1000;
const statementNames = new Map<string, string>();
const STALE_PREPARED_PLAN = '0A000';
function prepared(sql: string, values: unknown[]): pg.QueryConfig {
  let name = statementNames.get(sql);
  if (!name) {
    if (statementNames.size >= MAX_PREPARED) return { text: sql, values };
    name = `s_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    statementNames.set(sql, name);
  }
  return { name, text: sql, values };
}

/** PostgreSQL through a `pg` connection pool. */
export class PostgresStateStore implements StateStore {
  readonly kind = 'postgres';
  private readonly pool: pg.Pool;

  constructor(url: string, max = 10) {
    this.pool = new pg.Pool({ connectionString: url, max, types: types as pg.CustomTypesConfig });
    // An idle connection the server ends (restart, failover, admin) is dropped from the pool and the
    // next query opens a new one; without a listener the pool's 'error' event would end the process.
    this.pool.on('error', () => undefined);
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (params.length === 0) return (await this.pool.query(sql)).rows as T[];
    try {
      return (await this.pool.query(prepared(sql, params))).rows as T[];
    } catch (err) {
      // A migration by another process changed a table under a statement this connection prepared
      // ("cached plan must not change result type"): run it unprepared.
      if ((err as { code?: string }).code !== STALE_PREPARED_PLAN) throw err;
      return (await this.pool.query(sql, params)).rows as T[];
    }
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn({
        // Unprepared: a statement gone stale under a transaction could not be retried within it.
        query: async <R>(sql: string, params: unknown[] = []) =>
          (await client.query(sql, params)).rows as R[],
        exec: async (sql: string) => {
          await client.query(sql);
        },
      });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
