import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { COMPLETE, seedStateDir, TEMPLATE_PREFIX, template, templateDir } from './state-template.ts';

/** Builds the template once (vitest's global setup calls it before any file runs). */
export async function ensureStateTemplate(): Promise<void> {
  const dir = templateDir();
  if (fs.existsSync(path.join(dir, COMPLETE))) return;
  const partial = `${dir}.${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  try {
    const store = new PgliteStateStore(path.join(partial, 'state'));
    try {
      await migrate(store);
    } finally {
      await store.close();
    }
    const db = new PGlite(path.join(partial, 'state'));
    try {
      // Open first: `dumpDataDir` on a PGlite that has not finished starting never settles.
      await db.query('SELECT 1');
      const dump = await db.dumpDataDir('none');
      fs.writeFileSync(path.join(partial, 'state.tar'), Buffer.from(await dump.arrayBuffer()));
    } finally {
      await db.close();
    }
    fs.writeFileSync(path.join(partial, COMPLETE), '');
    // An incomplete template (a run killed while writing it) is replaced; a complete one that
    // another run finished meanwhile is kept, as its files may be read already.
    if (!fs.existsSync(path.join(dir, COMPLETE))) fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(partial, dir);
    pruneOldTemplates(dir);
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    // Another run made it at the same moment.
    if (fs.existsSync(path.join(dir, COMPLETE))) return;
    throw err;
  }
}

/** A template no run has made for this long is one of earlier migrations or PGlite versions. */
const STALE_MS = 24 * 3600_000;

/**
 * Removes the templates of earlier migrations or PGlite versions beside `current` (each is a few
 * MB, and every changed migration makes a new one), once no run has made one for a day: a run of
 * another checkout may still be reading a recent one.
 */
function pruneOldTemplates(current: string): void {
  const parent = path.dirname(current);
  const now = Date.now();
  for (const name of fs.readdirSync(parent)) {
    const dir = path.join(parent, name);
    if (!name.startsWith(TEMPLATE_PREFIX) || dir === current) continue;
    try {
      if (now - fs.statSync(dir).mtimeMs > STALE_MS) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

/** The template's dump, read once per process (PGlite reads it and leaves it as it is). */
let dump: Blob | undefined;

/**
 * An in-memory state store, as `new PgliteStateStore()` makes, started from the migrated
 * template when there is one (`migrate` finds nothing left to do on it).
 */
export function memoryStateStore(): PgliteStateStore {
  const dir = template();
  if (!dir) return new PgliteStateStore();
  dump ??= new Blob([fs.readFileSync(path.join(dir, 'state.tar'))]);
  return new PgliteStateStore(undefined, { from: dump });
}

/** An on-disk state store in `dir`, started from the migrated template when the dir is new. */
export function diskStateStore(dir: string): PgliteStateStore {
  seedStateDir(dir);
  return new PgliteStateStore(dir);
}
