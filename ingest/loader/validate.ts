import type avro from 'avsc';
import { loadSchema } from '../../schemas/avro-schemas.ts';
import { textViolations } from '../../schemas/text-rules.ts';
import type { TopicSpec } from '../../schemas/topics.ts';
import {
  INGEST_RECORD_TYPES,
  type IngestRecordType,
  RECORD_TYPES,
  type RecordTypeSpec,
} from './record-format.ts';

/**
 * Validation of one ingest record, shared by the NDJSON loader and the HTTP batch ingest route.
 * Pure: the only outside knowledge is the context's answer to "is this episode / podcast known?".
 *
 * Checks, in order: the envelope (`type` one of the record types, `data` an object); the value
 * against its topic's Avro schema (every offending field by path: missing, wrong type, unknown
 * field, bad enum symbol); text every store accepts (schemas/text-rules.ts: no NUL, no lone
 * surrogate, ids at most 256 characters, other strings at most 100,000); a few semantic rules (transcript line numbers increase, no interval
 * ends before it starts); references (a transcript, segments, clips or ad reads of an unknown
 * episode, an episode or bias evaluation of an unknown podcast); and the encoded size against
 * the topic's largest record.
 */
export interface ValidationContext {
  knownEpisode(id: string): boolean;
  knownPodcast(id: string): boolean;
}

export interface IngestError {
  /** Path of the offending field in the record, e.g. `data.lines.3.start_seconds`. */
  field: string;
  reason: string;
}

export interface ValidRecord {
  ok: true;
  type: IngestRecordType;
  topic: TopicSpec;
  key: string;
  /** `type:id`, the identity used to skip records already ingested. */
  id: string;
  value: Record<string, unknown>;
  /** Size on the topic (Confluent wire format + key). */
  bytes: number;
}

export interface InvalidRecord {
  ok: false;
  type?: IngestRecordType;
  id?: string;
  errors: IngestError[];
}

export type ValidationResult = ValidRecord | InvalidRecord;

const WIRE_HEADER = 5;
const MAX_ERRORS = 20;

function typeOf(spec: RecordTypeSpec): avro.Type {
  return loadSchema(spec.topic.valueSchema).type;
}

function describe(t: avro.Type): string {
  const any = t as avro.Type & {
    types?: avro.Type[];
    symbols?: string[];
    itemsType?: avro.Type;
    typeName: string;
  };
  switch (any.typeName) {
    case 'union:unwrapped':
    case 'union:wrapped':
      return (any.types ?? []).map(describe).join(' or ');
    case 'enum':
      return `one of ${(any.symbols ?? []).join(', ')}`;
    case 'record':
    case 'error':
      return 'an object';
    case 'array':
      return `an array of ${any.itemsType ? describe(any.itemsType) : 'items'}`;
    case 'map':
      return 'an object of values';
    case 'int':
      return 'a 32-bit integer';
    case 'long':
      return 'an integer';
    case 'double':
    case 'float':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'string':
      return 'a string';
    case 'null':
      return 'null';
    default:
      return any.typeName;
  }
}

function shown(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  const json = JSON.stringify(v) ?? String(v);
  return `${typeof v} ${json.length > 60 ? `${json.slice(0, 57)}...` : json}`;
}

function fieldPath(path: string[]): string {
  return ['data', ...path].join('.');
}

