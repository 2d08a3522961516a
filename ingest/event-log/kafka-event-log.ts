import {
  type Admin,
  AssignerProtocol,
  type IHeaders,
  Kafka,
  type Consumer as KafkaConsumer,
  logLevel,
  PartitionAssigners,
  Partitioners,
  type PartitionMetadata,
  type Producer,
} from 'kafkajs';
import type { Logger } from 'pino';
import {
  type Consumer,
  type ConsumerOptions,
  type EventLog,
  type GroupMembers,
  type LogRecord,
  lagOf,
  type PartitionLag,
  type ProduceRecord,
  type RecordPosition,
  RecordTooLargeError,
  type RunOptions,
  type TopicConfig,
  type TopicInfo,
  UnknownTopicError,
} from './event-log.ts';
import { CopartitionedAssigner } from './kafka-partition-assigner.ts';

export interface KafkaEventLogOptions {
  brokers: string[];
  clientId: string;
  /**
   * Prepended to every topic name and every consumer group id on the broker; callers keep using
   * logical names. Two deployments on one Kafka with different prefixes share neither topics nor
   * groups (their offsets, members and rebalances).
   */
  topicPrefix?: string;
  logger: Logger;
  sessionTimeoutMs?: number;
}

const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * Kafka adapter on kafkajs: an idempotent producer with acks=all, consumer groups with manual
 * commits (offsets are committed by the caller once its writes succeeded), graceful
 * disconnect. kafkajs implements the eager rebalance protocol; a member finishes the batches
 * it holds, and its caller commits them, before it gives its partitions up.
 */
export class KafkaEventLog implements EventLog {
  readonly kind = 'kafka';
  private readonly kafka: Kafka;
  private readonly prefix: string;
  private admin?: Promise<Admin>;
  private producer?: Promise<Producer>;
  private readonly partitionCounts = new Map<string, PartitionMetadata[]>();
  private readonly maxMessageBytes = new Map<string, number>();
  private readonly partitioner = Partitioners.DefaultPartitioner();
  private readonly consumers = new Set<KafkaGroupConsumer>();

