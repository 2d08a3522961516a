import { archiveStoreContract } from '../contracts/archive-store.contract.ts';
import { memoryStateStore } from '../support/state.ts';

archiveStoreContract('PGlite', async () => {
  const store = memoryStateStore();
  return { store, cleanup: () => store.close() };
});
