import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildApp } from '../../api/app.ts';
import { silentLogger } from '../../infra/logger.ts';
import { Readiness } from '../../infra/readiness.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { TEST_SETTINGS } from '../support/api.ts';
import { testDeliveryKit } from '../support/delivery.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * An authenticated GET returning a 25-item page from the state store, loaded by autocannon from
 * a second process with 50 connections on loopback.
 */
export const apiBench: Bench = {
  name: 'api',
  description:
    'authenticated GET of a 25-item page from the state store, 50 connections, autocannon in a second process',
  async run(progress) {
    const tmp = tempDir('earshot-bench-api-');
    const state = new PgliteStateStore(path.join(tmp.dir, 'state'));
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
      if (check.status !== 200 || body.data.length !== 25)
        throw new Error(`unexpected answer ${check.status}`);
      progress('warm-up 3 s');
      const cli = path.join(root, 'node_modules/autocannon/autocannon.js');
      await run(process.execPath, [cli, '-c', '50', '-d', '3', '-H', `x-api-key=${key}`, target], {
        maxBuffer: 1 << 24,
      });
      progress('measuring 15 s');
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
      const results: BenchResult[] = [
        {
          bench: 'api',
          metric: 'GET 25-item page: requests/s',
          value: Math.round(r.requests.average),
          unit: 'req/s',
          target: { op: '>=', value: 3000 },
        },
        { bench: 'api', metric: 'GET 25-item page: p50 latency', value: r.latency.p50, unit: 'ms' },
        {
          bench: 'api',
          metric: 'GET 25-item page: p99 latency',
          value: r.latency.p99,
          unit: 'ms',
          target: { op: '<=', value: 20 },
        },
      ];
      return results;
    } finally {
      await app.close();
      await state.close();
      tmp.remove();
    }
  },
};
