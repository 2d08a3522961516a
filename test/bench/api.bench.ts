import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { buildApp } from '../../api/app.ts';
import { silentLogger } from '../../infra/logger.ts';
import { Readiness } from '../../infra/readiness.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { PostgresStateStore } from '../../projections/state/postgres-state-store.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { TEST_SETTINGS } from '../support/api.ts';
import { testDeliveryKit } from '../support/delivery.ts';
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

async function measure(
  label: string,
  state: StateStore,
  progress: (msg: string) => void,
): Promise<BenchResult[]> {
  await migrate(state);
  const accounts = new Accounts(state);
  const org = await accounts.createOrganization({ name: 'Bench Org' });
  for (let i = 0; i < 40; i++)
    await accounts.createProject({ organizationId: org.id, name: `project ${i}`, plan: 'business' });
  const [first] = await accounts.projectsOf(org.id, undefined, 1);
  const { key } = await accounts.createApiKey({ projectId: first!.id });
  const app = await buildApp({
    logger: silentLogger(),
    readiness: new Readiness(),
    services: {
      state,
      accounts,
      catalog: new CatalogReader(state),
      delivery: testDeliveryKit(state, new CatalogReader(state)),
    },
    settings: { ...TEST_SETTINGS, rateLimitPerMinute: 10_000_000 },
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const target = `${url}/v1/organizations/${org.id}/projects?limit=25`;
    const check = await fetch(target, { headers: { 'x-api-key': key } });
    const body = (await check.json()) as { data: unknown[] };
    if (check.status !== 200 || body.data.length !== 25) throw new Error(`unexpected answer ${check.status}`);
    const cli = path.join(root, 'node_modules/autocannon/autocannon.js');
    progress(`${label}: warm-up 3 s`);
    await run(process.execPath, [cli, '-c', '50', '-d', '3', '-H', `x-api-key=${key}`, target], {
      maxBuffer: 1 << 24,
    });
    progress(`${label}: measuring 15 s`);
    const { stdout } = await run(
      process.execPath,
      [cli, '-c', '50', '-d', '15', '-j', '-H', `x-api-key=${key}`, target],
      { maxBuffer: 1 << 24 },
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
        note: `load average ${load}`,
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
    await app.close();
  }
}

/**
 * An authenticated GET returning a 25-item page from the state store, loaded by autocannon from
 * a second process with 50 connections on loopback: on the embedded store (PGlite on disk), and
 * on PostgreSQL too when `DATABASE_URL` is set (a scratch database, dropped afterwards).
 */
export const apiBench: Bench = {
  name: 'api',
  description:
    'authenticated GET of a 25-item page from the state store (PGlite; PostgreSQL when DATABASE_URL is set), 50 connections, autocannon in a second process',
  async run(progress) {
    const results: BenchResult[] = [];
    const tmp = tempDir('earshot-bench-api-');
    const embedded = new PgliteStateStore(path.join(tmp.dir, 'state'));
    try {
      results.push(...(await measure('PGlite', embedded, progress)));
    } finally {
      await embedded.close();
      tmp.remove();
    }
    const databaseUrl = process.env['DATABASE_URL'];
    if (databaseUrl) {
      const db = await scratchDatabase(databaseUrl);
      const postgres = new PostgresStateStore(db.url);
      try {
        results.push(...(await measure('PostgreSQL', postgres, progress)));
      } finally {
        await postgres.close();
        await db.drop();
      }
    }
    return results;
  },
};
