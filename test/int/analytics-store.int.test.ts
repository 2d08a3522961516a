import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { analyticsStoreContract } from '../contracts/analytics-store.contract.ts';
import { tempDir } from '../support/temp-dir.ts';

analyticsStoreContract('embedded (chdb)', async () => {
  const tmp = tempDir();
  const store = new ChdbAnalyticsStore(tmp.dir);
  return {
    store,
    cleanup: async () => {
      await store.close();
      tmp.remove();
    },
  };
});
