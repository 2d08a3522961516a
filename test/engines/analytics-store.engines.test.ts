import { describe, it } from 'vitest';
import { ClickHouseAnalyticsStore } from '../../projections/analytics/clickhouse-analytics-store.ts';
import { analyticsStoreContract } from '../contracts/analytics-store.contract.ts';
import { missing } from './engines-env.ts';

const reason = missing('CLICKHOUSE_URL');

if (reason) {
  describe('analytics store contract: ClickHouse', () => {
    it.skip(reason, () => {});
  });
} else {
  analyticsStoreContract('ClickHouse', async () => {
    const store = await ClickHouseAnalyticsStore.connect(process.env.CLICKHOUSE_URL!);
    return { store, cleanup: () => store.close() };
  });
}
