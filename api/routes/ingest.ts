import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import {
  type BatchIngest,
  BatchInProgressError,
  IdempotencyKeyReusedError,
} from '../../ingest/loader/batch-ingest.ts';
import type { IngestState } from '../../ingest/loader/ingest-state.ts';
import { INGEST_RECORD_TYPES } from '../../ingest/loader/record-format.ts';
import { type SlugHolders, slugClashes } from '../../ingest/loader/slug-clashes.ts';
import { type BatchError, parseIngestLine, validateIngestBatch } from '../../ingest/loader/validate.ts';
import { INGEST_TOKEN_PREFIX, type IngestTokens } from '../../projections/state/ingest-tokens.ts';
import type { FieldError } from '../problem.ts';
import { problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Authenticated by an ingest token instead of an API key. */
    ingest?: boolean;
  }
}

/** What the batch ingest route needs: where records go and who may send them. */
export interface IngestServices {
  /** Publishes validated batches exactly once per record (intent, append, record). */
  batches: Pick<BatchIngest, 'publish'>;
  /** Answers "is this episode / podcast known?" for validation. */
  state: IngestState;
  /** Which id holds a slug in the catalog: a record may not take another id's slug. */
  slugHolders: SlugHolders;
  tokens: IngestTokens;
}

export const MAX_BATCH_RECORDS = 10_000;

const IngestRecord = Type.Object(
  {
    type: Type.String({ enum: [...INGEST_RECORD_TYPES] }),
    data: Type.Object({}, { additionalProperties: true, description: 'the Avro value of the type' }),
  },
  { additionalProperties: false },
);

const BatchBody = Type.Object({
  records: Type.Array(IngestRecord, { minItems: 1, maxItems: MAX_BATCH_RECORDS }),
});

const BatchResult = Type.Object({
  received: Type.Integer({ description: 'records in the batch' }),
  published: Type.Integer({ description: 'records published as events' }),
  duplicates: Type.Integer({
    description:
      'records not published by this batch: ingested before (by any source, or by an attempt of this batch that was interrupted), or repeated in the batch',
  }),
  transcript_lines: Type.Integer({ description: 'transcript lines among the published records' }),
  by_type: Type.Record(Type.String(), Type.Integer(), { description: 'published records per type' }),
});

/** `data.lines.3.start_seconds` → `body.records[7].data.lines[3].start_seconds` */
function locationOf(e: BatchError): string {
  const field = e.field
    .split('.')
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
    .join('');
  const inRecord = e.field.startsWith('(') ? '' : field;
  return `body.records[${e.index}]${inRecord}`;
}

function credentialOf(request: FastifyRequest): { token: string; via: string } | undefined {
  const header = request.headers['x-ingest-token'];
  if (typeof header === 'string' && header.length > 0)
    return { token: header.trim(), via: 'header.x-ingest-token' };
  const m = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '');
  if (m) return { token: m[1]!.trim(), via: 'header.authorization' };
  return undefined;
}

/** The records of a JSON (`{"records": [...]}`) or NDJSON body, or the lines that are not JSON. */
function recordsOf(request: FastifyRequest): unknown[] {
  if (typeof request.body !== 'string') {
    const body = request.body as { records?: unknown } | null;
    if (body === null || typeof body !== 'object' || !Array.isArray(body.records)) {
      throw problem('validation_error', 'The body must be an object with a "records" array.', {
        errors: [{ location: 'body.records', message: 'is required (an array of {type, data})' }],
      });
    }
    return body.records;
  }
  const records: unknown[] = [];
  const errors: FieldError[] = [];
  for (const [i, line] of request.body.split('\n').entries()) {
    if (line.trim() === '') continue;
    const parsed = parseIngestLine(line);
    if (parsed.ok) records.push(parsed.record);
    else
      errors.push({
        location: `body.records[${records.length}]`,
        message: `line ${i + 1}: ${parsed.errors[0]!.reason}`,
      });
    if (!parsed.ok) records.push(undefined);
  }
  if (errors.length > 0) {
    throw problem(
      'validation_error',
      `${errors.length} line(s) of the batch are not JSON; nothing was ingested.`,
      {
        errors,
      },
    );
  }
  return records;
}

/**
 * The `Idempotency-Key` header: 1 to 255 visible ASCII characters (an RFC 8941 string in quotes
 * is taken without its quotes). Undefined when absent.
 */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? raw.join(',') : raw;
  const key = /^"(.*)"$/.exec(text)?.[1] ?? text;
  if (!/^[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?$/.test(key)) {
    throw problem(
      'validation_error',
      'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
      {
        errors: [
          { location: 'header.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
        ],
      },
    );
  }
  return key;
}

/** The batch's identity for its key: a key stands for one batch (the same records, in order). */
function fingerprintOf(records: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(records)).digest('base64url');
}

/**
 * `POST /v1/ingest/batches`: publishes a batch of records as events, all or nothing. The batch is
 * validated whole (records may refer to podcasts and episodes earlier in the same batch); if any
 * record is invalid, nothing is published and the problem lists every invalid record and field.
 * Records whose id was ingested before (by any source) are skipped, and every record is published
 * at most once even when the service is killed mid-batch (BatchIngest); with an
 * `Idempotency-Key`, a retry gets the first attempt's answer.
 */