  constructor(private readonly options: KafkaEventLogOptions) {
    this.prefix = options.topicPrefix ?? '';
    const log = options.logger.child({ component: 'kafkajs' });
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: logLevel.WARN,
      retry: { retries: 8, initialRetryTime: 200 },
      logCreator:
        () =>
        ({ level, log: entry }) => {
          const { message, ...rest } = entry;
          if (level <= logLevel.ERROR) log.error(rest, message);
          else if (level === logLevel.WARN) log.warn(rest, message);
          else log.debug(rest, message);
        },
    });
  }

  physical(topic: string): string {
    return this.prefix + topic;
  }

  logical(topic: string): string {
    return topic.startsWith(this.prefix) ? topic.slice(this.prefix.length) : topic;
  }

  /** The consumer group id on the broker: the prefix, then the logical id. */
  physicalGroup(groupId: string): string {
    return this.prefix + groupId;
  }

  private getAdmin(): Promise<Admin> {
    this.admin ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })();
    return this.admin;
  }

  private getProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
      });
      await producer.connect();
      return producer;
    })();
    return this.producer;
  }

  async createTopics(topics: TopicConfig[]): Promise<void> {
    const admin = await this.getAdmin();
    for (const t of topics) this.maxMessageBytes.set(t.name, t.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    for (let attempt = 1; ; attempt++) {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((t) => !existing.has(this.physical(t.name)));
      if (missing.length === 0) return;
      try {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((t) => ({
            topic: this.physical(t.name),
            numPartitions: t.partitions,
            configEntries: [
              { name: 'cleanup.policy', value: t.retention.policy },
              ...(t.retention.policy === 'delete'
                ? [{ name: 'retention.ms', value: String(t.retention.ms) }]
                : []),
              { name: 'max.message.bytes', value: String(t.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES) },
            ],
          })),
        });
        return;
      } catch (err) {
        // Processes starting together create the same topics: one is told they already exist, or
        // finds a topic the other just created without metadata yet. Look again shortly.
        if (attempt >= 8 || !concurrentCreation(err)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  private async partitions(topic: string): Promise<PartitionMetadata[]> {
    let partitions = this.partitionCounts.get(topic);
    if (!partitions) {
      const admin = await this.getAdmin();
      try {
        const { topics } = await admin.fetchTopicMetadata({ topics: [this.physical(topic)] });
        partitions = topics[0]?.partitions.sort((a, b) => a.partitionId - b.partitionId);
      } catch {
        partitions = undefined;
      }
      if (!partitions || partitions.length === 0) throw new UnknownTopicError(topic);
      this.partitionCounts.set(topic, partitions);
    }
    return partitions;
  }

  async listTopics(): Promise<TopicInfo[]> {
    const admin = await this.getAdmin();
    const names = (await admin.listTopics()).filter((t) => t.startsWith(this.prefix) && !t.startsWith('__'));
    const out: TopicInfo[] = [];
    for (const name of names.sort()) {
      const offsets = await topicOffsets(admin, name);
      out.push({
        name: this.logical(name),
        partitions: offsets
          .map((o) => ({ partition: o.partition, earliest: Number(o.low), end: Number(o.high) }))
          .sort((a, b) => a.partition - b.partition),
      });
    }
    return out;
  }

  async produce(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]> {
    if (records.length === 0) return [];
    const partitionMetadata = await this.partitions(topic);
    const limit = this.maxMessageBytes.get(topic) ?? DEFAULT_MAX_MESSAGE_BYTES;
    const assigned = records.map((r) => {
      const size = (r.value?.length ?? 0) + (r.key?.length ?? 0);
      if (size > limit) throw new RecordTooLargeError(topic, size, limit);
      return (
        r.partition ?? this.partitioner({ topic, partitionMetadata, message: { key: r.key, value: r.value } })
      );
    });
    const producer = await this.getProducer();
    const now = Date.now();
    const metadata = await producer.send({
      topic: this.physical(topic),
      acks: -1,
      messages: records.map((r, i) => ({
        key: r.key,
        value: r.value,
        partition: assigned[i],
        headers: r.headers,
        timestamp: String(r.timestamp ?? now),
      })),
    });
    const base = new Map(metadata.map((m) => [m.partition, Number(m.baseOffset)]));
    const seen = new Map<number, number>();
    return assigned.map((partition) => {
      const index = seen.get(partition) ?? 0;
      seen.set(partition, index + 1);
      return { topic, partition, offset: (base.get(partition) ?? 0) + index };
    });
  }

  consumer(options: ConsumerOptions): Consumer {
    const consumer = new KafkaGroupConsumer(
      this,
      this.kafka,
      options,
      this.options.sessionTimeoutMs ?? 30_000,
      () => this.consumers.delete(consumer),
    );
    this.consumers.add(consumer);
    return consumer;
  }

  async offsetsForTime(topic: string, timestamp: number): Promise<{ partition: number; offset: number }[]> {
    await this.partitions(topic);
    const admin = await this.getAdmin();
    const found = await admin.fetchTopicOffsetsByTimestamp(this.physical(topic), timestamp);
    const high = await topicOffsets(admin, this.physical(topic));
    return found
      .map((f) => {
        const offset = Number(f.offset);
        const end = Number(high.find((h) => h.partition === f.partition)?.high ?? 0);
        return { partition: f.partition, offset: offset < 0 ? end : offset };
      })
      .sort((a, b) => a.partition - b.partition);
  }

  async committedOffsets(groupId: string, topic: string): Promise<{ partition: number; offset: number }[]> {
    await this.partitions(topic);
    const admin = await this.getAdmin();
    const [entry] = await groupOffsets(admin, this.physicalGroup(groupId), this.physical(topic));
    return (entry?.partitions ?? [])
      .map((p) => ({ partition: p.partition, offset: Number(p.offset) }))
      .sort((a, b) => a.partition - b.partition);
  }

  async setCommittedOffsets(
    groupId: string,
    topic: string,
    offsets: { partition: number; offset: number }[],
  ): Promise<void> {
    await this.partitions(topic);
    const admin = await this.getAdmin();
    await admin.setOffsets({
      groupId: this.physicalGroup(groupId),
      topic: this.physical(topic),
      partitions: offsets.map((o) => ({ partition: o.partition, offset: String(o.offset) })),
    });
  }

  async groupMembers(): Promise<GroupMembers[]> {
    const admin = await this.getAdmin();
    // This deployment's groups only: those under its prefix, listed by their logical ids.
    const ids = (await admin.listGroups()).groups
      .map((g) => g.groupId)
      .filter((id) => id.startsWith(this.prefix));
    if (ids.length === 0) return [];
    const described = await admin.describeGroups(ids);
    return described.groups
      .filter((g) => g.members.length > 0)
      .map((g) => ({
        groupId: g.groupId.slice(this.prefix.length),
        members: g.members.map((m) => {
          const decoded =
            m.memberAssignment.length > 0
              ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment)
              : null;
          return {
            memberId: m.memberId,
            clientId: m.clientId,
            host: m.clientHost,
            assignment: Object.entries(decoded?.assignment ?? {}).flatMap(([topic, partitions]) =>
              partitions.map((partition) => ({ topic: this.logical(topic), partition })),
            ),
          };
        }),
      }));
  }

  async groupLag(groupId: string, topics: string[]): Promise<PartitionLag[]> {
    const admin = await this.getAdmin();
    const out: PartitionLag[] = [];
    for (const topic of topics) {
      const ends = await topicOffsets(admin, this.physical(topic));
      const committed = await this.committedOffsets(groupId, topic);
      for (const e of ends.sort((a, b) => a.partition - b.partition)) {
        const c = committed.find((x) => x.partition === e.partition)?.offset ?? -1;
        const end = Number(e.high);
        out.push({ topic, partition: e.partition, committed: c, end, lag: lagOf(c, Number(e.low), end) });
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
    if (this.producer) await (await this.producer).disconnect();
    if (this.admin) await (await this.admin).disconnect();
  }
}

class KafkaGroupConsumer implements Consumer {
  private readonly consumer: KafkaConsumer;
  private assigned: { topic: string; partition: number }[] = [];
  private stopped?: Promise<void>;

  constructor(
    private readonly log: KafkaEventLog,
    kafka: Kafka,
    private readonly options: ConsumerOptions,
    sessionTimeout: number,
    private readonly onStopped: () => void,
  ) {
    this.consumer = kafka.consumer({
      groupId: log.physicalGroup(options.groupId),
      sessionTimeout,
      heartbeatInterval: Math.floor(sessionTimeout / 10),
      allowAutoTopicCreation: false,
      maxBytesPerPartition: 4 * 1024 * 1024,
      // Partition p of every input topic to one member; round-robin stays listed so members of an
      // older version can still agree on a protocol during a rolling restart.
      partitionAssigners: [CopartitionedAssigner, PartitionAssigners.roundRobin],
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
      this.assigned = Object.entries(payload.memberAssignment).flatMap(([topic, partitions]) =>
        partitions.map((partition) => ({ topic: log.logical(topic), partition })),
      );
    });
  }

  async run(run: RunOptions): Promise<void> {
    const maxBatch = this.options.maxBatchRecords ?? 1000;
    await this.consumer.connect();
    await this.consumer.subscribe({
      topics: this.options.topics.map((t) => this.log.physical(t)),
      fromBeginning: this.options.fromBeginning ?? true,
    });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: run.partitionsConsumedConcurrently ?? 1,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        const topic = this.log.logical(batch.topic);
        const highWatermark = Number(batch.highWatermark);
        for (let i = 0; i < batch.messages.length; i += maxBatch) {
          if (!isRunning() || isStale()) return;
          const records: LogRecord[] = batch.messages.slice(i, i + maxBatch).map((m) => ({
            topic,
            partition: batch.partition,
            offset: Number(m.offset),
            key: m.key ? m.key.toString('utf8') : null,
            value: m.value,
            headers: stringHeaders(m.headers),
            timestamp: Number(m.timestamp),
          }));
          await run.eachBatch({ topic, partition: batch.partition, records, highWatermark, heartbeat });
          resolveOffset(records.at(-1)!.offset.toString());
          await heartbeat();
        }
      },
    });
  }

  async commit(positions: RecordPosition[]): Promise<void> {
    if (positions.length === 0) return;
    await this.consumer.commitOffsets(
      positions.map((p) => ({
        topic: this.log.physical(p.topic),
        partition: p.partition,
        offset: String(p.offset),
      })),
    );
  }

  seek(position: RecordPosition): void {
    this.consumer.seek({
      topic: this.log.physical(position.topic),
      partition: position.partition,
      offset: String(position.offset),
    });
  }

  assignment(): { topic: string; partition: number }[] {
    return [...this.assigned];
  }

  lag(): Promise<PartitionLag[]> {
    return this.log.groupLag(this.options.groupId, this.options.topics);
  }

  stop(beforeLeave?: () => Promise<void>): Promise<void> {
    this.stopped ??= (async () => {
      try {
        await this.consumer.stop();
        await beforeLeave?.();
      } finally {
        await this.consumer.disconnect();
        this.onStopped();
      }
    })();
    return this.stopped;
  }
}

function stringHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.map(String).join(',') : v.toString();
  }
  return out;
}

function concurrentCreation(err: unknown): boolean {
  const e = err as { retriable?: boolean; type?: string; message?: string; errors?: unknown[] };
  if (e.retriable || e.type === 'TOPIC_ALREADY_EXISTS' || /already exists/i.test(e.message ?? ''))
    return true;
  return Array.isArray(e.errors) && e.errors.some(concurrentCreation);
}

/**
 * `admin.fetchTopicOffsets`, again after a moment when kafkajs's metadata does not hold the topic
 * yet: it then fails with a TypeError (`Cannot destructure property 'partitions' of
 * 'low.pop(...)'`), which its own retrier does not retry. Seen when several processes start
 * together and one reads lag just after the topic's metadata was requested. Likewise a
 * retriable protocol error (NOT_LEADER_FOR_PARTITION while a new topic's leaders settle).
 */
async function topicOffsets(admin: Admin, topic: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await admin.fetchTopicOffsets(topic);
    } catch (err) {
      // Right after creation a partition may have no leader known to the broker asked yet
      // (a retriable protocol error, e.g. NOT_LEADER_FOR_PARTITION): ask again shortly.
      const retriable = err instanceof TypeError || (err as { retriable?: boolean }).retriable === true;
      if (!retriable || attempt >= 10) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/**
 * `admin.fetchOffsets`, again after a moment on a retriable protocol error: on a fresh broker
 * (or while a group's coordinator moves) the broker asked answers NOT_COORDINATOR_FOR_GROUP or
 * COORDINATOR_LOAD_IN_PROGRESS, which kafkajs's admin passes on. Seen when a cluster's instances
 * start together and read their groups' lag for readiness: the process must not die of it.
 */
async function groupOffsets(admin: Admin, groupId: string, topic: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await admin.fetchOffsets({ groupId, topics: [topic] });
    } catch (err) {
      if ((err as { retriable?: boolean }).retriable !== true || attempt >= 10) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}
