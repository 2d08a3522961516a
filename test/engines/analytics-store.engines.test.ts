import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseAnalyticsStore } from '../../projections/analytics/clickhouse-analytics-store.ts';
import { analyticsStoreContract } from '../contracts/analytics-store.contract.ts';
import { type ClickHouseStandIn, startClickHouseStandIn } from '../support/clickhouse-http-standin.ts';
import { tempDir } from '../support/temp-dir.ts';

/**
 * The `@clickhouse/client` adapter's contract suite: against the server at `CLICKHOUSE_URL` when
 * one is configured (a real ClickHouse, or the container global-setup starts where Docker is
 * reachable), else against the test stand-in (test/support/clickhouse-http-standin.ts: the
 * ClickHouse HTTP interface the client uses, executed on chdb).
 */
const realServer = process.env.CLICKHOUSE_URL;
let standIn: ClickHouseStandIn | undefined;
const data = tempDir('earshot-clickhouse-standin-');

analyticsStoreContract(
  realServer ? 'ClickHouse' : 'ClickHouse client on the HTTP stand-in (chdb)',
  async () => {
    let url = realServer;
    if (!url) {
      standIn = await startClickHouseStandIn({ dir: data.dir });
      url = `${standIn.url}/earshot_contract`;
    }
    const store = await ClickHouseAnalyticsStore.connect(url);
    return { store, cleanup: () => store.close() };
  },
);

describe('the ClickHouse HTTP stand-in', () => {
  beforeAll(() => {
    if (realServer) console.log(`CLICKHOUSE_URL is set: the contract ran on ${new URL(realServer).host}`);
  });
  afterAll(async () => {
    await standIn?.close();
    data.remove();
  });

  it.runIf(!realServer)('carried every statement of the contract suite', () => {
    // The contract's statements went over HTTP, not around it.
    expect(standIn?.statements ?? 0).toBeGreaterThan(20);
  });
});
