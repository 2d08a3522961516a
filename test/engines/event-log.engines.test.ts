import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { KafkaEventLog } from '../../ingest/event-log/kafka-event-log.ts';
import { eventLogContract } from '../contracts/event-log.contract.ts';
import { missing } from './engines-env.ts';

const reason = missing('KAFKA_BROKERS');

if (reason) {
  describe('event log contract: Kafka', () => {
    it.skip(reason, () => {});
  });
} else {
  eventLogContract(
    'Kafka',
    async () => {
      const prefix = `t${randomUUID().slice(0, 6)}.`;
      const open = () =>
        new KafkaEventLog({
          brokers: process.env.KAFKA_BROKERS!.split(','),
          clientId: 'earshot-contract',
          topicPrefix: prefix,
          logger: silentLogger(),
          sessionTimeoutMs: 10_000,
        });
      const log = open();
      return { log, reopen: async () => open(), cleanup: () => log.close() };
    },
    60_000,
  );
}
