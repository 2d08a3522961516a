import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnalyticsStore, migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { Rollups } from '../../projections/analytics/rollups.ts';
import { tempDir } from '../support/temp-dir.ts';

/**
 * What a rollup recompute reads: the engine's own count of rows selected from tables
 * (`system.events`, `SelectedRows`, process-wide and this file runs alone in its process), not
 * time. A recompute for one sponsor reads that sponsor's range of `sponsor_ad_reads` (sorted by
 * sponsor), not every ad read.
 */
const BIG = 100_000;

describe('rollup recomputes read by key', () => {
  const tmp = tempDir('earshot-rollups-');
  let store: AnalyticsStore;

  const selectedRows = async () => {
    const [r] = await store.query<{ n: number }>(
      "SELECT sum(value) AS n FROM system.events WHERE event = 'SelectedRows'",
    );
    return Number(r?.n ?? 0);
  };

  beforeAll(async () => {
    store = new ChdbAnalyticsStore(path.join(tmp.dir, 'analytics'));
    await migrateAnalytics(store);
    // One sponsor with many ads over a year, another with three (one a network promo).
    const ads = (sponsor: string, n: number, promoEvery: number) =>
      `INSERT INTO sponsor_ad_reads (episode_id, id, podcast_id, published_at, sponsor_key, sponsor_name, company_id,
         read_type, is_network_promo, start_seconds, end_seconds, version, is_deleted)
       SELECT concat('ep_', toString(number)), concat('${sponsor}_', toString(number)),
         concat('pod_', toString(number % 7)), toDateTime64(1735689600 + number * 300, 3, 'UTC'),
         '${sponsor}', '${sponsor}', '${sponsor}', 'host_read', (number % ${promoEvery}) = ${promoEvery - 1},
         0, 30, 6, 0
       FROM numbers(${n})`;
    await store.command(ads('co_big', BIG, 1_000_000));
    await store.command(ads('co_small', 3, 3));
  });
  afterAll(async () => {
    await store?.close();
    tmp.remove();
  });

  it('recomputes one sponsor from its own rows, and again to the same values', async () => {
    const rollups = new Rollups(store);
    const before = await selectedRows();
    await rollups.sponsors(['co_small']);
    const read = (await selectedRows()) - before;
    // At most the granules holding the sponsor's range (1,024 rows each), far below the table.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(2 * 1024);
    await rollups.sponsors(['co_small']);
    const totals = await store.query(
      `SELECT sponsor_key, ad_count, episode_reach, podcast_reach FROM sponsor_totals FINAL ORDER BY sponsor_key`,
    );
    // The other sponsor is left alone; the promo is not an ad.
    expect(totals).toEqual([{ sponsor_key: 'co_small', ad_count: 2, episode_reach: 2, podcast_reach: 2 }]);
  });

  it('marks a sponsor with no ad left deleted', async () => {
    const rollups = new Rollups(store);
    await store.command(
      `INSERT INTO sponsor_ad_reads (episode_id, id, published_at, sponsor_key, version, is_deleted)
       SELECT episode_id, id, published_at, sponsor_key, 8, 1 FROM sponsor_ad_reads FINAL WHERE sponsor_key = 'co_small'`,
    );
    await rollups.sponsors(['co_small']);
    const [n] = await store.query<{ n: number }>('SELECT count() AS n FROM sponsor_totals FINAL');
    expect(Number(n?.n)).toBe(0);
  });
});
