import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { TopicSpec } from '../../schemas/topics.ts';
import type { EventProducer, OutgoingEvent } from '../event-producer.ts';
import type { IngestState } from './ingest-state.ts';
import { INGEST_RECORD_TYPES, type IngestRecordType, LOAD_ORDER } from './record-format.ts';
import {
  type IngestError,
  parseIngestLine,
  type ValidationContext,
  validateIngestRecord,
} from './validate.ts';

/**
 * The NDJSON bulk loader: reads files of `{"type", "data"}` records, validates each one
 * (`validateIngestRecord`), writes the invalid ones to `<file>.rejects.ndjson` with line, field
 * and reason while the valid ones proceed, and produces them through the EventProducer in
 * batches with several in flight. Records already ingested (by `type:id`, in the durable
 * ingest state) are skipped, so an interrupted load is resumed by running it again.
 *
 * A directory is loaded file by file in dependency order (publishers, podcasts, entities,
 * episodes, then what refers to episodes, then charts and bias evaluations), each file fully
 * acknowledged before the next starts.
 */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface LoadOptions {
  producer: EventProducer;
  state: IngestState;
  /** Produce records even when already ingested. */
  force?: boolean;
  batchRecords?: number;
  batchBytes?: number;
  inFlight?: number;
  /** Lines longer than this are rejected without being parsed. */
  maxLineBytes?: number;
  onProgress?: (p: LoadProgress) => void;
  progressIntervalMs?: number;
}

export interface TypeCounts {
  produced: number;
  skipped: number;
  rejected: number;
}

export interface LoadProgress {
  file: string;
  read: number;
  produced: number;
  skipped: number;
  rejected: number;
  /** Transcript lines produced. */
  lines: number;
  elapsedMs: number;
}

export interface FileReport extends LoadProgress {
  rejectsFile: string | null;
}

export interface LoadReport {
  files: FileReport[];
  read: number;
  produced: number;
  skipped: number;
  rejected: number;
  lines: number;
  byType: Record<string, TypeCounts>;
  seconds: number;
  recordsPerSecond: number;
  linesPerSecond: number;
}

/** The NDJSON files a path names: the file itself, or a directory's files in load order. */
export function inputFiles(input: string): string[] {
  const stat = fs.statSync(input);
  if (!stat.isDirectory()) return [input];
  return fs
    .readdirSync(input)
    .filter((f) => f.endsWith('.ndjson') && !f.endsWith('.rejects.ndjson'))
    .sort((a, b) => (LOAD_ORDER[a] ?? 100) - (LOAD_ORDER[b] ?? 100) || a.localeCompare(b))
    .map((f) => path.join(input, f));
}

export function rejectsFileFor(file: string): string {
  return `${file}.rejects.ndjson`;
}

export async function loadNdjson(input: string, options: LoadOptions): Promise<LoadReport> {
  const started = Date.now();
  const files = inputFiles(input);
  const byType: Record<string, TypeCounts> = Object.fromEntries(
    INGEST_RECORD_TYPES.map((t) => [t, { produced: 0, skipped: 0, rejected: 0 }]),
  );
  // Episodes and podcasts seen valid in this run count as known, as do those of earlier runs.
  const episodes = new Set<string>();
  const podcasts = new Set<string>();
  const ctx: ValidationContext = {
    knownEpisode: (id) => episodes.has(id) || options.state.knownEpisode(id),
    knownPodcast: (id) => podcasts.has(id) || options.state.knownPodcast(id),
  };
  const reports: FileReport[] = [];
  for (const file of files) {
    reports.push(await loadFile(file, options, ctx, byType, { episodes, podcasts }, started));
  }
  const seconds = (Date.now() - started) / 1000;
  const sum = (k: 'read' | 'produced' | 'skipped' | 'rejected' | 'lines') =>
    reports.reduce((s, r) => s + r[k], 0);
  return {
    files: reports,
    read: sum('read'),
    produced: sum('produced'),
    skipped: sum('skipped'),
    rejected: sum('rejected'),
    lines: sum('lines'),
    byType,
    seconds,
    recordsPerSecond: seconds > 0 ? sum('produced') / seconds : 0,
    linesPerSecond: seconds > 0 ? sum('lines') / seconds : 0,
  };
}

interface Pending {
  events: OutgoingEvent[];
  ids: string[];
  bytes: number;
  lines: number;
}

