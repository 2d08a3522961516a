import path from 'node:path';
import type { Logger } from 'pino';
import type { EventLog } from '../ingest/event-log/event-log.ts';
import { KafkaEventLog } from '../ingest/event-log/kafka-event-log.ts';
import { LmdbEventLog } from '../ingest/event-log/lmdb-event-log.ts';
import { EventProducer } from '../ingest/event-producer.ts';
import { AvroCodec } from '../ingest/schema-registry/avro-codec.ts';
import { ConfluentSchemaRegistry } from '../ingest/schema-registry/confluent-schema-registry.ts';
import { LmdbSchemaRegistry } from '../ingest/schema-registry/lmdb-schema-registry.ts';
import type { SchemaRegistry } from '../ingest/schema-registry/schema-registry.ts';
import {
  AlertingPipeline,
  ApiKey,
  allowlistProblem,
  analyticsBiasReader,
  type ChatSummarizerOptions,
  cachedBiasReader,
  createDeliveryKit,
  type DeliveryKit,
  loadSecretsKey,
  OutboundGuard,
  OutboundHttp,
  RetrySchedule,
  SmtpMailer,
  StateDeliveryContent,
} from '../processors/alerts/index.ts';
import { type AnalyticsStore, migrateAnalytics } from '../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../projections/analytics/chdb-analytics-store.ts';
import { ClickHouseAnalyticsStore } from '../projections/analytics/clickhouse-analytics-store.ts';
import { ArchiveStore, LiveFeed } from '../projections/archive/index.ts';
import { CatalogReader } from '../projections/catalog/catalog-reader.ts';
import { defaultModelsDir, fetchModel, findCachedModel } from '../projections/embeddings/model-fetch.ts';
import { OnnxEmbeddings } from '../projections/embeddings/onnx-embeddings.ts';
import { OpenAiEmbeddings } from '../projections/embeddings/openai-embeddings.ts';
import { WorkerEmbeddings } from '../projections/embeddings/worker-embeddings.ts';
import {
  clearKeepingVectors,
  LanceDbSearchIndex,
} from '../projections/search/lancedb/lancedb-search-index.ts';
import { OpenSearchSearchIndex } from '../projections/search/opensearch/opensearch-search-index.ts';
import {
  classifyingErrors,
  classifyLanceDbError,
  classifyOpenSearchError,
} from '../projections/search/search-errors.ts';
import { type OpenedSearchEmbeddings, SearchRuntime } from '../projections/search/search-runtime.ts';
import { Accounts } from '../projections/state/accounts.ts';
import { migrate } from '../projections/state/migrations.ts';
import { PgliteStateStore } from '../projections/state/pglite-state-store.ts';
import { PostgresStateStore } from '../projections/state/postgres-state-store.ts';
import type { StateStore } from '../projections/state/state-store.ts';
import { allTopicSpecs } from '../schemas/topics.ts';
import { type Config, ConfigError, dashboardUrlOf, publicUrlOf } from './config.ts';

/**
 * The one place that chooses adapters. Each port takes its adapter from configuration:
 * a URL in the environment selects the real engine, no URL the embedded one under the data dir.
 */
export interface Platform {
  config: Config;
  logger: Logger;
  eventLog: EventLog;
  registry: SchemaRegistry;
  codec: AvroCodec;
  producer: EventProducer;
  state: StateStore;
  /** ClickHouse projections: chdb under the data dir, or a server at `CLICKHOUSE_URL`. */
  analytics: AnalyticsStore;
  accounts: Accounts;
  catalog: CatalogReader;
  /** The episode archive (state store) and the live order as this process follows it. */
  archive: ArchiveStore;
  liveFeed: LiveFeed;
  /** Webhook, email and team-chat delivery: connections, outbound guard, mailer, secrets. */
  delivery: DeliveryKit;
  /** What alerting runs in the pipeline: matching, planning, projections, senders. */
  alerting: AlertingPipeline;
  /** Search index and embeddings; opened by the service (`search.start`), not by every CLI command. */
  search: SearchRuntime;
  close(): Promise<void>;
}

