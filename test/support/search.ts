import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app.ts';
import type { SearchServices } from '../../api/search/search-services.ts';
import { silentLogger } from '../../infra/logger.ts';
import { Readiness } from '../../infra/readiness.ts';
import { ConsumerRunner, type ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { EmbeddingsPort } from '../../projections/embeddings/embeddings-port.ts';
import type { LocalModelName } from '../../projections/embeddings/local-models.ts';
import { fetchModel } from '../../projections/embeddings/model-fetch.ts';
import { OnnxEmbeddings } from '../../projections/embeddings/onnx-embeddings.ts';
import { WorkerEmbeddings } from '../../projections/embeddings/worker-embeddings.ts';
import type { SearchIndex } from '../../projections/search/search-index.ts';
import {
  namesProjector,
  type SearchProjectorStats,
  searchProjector,
  type VectorCache,
} from '../../projections/search/search-projector.ts';
import { VectorFiller } from '../../projections/search/search-vector-filler.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { TEST_SETTINGS } from './api.ts';
import { embeddedBackbone } from './backbone.ts';
import { testDeliveryKit } from './delivery.ts';
import { memoryStateStore } from './state.ts';
import { CachedEmbeddings, vectorCacheEnabled } from './vector-cache.ts';
import { waitFor } from './wait-for.ts';

/**
 * The model the tests embed with: the fastest local one (all-MiniLM-L6-v2's int8 export), so the
 * suite's corpora embed in half the time the default model (MODEL_NAME) takes. Tests check what
 * search does with vectors, not how good a model is; the benches measure the default.
 */
export const TEST_MODEL: LocalModelName = 'all-MiniLM-L6-v2-int8';

/** The model cache the embeddings tests share (one download per machine). */
export const TEST_MODELS_DIR =
  process.env['EARSHOT_TEST_MODELS_DIR'] || path.join(tmpdir(), 'earshot-test-models');

export interface SearchEmbeddings {
  query: EmbeddingsPort;
  indexing: EmbeddingsPort;
  close(): Promise<void>;
}

/**
 * The real model: an API-thread instance for queries, a worker thread for indexing. Indexing goes
 * through the vector cache (`vector-cache.ts`): a text embedded in an earlier run is not embedded
 * again, and the worker's model is only loaded for a text the cache has not seen.
 */
export async function openTestEmbeddings(
  threads = 2,
  model: LocalModelName = TEST_MODEL,
): Promise<SearchEmbeddings> {
  const fetched = await fetchModel({ modelsDir: TEST_MODELS_DIR, model });
  const query = await OnnxEmbeddings.open({ modelDir: fetched.dir, intraOpNumThreads: 1, role: 'query' });
  const openWorker = () => WorkerEmbeddings.open({ modelDir: fetched.dir, intraOpNumThreads: threads });
  const indexing: EmbeddingsPort = vectorCacheEnabled()
    ? new CachedEmbeddings(fetched.manifest, query.model, query.dimensions, openWorker)
    : await openWorker();
  return {
    query,
    indexing,
    async close() {
      await query.close();
      await indexing.close();
    },
  };
}

/**
 * Runs the catalog, search and names projectors over whatever `produce` puts on the topics of a
 * fresh embedded backbone until every runner has caught up, then (with embeddings) the vector
 * filler until every line and clip has its vector — the order the service starts them in.
 */
export async function projectIntoSearch(options: {
  index: SearchIndex;
  state: StateStore;
  catalog: CatalogReader;
  embeddings?: EmbeddingsPort;
  produce: (backbone: Awaited<ReturnType<typeof embeddedBackbone>>) => Promise<void>;
  batchSize?: number;
  timeoutMs?: number;
  stats?: SearchProjectorStats;
  cache?: VectorCache;
  /** Episodes per vector filler pass. */
  episodesPerPass?: number;
  /**
   * Keep the backbone (log, offsets) in this dir: a run stopped part way and started again resumes
   * where its runners committed (`produce` then decides whether anything is left to send).
   */
  backboneDir?: string;
}) {
  const backbone = await embeddedBackbone(options.backboneDir);
  await options.produce(backbone);
  const filler = new VectorFiller({
    index: () => options.index,
    embeddings: () => options.embeddings,
    idleMs: 100,
    ...(options.episodesPerPass ? { episodesPerPass: options.episodesPerPass } : {}),
    ...(options.stats ? { stats: options.stats } : {}),
    ...(options.cache ? { cache: options.cache } : {}),
  });
  const definitions: ProcessorDefinition<unknown, unknown>[] = [
    catalogProjector(options.state, () => options.catalog.invalidate()) as ProcessorDefinition<
      unknown,
      unknown
    >,
    searchProjector({
      index: () => options.index,
      onIndexed: () => filler.wake(),
      ...(options.stats ? { stats: options.stats } : {}),
    }) as ProcessorDefinition<unknown, unknown>,
    namesProjector(() => options.index) as ProcessorDefinition<unknown, unknown>,
  ];
  const runners = definitions.map(
    (d) =>
      new ConsumerRunner(d, backbone.log, backbone.producer, silentLogger(), {
        maxBatchItems: options.batchSize ?? 2000,
        maxBatchWaitMs: 50,
      }),
  );
  for (const r of runners) await r.start();
  try {
    await waitFor(
      async () => {
        for (const r of runners) {
          if ((await r.lag()).some((p) => p.lag > 0)) return false;
        }
        return true;
      },
      { timeoutMs: options.timeoutMs ?? 120_000, stepMs: 100, what: 'search projectors caught up' },
    );
    for (const r of runners) await r.stop();
    // As in the service: the vector filler's catch-up pass once the text is indexed.
    if (options.embeddings) await filler.drain({ timeoutMs: options.timeoutMs ?? 120_000 });
  } finally {
    await filler.stop();
  }
  await options.index.refresh();
  return {
    runners,
    filler,
    async close() {
      await backbone.close();
    },
  };
}

/** An API serving the search routes over `index`, with one business-plan key. */
export async function searchApi(options: {
  index: SearchIndex;
  state?: StateStore;
  embeddings?: EmbeddingsPort;
  unavailableReason?: string;
  queryCacheSize?: number;
}): Promise<{
  app: FastifyInstance;
  key: string;
  state: StateStore;
  catalog: CatalogReader;
  services: SearchServices;
  close(): Promise<void>;
}> {
  const state = options.state ?? memoryStateStore();
  await migrate(state);
  const accounts = new Accounts(state);
  const org = await accounts.createOrganization({
    name: `Search Org ${Math.random().toString(36).slice(2, 8)}`,
  });
  const project = await accounts.createProject({ organizationId: org.id, name: 'search', plan: 'business' });
  const { key } = await accounts.createApiKey({ projectId: project.id });
  const catalog = new CatalogReader(state);
  const delivery = testDeliveryKit(state, catalog);
  const services: SearchServices = {
    index: options.index,
    catalog,
    state,
    embeddings: () => options.embeddings,
    semanticUnavailableReason: () =>
      options.embeddings ? undefined : (options.unavailableReason ?? 'no model'),
    ...(options.queryCacheSize !== undefined ? { queryCacheSize: options.queryCacheSize } : {}),
  };
  const app = await buildApp({
    logger: silentLogger(),
    readiness: new Readiness(),
    services: { state, accounts, catalog, delivery, search: services },
    settings: { ...TEST_SETTINGS, rateLimitPerMinute: 10_000_000 },
  });
  await app.ready();
  return {
    app,
    key,
    state,
    catalog,
    services,
    async close() {
      await app.close();
      await delivery.close();
    },
  };
}
