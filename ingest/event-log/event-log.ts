import type { Retention } from '../../schemas/topics.ts';

/**
 * Event log port: partitioned, ordered, durable topics with consumer groups, in the shape of
 * Kafka. Records with the same key land on the same partition and keep their order there.
 * Offsets are per partition; a committed offset is the next offset the group will read.
 */
export interface TopicConfig {
  name: string;
  partitions: number;
  retention: Retention;
  maxMessageBytes?: number;
}

export interface ProduceRecord {
  key: string | null;
  value: Buffer | null;
  headers?: Record<string, string>;
  /** Epoch ms; defaults to the time of the append. */
  timestamp?: number;
  partition?: number;
}

export interface RecordPosition {
  topic: string;
  partition: number;
  offset: number;
}

export interface LogRecord extends RecordPosition {
  key: string | null;
  value: Buffer | null;
  headers: Record<string, string>;
  timestamp: number;
}

export interface PartitionOffsets {
  partition: number;
  /** Oldest offset still held (records before it were removed by retention or compaction). */
  earliest: number;
  /** Offset the next appended record will get (the high watermark). */
  end: number;
}

export interface TopicInfo {
  name: string;
  partitions: PartitionOffsets[];
}

export interface PartitionLag {
  topic: string;
  partition: number;
  /** -1 when the group has committed nothing on this partition. */
  committed: number;
  end: number;
  lag: number;
}

export interface RecordBatch {
  topic: string;
  partition: number;
  records: LogRecord[];
  /** End offset of the partition when the batch was fetched. */
  highWatermark: number;
  /** Keeps group membership alive during long work on the batch (where the engine needs it). */
  heartbeat?: () => Promise<void>;
}

export interface ConsumerOptions {
  groupId: string;
  topics: string[];
  /** Where a group with no committed offset starts: the oldest record (default) or the end. */
  fromBeginning?: boolean;
  /** Upper bound on records handed over in one batch. */
  maxBatchRecords?: number;
}

export interface RunOptions {
  /**
   * Called with consecutive records of one partition. The next batch of that partition starts
   * after the last record handed over, whether or not it was committed; if the handler throws,
   * the partition is rewound to the committed offset and retried after a pause.
   */
  eachBatch(batch: RecordBatch): Promise<void>;
  /** How many partitions may be in `eachBatch` at once (default 1). */
  partitionsConsumedConcurrently?: number;
}

export interface Consumer {
  run(options: RunOptions): Promise<void>;
  /** Commits the next offsets to read. Only ever call with offsets of records already handled. */
  commit(positions: RecordPosition[]): Promise<void>;
  /** Moves the fetch position of a partition this consumer holds. */
  seek(position: RecordPosition): void;
  /** Partitions currently assigned to this member. */
  assignment(): { topic: string; partition: number }[];
  lag(): Promise<PartitionLag[]>;
  /**
   * Stops fetching, waits for batches in flight, runs `beforeLeave` (the last chance to
   * commit what was handed over), then leaves the group.
   */
  stop(beforeLeave?: () => Promise<void>): Promise<void>;
}

export interface GroupMembers {
  groupId: string;
  members: {
    memberId: string;
    clientId: string;
    host: string;
    assignment: { topic: string; partition: number }[];
  }[];
}

export interface EventLog {
  readonly kind: string;
  /** Creates missing topics; existing topics are left as they are. */
  createTopics(topics: TopicConfig[]): Promise<void>;
  listTopics(): Promise<TopicInfo[]>;
  /** Appends records; resolves once every record is durably acknowledged. */
  produce(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]>;
  consumer(options: ConsumerOptions): Consumer;
  /** Per partition, the first offset whose timestamp is at or after `timestamp` (end if none). */
  offsetsForTime(topic: string, timestamp: number): Promise<{ partition: number; offset: number }[]>;
  committedOffsets(groupId: string, topic: string): Promise<{ partition: number; offset: number }[]>;
  /** Sets a group's committed offsets (operator replay). The group should have no live members. */
  setCommittedOffsets(
    groupId: string,
    topic: string,
    offsets: { partition: number; offset: number }[],
  ): Promise<void>;
  groupLag(groupId: string, topics: string[]): Promise<PartitionLag[]>;
  /**
   * The consumer groups with live members, each member with its client id and the partitions it
   * holds (`earshot cluster status`). Where the engine can tell (Kafka).
   */
  groupMembers?(): Promise<GroupMembers[]>;
  /**
   * Housekeeping the engine does not do by itself (the embedded log's retention and compaction).
   * Returns the number of records removed. Kafka applies topic configs on its own.
   */
  maintain?(now?: number): Promise<number>;
  close(): Promise<void>;
}

export class UnknownTopicError extends Error {
  constructor(readonly topic: string) {
    super(`unknown topic ${topic}`);
    this.name = 'UnknownTopicError';
  }
}

export class RecordTooLargeError extends Error {
  constructor(
    readonly topic: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super(`record of ${size} bytes exceeds the ${limit}-byte limit of topic ${topic}`);
    this.name = 'RecordTooLargeError';
  }
}

export function lagOf(committed: number, earliest: number, end: number): number {
  return Math.max(0, end - Math.max(committed, earliest));
}
