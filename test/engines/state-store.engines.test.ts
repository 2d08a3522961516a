import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../projections/state/postgres-state-store.ts';
import { stateStoreContract } from '../contracts/state-store.contract.ts';
import { missing } from './engines-env.ts';

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
