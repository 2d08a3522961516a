import { describe, it } from 'vitest';
import { PostgresStateStore } from '../../projections/state/postgres-state-store.ts';
import { archiveStoreContract } from '../contracts/archive-store.contract.ts';
import { missing } from './engines-env.ts';
import { scratchDatabase } from './scratch-database.ts';

const reason = missing('DATABASE_URL');

if (reason) {
  describe('archive store contract: PostgreSQL', () => {
    it.skip(reason, () => {});
  });
} else {
  // A scratch database per run: the contract empties the archive tables (a rebuild).
  archiveStoreContract('PostgreSQL', async () => {
    const db = await scratchDatabase('earshot_archive');
    const store = new PostgresStateStore(db.url);
    return {
      store,
      async cleanup() {
        await store.close();
        await db.drop();
      },
    };
  });
}
