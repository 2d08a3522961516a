import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { KafkaEventLog } from '../../ingest/event-log/kafka-event-log.ts';
import { EventProducer } from '../../ingest/event-producer.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { ConfluentSchemaRegistry } from '../../ingest/schema-registry/confluent-schema-registry.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type { EpisodePublished } from '../../schemas/generated/index.ts';
import { allTopicSpecs, TOPICS } from '../../schemas/topics.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { missing } from './engines-env.ts';

const reason = missing('KAFKA_BROKERS') ?? missing('SCHEMA_REGISTRY_URL') ?? missing('DATABASE_URL');
const EPISODES = 20_000;

(reason ? describe.skip : describe)(`crash and restart on Kafka${reason ? ` (${reason})` : ''}`, () => {
  const prefix = `crash${randomUUID().slice(0, 6)}.`;
  const database = `earshot_crash_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
  const tmp = tempDir();
  let databaseUrl: string;
  let admin: pg.Client;
  let log: KafkaEventLog;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    log = new KafkaEventLog({
      brokers: process.env.KAFKA_BROKERS!.split(','),
      clientId: 'earshot-crash-test',
      topicPrefix: prefix,
      logger: silentLogger(),
    });
  });

  afterAll(async () => {
    await log?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    tmp.remove();
  });

  it('loses nothing and duplicates nothing when the consuming process is killed mid-batch and restarted', async () => {
    const env = {
      KAFKA_BROKERS: process.env.KAFKA_BROKERS!,
      SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL!,
      DATABASE_URL: databaseUrl,
      EARSHOT_TOPIC_PREFIX: prefix,
      EARSHOT_DATA_DIR: tmp.dir,
      EARSHOT_DEMO: 'off',
      CONSUMER_BATCH_SIZE: '500',
      LOG_LEVEL: 'warn',
      // The search index stays in the data dir: the engines' OpenSearch under the default prefix
      // is not this test's (an index another version left there would stop the process at open).
      OPENSEARCH_URL: undefined,
    };
    // The first start creates the topics and registers the schemas, exactly as production does.
    const first = await spawnEarshot(['start', '--roles', 'projectors'], env);
    const registry = new ConfluentSchemaRegistry(process.env.SCHEMA_REGISTRY_URL!);
    const codec = new AvroCodec(registry);
    await log.createTopics(allTopicSpecs());
    for (const spec of allTopicSpecs()) await codec.registerTopic(spec.name, spec.valueSchema);
    const producer = new EventProducer(log, codec);
    const base = loadExample('EpisodePublished') as EpisodePublished;
    const ids: string[] = [];
    for (let i = 0; i < EPISODES; i += 1000) {
      const batch = Array.from({ length: 1000 }, (_, j) => {
        const id = `ep_crash_${i + j}`;
        ids.push(id);
        return { key: id, value: { ...base, id, slug: `crash-${i + j}`, title: `Episode ${i + j}` } };
      });
      await producer.send(TOPICS.episodes, batch);
    }

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const count = async () => {
      try {
        return Number((await db.query('SELECT count(*) AS n FROM catalog_episodes')).rows[0].n);
      } catch {
        return 0;
      }
    };
    try {
      await waitFor(async () => (await count()) >= 2000, {
        timeoutMs: 120_000,
        stepMs: 50,
        what: 'projection under way',
      });
      const killedAt = await count();
      await first.stop('SIGKILL');
      expect(killedAt).toBeLessThan(EPISODES);

      const second = await spawnEarshot(['start', '--roles', 'projectors'], env);
      try {
        await waitFor(
          async () =>
            (await log.groupLag('projector.catalog', [TOPICS.episodes.name])).every((p) => p.lag === 0),
          { timeoutMs: 180_000, stepMs: 500, what: 'restarted projector caught up' },
        );
      } finally {
        const exit = await second.stop('SIGTERM');
        expect(exit.code, second.output()).toBe(0);
      }
      const rows = (await db.query('SELECT id FROM catalog_episodes')).rows as { id: string }[];
      expect(rows.length).toBe(EPISODES);
      expect(new Set(rows.map((r) => r.id))).toEqual(new Set(ids));
    } finally {
      await db.end();
    }
  });
});
