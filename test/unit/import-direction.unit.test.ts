import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ImportEdge, importsOf, readImportGraph } from '../support/import-graph.ts';

/**
 * Imports run one way (docs/architecture.md): `infra/` wires everything; below it, each folder
 * imports only the folders listed here, routes are given their services, adapters are imported by
 * `infra/` alone, and no two modules import each other. The rules are checked over the import
 * graph of the source (test/support/import-graph.ts); an edge no rule allows fails the test.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The source folders whose imports are checked (tests import what they test). */
const SOURCE = ['schemas', 'ingest', 'processors', 'projections', 'api', 'infra', 'bin'];

interface AllowedEdge {
  from: string;
  to: string;
  /** When set, only these files of the two folders (repository-relative paths). */
  only?: { from?: RegExp; to?: RegExp };
  why: string;
}

/** The edges between top-level folders; any other edge between two folders is refused. */
const ALLOWED_EDGES: AllowedEdge[] = [
  { from: 'bin', to: 'infra', why: 'the `earshot` command starts the CLI' },
  ...['schemas', 'ingest', 'processors', 'projections', 'api'].map((to) => ({
    from: 'infra',
    to,
    why: 'infra wires adapters, steps, roles and the API from configuration',
  })),
  {
    from: 'infra',
    to: 'test',
    only: { from: /^infra\/cli\.ts$/, to: /^test\/bench\/run\.ts$/ },
    why: '`earshot bench` runs the bench suite, which lives with the tests (loaded by URL at run time)',
  },
  { from: 'ingest', to: 'schemas', why: 'sources turn outside data into the events the schemas declare' },
  {
    from: 'ingest',
    to: 'processors',
    only: { from: /^ingest\/corpus\//, to: /^processors\/(mentions|speakers)\// },
    why: 'the corpus generator scores the detectors it makes data for, with their own tokenizer',
  },
  { from: 'processors', to: 'schemas', why: 'steps read and write the events the schemas declare' },
  {
    from: 'processors',
    to: 'ingest',
    why: 'steps consume and produce through the event log port, the producer and the codec',
  },
  {
    from: 'processors',
    to: 'projections',
    why: 'steps read the stores they need (state, catalog) and classify store errors',
  },
  { from: 'projections', to: 'schemas', why: 'projectors read events and the store schemas' },
  {
    from: 'projections',
    to: 'processors',
    only: { to: /^processors\/(consumer-runner|step-result)\.ts$/ },
    why: "projectors are steps: they implement the consumer runner's step contract",
  },
  { from: 'api', to: 'schemas', why: 'routes validate and present what the schemas declare' },
  {
    from: 'api',
    to: 'projections',
    why: 'routes are given query services over the stores, and read their types',
  },
  {
    from: 'api',
    to: 'ingest',
    only: { to: /^ingest\/loader\// },
    why: 'batch ingest validates and produces records as the loader does',
  },
  {
    from: 'api',
    to: 'processors',
    only: { to: /^processors\/[^/]+\/index\.ts$/ },
    why: 'a processor module is used through its entry (index.ts), never its internals',
  },
];

/** Folders that may not import infra/: configuration is passed in. */
const BELOW_INFRA = ['api', 'processors', 'projections', 'ingest', 'schemas'];

/** Route files: given their services, they import no other route, no adapter, no processor internals. */
const ROUTE = /^api\/routes\/[^/]+\.ts$/;

/** Adapters of a port, by name or folder; only infra/ (and their own folder) imports them. */
const ADAPTER_FILE =
  /(^|\/)([^/]+-event-log|[^/]+-schema-registry|chdb-[^/]+|clickhouse-[^/]+|lancedb-[^/]+|opensearch-[^/]+|pglite-[^/]+|postgres-[^/]+|onnx-[^/]+|openai-[^/]+|worker-embeddings)\.ts$/;
const ADAPTER_FOLDERS = ['projections/search/lancedb/', 'projections/search/opensearch/'];

interface Exception {
  /** The importing file. */
  from: string;
  /** The imported file, or a folder (ending in `/`). */
  to: string;
  why: string;
}

/**
 * Edges that break a rule today, each named with its reason. Empty: add one only with a reason
 * and the work that removes it; an exception that no longer matches anything fails the test, so
 * none outlives its reason.
 */
const TEMPORARY_EXCEPTIONS: Exception[] = [];

const topOf = (file: string) => file.split('/')[0]!;
/** A module: a second-level folder (`projections/search`), or a file at the top of its folder. */
const moduleOf = (file: string) => {
  const parts = file.split('/');
  return parts.length <= 2 ? file : parts.slice(0, 2).join('/');
};
const isAdapter = (file: string) =>
  ADAPTER_FILE.test(file) || ADAPTER_FOLDERS.some((f) => file.startsWith(f));
const sameAdapterFolder = (from: string, to: string) =>
  path.posix.dirname(from) === path.posix.dirname(to) ||
  ADAPTER_FOLDERS.some((f) => from.startsWith(f) && to.startsWith(f));

interface Violation {
  rule: string;
  edge: ImportEdge;
}

/** Every edge that breaks a rule, before exceptions. */
function violations(edges: ImportEdge[]): Violation[] {
  const out: Violation[] = [];
  const refuse = (rule: string, edge: ImportEdge) => out.push({ rule, edge });
  for (const edge of edges) {
    const { from, to } = edge;
    const a = topOf(from);
    const b = topOf(to);
    // An import of infra/ from below it is reported by its own rule, next.
    if (a !== b && !(BELOW_INFRA.includes(a) && b === 'infra')) {
      const allowed = ALLOWED_EDGES.some(
        (e) =>
          e.from === a &&
          e.to === b &&
          (!e.only?.from || e.only.from.test(from)) &&
          (!e.only?.to || e.only.to.test(to)),
      );
      if (!allowed) refuse(`${a}/ may not import ${b}/ (or not this file of it)`, edge);
    }
    if (BELOW_INFRA.includes(a) && b === 'infra') refuse('only infra/ imports infra/', edge);
    if (ROUTE.test(from)) {
      if (ROUTE.test(to)) refuse('a route imports no other route', edge);
      if (isAdapter(to)) refuse('a route imports no adapter', edge);
      if (b === 'processors' && !/^processors\/[^/]+\/index\.ts$/.test(to))
        refuse("a route imports no processor's internals", edge);
    }
    if (isAdapter(to) && a !== 'infra' && !sameAdapterFolder(from, to))
      refuse('only infra/ imports adapters', edge);
  }
  out.push(...cycles(edges.filter((e) => !out.some((v) => v.edge === e))));
  return out;
}

/** Edges that close a cycle between modules (imports run one way between modules too). */
function cycles(edges: ImportEdge[]): Violation[] {
  const graph = new Map<string, Map<string, ImportEdge>>();
  for (const e of edges) {
    const a = moduleOf(e.from);
    const b = moduleOf(e.to);
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Map());
    if (!graph.get(a)!.has(b)) graph.get(a)!.set(b, e);
  }
  const out: Violation[] = [];
  const reaches = (start: string, goal: string) => {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      const m = stack.pop()!;
      if (m === goal) return true;
      if (seen.has(m)) continue;
      seen.add(m);
      stack.push(...(graph.get(m)?.keys() ?? []));
    }
    return false;
  };
  for (const [a, targets] of graph) {
    for (const [b, edge] of targets) {
      if (reaches(b, a)) out.push({ rule: `modules import each other (${a} and ${b})`, edge });
    }
  }
  return out;
}