export function createEventLog(config: Config, logger: Logger): EventLog {
  const { env } = config;
  if (env.KAFKA_BROKERS) {
    return new KafkaEventLog({
      brokers: env.KAFKA_BROKERS.split(','),
      clientId: env.KAFKA_CLIENT_ID,
      topicPrefix: env.EARSHOT_TOPIC_PREFIX,
      logger,
    });
  }
  return new LmdbEventLog(path.join(config.dataDir, 'event-log'));
}

export function createSchemaRegistry(config: Config): SchemaRegistry {
  if (config.env.SCHEMA_REGISTRY_URL) return new ConfluentSchemaRegistry(config.env.SCHEMA_REGISTRY_URL);
  return new LmdbSchemaRegistry(path.join(config.dataDir, 'schema-registry'));
}

export function createStateStore(config: Config): StateStore {
  if (config.env.DATABASE_URL) return new PostgresStateStore(config.env.DATABASE_URL);
  return new PgliteStateStore(path.join(config.dataDir, 'state'));
}

/**
 * Delivery: SMTP mailer when `SMTP_URL` is set (else no email), outbound allowlist, secrets key.
 * With the analytics store, the match documents notifications carry hold the podcast's political
 * bias (`episode.podcast_bias`), as the REST single-match read does.
 */
export function createDelivery(
  config: Config,
  state: StateStore,
  catalog: CatalogReader,
  analytics?: AnalyticsStore,
): DeliveryKit {
  const { env } = config;
  checkAllowlist(config);
  return createDeliveryKit({
    state,
    content: new StateDeliveryContent({
      state,
      catalog,
      ...(analytics ? { podcastBias: cachedBiasReader(analyticsBiasReader(analytics)) } : {}),
    }),
    mailer: env.SMTP_URL ? new SmtpMailer(env.SMTP_URL, env.EARSHOT_MAIL_FROM) : undefined,
    settings: {
      publicUrl: publicUrlOf(config),
      dashboardUrl: dashboardUrlOf(config),
      outboundAllowlist: env.EARSHOT_OUTBOUND_ALLOWLIST,
      secretsKey: loadSecretsKey(env.EARSHOT_SECRETS_KEY, config.dataDir),
      chatApiUrl: env.EARSHOT_CHAT_API_URL,
      schedule: RetrySchedule.parse(env.EARSHOT_DELIVERY_RETRY_SCHEDULE),
      requestTimeoutMs: 30_000,
      concurrency: env.EARSHOT_DELIVERY_CONCURRENCY,
    },
  });
}

/** The chat model of match summaries (`EARSHOT_LLM_*`), or undefined: extractive summaries. */
function llmOf(config: Config): ChatSummarizerOptions | undefined {
  const { env } = config;
  if (!env.EARSHOT_LLM_URL) return undefined;
  return {
    url: env.EARSHOT_LLM_URL,
    model: env.EARSHOT_LLM_MODEL,
    ...(env.EARSHOT_LLM_API_KEY ? { apiKey: new ApiKey(env.EARSHOT_LLM_API_KEY) } : {}),
    timeoutMs: env.EARSHOT_LLM_TIMEOUT_MS,
  };
}

function checkAllowlist(config: Config): void {
  const problem = allowlistProblem(config.env.EARSHOT_OUTBOUND_ALLOWLIST);
  if (problem) {
    throw new ConfigError([
      {
        variable: 'EARSHOT_OUTBOUND_ALLOWLIST',
        message: `expected CIDRs: ${problem}`,
        value: config.env.EARSHOT_OUTBOUND_ALLOWLIST,
      },
    ]);
  }
}

/**
 * The HTTP client of the feed poller: the outbound guard with `EARSHOT_OUTBOUND_ALLOWLIST`, plain
 * http allowed to any permitted address (feeds carry no secrets and are often served over http).
 * The guard is the alerting module's, the one webhooks and the chat API pass; ingest declares
 * what it needs of the client (`FeedHttp`) and is given this one.
 */
export function createFeedHttp(config: Config): OutboundHttp {
  checkAllowlist(config);
  return new OutboundHttp(
    new OutboundGuard({ allowlist: config.env.EARSHOT_OUTBOUND_ALLOWLIST, plainHttp: true }),
    { connections: 4 },
  );
}

