// Smoke checks of running local engines through the same client libraries the app uses:
// a Kafka round trip of a schema-registry-encoded Avro record, BACKWARD compatibility enforcement
// (409), an OpenSearch k-NN (lucene HNSW, cosine) index, and a PostgreSQL query.
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Client } from '@opensearch-project/opensearch';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';

export interface SmokeResult {
  engine: string;
  ok: boolean;
  detail: string;
}

const suffix = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

const EPISODE_V1 = {
  type: 'record',
  name: 'SmokeEpisode',
  namespace: 'earshot.smoke',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'title', type: 'string' },
  ],
};
// a new field without a default: not BACKWARD compatible
const EPISODE_BAD = { ...EPISODE_V1, fields: [...EPISODE_V1.fields, { name: 'minutes', type: 'int' }] };

async function schemaRegistry(url: string): Promise<string> {
  const registry = new SchemaRegistry({ host: url });
  const subject = `smoke-${suffix()}-value`;
  const { id } = await registry.register(
    { type: SchemaType.AVRO, schema: JSON.stringify(EPISODE_V1) },
    { subject },
  );
  const again = await registry.register(
    { type: SchemaType.AVRO, schema: JSON.stringify(EPISODE_V1) },
    { subject },
  );
  if (again.id !== id) throw new Error(`same schema registered twice got ids ${id} and ${again.id}`);
  const wire = await registry.encode(id, { id: 'e1', title: 'Pilot' });
  if (wire[0] !== 0 || wire.readInt32BE(1) !== id)
    throw new Error('encoded record is not in Confluent wire format');
  try {
    await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(EPISODE_BAD) }, { subject });
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status !== 409) throw err;
    return `registered ${subject} as id ${id}; incompatible v2 rejected with 409`;
  }
  throw new Error('an incompatible schema version was accepted (global BACKWARD rule not in force)');
}

async function kafkaRoundTrip(brokers: string, registryUrl?: string): Promise<string> {
  const kafka = new Kafka({
    clientId: 'earshot-smoke',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  });
  const topic = `smoke-${suffix()}`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true });
    const registry = registryUrl ? new SchemaRegistry({ host: registryUrl }) : undefined;
    const id = registry
      ? (
          await registry.register(
            { type: SchemaType.AVRO, schema: JSON.stringify(EPISODE_V1) },
            { subject: `${topic}-value` },
          )
        ).id
      : undefined;
    const value =
      registry && id !== undefined
        ? await registry.encode(id, { id: 'e1', title: 'Pilot' })
        : Buffer.from('{"id":"e1"}');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'e1', value }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: `${topic}-group` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no record consumed within 30 s')), 30_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          clearTimeout(timer);
          resolve(message.value ?? Buffer.alloc(0));
        },
      });
    });
    await consumer.disconnect();
    const decoded = registry ? JSON.stringify(await registry.decode(received)) : received.toString();
    return `produced and consumed on ${topic}: ${decoded}`;
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  }
}

async function openSearch(node: string): Promise<string> {
  const client = new Client({ node });
  const index = `smoke-${suffix()}`;
  await client.indices.create({
    index,
    body: {
      settings: { index: { knn: true, number_of_shards: 1, number_of_replicas: 0 } },
      mappings: {
        properties: {
          text: { type: 'text', analyzer: 'english' },
          embedding: {
            type: 'knn_vector',
            dimension: 3,
            method: { engine: 'lucene', name: 'hnsw', space_type: 'cosinesimil' },
          },
        },
      },
    } as never,
  });
  try {
    await client.bulk({
      index,
      refresh: true,
      body: [
        { index: { _id: 'money' } },
        { text: 'investing and markets', embedding: [1, 0, 0] },
        { index: { _id: 'food' } },
        { text: 'cooking at home', embedding: [0, 1, 0] },
        { index: { _id: 'stocks' } },
        { text: 'stock market investors', embedding: [0.9, 0.2, 0] },
      ],
    });
    const knn = await client.search({
      index,
      body: { size: 2, query: { knn: { embedding: { vector: [1, 0.1, 0], k: 2 } } } } as never,
    });
    const ids = knn.body.hits.hits.map((h) => h._id);
    if (ids[0] !== 'money' || ids[1] !== 'stocks') throw new Error(`unexpected k-NN hits ${ids.join(',')}`);
    const text = await client.search({ index, body: { query: { match: { text: 'markets' } } } });
    const textHits = text.body.hits.hits.map((h) => h._id).sort();
    if (textHits.join(',') !== 'money,stocks') throw new Error(`unexpected text hits ${textHits.join(',')}`);
    return `knn_vector (lucene hnsw cosinesimil) query -> ${ids.join(',')}; english analyzer match -> ${textHits.join(',')}`;
  } finally {
    await client.indices.delete({ index }).catch(() => {});
  }
}

async function postgres(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TEMP TABLE smoke (id int PRIMARY KEY, doc jsonb)');
    await client.query('INSERT INTO smoke VALUES (1, $1)', [{ ok: true }]);
    const row = (await client.query('SELECT current_database() AS db, doc FROM smoke')).rows[0];
    return `database ${row.db}; jsonb round trip ${JSON.stringify(row.doc)}`;
  } finally {
    await client.end();
  }
}

async function check(engine: string, fn: () => Promise<string>): Promise<SmokeResult> {
  try {
    return { engine, ok: true, detail: await fn() };
  } catch (err) {
    return { engine, ok: false, detail: err instanceof Error ? err.message : String(err) };
  }
}

/** Runs the checks for whichever engines `env` points at (e.g. enginesEnv()). */
export async function enginesSmoke(env: Record<string, string>): Promise<SmokeResult[]> {
  const results: SmokeResult[] = [];
  const { KAFKA_BROKERS, SCHEMA_REGISTRY_URL, OPENSEARCH_URL, DATABASE_URL } = env;
  if (SCHEMA_REGISTRY_URL)
    results.push(await check('schema-registry', () => schemaRegistry(SCHEMA_REGISTRY_URL)));
  if (KAFKA_BROKERS)
    results.push(await check('kafka', () => kafkaRoundTrip(KAFKA_BROKERS, SCHEMA_REGISTRY_URL)));
  if (OPENSEARCH_URL) results.push(await check('opensearch', () => openSearch(OPENSEARCH_URL)));
  if (DATABASE_URL) results.push(await check('postgres', () => postgres(DATABASE_URL)));
  return results;
}
