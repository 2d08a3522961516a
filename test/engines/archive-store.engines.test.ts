import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';
import { PostgresStateStore } from '../../projections/state/postgres-state-store.ts';
import { archiveStoreContract } from '../contracts/archive-store.contract.ts';
import { missing } from './engines-env.ts';

const reason = missing('DATABASE_URL');

if (reason) {
  describe('archive store contract: PostgreSQL', () => {
    it.skip(reason, () => {});
  });
} else {
  // A scratch database per run: the contract empties the archive tables (a rebuild).
  archiveStoreContract('PostgreSQL', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    const name = `earshot_archive_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const scratch = new URL(url);
    scratch.pathname = `/${name}`;
    const store = new PostgresStateStore(scratch.toString());
    return {
      store,
      async cleanup() {
        await store.close();
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
        await admin.end();
      },
    };
  });
}
