import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { KafkaEventLog } from '../../ingest/event-log/kafka-event-log.ts';

/** Names on the broker (no broker needed: the adapter connects on first use). */
describe('Kafka names under EARSHOT_TOPIC_PREFIX', () => {
  const open = (topicPrefix?: string) =>
    new KafkaEventLog({
      brokers: ['127.0.0.1:9'],
      clientId: 'earshot-unit',
      ...(topicPrefix !== undefined ? { topicPrefix } : {}),
      logger: silentLogger(),
    });

  it('prefixes consumer group ids as it prefixes topics', () => {
    const log = open('blue.');
    expect(log.physical('episodes')).toBe('blue.episodes');
    expect(log.physicalGroup('processor.alert-matcher')).toBe('blue.processor.alert-matcher');
    expect(open('green.').physicalGroup('processor.alert-matcher')).not.toBe(
      log.physicalGroup('processor.alert-matcher'),
    );
  });

  it('keeps names as they are without a prefix', () => {
    const log = open();
    expect(log.physical('episodes')).toBe('episodes');
    expect(log.physicalGroup('projector.catalog')).toBe('projector.catalog');
  });
});
