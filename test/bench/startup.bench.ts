import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';
import { percentile } from './bench.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEY = 'esk_StartupBenchStartupBenchStartupBench01';

interface ReadyBody {
  status: string;
  info?: { search?: { semantic_state?: string } };
}

async function readyz(url: string): Promise<ReadyBody | undefined> {
  try {
    const res = await fetch(`${url}/readyz`);
    return (await res.json()) as ReadyBody;
  } catch {
    return undefined;
  }
}

/**
 * `npm start` as a newcomer runs it: a fresh data dir with the demo corpus, the service in its own
 * process. Measured: time to /readyz 200 (keyword search and every read answer), and to semantic
 * search ready, with the model in the per-user cache (the second start of a machine) and, when
 * EARSHOT_BENCH_COLD_MODEL=on, with an empty cache (the model is downloaded).
 */
async function timeStart(progress: (msg: string) => void, coldModel: boolean): Promise<BenchResult[]> {
  const tmp = tempDir('earshot-bench-startup-');
  const label = coldModel ? 'empty model cache' : 'model cached';
  const started = Date.now();
  const svc = await spawnEarshot(['start'], {
    EARSHOT_DATA_DIR: path.join(tmp.dir, 'data'),
    EARSHOT_BOOTSTRAP_API_KEY: KEY,
    EARSHOT_EMBEDDINGS_FETCH: 'on',
    LOG_LEVEL: 'warn',
    // The user's cache, as npm start uses it; or an empty one.
    XDG_CACHE_HOME: coldModel ? path.join(tmp.dir, 'cache') : process.env.XDG_CACHE_HOME,
  });
  let readyMs: number | undefined;
  let semanticMs: number | undefined;
  try {
    while (Date.now() - started < 600_000) {
      const body = await readyz(svc.url);
      if (body?.status === 'ready' && readyMs === undefined) {
        readyMs = Date.now() - started;
        progress(`${label}: /readyz 200 after ${(readyMs / 1000).toFixed(1)} s`);
      }
      if (readyMs !== undefined && body?.info?.search?.semantic_state === 'ready') {
        semanticMs = Date.now() - started;
        progress(`${label}: semantic search ready after ${(semanticMs / 1000).toFixed(1)} s`);
        break;
      }
      if (svc.child.exitCode !== null) throw new Error(`the service exited:\n${svc.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await svc.stop();
    tmp.remove();
  }
  const results: BenchResult[] = [];
  if (readyMs !== undefined)
    results.push({
      bench: 'startup',
      metric: `ready (/readyz 200), ${label}`,
      value: readyMs / 1000,
      unit: 's',
    });
  if (semanticMs !== undefined)
    results.push({
      bench: 'startup',
      metric: `semantic search ready, ${label}`,
      value: semanticMs / 1000,
      unit: 's',
      target: { op: '<=', value: coldModel ? 75 : 45 },
    });
  return results;
}

export const startupBench: Bench = {
  name: 'startup',
  description: 'npm start on a fresh data dir: seconds to /readyz 200 and to semantic search ready',
  async run(progress) {
    const results = await timeStart(progress, false);
    if (process.env.EARSHOT_BENCH_COLD_MODEL === 'on') results.push(...(await timeStart(progress, true)));
    return results;
  },
};

/** Wall time of `earshot <args>`, as a user runs it, `runs` times: median and worst. */
async function timeCommand(args: string[], env: NodeJS.ProcessEnv, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await promisify(execFile)(process.execPath, [path.join(root, 'bin/earshot.js'), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

export const cliBench: Bench = {
  name: 'cli',
  description: 'earshot --help, and earshot keys list against a running service: seconds per command',
  async run(progress) {
    const results: BenchResult[] = [];
    const help = await timeCommand(['--help'], {}, 5);
    progress(`--help: ${help.map((t) => (t / 1000).toFixed(2)).join(', ')} s`);
    results.push({
      bench: 'cli',
      metric: 'earshot --help (median of 5)',
      value: percentile(help, 50) / 1000,
      unit: 's',
      target: { op: '<=', value: 1.5 },
    });
    const tmp = tempDir('earshot-bench-cli-');
    const dataDir = path.join(tmp.dir, 'data');
    const svc = await spawnEarshot(['start'], {
      EARSHOT_DATA_DIR: dataDir,
      EARSHOT_DEMO: 'off',
      EARSHOT_BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'warn',
    });
    try {
      while ((await readyz(svc.url))?.status !== 'ready') {
        if (svc.child.exitCode !== null) throw new Error(`the service exited:\n${svc.output().slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const list = await timeCommand(
        ['keys', 'list', '--project', 'proj_demo'],
        { EARSHOT_DATA_DIR: dataDir },
        5,
      );
      progress(`keys list: ${list.map((t) => (t / 1000).toFixed(2)).join(', ')} s`);
      results.push({
        bench: 'cli',
        metric: 'earshot keys list against a running service (median of 5)',
        value: percentile(list, 50) / 1000,
        unit: 's',
        target: { op: '<=', value: 1.5 },
      });
    } finally {
      await svc.stop();
      tmp.remove();
    }
    return results;
  },
};
