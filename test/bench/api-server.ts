import { buildApp } from '../../api/app.ts';
import { silentLogger } from '../../infra/logger.ts';
import { Readiness } from '../../infra/readiness.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { PostgresStateStore } from '../../projections/state/postgres-state-store.ts';
import { TEST_SETTINGS } from '../support/api.ts';
import { testDeliveryKit } from '../support/delivery.ts';

/**
 * The server the API bench loads, in a process of its own: the app on one state store (PostgreSQL
 * when `DATABASE_URL` is set, else PGlite in `EARSHOT_BENCH_STATE_DIR`), an organization with 40
 * projects and a key. Prints `{url, key, organizationId}` as one JSON line once it listens; closes
 * on SIGTERM.
 */
const databaseUrl = process.env['DATABASE_URL'];
const state = databaseUrl
  ? new PostgresStateStore(databaseUrl)
  : new PgliteStateStore(process.env['EARSHOT_BENCH_STATE_DIR']!);
await migrate(state);
const accounts = new Accounts(state);
const org = await accounts.createOrganization({ name: 'Bench Org' });
for (let i = 0; i < 40; i++) {
  await accounts.createProject({ organizationId: org.id, name: `project ${i}`, plan: 'business' });
}
const [first] = await accounts.projectsOf(org.id, undefined, 1);
const { key } = await accounts.createApiKey({ projectId: first!.id });
const catalog = new CatalogReader(state);
const app = await buildApp({
  logger: silentLogger(),
  readiness: new Readiness(),
  services: { state, accounts, catalog, delivery: testDeliveryKit(state, catalog) },
  settings: { ...TEST_SETTINGS, rateLimitPerMinute: 10_000_000 },
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url, key, organizationId: org.id })}\n`);
process.once('SIGTERM', async () => {
  await app.close();
  await state.close();
  process.exit(0);
});
