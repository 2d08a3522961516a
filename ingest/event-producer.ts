import type { TopicSpec } from '../schemas/topics.ts';
import type { EventLog, RecordPosition } from './event-log/event-log.ts';
import type { AvroCodec } from './schema-registry/avro-codec.ts';

export interface OutgoingEvent<V = unknown> {
  key: string | null;
  value: V;
  headers?: Record<string, string>;
}

/** Produces typed events: validates and encodes each value with its topic's schema. */
export class EventProducer {
  constructor(
    readonly log: EventLog,
    readonly codec: AvroCodec,
  ) {}

  async send<V>(topic: TopicSpec, events: OutgoingEvent<V>[]): Promise<RecordPosition[]> {
    if (events.length === 0) return [];
    const records = events.map((e) => ({
      key: e.key,
      value: this.codec.encode(topic.name, e.value),
      headers: e.headers,
    }));
    return this.log.produce(topic.name, records);
  }
}

/** An item a step hands to a named output; the processor maps names to topics. */
export interface OutputEvent<Name extends string = string, V = unknown> extends OutgoingEvent<V> {
  output: Name;
}

/** A sink that produces each item to the topic its output name is bound to. */
export function outputSink<Name extends string>(producer: EventProducer, outputs: Record<Name, TopicSpec>) {
  return {
    async write(items: OutputEvent<Name>[]): Promise<void> {
      const byOutput = new Map<Name, OutputEvent<Name>[]>();
      for (const item of items) {
        if (!(item.output in outputs)) throw new Error(`unknown output ${item.output}`);
        const list = byOutput.get(item.output) ?? [];
        list.push(item);
        byOutput.set(item.output, list);
      }
      await Promise.all([...byOutput].map(([name, events]) => producer.send(outputs[name], events)));
    },
  };
}
