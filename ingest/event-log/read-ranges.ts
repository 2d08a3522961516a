import type { EventLog, LogRecord } from './event-log.ts';

/** Offsets `[from, to)` of one partition. */
export interface OffsetRange {
  topic: string;
  partition: number;
  from: number;
  to: number;
}

/**
 * The ranges to read to see every record appended to `topics` since `since` (epoch ms): per
 * partition, from the first offset at or after that time to the current end.
 */
export async function rangesSince(log: EventLog, topics: string[], since: number): Promise<OffsetRange[]> {
  const ends = new Map<string, number>();
  for (const t of await log.listTopics()) {
    for (const p of t.partitions) ends.set(`${t.name}/${p.partition}`, p.end);
  }
  const out: OffsetRange[] = [];
  for (const topic of topics) {
    for (const { partition, offset } of await log.offsetsForTime(topic, since)) {
      out.push({ topic, partition, from: offset, to: ends.get(`${topic}/${partition}`) ?? offset });
    }
  }
  return out;
}

/**
 * Reads offset ranges through the port's consumer API, on any adapter: a consumer group of its
 * own (`groupId`, not shared with anything) is positioned at each range's start with
 * `setCommittedOffsets` and reads until every non-empty range has reached its last offset.
 * Records outside the ranges are not handed to `onRecord`. The group's offsets are left behind
 * (on Kafka they expire with the broker's offset retention).
 */
export async function readRanges(
  log: EventLog,
  groupId: string,
  ranges: OffsetRange[],
  onRecord: (record: LogRecord) => void,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const wanted = new Map<string, OffsetRange>();
  for (const r of ranges) if (r.to > r.from) wanted.set(`${r.topic}/${r.partition}`, r);
  if (wanted.size === 0) return;
  const topics = [...new Set([...wanted.values()].map((r) => r.topic))];
  // Every partition of the topics gets a start: its range's start, or its end (nothing to read).
  const info = new Map((await log.listTopics()).map((t) => [t.name, t.partitions]));
  for (const topic of topics) {
    const partitions = info.get(topic) ?? [];
    await log.setCommittedOffsets(
      groupId,
      topic,
      partitions.map((p) => ({
        partition: p.partition,
        offset: wanted.get(`${topic}/${p.partition}`)?.from ?? p.end,
      })),
    );
  }
  const remaining = new Set(wanted.keys());
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const consumer = log.consumer({ groupId, topics, fromBeginning: false, maxBatchRecords: 1000 });
  let timer: NodeJS.Timeout | undefined;
  try {
    await consumer.run({
      eachBatch: async (batch) => {
        const id = `${batch.topic}/${batch.partition}`;
        const range = wanted.get(id);
        if (!range) return;
        for (const record of batch.records) {
          if (record.offset >= range.from && record.offset < range.to) onRecord(record);
          if (record.offset >= range.to - 1) remaining.delete(id);
        }
        if (remaining.size === 0) finish();
      },
    });
    const timeoutMs = options.timeoutMs ?? 120_000;
    await Promise.race([
      finished,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `reading ${[...remaining].join(', ')} did not reach the range ends in ${timeoutMs} ms`,
              ),
            ),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await consumer.stop();
  }
}