/** ClickHouse at `CLICKHOUSE_URL` (`@clickhouse/client`), else chdb in `DATA_DIR/analytics`. */
export async function createAnalyticsStore(config: Config): Promise<AnalyticsStore> {
  if (config.env.CLICKHOUSE_URL) return ClickHouseAnalyticsStore.connect(config.env.CLICKHOUSE_URL);
  return new ChdbAnalyticsStore(path.join(config.dataDir, 'analytics'));
}

/**
 * Just the event backbone (event log, schema registry, codec, producer), with every declared topic
 * created and its value schema registered. Command-line sources such as `earshot ingest` open only
 * this, never the stores a running service holds.
 */
export interface Backbone {
  eventLog: EventLog;
  registry: SchemaRegistry;
  codec: AvroCodec;
  producer: EventProducer;
  /** How many topics are declared. */
  topics: number;
  close(): Promise<void>;
}

export async function openBackbone(config: Config, logger: Logger): Promise<Backbone> {
  const eventLog = createEventLog(config, logger);
  const registry = createSchemaRegistry(config);
  const codec = new AvroCodec(registry);
  const specs = allTopicSpecs();
  await eventLog.createTopics(
    specs.map((s) => ({
      name: s.name,
      partitions: s.partitions,
      retention: s.retention,
      maxMessageBytes: s.maxMessageBytes,
    })),
  );
  for (const spec of specs) await codec.registerTopic(spec.name, spec.valueSchema);
  return {
    eventLog,
    registry,
    codec,
    producer: new EventProducer(eventLog, codec),
    topics: specs.length,
    async close() {
      await eventLog.close();
      await registry.close();
    },
  };
}

/**
 * Builds the platform: creates every declared topic and registers its value schema, opens the
 * state store and applies its migrations.
 */
export async function buildPlatform(config: Config, logger: Logger): Promise<Platform> {
  const { eventLog, registry, codec, producer, topics } = await openBackbone(config, logger);
  const state = createStateStore(config);
  const migrations = await migrate(state);
  const analytics = await createAnalyticsStore(config);
  const analyticsMigrations = await migrateAnalytics(analytics);
  logger.info(
    {
      eventLog: eventLog.kind,
      schemaRegistry: registry.kind,
      stateStore: state.kind,
      analyticsStore: analytics.kind,
      topics,
      migrations,
      analyticsMigrations,
    },
    'platform ready',
  );
  const catalog = new CatalogReader(state);
  const archive = new ArchiveStore(state);
  const liveFeed = new LiveFeed(archive, { pollMs: config.env.EARSHOT_STREAM_POLL_MS });
  const delivery = createDelivery(config, state, catalog, analytics);
  const search = createSearch(config, logger);
  if (!delivery.mailer)
    logger.warn('SMTP_URL is not set: email alerts and address verification mails are unavailable');
  return {
    config,
    logger,
    eventLog,
    registry,
    codec,
    producer,
    state,
    analytics,
    accounts: new Accounts(state),
    catalog,
    archive,
    liveFeed,
    delivery,
    alerting: new AlertingPipeline({
      state,
      catalog,
      producer,
      logger,
      delivery,
      dataDir: config.dataDir,
      exclusiveStore: state.kind === 'embedded',
      llm: llmOf(config),
    }),
    search,
    async close() {
      liveFeed.stop();
      await search.close();
      await delivery.close();
      await eventLog.close();
      await registry.close();
      await state.close();
      await analytics.close();
    },
  };
}

/** The search index's directory when it is the embedded one (LanceDB). */
function searchDir(config: Config): string {
  return path.join(config.dataDir, 'search');
}

/**
 * Empties the configured search index for a rebuild: its OpenSearch indexes, or the LanceDB
 * directory, keeping its vectors aside for the vector filler (carried vectors: the rebuilt index
 * takes them by text instead of embedding everything again). The search runtime creates the index
 * again, empty, when it next opens. Says what it did.
 */
export async function clearSearchIndex(config: Config): Promise<string> {
  const { env } = config;
  if (env.OPENSEARCH_URL) {
    const index = new OpenSearchSearchIndex(env.OPENSEARCH_URL, { prefix: env.EARSHOT_SEARCH_INDEX_PREFIX });
    try {
      return await index.clearKeepingVectors();
    } finally {
      await index.close();
    }
  }
  return clearKeepingVectors(searchDir(config));
}

