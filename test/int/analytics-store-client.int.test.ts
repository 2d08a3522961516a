import { createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import {
  CLIENT_SETTINGS,
  ClickHouseAnalyticsStore,
} from '../../projections/analytics/clickhouse-analytics-store.ts';
import { analyticsStoreContract } from '../contracts/analytics-store.contract.ts';
import { tempDir } from '../support/temp-dir.ts';

// The ClickHouse server adapter's code (@clickhouse/client: queries, parameters, inserts, errors)
// run offline against the embedded engine plugged in as the client's connection. The suite against
// a real server is test/engines/analytics-store.engines.test.ts.
analyticsStoreContract('@clickhouse/client over the embedded engine', async () => {
  const tmp = tempDir();
  const client = createClient({
    // chdb declares the Connection interface from its own copy of @clickhouse/client-common.
    connection: createChdbConnection({ path: tmp.dir }) as never,
    clickhouse_settings: CLIENT_SETTINGS,
  });
  const store = new ClickHouseAnalyticsStore(client);
  return {
    store,
    cleanup: async () => {
      await store.close();
      tmp.remove();
    },
  };
});
