import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errorKind } from '../../projections/store-errors.ts';
import { type FieldError, ProblemError, problem, toDocument } from '../problem.ts';

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

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
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for 405 answers and for checking the OpenAPI document. */
    knownRoutes: { methods: string[]; url: string }[];
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
 * Every error becomes a problem document: validation (422), malformed or oversized bodies
 * (400, 413, 415), unknown routes (404) and known routes called with the wrong method (405),
 * and unexpected failures (500, details logged, never returned).
 */
export const problemsPlugin = fp<{ docsUrl: string }>(async (app: FastifyInstance, { docsUrl }) => {
  const routes: RouteShape[] = [];
  app.decorate('knownRoutes', routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    routes.push({
      methods: methods.map((m) => m.toUpperCase()),
      url: route.url,
      pattern: patternOf(route.url),
    });
  });

  function send(reply: FastifyReply, request: FastifyRequest, err: ProblemError) {
    for (const [k, v] of Object.entries(err.options.headers ?? {})) reply.header(k, v);
    return reply
      .code(err.status)
      .type('application/problem+json; charset=utf-8')
      .serializer(JSON.stringify)
      .send(toDocument(err, docsUrl, request.url.split('?')[0]!));
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const err = fromFastifyError(error, request);
    // Store errors carry a statement's shape, never its parameters (projections/store-errors.ts).
    if (err.status === 500) request.log.error({ err: error }, 'request failed');
    else if (err.status >= 500 || err.code === 'unprocessable_entity')
      request.log.warn(
        { err: error, error_code: err.code, status: err.status },
        'request refused by a store',
      );
    else request.log.info({ error_code: err.code, status: err.status }, 'request refused');
    return send(reply, request, err);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = new Set<string>();
    for (const r of routes) if (r.pattern.test(path)) for (const m of r.methods) allowed.add(m);
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      return send(
        reply,
        request,
        problem('method_not_allowed', `${request.method} is not supported here; use ${allow}.`, {
          headers: { allow },
          errors: [{ location: 'method', message: `must be one of: ${allow}`, value: request.method }],
        }),
      );
    }
    return send(reply, request, problem('not_found', `No route ${request.method} ${path}.`));
  });
});
