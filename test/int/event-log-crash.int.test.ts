import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { tempDir } from '../support/temp-dir.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('embedded event log durability', () => {
  it('keeps every acknowledged record, once and in order per key, when the producer is killed with SIGKILL', async () => {
    const tmp = tempDir();
    const dir = path.join(tmp.dir, 'log');
    const topic = 'crash.test';
    const target = 2000;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, '../support/produce-until-killed.ts'), dir, topic],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let acked = 0;
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const m = /^acked (\d+)$/.exec(line);
          if (m) acked = Number(m[1]);
        }
        if (acked >= target && child.exitCode === null) {
          child.kill('SIGKILL');
        }
      });
      child.on('exit', (_code, signal) =>
        signal === 'SIGKILL' ? resolve() : reject(new Error(`exited ${signal}`)),
      );
    });
    expect(acked).toBeGreaterThanOrEqual(target);

    const log = new LmdbEventLog(dir);
    try {
      const values: string[] = [];
      const info = (await log.listTopics()).find((t) => t.name === topic)!;
      for (const p of info.partitions) {
        for (const r of log.read(topic, p.partition, 0, 1_000_000)) values.push(r.value!.toString());
      }
      expect(values.length).toBeGreaterThanOrEqual(acked);
      expect(new Set(values).size).toBe(values.length);
      const perKey = new Map<string, number[]>();
      for (const v of values) {
        const [key, n] = v.split(':') as [string, string];
        perKey.set(key, [...(perKey.get(key) ?? []), Number(n)]);
      }
      let total = 0;
      for (const seqs of perKey.values()) {
        expect(seqs).toEqual(seqs.map((_, i) => i));
        total += seqs.length;
      }
      // Every acknowledged record: the first `acked` records produced are all present.
      expect(total).toBeGreaterThanOrEqual(acked);
    } finally {
      await log.close();
      tmp.remove();
    }
  });
});
