import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { KafkaEventLog } from '../../ingest/event-log/kafka-event-log.ts';
import { eventLogContract } from '../contracts/event-log.contract.ts';
import { waitFor } from '../support/wait-for.ts';
import { missing } from './engines-env.ts';

const reason = missing('KAFKA_BROKERS');

const open = (prefix: string) =>
  new KafkaEventLog({
    brokers: process.env.KAFKA_BROKERS!.split(','),
    clientId: 'earshot-contract',
    topicPrefix: prefix,
    logger: silentLogger(),
    sessionTimeoutMs: 10_000,
  });

if (reason) {
  describe('event log contract: Kafka', () => {
    it.skip(reason, () => {});
  });
} else {
  eventLogContract(
    'Kafka',
    async () => {
      const prefix = `t${randomUUID().slice(0, 6)}.`;
      const log = open(prefix);
      return { log, reopen: async () => open(prefix), cleanup: () => log.close() };
    },
    60_000,
  );

  describe('Kafka: two deployments with different prefixes on one broker', () => {
    it('share no consumer group: the broker holds it under the prefix, each lists only its own', {
      timeout: 90_000,
    }, async () => {
      const [a, b] = [`ta${randomUUID().slice(0, 6)}.`, `tb${randomUUID().slice(0, 6)}.`];
      const [blue, green] = [open(a), open(b)];
      const kafka = new Kafka({
        brokers: process.env.KAFKA_BROKERS!.split(','),
        clientId: 'earshot-contract-admin',
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await admin.connect();
      try {
        const topic = 'contract.shared';
        const group = 'processor.shared-step';
        for (const log of [blue, green]) {
          await log.createTopics([{ name: topic, partitions: 1, retention: { policy: 'delete', ms: -1 } }]);
        }
        await blue.produce(topic, [{ key: 'k', value: Buffer.from('blue') }]);
        const consumer = blue.consumer({ groupId: group, topics: [topic] });
        const got: string[] = [];
        void consumer.run({
          async eachBatch(batch) {
            for (const r of batch.records) got.push(String(r.value));
            await consumer.commit([
              { topic, partition: batch.partition, offset: batch.records.at(-1)!.offset + 1 },
            ]);
          },
        });
        await waitFor(() => got.length === 1, { timeoutMs: 60_000, what: 'blue record consumed' });
        await waitFor(async () => (await blue.committedOffsets(group, topic))[0]?.offset === 1, {
          timeoutMs: 30_000,
          what: 'blue offset committed',
        });

        // On the broker the group carries blue's prefix (fresh for this run).
        expect((await admin.listGroups()).groups.map((g) => g.groupId)).toContain(`${a}${group}`);
        // Each deployment lists its own groups by logical id, never the other's.
        expect((await blue.groupMembers()).map((g) => g.groupId)).toContain(group);
        expect((await green.groupMembers()).map((g) => g.groupId)).not.toContain(group);
        await consumer.stop();
      } finally {
        await admin.disconnect();
        await blue.close();
        await green.close();
      }
    });
  });
}
