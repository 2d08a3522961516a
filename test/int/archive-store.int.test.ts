import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { archiveStoreContract } from '../contracts/archive-store.contract.ts';

archiveStoreContract('PGlite', async () => {
  const store = new PgliteStateStore();
  return { store, cleanup: () => store.close() };
});
