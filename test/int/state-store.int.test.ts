import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { stateStoreContract } from '../contracts/state-store.contract.ts';
import { tempDir } from '../support/temp-dir.ts';

stateStoreContract('embedded (PGlite)', async () => {
  const tmp = tempDir();
  const store = new PgliteStateStore(tmp.dir);
  return {
    store,
    cleanup: async () => {
      await store.close();
      tmp.remove();
    },
  };
});
