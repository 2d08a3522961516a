import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StartedTestContainer } from 'testcontainers';

/**
 * Engines for `npm run test:engines`, in this order of preference:
 * 1. variables already in the environment (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, OPENSEARCH_URL,
 *    DATABASE_URL, CLICKHOUSE_URL);
 * 2. the engines `npm run engines:up` started on this machine (.engines/env.json);
 * 3. where a Docker engine is reachable, containers started here with testcontainers.
 * Variables still unset after that make their suites skip with a one-line reason.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default async function setup(): Promise<() => Promise<void>> {
  const file = path.join(root, '.engines/env.json');
  if (fs.existsSync(file)) {
    const env = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    for (const [k, v] of Object.entries(env)) process.env[k] ??= v;
  }
  const wanted = ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'OPENSEARCH_URL', 'DATABASE_URL', 'CLICKHOUSE_URL'];
  const missing = wanted.filter((k) => !process.env[k]);
  if (missing.length === 0 || process.env.EARSHOT_TESTCONTAINERS === 'off') return async () => {};

  const tc = await import('testcontainers');
  try {
    await tc.getContainerRuntimeClient();
  } catch {
    console.log(`No Docker engine reachable; not starting containers for ${missing.join(', ')}.`);
    return async () => {};
  }
  const started: StartedTestContainer[] = [];
  const { GenericContainer, Network, Wait } = tc;
  const network = await new Network().start();

  if (!process.env.KAFKA_BROKERS || !process.env.SCHEMA_REGISTRY_URL) {
    // A single KRaft node advertising the host-mapped port, like the compose file.
    const kafka = await new GenericContainer('apache/kafka:3.9.1')
      .withNetwork(network)
      .withNetworkAliases('kafka')
      .withExposedPorts({ container: 9092, host: 19092 })
      .withEnvironment({
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_LISTENERS: 'HOST://:9092,INTERNAL://:19093,CONTROLLER://:9093',
        KAFKA_ADVERTISED_LISTENERS: 'HOST://127.0.0.1:19092,INTERNAL://kafka:19093',
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'HOST:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT',
        KAFKA_INTER_BROKER_LISTENER_NAME: 'INTERNAL',
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_CONTROLLER_QUORUM_VOTERS: '1@kafka:9093',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      })
      .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
      .start();
    started.push(kafka);
    process.env.KAFKA_BROKERS ??= `127.0.0.1:${kafka.getMappedPort(9092)}`;
    const registry = await new GenericContainer('apicurio/apicurio-registry:3.0.9')
      .withNetwork(network)
      .withExposedPorts(8080)
      .withEnvironment({ APICURIO_RULES_GLOBAL_COMPATIBILITY: 'BACKWARD' })
      .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080))
      .start();
    started.push(registry);
    process.env.SCHEMA_REGISTRY_URL ??= `http://${registry.getHost()}:${registry.getMappedPort(8080)}/apis/ccompat/v7`;
  }
  if (!process.env.DATABASE_URL) {
    const postgres = await new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_PASSWORD: 'earshot', POSTGRES_DB: 'earshot' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    started.push(postgres);
    process.env.DATABASE_URL = `postgres://postgres:earshot@${postgres.getHost()}:${postgres.getMappedPort(5432)}/earshot`;
  }
  if (!process.env.OPENSEARCH_URL) {
    const opensearch = await new GenericContainer('opensearchproject/opensearch:2.19.1')
      .withEnvironment({
        'discovery.type': 'single-node',
        DISABLE_SECURITY_PLUGIN: 'true',
        DISABLE_INSTALL_DEMO_CONFIG: 'true',
        OPENSEARCH_JAVA_OPTS: '-Xms512m -Xmx512m',
      })
      .withExposedPorts(9200)
      .withWaitStrategy(Wait.forHttp('/_cluster/health', 9200))
      .withStartupTimeout(180_000)
      .start();
    started.push(opensearch);
    process.env.OPENSEARCH_URL = `http://${opensearch.getHost()}:${opensearch.getMappedPort(9200)}`;
  }
  if (!process.env.CLICKHOUSE_URL) {
    const clickhouse = await new GenericContainer('clickhouse/clickhouse-server:25.8')
      .withEnvironment({ CLICKHOUSE_SKIP_USER_SETUP: '1' })
      .withExposedPorts(8123)
      .withWaitStrategy(Wait.forHttp('/ping', 8123))
      .start();
    started.push(clickhouse);
    process.env.CLICKHOUSE_URL = `http://${clickhouse.getHost()}:${clickhouse.getMappedPort(8123)}`;
  }
  console.log(`Started ${started.length} containers with testcontainers.`);
  return async () => {
    for (const c of started.reverse()) await c.stop();
    await network.stop();
  };
}
