import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { EventProducer } from '../../ingest/event-producer.ts';
import type { IngestState } from '../../ingest/loader/ingest-state.ts';
import { publishValidRecords } from '../../ingest/loader/loader.ts';
import { INGEST_RECORD_TYPES } from '../../ingest/loader/record-format.ts';
import {
  type BatchError,
  parseIngestLine,
  type ValidRecord,
  validateIngestBatch,
} from '../../ingest/loader/validate.ts';
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
  producer: EventProducer;
  state: IngestState;
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
  duplicates: Type.Integer({ description: 'records skipped because their id was ingested before' }),
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
 * `POST /v1/ingest/batches`: publishes a batch of records as events, all or nothing. The batch is
 * validated whole (records may refer to podcasts and episodes earlier in the same batch); if any
 * record is invalid, nothing is published and the problem lists every invalid record and field.
 * Records whose id was ingested before (by any source) are skipped, so a retried batch is harmless.
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
        request.log.debug({ ingest_token: token.id }, 'ingest token verified');
      },
      schema: {
        summary: 'Ingest a batch of records (all or nothing)',
        description:
          'Publishes podcasts, publishers, entities, episodes, transcripts, segments, clips, ad reads, chart rows and bias evaluations as events. Body: JSON `{"records": [...]}` or NDJSON (`application/x-ndjson`, one record per line). Authenticated by an ingest token, never an API key.',
        tags: ['Ingest'],
        security: [{ IngestToken: [] }],
        body: BatchBody,
        response: withProblems({ 202: BatchResult }),
      },
    },
    async (request, reply) => {
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
      const result = validateIngestBatch(records, services.state);
      if (!result.ok) {
        const invalid = new Set(result.errors.map((e) => e.index)).size;
        throw problem(
          'validation_error',
          `${invalid} of ${records.length} record(s) are invalid; nothing was ingested.`,
          { errors: result.errors.map((e) => ({ location: locationOf(e), message: e.reason })) },
        );
      }
      const seen = new Set<string>();
      const fresh: ValidRecord[] = [];
      for (const r of result.records) {
        if (seen.has(r.id) || services.state.has(r.id)) continue;
        seen.add(r.id);
        fresh.push(r);
      }
      const { produced, lines } = fresh.length
        ? await publishValidRecords(services.producer, services.state, fresh)
        : { produced: 0, lines: 0 };
      const byType: Record<string, number> = {};
      for (const r of fresh) byType[r.type] = (byType[r.type] ?? 0) + 1;
      return reply.code(202).send({
        received: records.length,
        published: produced,
        duplicates: records.length - fresh.length,
        transcript_lines: lines,
        by_type: byType,
      });
    },
  );
};