/** Every schema violation of `data`, by field path. */
export function schemaErrors(type: avro.Type, data: unknown): IngestError[] {
  const errors: IngestError[] = [];
  type.isValid(data, {
    errorHook: (path: string[], value: unknown, t: avro.Type) => {
      if (errors.length >= MAX_ERRORS) return;
      errors.push({
        field: fieldPath(path),
        reason:
          value === undefined
            ? `missing required field (${describe(t)})`
            : `expected ${describe(t)}, got ${shown(value)}`,
      });
    },
  });
  // Undeclared fields: a second pass that only reports records with extra keys.
  type.isValid(data, {
    noUndeclaredFields: true,
    errorHook: (path: string[], value: unknown, t: avro.Type) => {
      const fields = (t as avro.Type & { fields?: { name: string }[] }).fields;
      if (!fields || value === null || typeof value !== 'object' || Array.isArray(value)) return;
      for (const key of Object.keys(value)) {
        if (errors.length >= MAX_ERRORS) return;
        if (!fields.some((f) => f.name === key))
          errors.push({ field: fieldPath([...path, key]), reason: 'unknown field' });
      }
    },
  });
  return errors;
}

/** Strings no store accepts (schemas/text-rules.ts): NUL, lone surrogates, over-long text or ids. */
function textErrors(data: Record<string, unknown>): IngestError[] {
  return textViolations(data, { limit: MAX_ERRORS }).map((v) => ({
    field: fieldPath(v.path.map(String)),
    reason: v.reason,
  }));
}

const isIdField = (e: IngestError) => e.field === 'data.id' || e.field === 'data.episode_id';

function semanticErrors(type: IngestRecordType, data: Record<string, unknown>): IngestError[] {
  const errors: IngestError[] = [];
  const interval = (path: string, item: { start_seconds?: unknown; end_seconds?: unknown }) => {
    if (
      typeof item.start_seconds === 'number' &&
      typeof item.end_seconds === 'number' &&
      item.end_seconds < item.start_seconds
    ) {
      errors.push({
        field: `${path}.end_seconds`,
        reason: `ends (${item.end_seconds}) before it starts (${item.start_seconds})`,
      });
    }
  };
  if (type === 'transcript') {
    const lines = data.lines as { number: number; start_seconds: number; end_seconds: number }[];
    let previous = -Infinity;
    lines.forEach((l, i) => {
      if (l.number <= previous) {
        errors.push({
          field: `data.lines.${i}.number`,
          reason: `line numbers must increase (${l.number} after ${previous})`,
        });
      }
      previous = l.number;
      interval(`data.lines.${i}`, l);
    });
  } else if (type === 'segments') {
    (
      data.segments as { first_line: number; last_line: number; start_seconds: number; end_seconds: number }[]
    ).forEach((s, i) => {
      interval(`data.segments.${i}`, s);
      if (s.last_line < s.first_line)
        errors.push({ field: `data.segments.${i}.last_line`, reason: 'last_line is before first_line' });
    });
  } else if (type === 'clips') {
    (data.clips as object[]).forEach((c, i) => {
      interval(`data.clips.${i}`, c);
    });
  } else if (type === 'ad_reads') {
    (data.ad_reads as object[]).forEach((a, i) => {
      interval(`data.ad_reads.${i}`, a);
    });
  }
  return errors.slice(0, MAX_ERRORS);
}

