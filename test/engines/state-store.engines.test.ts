import { describe, it } from 'vitest';
import { PostgresStateStore } from '../../projections/state/postgres-state-store.ts';
import { stateStoreContract } from '../contracts/state-store.contract.ts';
import { missing } from './engines-env.ts';

const reason = missing('DATABASE_URL');

if (reason) {
  describe('state store contract: PostgreSQL', () => {
    it.skip(reason, () => {});
  });
} else {
  stateStoreContract('PostgreSQL', async () => {
    const store = new PostgresStateStore(process.env.DATABASE_URL!);
    return { store, cleanup: () => store.close() };
  });
}
