import path from 'node:path';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { EventProducer } from '../../ingest/event-producer.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import { allTopicSpecs } from '../../schemas/topics.ts';
import { tempDir } from './temp-dir.ts';

/** An embedded event backbone in a temp dir with every declared topic and schema registered. */
export async function embeddedBackbone(keptDir?: string) {
  // A kept dir (a long bench build that may be stopped and started again) outlives close().
  const tmp = keptDir ? { dir: keptDir, remove: () => {} } : tempDir();
  const log = new LmdbEventLog(path.join(tmp.dir, 'event-log'), {
    heartbeatIntervalMs: 200,
    sessionTimeoutMs: 1500,
  });
  const registry = new LmdbSchemaRegistry(path.join(tmp.dir, 'schema-registry'));
  const codec = new AvroCodec(registry);
  const specs = allTopicSpecs();
  await log.createTopics(specs);
  for (const s of specs) await codec.registerTopic(s.name, s.valueSchema);
  return {
    dir: tmp.dir,
    log,
    registry,
    codec,
    producer: new EventProducer(log, codec),
    async close() {
      await log.close();
      await registry.close();
      tmp.remove();
    },
  };
}
