import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { Partitioners } from 'kafkajs';
import { type Database, open, type RootDatabase } from 'lmdb';
import type { Retention } from '../../schemas/topics.ts';
import {
  type Consumer,
  type ConsumerOptions,
  type EventLog,
  type LogRecord,
  lagOf,
  type PartitionLag,
  type PartitionOffsets,
  type ProduceRecord,
  type RecordPosition,
  RecordTooLargeError,
  type TopicConfig,
  type TopicInfo,
  UnknownTopicError,
} from './event-log.ts';
import { LmdbConsumer } from './lmdb-consumer.ts';
import { decodeFrame, encodeFrame, frameAppendTime, frameKey } from './record-frame.ts';

type RecordKey = [string, number, number];
interface StoredTopic {
  partitions: number;
  retention: Retention;
  maxMessageBytes: number;
}
interface Member {
  heartbeat: number;
  topics: string[];
}

const LAST = Number.MAX_SAFE_INTEGER;
const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

export interface LmdbEventLogOptions {
  /** A member that has not heartbeated for this long is considered gone. */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** How often an idle consumer looks for records appended by other processes. */
  idlePollMs?: number;
}

/**
 * Durable embedded event log on LMDB. Records live under (topic, partition, offset) keys; an
 * append assigns offsets inside one write transaction, so several processes sharing the data
 * dir append safely and an acknowledged batch survives the process being killed.
 *
 * Consumer groups: members register with heartbeats in the same store and split the
 * partitions of their topics round-robin between the live members (in-process and across
 * processes); committed offsets are stored per (group, topic, partition).
 */
export class LmdbEventLog implements EventLog {
  readonly kind = 'embedded';
  readonly root: RootDatabase;
  private readonly records: Database<Buffer, RecordKey>;
  private readonly topics: Database<StoredTopic, string>;
  private readonly offsets: Database<number, [string, string, number]>;
  private readonly members: Database<Member, [string, string]>;
  /** Where a partition emptied by retention resumes counting. */
  private readonly floors: Database<number, [string, number]>;
  private readonly topicCache = new Map<string, StoredTopic>();
  private readonly partitioner = Partitioners.DefaultPartitioner();
  /** Wakes in-process consumers as soon as something is appended. */
  readonly appended = new EventEmitter().setMaxListeners(0);
  private readonly consumers = new Set<LmdbConsumer>();
  readonly options: Required<LmdbEventLogOptions>;