export const ingestRoutes: FastifyPluginAsyncTypebox<{
  services: IngestServices;
  bodyLimitBytes: number;
}> = async (app, { services, bodyLimitBytes }) => {
  app.addContentTypeParser(
    'application/x-ndjson',
    { parseAs: 'string', bodyLimit: bodyLimitBytes },
    (_req, body, done) => done(null, body),
  );

  const tokenOf = new WeakMap<FastifyRequest, string>();

  app.post(
    '/v1/ingest/batches',
    {
      config: { ingest: true },
      bodyLimit: bodyLimitBytes,
      // Records are checked against their Avro schemas by the ingest validator; the JSON schema
      // here documents the body and must not coerce or strip anything first.
      validatorCompiler: () => () => true,
      onRequest: async (request) => {
        const credential = credentialOf(request);
        if (!credential) {
          throw problem('authentication_required', 'Send an ingest token as Authorization: Bearer.', {
            errors: [{ location: 'header.authorization', message: 'is required (Bearer <ingest token>)' }],
            headers: { 'www-authenticate': 'Bearer realm="earshot-ingest"' },
          });
        }
        if (!credential.token.startsWith(INGEST_TOKEN_PREFIX)) {
          throw problem(
            'invalid_ingest_token',
            'Batch ingest takes an ingest token (eit_…), never an API key.',
            {
              errors: [
                { location: credential.via, message: `is not an ingest token (${INGEST_TOKEN_PREFIX}…)` },
              ],
              headers: { 'www-authenticate': 'Bearer realm="earshot-ingest", error="invalid_token"' },
            },
          );
        }
        const token = await services.tokens.authenticate(credential.token);
        if (!token) {
          throw problem('invalid_ingest_token', 'The ingest token is unknown or has been revoked.', {
            errors: [{ location: credential.via, message: 'is not a valid ingest token' }],
            headers: { 'www-authenticate': 'Bearer realm="earshot-ingest", error="invalid_token"' },
          });
        }
        tokenOf.set(request, token.id);
        request.log.debug({ ingest_token: token.id }, 'ingest token verified');
      },
      schema: {
        summary: 'Ingest a batch of records (all or nothing)',
        description:
          'Publishes podcasts, publishers, entities, episodes, transcripts, segments, clips, ad reads, chart rows and bias evaluations as events. Body: JSON `{"records": [...]}` or NDJSON (`application/x-ndjson`, one record per line). Authenticated by an ingest token, never an API key. ' +
          'A publisher, podcast, entity or episode whose `slug` another id holds (in the catalog or earlier in the batch) is refused like any invalid record. ' +
          'Every record (by `type:id`) is published at most once, also when a retry follows a crash of the service: records ingested before are counted in `duplicates`. ' +
          'With an `Idempotency-Key`, a retry of the same batch (within 24 h) is answered with the first complete answer (header `Idempotent-Replayed: true`); the key used for a different batch is 422 `idempotency_key_reused`; while another process is still publishing the batch, 409 `conflict` with `Retry-After`.',
        tags: ['Ingest'],
        security: [{ IngestToken: [] }],
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 255,
              description:
                'a client-chosen key for this batch (e.g. a UUID), scoped to the ingest token and kept 24 h; a retry with it publishes nothing twice and gets the first answer',
            }),
          ),
        }),
        body: BatchBody,
        response: withProblems({ 202: BatchResult }),
      },
    },
    async (request, reply) => {
      const key = idempotencyKeyOf(request);
      const records = recordsOf(request);
      if (records.length === 0 || records.length > MAX_BATCH_RECORDS) {
        throw problem('validation_error', `A batch holds 1 to ${MAX_BATCH_RECORDS} records.`, {
          errors: [
            {
              location: 'body.records',
              message: `must have between 1 and ${MAX_BATCH_RECORDS} items`,
              value: records.length,
            },
          ],
        });
      }
      const validated = validateIngestBatch(records, services.state);
      const result = validated.ok
        ? await slugClashes(validated.records, services.slugHolders).then((errors) =>
            errors.length > 0 ? { ok: false as const, errors } : validated,
          )
        : validated;
      if (!result.ok) {
        const invalid = new Set(result.errors.map((e) => e.index)).size;
        throw problem(
          'validation_error',
          `${invalid} of ${records.length} record(s) are invalid; nothing was ingested.`,
          { errors: result.errors.map((e) => ({ location: locationOf(e), message: e.reason })) },
        );
      }
      try {
        const outcome = await services.batches.publish({
          records: result.records,
          ...(key
            ? {
                idempotency: { scope: `${tokenOf.get(request)} ${key}`, fingerprint: fingerprintOf(records) },
              }
            : {}),
        });
        if (outcome.replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(202).send(outcome.result);
      } catch (err) {
        if (err instanceof IdempotencyKeyReusedError) {
          throw problem('idempotency_key_reused', 'This Idempotency-Key was used for a different batch.', {
            errors: [{ location: 'header.idempotency-key', message: err.message, value: key }],
          });
        }
        if (err instanceof BatchInProgressError) {
          throw problem('conflict', `${err.message}; retry shortly.`, {
            errors: [
              err.what === 'key'
                ? { location: 'header.idempotency-key', message: err.message, value: key }
                : { location: 'body.records', message: err.message },
            ],
            headers: { 'retry-after': '1' },
          });
        }
        throw err;
      }
    },
  );
};
