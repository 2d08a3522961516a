import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errorKind } from '../../projections/store-errors.ts';
import { type FieldError, ProblemError, problem, toDocument } from '../problem.ts';
import { DATE_YEARS_PATTERN } from '../schemas.ts';

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** The schema that failed (ajv `verbose`). */
  parentSchema?: { description?: unknown };
}

const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

const CONTEXT_LOCATION: Record<string, string> = {
  querystring: 'query',
  body: 'body',
  params: 'path',
  headers: 'header',
};

/** `/entities/0/entity_id` → `entities[0].entity_id` */
function jsonPointerToPath(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `['entities', '0', 'entity_id']` → `entities[0].entity_id` */
export function formatPath(segments: string[]): string {
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function valueAt(root: unknown, segments: string[]): unknown {
  let node: unknown = root;
  for (const s of segments) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[s];
  }
  return node;
}

function rawQueryValue(url: string, name: string | undefined): unknown {
  if (!name) return undefined;
  const values = new URLSearchParams(url.split('?')[1] ?? '').getAll(name);
  return values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
}

function messageOf(e: AjvError): string {
  if (e.keyword === 'enum') return `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
  if (e.keyword === 'required') return 'is required';
  if (e.keyword === 'maxLength') return `must be at most ${e.params.limit} characters`;
  if (e.keyword === 'minLength') return `must be at least ${e.params.limit} characters`;
  if (e.keyword === 'maxItems') return `must have at most ${e.params.limit} items`;
  if (e.keyword === 'minItems') return `must have at least ${e.params.limit} items`;
  if (e.keyword === 'additionalProperties') return 'is not a known field';
  if (e.keyword === 'format' && (e.params.format === 'date' || e.params.format === 'date-time'))
    return 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time';
  if (e.keyword === 'pattern' && e.params.pattern === DATE_YEARS_PATTERN)
    return 'must be in the years 1910-2199';
  if (e.keyword === 'pattern') {
    const what = e.parentSchema?.description;
    return typeof what === 'string' ? `has the wrong form (expected: ${what})` : 'has the wrong form';
  }
  return e.message ?? 'is invalid';
}

export function validationProblem(error: FastifyError, request: FastifyRequest): ProblemError {
  const context = (error as FastifyError & { validationContext?: string }).validationContext ?? 'body';
  const location = CONTEXT_LOCATION[context] ?? context;
  const source =
    context === 'querystring'
      ? request.query
      : context === 'params'
        ? request.params
        : context === 'headers'
          ? request.headers
          : request.body;
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const e of (error.validation ?? []) as AjvError[]) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const segments = jsonPointerToPath(e.instancePath);
    if (e.keyword === 'required') segments.push(String(e.params.missingProperty));
    if (e.keyword === 'additionalProperties') segments.push(String(e.params.additionalProperty));
    const where = segments.length > 0 ? `${location}.${formatPath(segments)}` : location;
    if (seen.has(where)) continue;
    seen.add(where);
    // Report what the client sent, not the value validation coerced in place.
    const raw =
      context === 'querystring' ? rawQueryValue(request.url, segments[0]) : valueAt(source, segments);
    errors.push({ location: where, message: messageOf(e), value: raw });
  }
  if (errors.length === 0) errors.push({ location, message: error.message });
  const detail = errors.map((e) => `${e.location} ${e.message}`).join('; ');
  return problem('validation_error', detail, { errors });
}

function fromFastifyError(error: FastifyError, request: FastifyRequest): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error.validation) return validationProblem(error, request);
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return problem('invalid_json', 'The request body is not valid JSON.', {
        errors: [{ location: 'body', message: error.message }],
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problem('bad_request', 'The request body is empty but declared as JSON.', {
        errors: [{ location: 'body', message: 'is empty' }],
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem('payload_too_large', 'The request body is larger than this endpoint accepts.', {
        errors: [
          {
            location: 'header.content-length',
            message: 'too large',
            value: request.headers['content-length'],
          },
        ],
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem('unsupported_media_type', 'Send the request body as application/json.', {
        errors: [
          { location: 'header.content-type', message: 'unsupported', value: request.headers['content-type'] },
        ],
      });
  }
  // A store refusing what the request carries is the request's fault; a store that is down is
  // unavailability (projections/store-errors.ts). Neither is a 500.
  const kind = errorKind(error);
  if (kind === 'permanent') {
    return problem(
      'unprocessable_entity',
      'The request holds a value that cannot be stored or searched as given.',
      {
        errors: [{ location: 'request', message: 'holds a value the store refuses' }],
      },
    );
  }
  if (kind === 'transient') {
    return problem(
      'service_unavailable',
      'A store or service this request needs is unavailable; try again shortly.',
      {
        headers: { 'retry-after': '5' },
      },
    );
  }
  const status = error.statusCode ?? 500;
  if (status === 404) return problem('not_found', 'No such resource.');
  if (status === 429) return problem('rate_limited', error.message);
  if (status >= 400 && status < 500) return problem('bad_request', error.message, { status });
  return problem('internal_error', 'Something went wrong on our side. It has been logged; try again later.');
}

interface RouteShape {
  methods: string[];
  url: string;
  pattern: RegExp;
  /** Static segments: of two routes matching a path, the one with more is the one it names. */
  specificity: number;
}

/**
 * The path words of the `/v1` routes: for each route prefix (static segments as written, parameters as
 * `:`), the static segments that follow it somewhere. `/v1/podcasts/advertising/rankings` matches
 * `/v1/podcasts/:id/rankings`, but `advertising` is a word of `/v1/podcasts/advertising/…` in that
 * place: the path names no route rather than a podcast slugged "advertising".
 */
class PathWords {
  private readonly words = new Map<string, Set<string>>();

  add(url: string): void {
    const segs = url.split('/');
    for (let i = 1; i < segs.length; i++) {
      const seg = segs[i]!;
      if (seg === '' || seg.startsWith(':') || seg === '*') continue;
      const key = PathWords.prefix(segs, i);
      const set = this.words.get(key) ?? new Set<string>();
      set.add(seg);
      this.words.set(key, set);
    }
  }

  /** Whether a parameter of `url` takes, in `path`, a word another route has in that place. */
  shadowed(url: string, path: string): boolean {
    if (!url.startsWith('/v1/')) return false;
    const segs = url.split('/');
    const values = path.split('/');
    for (let i = 1; i < segs.length && i < values.length; i++) {
      if (!segs[i]!.startsWith(':')) continue;
      const value = decodeSegment(values[i]!);
      if (this.words.get(PathWords.prefix(segs, i))?.has(value)) return true;
    }
    return false;
  }

  private static prefix(segs: string[], end: number): string {
    return segs
      .slice(0, end)
      .map((s) => (s.startsWith(':') ? ':' : s))
      .join('/');
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for 405 answers and for checking the OpenAPI document. */
    knownRoutes: RouteShape[];
  }
}

function patternOf(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((seg) =>
      seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}

/**
 * The answer to a method no route of `path` has: 405 with `Allow` when the path is known (any
 * method, including ones the router has no routes for, such as QUERY, and ones Node cannot
 * parse), else 404.
 */
function noRouteProblem(routes: RouteShape[], method: string, path: string, words?: PathWords): ProblemError {
  // `/v1/alerts/disable` is its own resource, not `/v1/alerts/{id}` (as in OpenAPI, a concrete
  // path wins over a templated one): Allow lists the methods of the most specific routes.
  const matching = routes.filter((r) => r.pattern.test(path) && !words?.shadowed(r.url, path));
  const best = Math.max(...matching.map((r) => r.specificity));
  const allowed = new Set<string>();
  for (const r of matching) if (r.specificity === best) for (const m of r.methods) allowed.add(m);
  if (allowed.size === 0)
    return problem('route_not_found', `No route ${method} ${path}.`, {
      errors: [{ location: 'path', message: 'no operation of this API has this path', value: path }],
    });
  const allow = [...allowed].sort().join(', ');
  return problem('method_not_allowed', `${method} is not supported here; use ${allow}.`, {
    headers: { allow },
    errors: [{ location: 'method', message: `must be one of: ${allow}`, value: method }],
  });
}

/** The path of a request, without its query string. */
const pathOf = (url: string) => url.split('?')[0]!;

/**
 * Errors the router raises before a route runs (fastify `frameworkErrors`): a path parameter
 * longer than the router's limit (414) and a malformed percent-encoding (400).
 */
export function frameworkErrors(docsUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const err =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? problem('uri_too_long', 'A path segment is longer than this API accepts.', {
            errors: [{ location: 'path', message: 'a segment is too long' }],
          })
        : problem('bad_request', 'The request path is not valid (malformed percent-encoding).', {
            errors: [{ location: 'path', message: 'is not a valid URL path' }],
          });
    request.log.info({ error_code: err.code, status: err.status }, 'request refused');
    return reply
      .code(err.status)
      .type(PROBLEM_TYPE)
      .serializer(JSON.stringify)
      .send(toDocument(err, docsUrl, pathOf(request.url)));
  };
}

/** The method and path of a request line Node could not parse, when they can be read. */
function requestLine(raw: unknown): { method: string; path: string } | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\/[^ \r\n]*) HTTP\/1\.[01]\r?\n/.exec(
    raw.toString('latin1', 0, 8192),
  );
  return m ? { method: m[1]!, path: pathOf(m[2]!) } : undefined;
}

/**
 * Requests Node's HTTP parser refuses before fastify sees them (fastify `clientErrorHandler`):
 * headers or URL over the size limit (431), a method the parser does not know (405 on a known
 * path), a request that took too long (408), anything else malformed (400). Each is answered
 * with a problem document, and the connection closed, as Node does.
 */
export function clientErrorHandler(docsUrl: string) {
  return function (
    this: FastifyInstance,
    error: NodeJS.ErrnoException & { rawPacket?: unknown },
    socket: Socket,
  ) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const line = requestLine(error.rawPacket);
    let err: ProblemError;
    if (error.code === 'HPE_HEADER_OVERFLOW') {
      err = problem(
        'request_header_fields_too_large',
        'The request line and headers are larger than this API accepts; send less in the URL or headers.',
        { errors: [{ location: 'header', message: 'too large' }] },
      );
    } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      err = problem('request_timeout', 'The request was not received in time.');
    } else if (error.code === 'HPE_INVALID_METHOD' && line) {
      err = noRouteProblem(this.knownRoutes ?? [], line.method, line.path);
    } else {
      err = problem('bad_request', 'The request is not valid HTTP.');
    }
    this.log.info(
      { error_code: err.code, status: err.status, code: error.code },
      'request refused by the parser',
    );
    if (socket.writable) {
      const body = JSON.stringify(toDocument(err, docsUrl, line?.path ?? '/'));
      const headers = {
        'content-type': PROBLEM_TYPE,
        'content-length': String(Buffer.byteLength(body)),
        connection: 'close',
        ...err.options.headers,
      };
      socket.write(
        `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status]}\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('')}\r\n${body}`,
      );
    }
    socket.destroy();
  };
}

/**
 * Every error becomes a problem document: validation (422), malformed or oversized bodies
 * (400, 413, 415), unknown routes (404) and known routes called with a method they do not have
 * (405, QUERY included), and unexpected failures (500, details logged, never returned).
 */
export const problemsPlugin = fp<{ docsUrl: string }>(async (app: FastifyInstance, { docsUrl }) => {
  const routes: RouteShape[] = [];
  const words = new PathWords();
  app.decorate('knownRoutes', routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    words.add(route.url);
    routes.push({
      methods: methods.map((m) => m.toUpperCase()),
      url: route.url,
      pattern: patternOf(route.url),
      specificity: route.url.split('/').filter((s) => s !== '' && !s.startsWith(':') && s !== '*').length,
    });
  });

  function send(reply: FastifyReply, request: FastifyRequest, err: ProblemError) {
    for (const [k, v] of Object.entries(err.options.headers ?? {})) reply.header(k, v);
    return reply
      .code(err.status)
      .type(PROBLEM_TYPE)
      .serializer(JSON.stringify)
      .send(toDocument(err, docsUrl, pathOf(request.url)));
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // No route has this method: fastify reads the body of a QUERY (or any method with a body)
    // before its 404 handler, and refuses one without a content type; answer 405/404 instead.
    const noRoute = request.is404 && /^FST_ERR_(ROUTE|CTP)_/.test(error.code ?? '');
    const err = noRoute
      ? noRouteProblem(routes, request.method, pathOf(request.url), words)
      : fromFastifyError(error, request);
    // Store errors carry a statement's shape, never its parameters (projections/store-errors.ts).
    if (err.status === 500) request.log.error({ err: error }, 'request failed');
    // A 503 the route chose (semantic search still warming up, say) is an answer, not a fault.
    else if (error instanceof ProblemError && err.status >= 500)
      request.log.debug({ error_code: err.code, status: err.status }, 'request refused');
    else if (err.status >= 500 || err.code === 'unprocessable_entity')
      request.log.warn(
        { err: error, error_code: err.code, status: err.status },
        'request refused by a store',
      );
    else request.log.info({ error_code: err.code, status: err.status }, 'request refused');
    return send(reply, request, err);
  });

  app.setNotFoundHandler((request, reply) =>
    send(reply, request, noRouteProblem(routes, request.method, pathOf(request.url), words)),
  );

  // A route matched only because a parameter took another route's path word
  // (`/v1/podcasts/episodes/nope` is no episode slug "nope" under `/v1/podcasts/episodes/:id` only
  // when no such word exists; `/v1/podcasts/advertising/rankings` is no podcast "advertising"):
  // answered as no route, before authentication, like every path no route has.
  app.addHook('onRequest', async (request, reply) => {
    const url = request.routeOptions.url;
    if (!url?.includes(':')) return;
    const path = pathOf(request.url);
    if (!words.shadowed(url, path)) return;
    const err = noRouteProblem(routes, request.method, path, words);
    request.log.info({ error_code: err.code, status: err.status }, 'request refused');
    return send(reply, request, err);
  });
});
