import { Partitioners } from 'kafkajs';

const partitioner = Partitioners.DefaultPartitioner();

/**
 * The partition a record with `key` lands on in a topic of `partitions` partitions: Kafka's
 * default (murmur2) partitioner, which both event log adapters use. A step that keeps state per
 * key uses it to tell which keys belong to the partitions it holds.
 */
export function partitionOf(key: string, partitions: number): number {
  const partitionMetadata = Array.from({ length: partitions }, (_, i) => ({
    partitionId: i,
    leader: 0,
    replicas: [0],
    isr: [0],
    partitionErrorCode: 0,
  }));
  return partitioner({ topic: '', partitionMetadata, message: { key, value: null } });
}
