import { type DestinationStream, type Logger, pino, stdSerializers } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export const REDACTED = '[REDACTED]';

/**
 * Query parameters that carry credentials: API keys, the tokens of mailed links, and the
 * authorization code an OAuth install brings back to the dashboard.
 */
const CREDENTIAL_PARAMETERS = new Set(['api-key', 'api_key', 'apikey', 'token', 'access_token', 'code']);

/** Headers that carry credentials. */
const CREDENTIAL_HEADERS = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-ingest-token',
  'payment-signature',
  'cookie',
  'set-cookie',
];

/**
 * Credential-shaped strings anywhere in a line (API keys, ingest tokens, verification tokens,
 * webhook secrets), however they got there: a last line of defence behind the rules above.
 * Display prefixes (`esk_` + 6) are shorter and stay readable.
 */
const CREDENTIAL_SHAPES = /\b(esk|eit|nev|whsec)_[A-Za-z0-9+/=_-]{8,}/g;

/** Fields of errors that hold the values a failed statement was run with. */
const STATEMENT_VALUES = ['params', 'parameters', 'values', 'queryOptions'];

/**
 * `/v1/x?limit=2&api-key=esk_…` → `/v1/x?limit=2&api-key=[REDACTED]`. Parameter names are
 * compared decoded and case-insensitively (`API%2Dkey` is redacted too); everything else is kept
 * as it was sent.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replaceAll('+', ' '));
      } catch {
        // not percent-encoded correctly: compare as sent
      }
      return CREDENTIAL_PARAMETERS.has(name.trim().toLowerCase()) ? `${rawName}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

/** The request fields fastify logs, with credentials in the query string redacted. */
function requestSerializer(req: unknown): unknown {
  if (req === null || typeof req !== 'object') return req;
  const r = req as {
    method?: string;
    url?: unknown;
    host?: string;
    ip?: string;
    headers?: Record<string, unknown>;
    socket?: { remotePort?: number };
  };
  return {
    method: r.method,
    url: typeof r.url === 'string' ? redactUrl(r.url) : undefined,
    version: r.headers?.['accept-version'],
    host: r.host,
    remoteAddress: r.ip,
    remotePort: r.socket?.remotePort,
  };
}

/** An error as pino serialises it, without the parameter values of a failed statement. */
function errorSerializer(err: unknown): unknown {
  const out = stdSerializers.err(err as Error) as unknown;
  const strip = (node: unknown, depth: number) => {
    if (node === null || typeof node !== 'object' || depth > 4) return;
    const fields = node as Record<string, unknown>;
    for (const field of STATEMENT_VALUES) delete fields[field];
    // Nested errors were serialised into copies of the same shape; other objects are the
    // caller's and are left alone.
    for (const value of Object.values(fields)) {
      if (
        value !== null &&
        typeof value === 'object' &&
        Object.getPrototypeOf(value) === Object.getPrototypeOf(out)
      ) {
        strip(value, depth + 1);
      }
    }
    if (Array.isArray(fields.aggregateErrors)) for (const e of fields.aggregateErrors) strip(e, depth + 1);
  };
  if (out !== err) strip(out, 0);
  return out;
}

/** Where credential headers may appear in a logged object. */
function headerPaths(): string[] {
  const paths: string[] = [];
  for (const name of CREDENTIAL_HEADERS) {
    for (const spelling of new Set([
      name,
      name.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase()),
    ])) {
      const key = `["${spelling}"]`;
      paths.push(`headers${key}`, `*.headers${key}`, `*.*.headers${key}`);
    }
  }
  return paths;
}

/** `json`: one JSON object per line; `pretty`: one coloured, human-readable line per entry. */
export type LogFormat = 'json' | 'pretty';

/** `auto` is pretty when stdout is a terminal, JSON lines otherwise (a file, a pipe, a collector). */
export function logFormatFor(
  setting: 'auto' | LogFormat,
  stdoutIsTerminal = Boolean(process.stdout.isTTY),
): LogFormat {
  if (setting !== 'auto') return setting;
  return stdoutIsTerminal ? 'pretty' : 'json';
}

/**
 * Human-readable lines for a terminal. Formatting happens after redaction: pino-pretty reads the
 * JSON line the hooks below have already cleaned. Synchronous, so the lines and the ready block
 * (written to stderr) keep their order.
 */
function prettyStream(destination?: DestinationStream): DestinationStream {
  return pretty({
    sync: true,
    colorize: destination === undefined && Boolean(process.stdout.isTTY),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
    singleLine: true,
    ...(destination ? { destination } : {}),
  });
}

/**
 * The service's logger: JSON lines (pino) with credentials redacted everywhere — query
 * parameters in request URLs, credential headers wherever an object holding them is logged,
 * statement parameter values in errors, and any credential-shaped string left in a line.
 * `format: 'pretty'` renders the same redacted entries as readable lines.
 */
export function createLogger(
  level: string,
  name = 'earshot',
  destination?: DestinationStream,
  format: LogFormat = 'json',
): Logger {
  return pino(
    {
      name,
      level,
      base: { pid: process.pid },
      serializers: { req: requestSerializer, err: errorSerializer },
      redact: { paths: headerPaths(), censor: REDACTED },
      hooks: { streamWrite: (line) => line.replace(CREDENTIAL_SHAPES, `$1_${REDACTED}`) },
    },
    format === 'pretty' ? prettyStream(destination) : destination,
  );
}

/** Logger for tests and tools that must stay quiet unless asked. */
export function silentLogger(): Logger {
  return pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}
