/**
 * Child process for the crash test: appends batches to an embedded log forever and prints
 * `acked <n>` after each batch is acknowledged, until it is killed.
 */
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';

const [dir, topic] = process.argv.slice(2) as [string, string];
const log = new LmdbEventLog(dir);
await log.createTopics([{ name: topic, partitions: 4, retention: { policy: 'delete', ms: -1 } }]);
const keys = Array.from({ length: 10 }, (_, i) => `key-${i}`);
const seq = new Map(keys.map((k) => [k, 0]));
let acked = 0;
for (;;) {
  const batch = Array.from({ length: 25 }, (_, i) => {
    const key = keys[(acked + i) % keys.length]!;
    const n = seq.get(key)!;
    seq.set(key, n + 1);
    return { key, value: Buffer.from(`${key}:${n}`) };
  });
  await log.produce(topic, batch);
  acked += batch.length;
  process.stdout.write(`acked ${acked}\n`);
}
