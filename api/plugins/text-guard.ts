import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { MAX_TEXT_CHARS, textViolations } from '../../schemas/text-rules.ts';
import { type FieldError, problem } from '../problem.ts';
import { formatPath } from './problems.ts';

/**
 * Every string that reaches a route — path parameters, query parameters, the JSON body at any
 * depth, object keys included — is checked once, here, for what every store accepts
 * (schemas/text-rules.ts): no NUL, no lone surrogate, at most 100,000 characters. Runs before
 * schema validation on every route, so no route, store or log line sees such text; a violation
 * is a 422 `validation_error` naming each place (`path.id`, `query.q`,
 * `body.entities[0].entity_id`). Lengths per parameter are the routes' own schemas'.
 *
 * A body a route receives as raw text (NDJSON batch ingest) is parsed and checked by that route's
 * own validator (ingest/loader/validate.ts), with the same rules.
 */
const SOURCES = [
  ['path', (r: FastifyRequest) => r.params],
  ['query', (r: FastifyRequest) => r.query],
  ['body', (r: FastifyRequest) => (typeof r.body === 'string' ? undefined : r.body)],
] as const;

export function textErrors(request: FastifyRequest): FieldError[] {
  const errors: FieldError[] = [];
  for (const [location, read] of SOURCES) {
    const found = textViolations(read(request), {
      maxChars: () => MAX_TEXT_CHARS,
      limit: 20 - errors.length,
    });
    for (const v of found) {
      const path = v.path.map(String);
      errors.push({
        location: path.length > 0 ? `${location}.${formatPath(path)}` : location,
        message: v.reason,
        ...(v.value !== undefined ? { value: v.value } : {}),
      });
    }
  }
  return errors;
}

export const textGuardPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('preValidation', async (request) => {
    const errors = textErrors(request);
    if (errors.length === 0) return;
    throw problem('validation_error', errors.map((e) => `${e.location} ${e.message}`).join('; '), { errors });
  });
});
