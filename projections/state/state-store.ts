/**
 * State store port: a PostgreSQL dialect database for what the service owns (accounts, keys,
 * alerts, connections, deliveries). The same SQL runs on PGlite (embedded) and PostgreSQL.
 * Parameters are `$1`, `$2`, …; `int8` columns come back as numbers on both adapters.
 */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Transaction extends Queryable {
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface StateStore extends Transaction {
  readonly kind: string;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** SQLSTATE of a unique violation, as raised by both adapters. */
export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';

export function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err
    ? String((err as { code: unknown }).code)
    : undefined;
}
