import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readImportGraph } from '../support/import-graph.ts';
import { OWN_PROCESS_INT_FILES } from '../support/own-process.ts';

/**
 * Integration files share worker processes (vitest `isolate: false`) except those listed in
 * test/support/own-process.ts: the files whose imports reach chdb, a process singleton. The list
 * is recomputed here from the import graph (type-only imports load nothing and are left out).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const CHDB = /from ['"]chdb(\/[\w-]+)?['"]/;

function filesReachingChdb(): string[] {
  const edges = readImportGraph(ROOT, [
    'schemas',
    'ingest',
    'processors',
    'projections',
    'api',
    'infra',
    'test',
  ]);
  const imports = new Map<string, string[]>();
  for (const e of edges) if (!e.typeOnly) imports.set(e.from, [...(imports.get(e.from) ?? []), e.to]);
  const importsChdb = (file: string) => {
    const full = path.join(ROOT, file);
    return fs.existsSync(full) && CHDB.test(fs.readFileSync(full, 'utf8'));
  };
  const reaches = (start: string) => {
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0) {
      const file = queue.shift()!;
      if (importsChdb(file)) return true;
      for (const next of imports.get(file) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  };
  return fs
    .readdirSync(path.join(ROOT, 'test/int'))
    .filter((f) => f.endsWith('.int.test.ts'))
    .map((f) => `test/int/${f}`)
    .filter(reaches)
    .sort();
}

describe('integration files that need a process of their own', () => {
  it('are exactly the files whose imports reach chdb', () => {
    expect([...OWN_PROCESS_INT_FILES].sort()).toEqual(filesReachingChdb());
  });
});
