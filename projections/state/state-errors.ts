import {
  errorKind,
  firstLine,
  StoreDataError,
  StoreQueryError,
  StoreUnavailableError,
  statementShape,
} from '../store-errors.ts';

/**
 * The state store adapters' error classification (PGlite and PostgreSQL raise the same SQLSTATEs).
 * The engines' own errors carry the statement and its parameters (PGlite: `query`, `params`;
 * `pg`: `detail` with key values); what the adapters throw carries the SQLSTATE, the message and
 * the statement's shape only.
 *
 * Permanent (the data, not the store): class 22 data exception (invalid byte sequence 22021,
 * unsupported Unicode escape 22P05, invalid text representation 22P02, out of range 22003/22008,
 * division by zero 22012), class 23 integrity constraint violation, class 54 program limit
 * exceeded (an index row too large). Transient: class 08 connection exception, 53 insufficient
 * resources, 57 operator intervention (shutdown, cancel, timeout), 40 transaction rollback
 * (serialization failure, deadlock), 55P03 lock not available, 58 system error, and lost or
 * refused connections.
 */
const PERMANENT_CLASSES = ['22', '23', '54'];
const TRANSIENT_CLASSES = ['08', '53', '57', '40', '58'];
const TRANSIENT_STATES = new Set(['55P03', '55006']);
const CONNECTION_LOST =
  /connection terminated|connection (?:is )?closed|not queryable|terminating connection|the state store is closed|pglite is closed|client has encountered a connection error|timeout/i;

export function stateStoreError(err: unknown, store: string, sql: string, name?: string): Error {
  if (err instanceof StoreDataError || err instanceof StoreUnavailableError || err instanceof StoreQueryError)
    return err;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = firstLine(typeof e?.message === 'string' ? e.message : String(err));
  const details = { store, code, statement: name ? `${name}: ${statementShape(sql)}` : statementShape(sql) };
  const sqlClass = code && /^[0-9A-Z]{5}$/.test(code) ? code.slice(0, 2) : undefined;
  if (sqlClass && PERMANENT_CLASSES.includes(sqlClass)) return new StoreDataError(message, details);
  if (
    (sqlClass && (TRANSIENT_CLASSES.includes(sqlClass) || TRANSIENT_STATES.has(code!))) ||
    errorKind(err) === 'transient' ||
    (!sqlClass && CONNECTION_LOST.test(message))
  ) {
    return new StoreUnavailableError(message, details);
  }
  return new StoreQueryError(message, details);
}