  constructor(dir: string, options: LmdbEventLogOptions = {}) {
    fs.mkdirSync(dir, { recursive: true });
    this.options = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 1000, idlePollMs: 50, ...options };
    this.root = open({ path: dir, maxDbs: 8 });
    this.records = this.root.openDB<Buffer, RecordKey>({ name: 'records', encoding: 'binary' });
    this.topics = this.root.openDB<StoredTopic, string>({ name: 'topics' });
    this.offsets = this.root.openDB<number, [string, string, number]>({ name: 'group-offsets' });
    this.members = this.root.openDB<Member, [string, string]>({ name: 'group-members' });
    this.floors = this.root.openDB<number, [string, number]>({ name: 'partition-floors' });
  }

  async createTopics(topics: TopicConfig[]): Promise<void> {
    await this.root.transaction(() => {
      for (const t of topics) {
        if (this.topics.get(t.name)) continue;
        this.topics.put(t.name, {
          partitions: t.partitions,
          retention: t.retention,
          maxMessageBytes: t.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
        });
      }
    });
  }

  topicMeta(topic: string): StoredTopic {
    let meta = this.topicCache.get(topic);
    if (!meta) {
      meta = this.topics.get(topic);
      if (!meta) throw new UnknownTopicError(topic);
      this.topicCache.set(topic, meta);
    }
    return meta;
  }

  async listTopics(): Promise<TopicInfo[]> {
    const out: TopicInfo[] = [];
    for (const { key: name, value } of this.topics.getRange()) {
      const partitions: PartitionOffsets[] = [];
      for (let p = 0; p < value.partitions; p++) partitions.push(this.partitionOffsets(name, p));
      out.push({ name, partitions });
    }
    return out;
  }

  partitionOffsets(topic: string, partition: number): PartitionOffsets {
    const [firstKey] = this.records.getKeys({
      start: [topic, partition, 0],
      end: [topic, partition, LAST],
      limit: 1,
    });
    const [lastKey] = this.records.getKeys({
      start: [topic, partition, LAST],
      end: [topic, partition, -1],
      reverse: true,
      limit: 1,
    });
    if (!firstKey || !lastKey) {
      const floor = this.floors.get([topic, partition]) ?? 0;
      return { partition, earliest: floor, end: floor };
    }
    return { partition, earliest: firstKey[2], end: lastKey[2] + 1 };
  }

  async produce(topic: string, records: ProduceRecord[]): Promise<RecordPosition[]> {
    const meta = this.topicMeta(topic);
    const partitionMetadata = Array.from({ length: meta.partitions }, (_, i) => ({
      partitionId: i,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
    }));
    const framed = records.map((r) => {
      const size = (r.value?.length ?? 0) + (r.key?.length ?? 0);
      if (size > meta.maxMessageBytes) throw new RecordTooLargeError(topic, size, meta.maxMessageBytes);
      const partition =
        r.partition ??
        this.partitioner({ topic, partitionMetadata, message: { key: r.key, value: r.value } as never });
      if (partition < 0 || partition >= meta.partitions) {
        throw new Error(`partition ${partition} does not exist in topic ${topic}`);
      }
      return { partition, record: r };
    });
    const positions = await this.root.transaction(() => {
      const next = new Map<number, { offset: number; appendTime: number }>();
      const now = Date.now();
      return framed.map(({ partition, record }) => {
        let cursor = next.get(partition);
        if (!cursor) {
          cursor = this.tail(topic, partition);
          next.set(partition, cursor);
        }
        const appendTime = Math.max(now, cursor.appendTime);
        const offset = cursor.offset;
        this.records.put(
          [topic, partition, offset],
          encodeFrame(appendTime, record.timestamp ?? now, record.key, record.headers, record.value),
        );
        cursor.offset = offset + 1;
        cursor.appendTime = appendTime;
        return { topic, partition, offset };
      });
    });
    this.appended.emit(topic);
    return positions;
  }

  private tail(topic: string, partition: number): { offset: number; appendTime: number } {
    for (const { key, value } of this.records.getRange({
      start: [topic, partition, LAST],
      end: [topic, partition, -1],
      reverse: true,
      limit: 1,
    })) {
      return { offset: key[2] + 1, appendTime: frameAppendTime(value) };
    }
    return { offset: this.floors.get([topic, partition]) ?? 0, appendTime: 0 };
  }

  /** Reads up to `limit` records of one partition starting at `from`. */
  read(topic: string, partition: number, from: number, limit: number): LogRecord[] {
    const out: LogRecord[] = [];
    for (const { key, value } of this.records.getRange({
      start: [topic, partition, from],
      end: [topic, partition, LAST],
      limit,
    })) {
      const r = decodeFrame(value);
      out.push({
        topic,
        partition,
        offset: key[2],
        key: r.key,
        value: r.value,
        headers: r.headers,
        timestamp: r.timestamp,
      });
    }
    return out;
  }

  consumer(options: ConsumerOptions): Consumer {
    for (const t of options.topics) this.topicMeta(t);
    const consumer = new LmdbConsumer(this, options, () => this.consumers.delete(consumer));
    this.consumers.add(consumer);
    return consumer;
  }

  async offsetsForTime(topic: string, timestamp: number): Promise<{ partition: number; offset: number }[]> {
    const meta = this.topicMeta(topic);
    const out = [];
    for (let partition = 0; partition < meta.partitions; partition++) {
      const { earliest, end } = this.partitionOffsets(topic, partition);
      // Append times never decrease within a partition: binary search for the first one >= timestamp.
      let lo = earliest;
      let hi = end;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        const at = this.firstAtOrAfter(topic, partition, mid);
        if (at === undefined) {
          hi = mid;
          continue;
        }
        if (at.appendTime < timestamp) lo = at.offset + 1;
        else hi = mid;
      }
      out.push({ partition, offset: lo });
    }
    return out;
  }

  private firstAtOrAfter(topic: string, partition: number, offset: number) {
    for (const { key, value } of this.records.getRange({
      start: [topic, partition, offset],
      end: [topic, partition, LAST],
      limit: 1,
    })) {
      return { offset: key[2], appendTime: frameAppendTime(value) };
    }
    return undefined;
  }

  committed(groupId: string, topic: string, partition: number): number | undefined {
    return this.offsets.get([groupId, topic, partition]);
  }

  async committedOffsets(groupId: string, topic: string): Promise<{ partition: number; offset: number }[]> {
    const meta = this.topicMeta(topic);
    const out = [];
    for (let partition = 0; partition < meta.partitions; partition++) {
      out.push({ partition, offset: this.committed(groupId, topic, partition) ?? -1 });
    }
    return out;
  }

  async commit(groupId: string, positions: RecordPosition[]): Promise<void> {
    if (positions.length === 0) return;
    await this.root.transaction(() => {
      for (const p of positions) this.offsets.put([groupId, p.topic, p.partition], p.offset);
    });
  }

  async setCommittedOffsets(
    groupId: string,
    topic: string,
    offsets: { partition: number; offset: number }[],
  ): Promise<void> {
    this.topicMeta(topic);
    await this.commit(
      groupId,
      offsets.map((o) => ({ topic, ...o })),
    );
  }

  async groupLag(groupId: string, topics: string[]): Promise<PartitionLag[]> {
    const out: PartitionLag[] = [];
    for (const topic of topics) {
      const meta = this.topicMeta(topic);
      for (let partition = 0; partition < meta.partitions; partition++) {
        const { earliest, end } = this.partitionOffsets(topic, partition);
        const committed = this.committed(groupId, topic, partition) ?? -1;
        out.push({ topic, partition, committed, end, lag: lagOf(committed, earliest, end) });
      }
    }
    return out;
  }

  /** Live members of a group, oldest heartbeat first; removes members that timed out. */
  liveMembers(groupId: string, now = Date.now()): string[] {
    const live: string[] = [];
    for (const { key, value } of this.members.getRange({ start: [groupId, ''], end: [groupId, '\uffff'] })) {
      if (now - value.heartbeat <= this.options.sessionTimeoutMs) live.push(key[1]);
      else this.members.remove(key);
    }
    return live.sort();
  }

  async heartbeat(groupId: string, memberId: string, topics: string[]): Promise<void> {
    await this.members.put([groupId, memberId], { heartbeat: Date.now(), topics });
  }

  async leave(groupId: string, memberId: string): Promise<void> {
    await this.members.remove([groupId, memberId]);
  }

  /**
   * Applies a topic's retention: `delete` removes records appended before now - ms;
   * `compact` keeps only the newest record of each key (a null value removes the key).
   */
  async applyRetention(topic: string, now = Date.now()): Promise<number> {
    const meta = this.topicMeta(topic);
    let removed = 0;
    for (let partition = 0; partition < meta.partitions; partition++) {
      const { end } = this.partitionOffsets(topic, partition);
      const doomed: number[] = [];
      if (meta.retention.policy === 'delete') {
        if (meta.retention.ms < 0) continue;
        const cutoff = now - meta.retention.ms;
        for (const { key, value } of this.records.getRange({
          start: [topic, partition, 0],
          end: [topic, partition, LAST],
        })) {
          if (frameAppendTime(value) >= cutoff) break;
          doomed.push(key[2]);
        }
      } else {
        const newest = new Map<string, number>();
        const all: { offset: number; key: string | null; tombstone: boolean }[] = [];
        for (const { key, value } of this.records.getRange({
          start: [topic, partition, 0],
          end: [topic, partition, LAST],
        })) {
          const r = frameKey(value);
          all.push({ offset: key[2], key: r.key, tombstone: r.tombstone });
          if (r.key !== null) newest.set(r.key, key[2]);
        }
        for (const r of all) {
          if (r.key === null || newest.get(r.key) !== r.offset || r.tombstone) doomed.push(r.offset);
        }
      }
      if (doomed.length === 0) continue;
      await this.root.transaction(() => {
        for (const offset of doomed) this.records.remove([topic, partition, offset]);
        this.floors.put([topic, partition], end);
      });
      removed += doomed.length;
    }
    return removed;
  }

  async maintain(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const { key } of this.topics.getRange()) removed += await this.applyRetention(key, now);
    return removed;
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
    await this.root.close();
  }
}
