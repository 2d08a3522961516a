import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type {
  Consumer,
  ConsumerOptions,
  LogRecord,
  PartitionLag,
  PartitionOffsets,
  RecordPosition,
  RunOptions,
} from './event-log.ts';

/** What a consumer of the embedded log reads from it (LmdbEventLog). */
export interface GroupLog {
  readonly appended: EventEmitter;
  readonly options: { heartbeatIntervalMs: number; idlePollMs: number };
  topicMeta(topic: string): { partitions: number };
  read(topic: string, partition: number, from: number, limit: number): LogRecord[];
  partitionOffsets(topic: string, partition: number): PartitionOffsets;
  committed(groupId: string, topic: string, partition: number): number | undefined;
  commit(groupId: string, positions: RecordPosition[]): Promise<void>;
  groupLag(groupId: string, topics: string[]): Promise<PartitionLag[]>;
  liveMembers(groupId: string): string[];
  heartbeat(groupId: string, memberId: string, topics: string[]): Promise<void>;
  leave(groupId: string, memberId: string): Promise<void>;
}

/**
 * A member of a consumer group on the embedded log: it heartbeats, takes its co-partitioned share of
 * the group's partitions at each heartbeat, fetches batches from them (several partitions at once
 * when asked) and, when a batch fails, rewinds that partition to its committed offset and pauses
 * it with a growing back-off.
 */
export class LmdbConsumer implements Consumer {
  private readonly memberId = randomUUID();
  private readonly maxBatch: number;
  /** Next offset to fetch, per assigned "topic/partition". */
  private readonly positions = new Map<string, number>();
  private readonly pausedUntil = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private assigned: { topic: string; partition: number }[] = [];
  private running = false;
  private stopping = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private readonly onAppend = (topic: string) => {
    if (this.options.topics.includes(topic)) this.wake?.();
  };

  constructor(
    private readonly log: GroupLog,
    private readonly options: ConsumerOptions,
    private readonly onStopped: () => void,
  ) {
    this.maxBatch = options.maxBatchRecords ?? 1000;
  }

  async run(run: RunOptions): Promise<void> {
    if (this.running) throw new Error('consumer is already running');
    this.running = true;
    await this.rebalance();
    for (const t of this.options.topics) this.log.appended.on(t, this.onAppend);
    this.loop = this.fetchLoop(run);
  }

  private async fetchLoop(run: RunOptions): Promise<void> {
    const concurrency = Math.max(1, run.partitionsConsumedConcurrently ?? 1);
    let lastHeartbeat = Date.now();
    while (!this.stopping) {
      if (Date.now() - lastHeartbeat >= this.log.options.heartbeatIntervalMs) {
        await this.rebalance();
        lastHeartbeat = Date.now();
      }
      let started = 0;
      const now = Date.now();
      for (const { topic, partition } of this.assigned) {
        if (this.inFlight.size >= concurrency) break;
        const id = `${topic}/${partition}`;
        if (this.inFlight.has(id) || (this.pausedUntil.get(id) ?? 0) > now) continue;
        const from = this.positions.get(id);
        if (from === undefined) continue;
        const records = this.log.read(topic, partition, from, this.maxBatch);
        if (records.length === 0) continue;
        started++;
        this.positions.set(id, records.at(-1)!.offset + 1);
        const highWatermark = this.log.partitionOffsets(topic, partition).end;
        const task = run
          .eachBatch({ topic, partition, records, highWatermark })
          .then(() => {
            this.failures.delete(id);
          })
          .catch((err: unknown) => this.rewind(id, topic, partition, err))
          .finally(() => {
            this.inFlight.delete(id);
            this.wake?.();
          });
        this.inFlight.set(id, task);
      }
      if (started === 0 || this.inFlight.size >= concurrency) await this.idle();
    }
    await Promise.all(this.inFlight.values());
  }

  private rewind(id: string, topic: string, partition: number, _err: unknown): void {
    const failures = (this.failures.get(id) ?? 0) + 1;
    this.failures.set(id, failures);
    if (!this.positions.has(id)) return;
    this.positions.set(id, this.startOffset(topic, partition));
    this.pausedUntil.set(id, Date.now() + Math.min(30_000, 250 * 2 ** (failures - 1)));
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.log.options.idlePollMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
  }

  private startOffset(topic: string, partition: number): number {
    const committed = this.log.committed(this.options.groupId, topic, partition);
    const { earliest, end } = this.log.partitionOffsets(topic, partition);
    if (committed !== undefined) return Math.max(committed, earliest);
    return this.options.fromBeginning === false ? end : earliest;
  }

  private async rebalance(): Promise<void> {
    const { groupId, topics } = this.options;
    await this.log.heartbeat(groupId, this.memberId, topics);
    const members = this.log.liveMembers(groupId);
    if (!members.includes(this.memberId)) members.push(this.memberId);
    members.sort();
    const me = members.indexOf(this.memberId);
    const all: { topic: string; partition: number }[] = [];
    for (const topic of [...topics].sort()) {
      const { partitions } = this.log.topicMeta(topic);
      for (let partition = 0; partition < partitions; partition++) all.push({ topic, partition });
    }
    // Co-partitioned: partition p of every topic goes to the same member (as the Kafka adapter's
    // assigner does), so everything about one key reaches one member.
    const mine = all.filter((p) => p.partition % members.length === me);
    const mineIds = new Set(mine.map((p) => `${p.topic}/${p.partition}`));
    for (const id of [...this.positions.keys()]) {
      if (!mineIds.has(id)) this.positions.delete(id);
    }
    for (const { topic, partition } of mine) {
      const id = `${topic}/${partition}`;
      if (!this.positions.has(id) && !this.inFlight.has(id))
        this.positions.set(id, this.startOffset(topic, partition));
    }
    this.assigned = mine;
  }

  async commit(positions: RecordPosition[]): Promise<void> {
    await this.log.commit(this.options.groupId, positions);
  }

  seek(position: RecordPosition): void {
    const id = `${position.topic}/${position.partition}`;
    if (!this.assigned.some((a) => a.topic === position.topic && a.partition === position.partition)) {
      throw new Error(`partition ${id} is not assigned to this consumer`);
    }
    this.positions.set(id, position.offset);
    this.pausedUntil.delete(id);
    this.wake?.();
  }

  assignment(): { topic: string; partition: number }[] {
    return [...this.assigned];
  }

  lag(): Promise<PartitionLag[]> {
    return this.log.groupLag(this.options.groupId, this.options.topics);
  }

  async stop(beforeLeave?: () => Promise<void>): Promise<void> {
    if (this.stopping) return this.loop;
    this.stopping = true;
    this.wake?.();
    for (const t of this.options.topics) this.log.appended.off(t, this.onAppend);
    await this.loop;
    try {
      await beforeLeave?.();
    } finally {
      await this.log.leave(this.options.groupId, this.memberId);
      this.onStopped();
    }
  }
}
