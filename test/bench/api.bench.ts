import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A fresh database on the PostgreSQL server of `url`, dropped by `drop()`. */
async function scratchDatabase(url: string) {
  const name = `earshot_bench_api_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    url: scratch.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * The Node flags `npm start` runs the service with, so the measured server runs as users run it.
 * One place decides them: the `start` script in package.json.
 */
export function serviceNodeFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [node, ...rest] = pkg.scripts['start']!.split(/\s+/);
  if (node !== 'node') throw new Error('the start script does not run node');
  const flags: string[] = [];
  for (const token of rest) {
    if (!token.startsWith('--')) break;
    flags.push(token);
  }
  return flags;
}

/** Starts `api-server.ts` with `env` and waits for the line that says where it listens. */
async function startServer(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [...serviceNodeFlags(), '--import', 'tsx', path.join(root, 'test/bench/api-server.ts')],
    { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  const [line] = (await Promise.race([
    once(readline.createInterface({ input: child.stdout! }), 'line'),
    exited.then(([code]) => {
      throw new Error(`the bench API server exited with ${code} before listening`);
    }),
  ])) as [string];
  const server = JSON.parse(line) as { url: string; key: string; organizationId: string };
  return {
    ...server,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function measure(
  label: string,
  env: Record<string, string>,
  progress: (msg: string) => void,
): Promise<BenchResult[]> {
  const server = await startServer(env);
  try {
    const target = `${server.url}/v1/organizations/${server.organizationId}/projects?limit=25`;
    const check = await fetch(target, { headers: { 'x-api-key': server.key } });
    const body = (await check.json()) as { data: unknown[] };
    if (check.status !== 200 || body.data.length !== 25) throw new Error(`unexpected answer ${check.status}`);
    const cli = path.join(root, 'node_modules/autocannon/autocannon.js');
    const header = `x-api-key=${server.key}`;
    progress(`${label}: warm-up 3 s`);
    await run(process.execPath, [cli, '-c', '50', '-d', '3', '-H', header, target], { maxBuffer: 1 << 24 });
    progress(`${label}: measuring 15 s`);
    const { stdout } = await run(
      process.execPath,
      [cli, '-c', '50', '-d', '15', '-j', '-H', header, target],
      {
        maxBuffer: 1 << 24,
      },
    );
    const r = JSON.parse(stdout) as {
      requests: { average: number; total: number };
      latency: { p50: number; p99: number };
      non2xx: number;
      errors: number;
    };
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
    const load = os.loadavg()[0]!.toFixed(1);
    return [
      {
        bench: 'api',
        metric: `${label}: GET 25-item page: requests/s`,
        value: Math.round(r.requests.average),
        unit: 'req/s',
        target: { op: '>=', value: 3000 },
        note: `load average ${load}; server flags ${serviceNodeFlags().join(' ') || 'none'}`,
      },
      { bench: 'api', metric: `${label}: GET 25-item page: p50 latency`, value: r.latency.p50, unit: 'ms' },
      {
        bench: 'api',
        metric: `${label}: GET 25-item page: p99 latency`,
        value: r.latency.p99,
        unit: 'ms',
        target: { op: '<=', value: 20 },
      },
    ];
  } finally {
    await server.stop();
  }
}

/**
 * An authenticated GET returning a 25-item page from the state store, loaded by autocannon with
 * 50 connections on loopback. The server runs in a process of its own, with the Node flags of
 * `npm start`: on the embedded store (PGlite on disk), and on PostgreSQL too when `DATABASE_URL`
 * is set (a scratch database, dropped afterwards).
 */
export const apiBench: Bench = {
  name: 'api',
  description:
    'authenticated GET of a 25-item page from the state store (PGlite; PostgreSQL when DATABASE_URL is set), 50 connections; server and autocannon each in a process of their own',
  async run(progress) {
    const results: BenchResult[] = [];
    const tmp = tempDir('earshot-bench-api-');
    try {
      const embedded = { DATABASE_URL: '', EARSHOT_BENCH_STATE_DIR: path.join(tmp.dir, 'state') };
      results.push(...(await measure('PGlite', embedded, progress)));
    } finally {
      tmp.remove();
    }
    const databaseUrl = process.env['DATABASE_URL'];
    if (databaseUrl) {
      const db = await scratchDatabase(databaseUrl);
      try {
        results.push(...(await measure('PostgreSQL', { DATABASE_URL: db.url }, progress)));
      } finally {
        await db.drop();
      }
    }
    return results;
  },
};
