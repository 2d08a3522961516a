import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../projections/state/migrations.ts';
import { PostgresStateStore } from '../../projections/state/postgres-state-store.ts';
import { stateStoreContract } from '../contracts/state-store.contract.ts';
import { missing } from './engines-env.ts';
import { scratchDatabase } from './scratch-database.ts';

const reason = missing('DATABASE_URL');

if (reason) {
  describe('state store contract: PostgreSQL', () => {
    it.skip(reason, () => {});
  });
} else {
  const url = process.env.DATABASE_URL!;
  stateStoreContract('PostgreSQL', async () => {
    const store = new PostgresStateStore(url);
    return { store, cleanup: () => store.close() };
  });

  describe('PostgreSQL state store connections', () => {
    it('migrates an empty database once when several processes start at the same moment', async () => {
      const scratch = await scratchDatabase('migrate_race');
      const stores = Array.from({ length: 4 }, () => new PostgresStateStore(scratch.url));
      try {
        const applied = await Promise.all(stores.map((store) => migrate(store)));
        const files = applied.flat();
        // One process applied every file; the others found them applied.
        expect(new Set(files).size).toBe(files.length);
        expect(applied.filter((list) => list.length > 0)).toHaveLength(1);
        const rows = await stores[0]!.query<{ n: string }>(
          'SELECT count(*)::text AS n FROM schema_migrations',
        );
        expect(Number(rows[0]!.n)).toBe(files.length);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
        await scratch.drop();
      }
    });

    it('answers reads while a long write runs', async () => {
      const store = new PostgresStateStore(url);
      const table = `slow_write_${process.pid}`;
      await store.exec(`CREATE TABLE ${table} (id text PRIMARY KEY)`);
      try {
        await store.query('SELECT $1::int AS n', [1]);
        const write = store.query(`INSERT INTO ${table} (id) SELECT $1 FROM pg_sleep(1.5)`, ['slow']);
        const started = performance.now();
        await Promise.all(Array.from({ length: 10 }, (_, i) => store.query('SELECT $1::int AS n', [i])));
        expect(performance.now() - started).toBeLessThan(750);
        await write;
        expect(await store.query(`SELECT id FROM ${table} WHERE id = $1`, ['slow'])).toEqual([
          { id: 'slow' },
        ]);
      } finally {
        await store.exec(`DROP TABLE IF EXISTS ${table}`);
        await store.close();
      }
    });

    it('replaces a pipelined connection the server ended and goes on answering', async () => {
      const store = new PostgresStateStore(url);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const backend = async () =>
          (await store.query<{ pid: number }>('SELECT pg_backend_pid() AS pid WHERE $1', [true]))[0]!.pid;
        const before = await backend();
        await admin.query('SELECT pg_terminate_backend($1)', [before]);
        // Queries sent before the client has seen the connection end fail; later ones reconnect.
        let after: number | undefined;
        for (let attempt = 0; attempt < 20 && after === undefined; attempt++) {
          after = await backend().catch(async () => {
            await new Promise((resolve) => setTimeout(resolve, 50));
            return undefined;
          });
        }
        expect(after).toBeDefined();
        expect(after).not.toBe(before);
      } finally {
        await admin.end();
        await store.close();
      }
    });
  });
}
