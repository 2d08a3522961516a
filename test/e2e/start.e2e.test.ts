import { afterAll, describe, expect, it } from 'vitest';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

describe('earshot start', () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());

  it('comes up on an empty data dir, reports ready within 60 s, and stops cleanly on SIGTERM', async () => {
    const started = Date.now();
    const svc = await spawnEarshot(['start'], { EARSHOT_DATA_DIR: tmp.dir, EARSHOT_DEMO: 'off' });
    try {
      await waitFor(
        async () => {
          const res = await fetch(`${svc.url}/readyz`).catch(() => undefined);
          return res?.status === 200;
        },
        { timeoutMs: 60_000, stepMs: 200, what: '/readyz 200' },
      );
      expect(Date.now() - started).toBeLessThan(60_000);
      const health = await fetch(`${svc.url}/healthz`);
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = (await (await fetch(`${svc.url}/readyz`)).json()) as {
        checks: Record<string, { ok: boolean }>;
      };
      expect(ready.checks['event-log']?.ok).toBe(true);
      expect(ready.checks['schema-registry']?.ok).toBe(true);
    } finally {
      const exit = await svc.stop('SIGTERM');
      expect(exit.code, svc.output()).toBe(0);
    }
    expect(svc.output()).toContain('earshot stopped');
  }, 90_000);

  it('refuses a bad configuration with a message naming the variable', async () => {
    const svc = await spawnEarshot(['start'], {
      EARSHOT_DATA_DIR: tmp.dir,
      KAFKA_BROKERS: 'a b',
      LOG_LEVEL: 'loud',
    });
    const exit = await svc.exited;
    expect(exit.code).toBe(2);
    expect(svc.output()).toContain('KAFKA_BROKERS');
    expect(svc.output()).toContain('LOG_LEVEL');
  }, 30_000);
});
