import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { tempDir } from '../support/temp-dir.ts';

describe('embedded event log retention and compaction', () => {
  const tmp = tempDir();
  let log: LmdbEventLog;
  beforeAll(() => {
    log = new LmdbEventLog(path.join(tmp.dir, 'log'));
  });
  afterAll(async () => {
    await log.close();
    tmp.remove();
  });

  const values = (topic: string) =>
    log.read(topic, 0, 0, 1000).map((r) => `${r.offset}:${r.key}=${r.value?.toString() ?? 'null'}`);

  it('deletes records appended before the retention period, keeping offsets', async () => {
    await log.createTopics([{ name: 'short', partitions: 1, retention: { policy: 'delete', ms: 60_000 } }]);
    await log.produce('short', [
      { key: 'a', value: Buffer.from('1') },
      { key: 'b', value: Buffer.from('2') },
    ]);
    expect(await log.applyRetention('short', Date.now())).toBe(0);
    expect(await log.applyRetention('short', Date.now() + 120_000)).toBe(2);
    expect(values('short')).toEqual([]);
    const [info] = (await log.listTopics()).filter((t) => t.name === 'short');
    expect(info!.partitions[0]).toEqual({ partition: 0, earliest: 2, end: 2 });
    const [pos] = await log.produce('short', [{ key: 'c', value: Buffer.from('3') }]);
    expect(pos!.offset).toBe(2);
  });

  it('keeps records of a topic kept forever', async () => {
    await log.createTopics([{ name: 'forever', partitions: 1, retention: { policy: 'delete', ms: -1 } }]);
    await log.produce('forever', [{ key: 'a', value: Buffer.from('1') }]);
    expect(await log.applyRetention('forever', Date.now() + 10 * 365 * 86_400_000)).toBe(0);
    expect(values('forever')).toEqual(['0:a=1']);
  });

  it('compacts to the newest record per key and drops keys whose newest record is a tombstone', async () => {
    await log.createTopics([{ name: 'table', partitions: 1, retention: { policy: 'compact' } }]);
    await log.produce('table', [
      { key: 'a', value: Buffer.from('a1') },
      { key: 'b', value: Buffer.from('b1') },
      { key: 'a', value: Buffer.from('a2') },
      { key: 'c', value: Buffer.from('c1') },
      { key: 'c', value: null },
      { key: 'b', value: Buffer.from('b2') },
    ]);
    expect(await log.applyRetention('table')).toBe(4);
    expect(values('table')).toEqual(['2:a=a2', '5:b=b2']);
  });
});
