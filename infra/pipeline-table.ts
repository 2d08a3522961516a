import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type PipelineStep,
  type PipelineTask,
  type Rebuild,
  STEP_ROLES,
  type StepOutputs,
  type StepRole,
  type StoreName,
  type StoreOutput,
} from '../processors/pipeline.ts';
import { type Retention, TOPICS, type TopicSpec } from '../schemas/topics.ts';
import { buildPlatform } from './composition.ts';
import { loadConfig } from './config.ts';
import { silentLogger } from './logger.ts';
import { declarePipeline, type Pipeline } from './pipeline.ts';

/**
 * The tables of docs/pipeline.md rendered from the pipeline's declaration (infra/pipeline.ts) and
 * the topic table (schemas/topics.ts): each topic with its key, schema, partitions, retention and
 * dead-letter topic and the steps and timers that write and read it; each step and timer with its
 * role, inputs, outputs and rebuild. The page holds each between two markers;
 * `test/int/pipeline-declaration.int.test.ts` fails when it is stale, and `npm run docs:pipeline`
 * writes it again.
 */
export type TableName = 'topics' | 'steps';

export const beginMarker = (table: TableName) =>
  `<!-- ${table} table: generated from infra/pipeline.ts by npm run docs:pipeline -->`;
export const endMarker = (table: TableName) => `<!-- end of ${table} table -->`;

const MB = 1024 * 1024;
const STORE_NAMES: Record<StoreName, string> = {
  state: 'state store',
  analytics: 'analytics store',
  search: 'search index',
  'data-dir': 'data dir',
};

const code = (s: string) => `\`${s}\``;

function retention(r: Retention): string {
  if (r.policy === 'compact') return 'compact';
  if (r.ms < 0) return 'kept forever';
  return `delete after ${Math.round(r.ms / 86_400_000)} days`;
}

interface Entry {
  role: StepRole;
  name: string;
  timer: boolean;
}

/** Names grouped by role: "`a`, `b` (processors); `c` (projectors)"; a name only a timer has says so. */
function byRole(entries: Entry[]): string {
  const groups = STEP_ROLES.map((role) => {
    const mine = entries.filter((e) => e.role === role);
    const names = [...new Set(mine.map((e) => e.name))].map((name) =>
      mine.some((e) => e.name === name && !e.timer) ? code(name) : `${code(name)} timer`,
    );
    return names.length > 0 ? `${names.join(', ')} (${role})` : '';
  }).filter(Boolean);
  return groups.join('; ');
}

function schemaCell(spec: TopicSpec): string {
  const size = spec.maxMessageBytes === MB ? '' : ` (records up to ${spec.maxMessageBytes / MB} MB)`;
  return `${code(spec.valueSchema)}${size}`;
}

function table(header: string[], align: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${align.join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

export function topicTable(pipeline: Pipeline): string {
  const writers = [
    ...pipeline.steps.map((s) => ({ ...entry(s), topics: s.outputs.topics ?? [] })),
    ...pipeline.tasks.map((t) => ({ ...entry(t), topics: t.outputs.topics ?? [] })),
  ];
  const rows = Object.values(TOPICS).map((spec: TopicSpec) => {
    const written = writers.filter((w) => w.topics.some((t) => t.name === spec.name));
    const read = pipeline.steps.filter((s) =>
      s.definition.inputs.some((t: TopicSpec) => t.name === spec.name),
    );
    return [
      code(spec.name),
      spec.key,
      schemaCell(spec),
      String(spec.partitions),
      retention(spec.retention),
      code(spec.deadLetter),
      written.length > 0 ? byRole(written) : 'the sources (`ingest`)',
      read.length > 0 ? byRole(read.map(entry)) : '—',
    ];
  });
  return table(
    ['topic', 'key', 'value schema', 'partitions', 'retention', 'dead letters', 'written by', 'read by'],
    [
      '-------',
      '-----',
      '--------------',
      '-----------:',
      '-----------',
      '--------------',
      '------------',
      '---------',
    ],
    rows,
  );
}

function entry(x: PipelineStep | PipelineTask): Entry {
  return 'definition' in x
    ? { role: x.role, name: x.definition.name, timer: false }
    : { role: x.role, name: x.name, timer: true };
}

function outputsCell(outputs: StepOutputs): string {
  const parts = [
    ...(outputs.topics ?? []).map((t) => code(t.name)),
    ...(outputs.stores ?? []).map((s: StoreOutput) =>
      s.tables ? `${STORE_NAMES[s.store]}: ${s.tables.join(', ')}` : STORE_NAMES[s.store],
    ),
  ];
  return parts.join('; ');
}

function rebuildCell(rebuild: Rebuild): string {
  return 'projection' in rebuild ? code(rebuild.projection.name) : `never: ${rebuild.never}`;
}

export function stepTable(pipeline: Pipeline): string {
  const rows: string[][] = [];
  for (const role of STEP_ROLES) {
    const steps = pipeline.steps.filter((s) => s.role === role);
    const seen = new Set<unknown>();
    for (const s of steps) {
      if (seen.has(s.definition)) continue;
      seen.add(s.definition);
      const members = steps.filter((o) => o.definition === s.definition).length;
      rows.push([
        members > 1 ? `${code(s.definition.name)} (${members} members)` : code(s.definition.name),
        role,
        s.definition.inputs.map((t: TopicSpec) => code(t.name)).join(', '),
        outputsCell(s.outputs),
        rebuildCell(s.rebuild),
      ]);
    }
    for (const t of pipeline.tasks.filter((x) => x.role === role)) {
      rows.push([`${code(t.name)} timer`, role, '—', outputsCell(t.outputs), '—']);
    }
  }
  return table(
    ['step', 'role', 'reads', 'writes', 'rebuild'],
    ['------', '------', '-------', '--------', '---------'],
    rows,
  );
}

/** The page with one of its tables replaced; throws when the markers are missing. */
export function withTable(page: string, name: TableName, rendered: string): string {
  const begin = page.indexOf(beginMarker(name));
  const end = page.indexOf(endMarker(name));
  if (begin < 0 || end < begin) throw new Error(`docs/pipeline.md has no markers of the ${name} table`);
  return `${page.slice(0, begin + beginMarker(name).length)}\n${rendered}\n${page.slice(end)}`;
}

/** The page's tables as the declaration renders them. */
export function withTables(page: string, pipeline: Pipeline): string {
  return withTable(withTable(page, 'topics', topicTable(pipeline)), 'steps', stepTable(pipeline));
}

/** The page that holds the tables. */
export const PIPELINE_PAGE = fileURLToPath(new URL('../docs/pipeline.md', import.meta.url));

/**
 * The page with its tables as this code declares the pipeline. The declaration is wired to a platform, so
 * one is built on the embedded engines in a temporary data dir (nothing of it is kept).
 */
export async function renderedPage(page: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'earshot-pipeline-'));
  try {
    const platform = await buildPlatform(loadConfig({ EARSHOT_DATA_DIR: dir }), silentLogger());
    try {
      return withTables(page, declarePipeline(platform));
    } finally {
      await platform.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const page = fs.readFileSync(PIPELINE_PAGE, 'utf8');
  fs.writeFileSync(PIPELINE_PAGE, await renderedPage(page));
  console.log(`wrote the topics and steps tables of ${PIPELINE_PAGE}`);
}
