import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';

/**
 * Co-partitioned assignment for kafkajs consumer groups: partition number `p` of every topic the
 * group reads goes to the same member (members sorted by id, `p mod members`). Topics keyed by the
 * same id with the same partition count (the episode topics: episode id, 6 partitions) thus bring
 * everything about one key to one member, so a step that keeps state per key (the alert
 * matcher's episode facts) never has two members updating the same key. kafkajs's own
 * round-robin assigner deals topic-partitions out one by one, which splits a key's topics across
 * members. The embedded log assigns the same way (lmdb-consumer.ts).
 */
export const CopartitionedAssigner: PartitionAssigner = ({ cluster }) => ({
  name: 'EarshotCopartitioned',
  version: 0,
  async assign({ members, topics }) {
    const sorted = members.map((m) => m.memberId).sort();
    const assignment = new Map<string, Record<string, number[]>>(sorted.map((id) => [id, {}]));
    for (const topic of topics) {
      for (const { partitionId } of cluster.findTopicPartitionMetadata(topic)) {
        const member = assignment.get(sorted[partitionId % sorted.length]!)!;
        member[topic] = [...(member[topic] ?? []), partitionId];
      }
    }
    return [...assignment].map(([memberId, topicPartitions]) => ({
      memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: 0,
        assignment: topicPartitions,
        userData: Buffer.alloc(0),
      }),
    }));
  },
  protocol({ topics }) {
    return {
      name: 'EarshotCopartitioned',
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    };
  },
});