async function loadFile(
  file: string,
  options: LoadOptions,
  ctx: ValidationContext,
  byType: Record<string, TypeCounts>,
  seen: { episodes: Set<string>; podcasts: Set<string> },
  runStarted: number,
): Promise<FileReport> {
  const batchRecords = options.batchRecords ?? 500;
  const batchBytes = options.batchBytes ?? 8 * 1024 * 1024;
  const maxInFlight = options.inFlight ?? 4;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const rejectsFile = rejectsFileFor(file);
  fs.rmSync(rejectsFile, { force: true });
  let rejects: fs.WriteStream | null = null;
  const report: FileReport = {
    file,
    read: 0,
    produced: 0,
    skipped: 0,
    rejected: 0,
    lines: 0,
    elapsedMs: 0,
    rejectsFile: null,
  };
  const inRun = new Set<string>();
  const pending = new Map<TopicSpec, Pending>();
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  let lastProgress = Date.now();
  const progress = () => {
    report.elapsedMs = Date.now() - runStarted;
    options.onProgress?.({ ...report });
  };

  const reject = (
    lineNo: number,
    raw: string,
    errors: IngestError[],
    type?: IngestRecordType,
    id?: string,
  ) => {
    report.rejected++;
    if (type) byType[type]!.rejected++;
    rejects ??= fs.createWriteStream(rejectsFile);
    report.rejectsFile = rejectsFile;
    const first = errors[0]!;
    rejects.write(
      `${JSON.stringify({
        line: lineNo,
        type: type ?? null,
        id: id ?? null,
        field: first.field,
        reason: first.reason,
        errors,
        raw: raw.length > 2000 ? `${raw.slice(0, 2000)}…` : raw,
      })}\n`,
    );
  };

  const flush = async (topic: TopicSpec) => {
    const batch = pending.get(topic);
    if (!batch || batch.events.length === 0) return;
    pending.delete(topic);
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    if (failure) throw failure;
    const send = options.producer
      .send(topic, batch.events)
      .then(() => options.state.mark(batch.ids))
      .then(() => {
        report.produced += batch.events.length;
        report.lines += batch.lines;
      })
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => inFlight.delete(send));
    inFlight.add(send);
  };

  const rl = readline.createInterface({
    input: fs.createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let lineNo = 0;
  for await (const line of rl) {
    lineNo++;
    if (line.trim().length === 0) continue;
    report.read++;
    if (Buffer.byteLength(line) > maxLineBytes) {
      reject(lineNo, line, [
        {
          field: '(line)',
          reason: `line of ${Buffer.byteLength(line)} bytes exceeds the ${maxLineBytes}-byte input limit`,
        },
      ]);
      continue;
    }
    const parsed = parseIngestLine(line);
    if (!parsed.ok) {
      reject(lineNo, line, parsed.errors);
      continue;
    }
    const result = validateIngestRecord(parsed.record, ctx);
    if (!result.ok) {
      reject(lineNo, line, result.errors, result.type, result.id);
      continue;
    }
    if (result.type === 'episode') seen.episodes.add(String(result.value.id));
    if (result.type === 'podcast') seen.podcasts.add(String(result.value.id));
    if (!options.force && (inRun.has(result.id) || options.state.has(result.id))) {
      report.skipped++;
      byType[result.type]!.skipped++;
      continue;
    }
    inRun.add(result.id);
    byType[result.type]!.produced++;
    let batch = pending.get(result.topic);
    if (!batch) {
      batch = { events: [], ids: [], bytes: 0, lines: 0 };
      pending.set(result.topic, batch);
    }
    batch.events.push({ key: result.key, value: result.value });
    batch.ids.push(result.id);
    batch.bytes += result.bytes;
    if (result.type === 'transcript') batch.lines += (result.value.lines as unknown[]).length;
    if (batch.events.length >= batchRecords || batch.bytes >= batchBytes) await flush(result.topic);
    if (failure) throw failure;
    if (Date.now() - lastProgress >= (options.progressIntervalMs ?? 1000)) {
      lastProgress = Date.now();
      progress();
    }
  }
  for (const topic of [...pending.keys()]) await flush(topic);
  await Promise.all(inFlight);
  if (failure) throw failure;
  if (rejects) await new Promise<void>((resolve) => rejects!.end(resolve));
  progress();
  return report;
}
