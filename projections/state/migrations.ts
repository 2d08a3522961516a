import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StateStore } from './state-store.ts';

export const MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../schemas/postgres',
);

/**
 * Applies `schemas/postgres/NNN_name.sql` files in order, each in its own transaction, once.
 * An advisory lock, taken before anything else, keeps two processes from migrating at the same time.
 */
export async function migrate(store: StateStore, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  await store.transaction(async (tx) => {
    // The lock comes first: two processes creating the bookkeeping table at once collide in
    // PostgreSQL's catalog even with IF NOT EXISTS.
    await tx.query('SELECT pg_advisory_xact_lock(7423501)');
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set(
      (await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name),
    );
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.exec(fs.readFileSync(path.join(dir, file), 'utf8'));
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      applied.push(file);
    }
  });
  return applied;
}
