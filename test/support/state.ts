import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Where the dump of an empty PGlite cluster is kept, per PGlite version: every in-memory state
 * store of the tests starts from it rather than running initdb again (about 2 CPU-seconds each,
 * against 0.6 from the dump).
 */
function clusterDumpFile(): string {
  const { version } = JSON.parse(
    fs.readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  return path.join(process.env['EARSHOT_TEST_CACHE_DIR'] || tmpdir(), `earshot-test-pglite-${version}.tar`);
}

/** Writes the dump of an empty cluster once (vitest's global setup calls it before any file runs). */
export async function ensureClusterDump(): Promise<void> {
  const file = clusterDumpFile();
  if (fs.existsSync(file)) return;
  const db = new PGlite();
  try {
    await db.query('SELECT 1');
    const dump = await db.dumpDataDir('none');
    const partial = `${file}.${process.pid}`;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
  } finally {
    await db.close();
  }
}

/**
 * An in-memory state store, as `new PgliteStateStore()` makes, started from the empty cluster's
 * dump when there is one (migrations still run on it as on any new store).
 */
export function memoryStateStore(): PgliteStateStore {
  const file = clusterDumpFile();
  if (!fs.existsSync(file)) return new PgliteStateStore();
  return new PgliteStateStore(undefined, { from: new Blob([fs.readFileSync(file)]) });
}
