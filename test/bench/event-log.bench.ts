import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import { loadExample } from '../../schemas/avro-schemas.ts';
import type { EpisodePublished } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';

const EVENTS = 200_000;
const BATCH = 1000;

/** 1 KB Avro events through the codec and the embedded log, each way. */
export const eventLogBench: Bench = {
  name: 'event-log',
  description: `${EVENTS.toLocaleString()} ~1 KB EpisodePublished events: encode + produce, consume + decode (embedded log)`,
  async run(progress) {
    const tmp = tempDir('earshot-bench-');
    const log = new LmdbEventLog(path.join(tmp.dir, 'log'));
    const registry = new LmdbSchemaRegistry(path.join(tmp.dir, 'registry'));
    const codec = new AvroCodec(registry);
    const topic = TOPICS.episodes;
    try {
      await log.createTopics([topic]);
      await codec.registerTopic(topic.name, topic.valueSchema);
      const base = loadExample('EpisodePublished') as EpisodePublished;
      const filler = 'We talk about central banks, earnings season and the companies behind the headlines. ';
      const make = (i: number): EpisodePublished => ({
        ...base,
        id: `ep_${i}`,
        slug: `episode-${i}`,
        description: filler.repeat(12).slice(0, 840),
      });
      const eventBytes = codec.encode(topic.name, make(0)).length;

      // Like the loaders do: encode the next batch while the previous one is being committed.
      const t0 = performance.now();
      const inFlight = new Set<Promise<unknown>>();
      for (let i = 0; i < EVENTS; i += BATCH) {
        const records = [];
        for (let j = i; j < i + BATCH; j++) {
          records.push({ key: `ep_${j}`, value: codec.encode(topic.name, make(j)) });
        }
        const p = log.produce(topic.name, records).finally(() => inFlight.delete(p));
        inFlight.add(p);
        if (inFlight.size >= 4) await Promise.race(inFlight);
        if ((i / BATCH) % 50 === 0) progress(`produced ${i.toLocaleString()}`);
      }
      await Promise.all(inFlight);
      const produceSeconds = (performance.now() - t0) / 1000;

      let consumed = 0;
      let titles = 0;
      const consumer = log.consumer({
        groupId: `bench-${randomUUID()}`,
        topics: [topic.name],
        maxBatchRecords: 2000,
      });
      const t1 = performance.now();
      await new Promise<void>((resolve, reject) => {
        consumer
          .run({
            partitionsConsumedConcurrently: 2,
            eachBatch: async (batch) => {
              for (const r of batch.records) {
                const value = await codec.decode<EpisodePublished>(topic.name, r.value);
                titles += value.title.length > 0 ? 1 : 0;
              }
              consumed += batch.records.length;
              await consumer.commit([
                { topic: batch.topic, partition: batch.partition, offset: batch.records.at(-1)!.offset + 1 },
              ]);
              if (consumed >= EVENTS) resolve();
            },
          })
          .catch(reject);
      });
      const consumeSeconds = (performance.now() - t1) / 1000;
      await consumer.stop();
      if (titles !== EVENTS) throw new Error(`decoded ${titles} of ${EVENTS}`);

      const results: BenchResult[] = [
        { bench: 'event-log', metric: 'event size', value: eventBytes, unit: 'bytes' },
        {
          bench: 'event-log',
          metric: 'produce (encode + append, acked)',
          value: Math.round(EVENTS / produceSeconds),
          unit: 'events/s',
          target: { op: '>=', value: 50_000 },
        },
        {
          bench: 'event-log',
          metric: 'consume (fetch + decode + commit)',
          value: Math.round(EVENTS / consumeSeconds),
          unit: 'events/s',
          target: { op: '>=', value: 50_000 },
        },
      ];
      return results;
    } finally {
      await log.close();
      await registry.close();
      tmp.remove();
    }
  },
};
