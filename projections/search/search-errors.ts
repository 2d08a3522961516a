import {
  errorKind,
  firstLine,
  StoreDataError,
  StoreQueryError,
  StoreUnavailableError,
} from '../store-errors.ts';

/**
 * The search adapters' error classification (projections/store-errors.ts): which refusals are
 * about the data (a document the mapping refuses, a query the engine cannot parse, a vector of the
 * wrong size) and which about the engine (a lost connection, a timeout, an overloaded cluster).
 * Messages are cut to their first line: engines quote the offending document after it.
 */

/** OpenSearch error types that say the document or query itself is refused. */
const OPENSEARCH_DATA_ERRORS = new Set([
  'mapper_parsing_exception',
  'document_parsing_exception',
  'strict_dynamic_mapping_exception',
  'illegal_argument_exception',
  'parsing_exception',
  'x_content_parse_exception',
  'json_parse_exception',
  'query_shard_exception',
  'search_phase_execution_exception',
  'too_many_clauses',
  'number_format_exception',
]);

/** OpenSearch error types and statuses that say "try again". */
const OPENSEARCH_UNAVAILABLE_ERRORS = new Set([
  'es_rejected_execution_exception',
  'opensearch_rejected_execution_exception',
  'rejected_execution_exception',
  'cluster_block_exception',
  'unavailable_shards_exception',
  'no_shard_available_action_exception',
  'node_not_connected_exception',
  'circuit_breaking_exception',
  'process_cluster_event_timeout_exception',
]);
const UNAVAILABLE_STATUS = new Set([408, 429, 502, 503, 504]);

function passThrough(err: unknown): err is StoreDataError | StoreUnavailableError | StoreQueryError {
  return (
    err instanceof StoreDataError || err instanceof StoreUnavailableError || err instanceof StoreQueryError
  );
}

/** One OpenSearch error (a bulk item's, or a response's `error`) by its type and HTTP status. */
export function openSearchError(
  error: { type?: string; reason?: string } | undefined,
  status: number | undefined,
  what: string,
): Error {
  const type = error?.type;
  const message = firstLine(
    `${what}: ${type ?? `HTTP ${status}`}${error?.reason ? `: ${error.reason}` : ''}`,
  );
  const details = { store: 'opensearch', code: type ?? status, statement: what };
  if ((type && OPENSEARCH_UNAVAILABLE_ERRORS.has(type)) || (status && UNAVAILABLE_STATUS.has(status)))
    return new StoreUnavailableError(message, details);
  if ((type && OPENSEARCH_DATA_ERRORS.has(type)) || status === 400)
    return new StoreDataError(message, details);
  return new StoreQueryError(message, details);
}

/** An error the OpenSearch client threw: response errors by status and type, connection errors. */
export function classifyOpenSearchError(err: unknown): unknown {
  if (passThrough(err)) return err;
  const e = err as {
    name?: string;
    message?: string;
    meta?: { statusCode?: number; body?: { error?: { type?: string; reason?: string } | string } };
  };
  if (e?.name === 'ResponseError' && e.meta) {
    const body = e.meta.body?.error;
    return openSearchError(
      typeof body === 'string' ? { type: body } : body,
      e.meta.statusCode,
      'opensearch request',
    );
  }
  const message = firstLine(e?.message ?? String(err));
  if (errorKind(err) === 'transient') return new StoreUnavailableError(message, { store: 'opensearch' });
  return err;
}

const LANCE_DATA =
  /invalid user input|invalid input|invalid argument|schema error|arrow error|no field named|cannot cast|cast error|not supported|out of range|dimension|parse|utf-?8/i;
const LANCE_UNAVAILABLE =
  /too many open files|timed out|timeout|temporarily unavailable|retryable commit conflict|commit conflict|resource busy|no space left|is not open/i;

/** An error LanceDB (or the adapter's own checks) threw, by what its message says. */
export function classifyLanceDbError(err: unknown): unknown {
  if (passThrough(err) || !(err instanceof Error)) return err;
  const message = firstLine(err.message);
  if (LANCE_UNAVAILABLE.test(err.message) || errorKind(err) === 'transient')
    return new StoreUnavailableError(message, { store: 'lancedb' });
  if (LANCE_DATA.test(err.message)) return new StoreDataError(message, { store: 'lancedb' });
  return err;
}

/**
 * The index with every method's failure passed through `classify`, so its users (the search
 * projectors, the API's search reads) see the store errors the runner and the problem handler
 * understand. Properties and synchronous results pass unchanged.
 */
export function classifyingErrors<T extends object>(index: T, classify: (err: unknown) => unknown): T {
  return new Proxy(index, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = value.apply(target, args);
        } catch (err) {
          throw classify(err);
        }
        return result instanceof Promise
          ? result.catch((err: unknown) => {
              throw classify(err);
            })
          : result;
      };
    },
  });
}
