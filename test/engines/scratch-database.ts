import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * A database of its own on the PostgreSQL of DATABASE_URL, for suites that empty tables or
 * need a store nobody else writes; dropped by `drop()`.
 */
export async function scratchDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const url = new URL(process.env.DATABASE_URL!);
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    url: scratch.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
