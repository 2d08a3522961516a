import path from 'node:path';
import { silentLogger } from '../../infra/logger.ts';
import { ConsumerRunner, type ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { analyticsProjectors } from '../../projections/analytics/analytics-projectors.ts';
import { type AnalyticsStore, migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { embeddedBackbone } from './backbone.ts';
import { type Corpus, generateTestCorpus, produceCorpus } from './corpus.ts';
import { memoryStateStore } from './state.ts';
import { waitFor } from './wait-for.ts';

type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;

/** Runs definitions until every one has committed everything in its topics, then stops them. */
export async function runUntilCaughtUp(
  bb: Backbone,
  definitions: ProcessorDefinition<unknown, unknown>[],
  options: { maxBatchItems?: number; timeoutMs?: number } = {},
): Promise<ConsumerRunner<unknown, unknown>[]> {
  const runners = definitions.map(
    (d) =>
      new ConsumerRunner(d, bb.log, bb.producer, silentLogger(), {
        maxBatchItems: options.maxBatchItems ?? 2000,
        maxBatchWaitMs: 50,
      }),
  );
  for (const r of runners) await r.start();
  for (const r of runners) {
    await waitFor(async () => (await r.lag()).every((p) => p.lag === 0), {
      what: `${r.name} caught up`,
      timeoutMs: options.timeoutMs ?? 60_000,
    });
  }
  for (const r of runners) await r.stop();
  return runners;
}

/**
 * A generated corpus projected into a state store (catalog) and an embedded analytics store,
 * through the real projectors and consumer runner.
 */
export async function projectedCorpus(options: {
  podcasts: number;
  episodesPerPodcast: number;
  seed: number;
  asOf: number;
}) {
  const bb = await embeddedBackbone();
  const corpus: Corpus = await generateTestCorpus({ ...options, dir: path.join(bb.dir, 'corpus') });
  const state = memoryStateStore();
  await migrate(state);
  const catalog = new CatalogReader(state);
  const analytics: AnalyticsStore = new ChdbAnalyticsStore(path.join(bb.dir, 'analytics'));
  await migrateAnalytics(analytics);
  await produceCorpus(bb.producer, corpus);
  await runUntilCaughtUp(bb, [
    catalogProjector(state, () => catalog.invalidate()) as ProcessorDefinition<unknown, unknown>,
    ...(analyticsProjectors(analytics) as ProcessorDefinition<unknown, unknown>[]),
  ]);
  return {
    bb,
    corpus,
    state,
    catalog,
    analytics,
    async close() {
      await analytics.close();
      await state.close();
      await bb.close();
    },
  };
}