/** Validates one parsed record. Pure apart from the context's lookups. */
export function validateIngestRecord(record: unknown, ctx: ValidationContext): ValidationResult {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    return {
      ok: false,
      errors: [{ field: '(record)', reason: `expected an object {"type", "data"}, got ${shown(record)}` }],
    };
  }
  const { type, data, ...rest } = record as { type?: unknown; data?: unknown };
  const envelope: IngestError[] = Object.keys(rest).map((k) => ({
    field: k,
    reason: 'unknown field (expected only "type" and "data")',
  }));
  if (typeof type !== 'string' || !(type in RECORD_TYPES)) {
    envelope.unshift({
      field: 'type',
      reason:
        type === undefined
          ? `missing required field (one of ${INGEST_RECORD_TYPES.join(', ')})`
          : `expected one of ${INGEST_RECORD_TYPES.join(', ')}, got ${shown(type)}`,
    });
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    envelope.push({
      field: 'data',
      reason:
        data === undefined ? 'missing required field (an object)' : `expected an object, got ${shown(data)}`,
    });
  }
  if (envelope.length > 0)
    return {
      ok: false,
      type: typeof type === 'string' && type in RECORD_TYPES ? (type as IngestRecordType) : undefined,
      errors: envelope,
    };

  const t = type as IngestRecordType;
  const spec: RecordTypeSpec = RECORD_TYPES[t];
  const value = data as Record<string, unknown>;
  const avroType = typeOf(spec);
  const errors = schemaErrors(avroType, value);
  const id = errors.some((e) => e.field === 'data.id' || e.field === 'data.episode_id')
    ? undefined
    : `${t}:${spec.id(value)}`;
  if (errors.length > 0) return { ok: false, type: t, id, errors };

  const text = textErrors(value);
  if (text.length > 0) return { ok: false, type: t, id: text.some(isIdField) ? undefined : id, errors: text };

  const semantic = semanticErrors(t, value);
  if (semantic.length > 0) return { ok: false, type: t, id, errors: semantic };

  const refs: IngestError[] = [];
  if (spec.episodeRef) {
    const episodeId = String(value[spec.episodeRef]);
    if (!ctx.knownEpisode(episodeId)) {
      refs.push({
        field: `data.${spec.episodeRef}`,
        reason: `unknown episode ${episodeId} (ingest the episode first)`,
      });
    }
  }
  if (spec.podcastRef) {
    const podcastId = String(value[spec.podcastRef]);
    if (!ctx.knownPodcast(podcastId)) {
      refs.push({
        field: `data.${spec.podcastRef}`,
        reason: `unknown podcast ${podcastId} (ingest the podcast first)`,
      });
    }
  }
  if (refs.length > 0) return { ok: false, type: t, id, errors: refs };

  const key = spec.key(value);
  const bytes = WIRE_HEADER + avroType.toBuffer(value).length + Buffer.byteLength(key);
  if (bytes > spec.topic.maxMessageBytes) {
    return {
      ok: false,
      type: t,
      id,
      errors: [
        {
          field: 'data',
          reason: `record of ${bytes} bytes exceeds the ${spec.topic.maxMessageBytes}-byte limit of topic ${spec.topic.name}`,
        },
      ],
    };
  }
  return { ok: true, type: t, topic: spec.topic, key, id: `${t}:${spec.id(value)}`, value, bytes };
}

/** Parses one NDJSON line; a line that is not JSON is an error naming the position. */
export function parseIngestLine(
  line: string,
): { ok: true; record: unknown } | { ok: false; errors: IngestError[] } {
  try {
    return { ok: true, record: JSON.parse(line) };
  } catch (err) {
    return { ok: false, errors: [{ field: '(line)', reason: `malformed JSON: ${(err as Error).message}` }] };
  }
}

export interface BatchError extends IngestError {
  /** Position of the record in the batch (0-based). */
  index: number;
}

/**
 * All-or-nothing validation of a batch (HTTP ingest): records may refer to episodes and
 * podcasts earlier in the same batch. Returns every error of every invalid record, or the
 * valid records in order.
 */
export function validateIngestBatch(
  records: unknown[],
  ctx: ValidationContext,
): { ok: true; records: ValidRecord[] } | { ok: false; errors: BatchError[] } {
  const episodes = new Set<string>();
  const podcasts = new Set<string>();
  const local: ValidationContext = {
    knownEpisode: (id) => episodes.has(id) || ctx.knownEpisode(id),
    knownPodcast: (id) => podcasts.has(id) || ctx.knownPodcast(id),
  };
  const valid: ValidRecord[] = [];
  const errors: BatchError[] = [];
  records.forEach((record, index) => {
    const result = validateIngestRecord(record, local);
    if (!result.ok) {
      for (const e of result.errors) errors.push({ index, ...e });
      return;
    }
    valid.push(result);
    if (result.type === 'episode') episodes.add(String(result.value.id));
    if (result.type === 'podcast') podcasts.add(String(result.value.id));
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, records: valid };
}
