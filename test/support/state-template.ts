import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS_DIR } from '../../projections/state/migrations.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** How a template's directory name starts (the rest: the PGlite version, the migrations' hash). */
export const TEMPLATE_PREFIX = 'earshot-test-pglite-';

/**
 * Where the migrated state store template is kept: a PGlite cluster on which every migration of
 * `schemas/postgres` has run, named by the PGlite version and a hash of the migrations (a changed
 * or added migration makes a new one). It holds the cluster twice:
 * - `state/`, a data directory as `earshot start` leaves it (copied into a test's data dir, so a
 *   service or command opens an existing store instead of running initdb and every migration);
 * - `state.tar`, its `dumpDataDir` dump, which in-memory stores load.
 * initdb and the migrations cost about 2-5 CPU-seconds per store; the suite opens about 60
 * in-memory stores and starts about 17 services. Migrations themselves are still tested from
 * scratch: `state-store.int` opens a new store, and the services of `start.e2e` start on truly
 * empty data dirs (`spawnEarshot(…, { emptyDataDir: true })`).
 */
export function templateDir(): string {
  const { version } = JSON.parse(
    fs.readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) {
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)))
      .update('\0');
  }
  return path.join(
    process.env['EARSHOT_TEST_CACHE_DIR'] || tmpdir(),
    `${TEMPLATE_PREFIX}${version}-${hash.digest('hex').slice(0, 16)}`,
  );
}

/** A file in the template, written last: the template is complete. */
export const COMPLETE = 'complete';

/** The template's directory, when it is complete. */
export function template(): string | undefined {
  const dir = templateDir();
  return fs.existsSync(path.join(dir, COMPLETE)) ? dir : undefined;
}

/**
 * Puts the migrated template at `stateDir` (a state store's directory, `<data dir>/state`) unless
 * something is there already. Returns whether it did. Without a template (outside vitest's
 * global setup) it does nothing and the store is created by whoever opens it.
 */
export function seedStateDir(stateDir: string): boolean {
  const dir = template();
  if (!dir || fs.existsSync(stateDir)) return false;
  fs.mkdirSync(path.dirname(stateDir), { recursive: true });
  fs.cpSync(path.join(dir, 'state'), stateDir, { recursive: true });
  return true;
}