/** Where the local embeddings model is cached. */
export function modelsDir(config: Config): string {
  return defaultModelsDir({ ...process.env, EARSHOT_MODELS_DIR: config.env.EARSHOT_MODELS_DIR });
}

/**
 * Search: OpenSearch when `OPENSEARCH_URL` is set, else LanceDB under `DATA_DIR/search`.
 * Embeddings: an OpenAI-compatible server when `EARSHOT_EMBEDDINGS_URL` is set, else the local
 * ONNX model `EARSHOT_EMBEDDINGS_LOCAL_MODEL` (fetched at start when missing unless `EARSHOT_EMBEDDINGS_FETCH=off`),
 * queried on the API thread and run in a worker thread for indexing. No model: no vectors.
 */
export function createSearch(config: Config, logger: Logger): SearchRuntime {
  const { env } = config;
  return new SearchRuntime({
    // Failures come out as store errors (permanent, transient or unclassified): search-errors.ts.
    createIndex: (options) =>
      env.OPENSEARCH_URL
        ? classifyingErrors(
            new OpenSearchSearchIndex(env.OPENSEARCH_URL, {
              ...options,
              prefix: env.EARSHOT_SEARCH_INDEX_PREFIX,
            }),
            classifyOpenSearchError,
          )
        : classifyingErrors(
            new LanceDbSearchIndex(searchDir(config), {
              ...options,
              onRefreshError: (err) => logger.warn({ err }, 'search index refresh failed; retrying'),
            }),
            classifyLanceDbError,
          ),
    async openEmbeddings({ query, indexing, fetchIfMissing }): Promise<OpenedSearchEmbeddings> {
      if (!query && !indexing) return { reason: 'not needed by these roles' };
      if (env.EARSHOT_EMBEDDINGS_URL) {
        try {
          const port = await OpenAiEmbeddings.open({
            url: env.EARSHOT_EMBEDDINGS_URL,
            model: env.EARSHOT_EMBEDDINGS_MODEL ?? 'all-MiniLM-L6-v2',
            ...(env.EARSHOT_EMBEDDINGS_API_KEY ? { apiKey: env.EARSHOT_EMBEDDINGS_API_KEY } : {}),
            ...(env.EARSHOT_EMBEDDINGS_DIMENSIONS ? { dimensions: env.EARSHOT_EMBEDDINGS_DIMENSIONS } : {}),
            batchSize: env.EARSHOT_EMBEDDINGS_BATCH_SIZE,
            concurrency: env.EARSHOT_EMBEDDINGS_CONCURRENCY,
          });
          return { query: port, indexing: port };
        } catch (err) {
          return {
            reason: `embeddings server ${env.EARSHOT_EMBEDDINGS_URL} failed: ${(err as Error).message}`,
          };
        }
      }
      const dir = modelsDir(config);
      const model = env.EARSHOT_EMBEDDINGS_LOCAL_MODEL;
      let cached = await findCachedModel(dir, model);
      if (!cached && fetchIfMissing && env.EARSHOT_EMBEDDINGS_FETCH === 'on') {
        logger.info({ modelsDir: dir, model }, 'fetching the embeddings model');
        cached = await fetchModel({ modelsDir: dir, model }).catch((err: Error) => {
          logger.warn({ err: err.message }, 'could not fetch the embeddings model');
          return undefined;
        });
      }
      if (!cached) {
        return {
          reason: `${model} is not cached in ${dir} (run \`earshot models fetch\`) and EARSHOT_EMBEDDINGS_URL is unset`,
        };
      }
      try {
        return {
          ...(query
            ? {
                query: await OnnxEmbeddings.open({
                  modelDir: cached.dir,
                  model,
                  intraOpNumThreads: 1,
                  role: 'query',
                }),
              }
            : {}),
          ...(indexing
            ? {
                indexing: await WorkerEmbeddings.open({
                  modelDir: cached.dir,
                  model,
                  intraOpNumThreads: env.EARSHOT_EMBEDDINGS_THREADS,
                }),
              }
            : {}),
        };
      } catch (err) {
        return { reason: `the model in ${cached.dir} could not be loaded: ${(err as Error).message}` };
      }
    },
  });
}
