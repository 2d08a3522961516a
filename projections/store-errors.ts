/**
 * How a failed store operation is to be treated, decided by the adapter that saw the error, so
 * that writers (the consumer runner) and readers (the API) need not know any engine's codes:
 *
 * - `StoreDataError` (permanent): the store refuses the data itself — an invalid byte sequence,
 *   a constraint, a type, a size. The same input fails the same way every time: a write of it is
 *   dead-lettered, a read with it is the client's error, never a 500.
 * - `StoreUnavailableError` (transient): the store could not be reached or gave up — connection
 *   lost or refused, a timeout, overload, shutdown. Worth retrying.
 * - `StoreQueryError`: anything else, unclassified; its message and statement shape are kept,
 *   parameter values never.
 *
 * Each carries the statement's shape (or a name), never its parameter values, so logging one
 * never writes what a client sent into the logs.
 */

/**
 * Thrown by a sink when the data itself cannot be written (a constraint, a type error), as
 * opposed to the store being unavailable. The consumer runner isolates and dead-letters the
 * records at fault.
 */
export class PermanentWriteError extends Error {
  readonly permanent = true;
  constructor(message: string) {
    super(message);
    this.name = 'PermanentWriteError';
  }
}

export interface StoreErrorDetails {
  /** Which store: `postgres`, `embedded`, `chdb`, `clickhouse`, `lancedb`, `opensearch`. */
  store: string;
  /** The engine's code (SQLSTATE, ClickHouse error code, OpenSearch error type), when it gave one. */
  code?: string | number;
  /** What ran, by shape or name: never with parameter values. */
  statement?: string;
}

export class StoreDataError extends PermanentWriteError {
  readonly store: string;
  readonly code?: string | number;
  readonly statement?: string;
  constructor(message: string, details: StoreErrorDetails) {
    super(message);
    this.name = 'StoreDataError';
    this.store = details.store;
    this.code = details.code;
    this.statement = details.statement;
  }
}

export class StoreUnavailableError extends Error {
  readonly transient = true;
  readonly store: string;
  readonly code?: string | number;
  readonly statement?: string;
  constructor(message: string, details: StoreErrorDetails) {
    super(message);
    this.name = 'StoreUnavailableError';
    this.store = details.store;
    this.code = details.code;
    this.statement = details.statement;
  }
}

export class StoreQueryError extends Error {
  readonly store: string;
  readonly code?: string | number;
  readonly statement?: string;
  constructor(message: string, details: StoreErrorDetails) {
    super(message);
    this.name = 'StoreQueryError';
    this.store = details.store;
    this.code = details.code;
    this.statement = details.statement;
  }
}

export type ErrorKind = 'permanent' | 'transient' | 'unknown';

/** Network and system error codes that mean "the other side is not there (yet)". */
const TRANSIENT_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'EBUSY',
  'EAGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** Error names client libraries use for a lost connection or a timeout. */
const TRANSIENT_NAMES = new Set([
  'TimeoutError',
  'AbortError',
  'ConnectionError',
  'NoLivingConnectionsError',
  'RequestAbortedError',
  'KafkaJSConnectionError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
]);

/**
 * Permanent, transient or unknown: what the adapter said (`permanent` / `transient` flags, set by
 * the classes above and by adapters' own errors), else what a network error's code or name says.
 */
export function errorKind(err: unknown): ErrorKind {
  if (err === null || typeof err !== 'object') return 'unknown';
  const e = err as {
    permanent?: unknown;
    transient?: unknown;
    code?: unknown;
    name?: unknown;
    errors?: unknown;
  };
  if (e.permanent === true) return 'permanent';
  if (e.transient === true) return 'transient';
  if (typeof e.code === 'string' && TRANSIENT_ERRNO.has(e.code)) return 'transient';
  if (typeof e.name === 'string' && TRANSIENT_NAMES.has(e.name)) return 'transient';
  // Connecting to every address of a host failed (AggregateError of ECONNREFUSED, say).
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((x) => errorKind(x) === 'transient')) {
    return 'transient';
  }
  return 'unknown';
}

/** A statement's shape for logs: whitespace collapsed, literals elided, bounded in length. */
export function statementShape(sql: string, max = 160): string {
  const shape = sql
    .replace(/'(?:[^']|'')*'/g, "'…'")
    .replace(/\s+/g, ' ')
    .trim();
  return shape.length > max ? `${shape.slice(0, max - 1)}…` : shape;
}

/** The first line of an engine's message, bounded: engines append the offending row after it. */
export function firstLine(message: string, max = 300): string {
  const line = message.split('\n', 1)[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
