import type { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import type { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import type { TopicSpec } from '../../schemas/topics.ts';

/** Every record of a topic on an embedded log, decoded, in partition order. */
export async function readTopic<T>(
  log: LmdbEventLog,
  codec: AvroCodec,
  topic: TopicSpec,
): Promise<{ key: string | null; value: T }[]> {
  const out: { key: string | null; value: T }[] = [];
  for (let p = 0; p < topic.partitions; p++) {
    for (const r of log.read(topic.name, p, 0, Number.MAX_SAFE_INTEGER)) {
      out.push({ key: r.key, value: await codec.decode<T>(topic.name, r.value) });
    }
  }
  return out;
}

/** Number of records on a topic of an embedded log. */
export function countTopic(log: LmdbEventLog, topic: TopicSpec): number {
  let n = 0;
  for (let p = 0; p < topic.partitions; p++) {
    const o = log.partitionOffsets(topic.name, p);
    n += o.end - o.earliest;
  }
  return n;
}
