import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { countTopic } from '../support/topics.ts';
import { waitFor } from '../support/wait-for.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs one `earshot` command to completion. */
function earshot(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/earshot.js'), ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('earshot ingest and the demo corpus', () => {
  const tmp = tempDir('earshot-e2e-ingest-');
  afterAll(() => tmp.remove());

  it('generates a corpus, ingests it (rejecting a bad line), and skips it all when run again', async () => {
    const env = { EARSHOT_DATA_DIR: path.join(tmp.dir, 'cli-data') };
    const out = path.join(tmp.dir, 'corpus');
    const gen = await earshot(
      ['corpus', 'generate', '--preset', 'small', '--seed', '9', '--as-of', '2025-11-21', '--out', out],
      env,
    );
    expect(gen.code, gen.stderr).toBe(0);
    expect(gen.stderr).toMatch(/corpus: done in/);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(JSON.parse(gen.stdout).transcript_lines).toBe(manifest.transcript_lines);
    fs.appendFileSync(
      path.join(out, 'clips.ndjson'),
      '{"type": "clips", "data": {"episode_id": "ep_nope", "clips": []}}\n',
    );

    const first = await earshot(['ingest', out], env);
    expect(first.code).toBe(3);
    const report = JSON.parse(first.stdout);
    expect(report.rejected).toBe(1);
    expect(report.lines).toBe(manifest.transcript_lines);
    expect(report.produced).toBe(
      Object.values(manifest.counts as Record<string, number>).reduce((s, n) => s + n, 0),
    );
    expect(first.stderr).toMatch(/ingest: [\d,]+ records and [\d,]+ transcript lines .* lines\/s/);
    const reject = JSON.parse(fs.readFileSync(path.join(out, 'clips.ndjson.rejects.ndjson'), 'utf8'));
    expect(reject).toMatchObject({
      field: 'data.episode_id',
      reason: 'unknown episode ep_nope (ingest the episode first)',
    });

    const again = await earshot(['ingest', out], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ produced: 0, skipped: report.produced, rejected: 1 });
  }, 90_000);

  it('loads and processes the demo corpus on first start: /readyz 200 within 60 s (ingest and processors roles)', async () => {
    const dataDir = path.join(tmp.dir, 'service-data');
    const started = Date.now();
    const svc = await spawnEarshot(['start', '--roles', 'api,ingest,processors'], {
      EARSHOT_DATA_DIR: dataDir,
      EARSHOT_DEMO: 'on',
    });
    try {
      await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
        timeoutMs: 60_000,
        stepMs: 250,
        what: '/readyz 200',
      });
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(svc.output()).toContain('demo corpus loaded');
      const log = new LmdbEventLog(path.join(dataDir, 'event-log'));
      try {
        const episodes = countTopic(log, TOPICS.episodes);
        expect(episodes).toBe(96);
        expect(countTopic(log, TOPICS.mentions)).toBe(episodes);
        expect(countTopic(log, TOPICS.speakers)).toBe(episodes);
      } finally {
        await log.close();
      }
    } finally {
      const exit = await svc.stop('SIGTERM');
      expect(exit.code, svc.output().slice(-2000)).toBe(0);
    }
  }, 90_000);
});
