import type { Logger } from 'pino';
import { createEventLog, createSchemaRegistry } from '../../infra/composition.ts';
import type { Config } from '../../infra/config.ts';
import { allTopicSpecs } from '../../schemas/topics.ts';
import type { EventLog } from '../event-log/event-log.ts';
import { EventProducer } from '../event-producer.ts';
import { AvroCodec } from '../schema-registry/avro-codec.ts';
import type { SchemaRegistry } from '../schema-registry/schema-registry.ts';

/**
 * Just the event backbone (event log, schema registry, codec, producer) for command-line
 * sources such as `earshot ingest`, which must not open the stores a running service holds.
 */
export interface Backbone {
  eventLog: EventLog;
  registry: SchemaRegistry;
  codec: AvroCodec;
  producer: EventProducer;
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
    async close() {
      await eventLog.close();
      await registry.close();
    },
  };
}
