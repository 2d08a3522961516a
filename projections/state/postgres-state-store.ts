import { createHash } from 'node:crypto';
import pg from 'pg';
import { StoreUnavailableError } from '../store-errors.ts';
import { parseTimestamptz } from './pg-timestamps.ts';
import { stateStoreError } from './state-errors.ts';
import type { StateStore, Transaction } from './state-store.ts';

const INT8_OID = 20;
const TIMESTAMPTZ_OID = 1184;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === TIMESTAMPTZ_OID && format !== 'binary') return parseTimestamptz;
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

/**
 * Reads share the pipelined connections. A write takes a pooled connection of its own, so a long
 * bulk write (a projector's batch) never holds up the reads queued behind it on a shared one.
 */
const READ = /^\s*SELECT\b/i;

/** One connection that carries many queries at once: each is sent without waiting for the last. */
interface Lane {
  client?: Promise<pg.Client>;
  inFlight: number;
}

/**
 * PostgreSQL through `pg`. Parameterised reads run on a few pipelined connections: under load, many
 * requests' queries share one connection and the server answers them back to back, instead of
 * each query taking a pooled connection for a whole round trip (and waking one more server
 * process). Every pipelined query ends with its own Sync, so one failing does not fail the others.
 * Writes, transactions and statements without parameters (migrations, scripts) use the pool.
 */
export class PostgresStateStore implements StateStore {
  readonly kind = 'postgres';
  private readonly pool: pg.Pool;
  private readonly lanes: Lane[];
  private closed = false;

  constructor(
    private readonly url: string,
    max = 10,
    pipelinedConnections = 2,
  ) {
    this.pool = new pg.Pool({ connectionString: url, max, types: types as pg.CustomTypesConfig });
    // An idle connection the server ends (restart, failover, admin) is dropped from the pool and the
    // next query opens a new one; without a listener the pool's 'error' event would end the process.
    this.pool.on('error', () => undefined);
    this.lanes = Array.from({ length: Math.max(1, pipelinedConnections) }, () => ({ inFlight: 0 }));
  }

  /** The lane with the fewest queries in flight, so one slow query holds up as few others as can be. */
  private lane(): Lane {
    let best = this.lanes[0]!;
    for (const lane of this.lanes) if (lane.inFlight < best.inFlight) best = lane;
    if (!best.client) best.client = this.connectLane(best);
    return best;
  }

  private connectLane(lane: Lane): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      types: types as pg.CustomTypesConfig,
      pipeline: true,
    });
    const connecting = client.connect().then(() => client);
    // A lost connection fails the queries on it; the next query opens a new one.
    const forget = () => {
      if (lane.client === connecting) lane.client = undefined;
    };
    client.on('error', forget);
    client.on('end', forget);
    connecting.catch(forget);
    return connecting;
  }

  private async pipelined(query: pg.QueryConfig): Promise<pg.QueryResult> {
    if (this.closed) throw new StoreUnavailableError('the state store is closed', { store: this.kind });
    const lane = this.lane();
    lane.inFlight++;
    try {
      return await (await lane.client!).query(query);
    } finally {
      lane.inFlight--;
    }
  }

  /**
   * Errors carry the SQLSTATE, the message and the prepared statement's name and shape; never the
   * parameters, nor `pg`'s `detail` (which quotes key values). See state-errors.ts.
   */
  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (params.length === 0) {
      try {
        return (await this.pool.query(sql)).rows as T[];
      } catch (err) {
        throw stateStoreError(err, this.kind, sql);
      }
    }
    const run = READ.test(sql)
      ? (q: pg.QueryConfig) => this.pipelined(q)
      : (q: pg.QueryConfig) => this.pool.query(q);
    const statement = prepared(sql, params);
    try {
      return (await run(statement)).rows as T[];
    } catch (err) {
      // A migration by another process changed a table under a statement this connection prepared
      // ("cached plan must not change result type"): run it unprepared.
      if ((err as { code?: string }).code !== STALE_PREPARED_PLAN)
        throw stateStoreError(err, this.kind, sql, statement.name);
      try {
        return (await run({ text: sql, values: params })).rows as T[];
      } catch (retryErr) {
        throw stateStoreError(retryErr, this.kind, sql);
      }
    }
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((err: unknown) => {
      throw stateStoreError(err, this.kind, 'BEGIN');
    });
    const run = async (sql: string, params?: unknown[]) => {
      try {
        return await client.query(sql, params);
      } catch (err) {
        throw stateStoreError(err, this.kind, sql);
      }
    };
    try {
      await run('BEGIN');
      const result = await fn({
        // Unprepared: a statement gone stale under a transaction could not be retried within it.
        query: async <R>(sql: string, params: unknown[] = []) => (await run(sql, params)).rows as R[],
        exec: async (sql: string) => {
          await run(sql);
        },
      });
      await run('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async exec(sql: string): Promise<void> {
    try {
      await this.pool.query(sql);
    } catch (err) {
      throw stateStoreError(err, this.kind, sql);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const clients = this.lanes.map((lane) => lane.client?.catch(() => undefined));
    for (const lane of this.lanes) lane.client = undefined;
    await Promise.all(clients.map(async (client) => (await client)?.end()));
    await this.pool.end();
  }
}
