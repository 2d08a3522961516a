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
import { CatalogReader } from '../projections/catalog/catalog-reader.ts';
import { Accounts } from '../projections/state/accounts.ts';
import { migrate } from '../projections/state/migrations.ts';
import { PgliteStateStore } from '../projections/state/pglite-state-store.ts';
import { PostgresStateStore } from '../projections/state/postgres-state-store.ts';
import type { StateStore } from '../projections/state/state-store.ts';
import { allTopicSpecs } from '../schemas/topics.ts';
import type { Config } from './config.ts';

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
  accounts: Accounts;
  catalog: CatalogReader;
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
 * Builds the platform: creates every declared topic and registers its value schema, opens the
 * state store and applies its migrations.
 */
export async function buildPlatform(config: Config, logger: Logger): Promise<Platform> {
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
  const state = createStateStore(config);
  const migrations = await migrate(state);
  logger.info(
    {
      eventLog: eventLog.kind,
      schemaRegistry: registry.kind,
      stateStore: state.kind,
      topics: specs.length,
      migrations,
    },
    'platform ready',
  );
  return {
    config,
    logger,
    eventLog,
    registry,
    codec,
    producer: new EventProducer(eventLog, codec),
    state,
    accounts: new Accounts(state),
    catalog: new CatalogReader(state),
    async close() {
      await eventLog.close();
      await registry.close();
      await state.close();
    },
  };
}