const matches = (x: Exception, edge: ImportEdge) =>
  x.from === edge.from && (x.to.endsWith('/') ? edge.to.startsWith(x.to) : edge.to === x.to);

const describeViolation = (v: Violation) => `${v.edge.from}:${v.edge.line} → ${v.edge.to}: ${v.rule}`;

describe('import direction', () => {
  const edges = readImportGraph(ROOT, SOURCE);

  it('reads the source', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((e) => e.from === 'infra/composition.ts' && e.to.startsWith('projections/'))).toBe(
      true,
    );
  });

  it('finds no edge that breaks a rule, but for the named temporary exceptions', () => {
    const found = violations(edges).filter((v) => !TEMPORARY_EXCEPTIONS.some((x) => matches(x, v.edge)));
    expect(found.map(describeViolation)).toEqual([]);
  });

  it('lists no exception that no longer matches an edge breaking a rule (remove it)', () => {
    const found = violations(edges);
    const stale = TEMPORARY_EXCEPTIONS.filter((x) => !found.some((v) => matches(x, v.edge)));
    expect(stale.map((x) => `${x.from} → ${x.to} (${x.why})`)).toEqual([]);
  });

  it('refuses each kind of forbidden edge', () => {
    const edge = (from: string, to: string): ImportEdge => ({ from, to, line: 1, typeOnly: false });
    const rulesOf = (...e: ImportEdge[]) => violations(e).map((v) => v.rule);
    expect(rulesOf(edge('projections/analytics/rows.ts', 'infra/config.ts'))).toContain(
      'only infra/ imports infra/',
    );
    expect(rulesOf(edge('processors/mentions/detect.ts', 'api/problem.ts'))).toEqual([
      'processors/ may not import api/ (or not this file of it)',
    ]);
    expect(rulesOf(edge('api/routes/bias.ts', 'api/routes/rankings.ts'))).toEqual([
      'a route imports no other route',
    ]);
    expect(rulesOf(edge('api/routes/search.ts', 'projections/search/lancedb/reads.ts'))).toEqual([
      'a route imports no adapter',
      'only infra/ imports adapters',
    ]);
    expect(rulesOf(edge('api/routes/ingest.ts', 'ingest/event-log/kafka-event-log.ts'))).toContain(
      'a route imports no adapter',
    );
    expect(rulesOf(edge('api/routes/mentions.ts', 'processors/mentions/detect.ts'))).toContain(
      "a route imports no processor's internals",
    );
    expect(rulesOf(edge('api/routes/alerts.ts', 'processors/alerts/index.ts'))).toEqual([]);
    expect(rulesOf(edge('processors/alerts/x.ts', 'projections/state/postgres-state-store.ts'))).toEqual([
      'only infra/ imports adapters',
    ]);
    expect(rulesOf(edge('projections/search/search-projector.ts', 'processors/mentions/detect.ts'))).toEqual([
      'projections/ may not import processors/ (or not this file of it)',
    ]);
    expect(
      rulesOf(
        edge('projections/search/a.ts', 'projections/analytics/b.ts'),
        edge('projections/analytics/c.ts', 'projections/search/d.ts'),
      ),
    ).toEqual([
      'modules import each other (projections/search and projections/analytics)',
      'modules import each other (projections/analytics and projections/search)',
    ]);
    expect(rulesOf(edge('infra/composition.ts', 'projections/state/pglite-state-store.ts'))).toEqual([]);
    expect(
      rulesOf(
        edge('projections/search/lancedb/lancedb-search-index.ts', 'projections/search/lancedb/reads.ts'),
      ),
    ).toEqual([]);
  });

  it('reads imports, re-exports, dynamic imports and URLs of files, type-only or not', () => {
    const text = [
      "import type { A } from '../a.ts';",
      "import { type B, c } from './b.ts';",
      "import { type D } from './d.ts';",
      "export { e } from '../../e.ts';",
      "export type { F } from './f.ts';",
      "import 'fastify';",
      "const g = await import('./g.ts');",
      "const h = new URL('../h.ts', import.meta.url);",
    ].join('\n');
    expect(importsOf('api/routes/x.ts', text).map(({ to, typeOnly, line }) => [to, typeOnly, line])).toEqual([
      ['api/a.ts', true, 1],
      ['api/routes/b.ts', false, 2],
      ['api/routes/d.ts', true, 3],
      ['e.ts', false, 4],
      ['api/routes/f.ts', true, 5],
      ['api/routes/g.ts', false, 7],
      ['api/h.ts', false, 8],
    ]);
  });
});
