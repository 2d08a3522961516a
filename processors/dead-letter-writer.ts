import type { LogRecord } from '../ingest/event-log/event-log.ts';
import type { EventProducer } from '../ingest/event-producer.ts';
import type { DeadLetter } from '../schemas/generated/index.ts';
import { type TopicSpec, topicByName } from '../schemas/topics.ts';

/** A record the runner sets aside, and why. */
export interface DeadLetterSource {
  source: LogRecord;
  /** The `step` of the dead-letter record: `decode`, the step's name (handler) or `write`. */
  step: string;
  reason: string;
}

/** The dead letters of one flush onto each source topic's dead-letter topic, as DeadLetter records. */
export async function writeDeadLetters(
  producer: EventProducer,
  groupId: string,
  entries: DeadLetterSource[],
): Promise<void> {
  const byTopic = new Map<TopicSpec, { key: string | null; value: DeadLetter }[]>();
  const now = Date.now();
  for (const { source, step, reason } of entries) {
    const spec = topicByName(source.topic);
    const dlq = topicByName(spec?.deadLetter ?? `${source.topic}.dlq`);
    if (!dlq) throw new Error(`no dead-letter topic declared for ${source.topic}`);
    const list = byTopic.get(dlq) ?? [];
    list.push({
      key: source.key,
      value: {
        source_topic: source.topic,
        source_partition: source.partition,
        source_offset: source.offset,
        source_timestamp: source.timestamp,
        key: source.key,
        value: source.value,
        headers: source.headers,
        step,
        consumer_group: groupId,
        reason,
        failed_at: now,
      },
    });
    byTopic.set(dlq, list);
  }
  for (const [dlq, events] of byTopic) await producer.send(dlq, events);
}
