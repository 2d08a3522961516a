import type { FastifyInstance } from 'fastify';
import { type ApiSettings, buildApp } from '../../api/app.ts';
import type { Facilitator } from '../../api/payments/gate.ts';
import type { IngestServices } from '../../api/routes/ingest.ts';
import { type Logger, silentLogger } from '../../infra/logger.ts';
import { Readiness } from '../../infra/readiness.ts';
import type { AnalyticsStore } from '../../projections/analytics/analytics-store.ts';
import { ArchiveStore, LiveFeed } from '../../projections/archive/index.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { SearchIndex } from '../../projections/search/search-index.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { type TestDeliveryOptions, testDeliveryKit } from './delivery.ts';
import { memoryStateStore } from './state.ts';

export const TEST_SETTINGS: ApiSettings = {
  publicUrl: 'http://127.0.0.1:8080',
  docsUrl: 'https://docs.earshot.dev',
  dashboardUrl: 'http://127.0.0.1:8080/dashboard',
  bodyLimitBytes: 1_048_576,
};

/** Slug holders read from the catalog tables of `state`, as the service wires them for ingest. */
export function catalogSlugHolders(state: StateStore): IngestServices['slugHolders'] {
  const catalog = new CatalogReader(state);
  return (type, slugs) => catalog.slugHolders(type, slugs);
}

/** An API on an in-memory state store with one organization and a project per plan, each with a key. */
export async function testApi(
  settings: Partial<ApiSettings> = {},
  configure?: (app: FastifyInstance) => void,
  options: {
    delivery?: TestDeliveryOptions;
    /** A state store to use (migrated, e.g. holding a projected catalog); closed by the caller. */
    state?: StateStore;
    /** Serves the analytics reads from this store. */
    analytics?: AnalyticsStore;
    /** Serves batch ingest with these (tokens are made on the test's state store). */
    ingest?: (state: StateStore) => IngestServices;
    /** Serves the search routes over this index (no embeddings: semantic search answers 503). */
    searchIndex?: SearchIndex;
    /** Logs here instead of nowhere (e.g. a logger writing to a captured stream). */
    logger?: Logger;
    /** Serves the live stream, archive replay and bulk download from the test's state store. */
    archive?: { pollMs?: number };
    /** Verifies and settles payments (with `settings.payments.terms`). */
    facilitator?: Facilitator;
  } = {},
) {
  const state: StateStore = options.state ?? memoryStateStore();
  if (!options.state) await migrate(state);
  const accounts = new Accounts(state);
  // A second API on a store that already holds the first one's organizations gets its own.
  const taken = options.state ? await accounts.organization('acme') : undefined;
  const suffix = taken ? `-${Math.random().toString(36).slice(2, 8)}` : '';
  const org = await accounts.createOrganization({ name: 'Acme Audio', slug: `acme${suffix}` });
  const other = await accounts.createOrganization({ name: 'Other Org', slug: `other${suffix}` });
  const keys: Record<string, string> = {};
  const projects: Record<string, string> = {};
  for (const plan of ['starter', 'growth', 'team', 'business', 'enterprise']) {
    const p = await accounts.createProject({ organizationId: org.id, name: `${plan} project`, plan });
    projects[plan] = p.id;
    keys[plan] = (await accounts.createApiKey({ projectId: p.id })).key;
  }
  const otherProject = await accounts.createProject({
    organizationId: other.id,
    name: 'theirs',
    plan: 'business',
  });
  keys.other = (await accounts.createApiKey({ projectId: otherProject.id })).key;
  const catalog = new CatalogReader(state);
  const delivery = testDeliveryKit(state, catalog, options.delivery);
  const archive = options.archive ? new ArchiveStore(state) : undefined;
  const feed = archive ? new LiveFeed(archive, { pollMs: options.archive?.pollMs ?? 50 }) : undefined;
  const app = await buildApp({
    logger: options.logger ?? silentLogger(),
    readiness: new Readiness(),
    services: {
      state,
      accounts,
      catalog,
      delivery,
      analytics: options.analytics,
      ingest: options.ingest?.(state),
      ...(options.facilitator ? { facilitator: options.facilitator } : {}),
      ...(archive && feed ? { archive: { store: archive, feed } } : {}),
      ...(options.searchIndex
        ? {
            search: {
              index: options.searchIndex,
              catalog,
              state,
              embeddings: () => undefined,
              semanticUnavailableReason: () => 'no embeddings model in this test',
            },
          }
        : {}),
    },
    settings: { ...TEST_SETTINGS, ...settings },
  });
  configure?.(app);
  await app.ready();
  return {
    app,
    state,
    accounts,
    org,
    other,
    keys,
    projects,
    delivery,
    archive,
    feed,
    async close() {
      await app.close();
      feed?.stop();
      await delivery.close();
      if (!options.state) await state.close();
    },
  };
}
