import os from 'node:os';
import path from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import {
  type AlertApiExtras,
  alertApiServices,
  type DeliveryKit,
  TokenSigner,
} from '../processors/alerts/index.ts';
import { analyticsReads } from '../projections/analytics/analytics-reads.ts';
import type { AnalyticsStore } from '../projections/analytics/analytics-store.ts';
import type { ArchiveStore, LiveFeed } from '../projections/archive/index.ts';
import { CatalogLists } from '../projections/catalog/catalog-lists.ts';
import type { CatalogReader } from '../projections/catalog/catalog-reader.ts';
import type { Accounts } from '../projections/state/accounts.ts';
import { ApiKeyUsage } from '../projections/state/api-key-usage.ts';
import { AttemptCounters } from '../projections/state/attempt-counters.ts';
import { Memberships } from '../projections/state/memberships.ts';
import { OAuthGrants } from '../projections/state/oauth-grants.ts';
import { OAuthSigningKeyRows } from '../projections/state/oauth-keys.ts';
import { PaymentLedger } from '../projections/state/payments.ts';
import { People } from '../projections/state/people.ts';
import { Sessions } from '../projections/state/sessions.ts';
import type { StateStore } from '../projections/state/state-store.ts';
import { ToolUsage } from '../projections/state/tool-usage.ts';
import { RestOperations } from './agents/rest-operations.ts';
import type { AttemptLimits, ChatOAuthSettings, EntityHit, PeopleServices } from './dashboard/context.ts';
import { registerDashboard } from './dashboard/index.ts';
import { AccessTokens } from './oauth/access-tokens.ts';
import { AgentAuth } from './oauth/agent-auth.ts';
import { Clients } from './oauth/clients.ts';
import { type OAuthLimits, oauthRoutes } from './oauth/routes.ts';
import { pageRoutes } from './pages/pages.ts';
import { Cursors } from './pagination.ts';
import { type Facilitator, PaymentGate } from './payments/gate.ts';
import { DEFAULT_NETWORK, loadPriceTable, type PriceTable } from './payments/prices.ts';
import { type PaymentTermsSettings, paymentInfo } from './payments/terms.ts';
import { authenticationPlugin, InProcessCalls } from './plugins/authentication.ts';
import { Lockouts } from './plugins/lockouts.ts';
import { openapiPlugin } from './plugins/openapi.ts';
import { payableRoute, paymentsPlugin } from './plugins/payments.ts';
import { clientErrorHandler, frameworkErrors, problemsPlugin } from './plugins/problems.ts';
import { rateLimitsPlugin } from './plugins/rate-limits.ts';
import { textGuardPlugin } from './plugins/text-guard.ts';
import { UsageCounter, usagePlugin } from './plugins/usage.ts';
import { requirePremiumEndpoint } from './premium.ts';
import { ProblemError } from './problem.ts';
import { advertisingReads } from './reads/advertising-reads.ts';
import { guestReads } from './reads/guest-reads.ts';
import { ratingReads } from './reads/rating-reads.ts';
import type { ReadOperation } from './reads/read-operation.ts';
import { topicReads } from './reads/topic-reads.ts';
import { RequestLogController } from './request-log.ts';
import { accountRoutes } from './routes/accounts.ts';
import { advertisingRoutes } from './routes/advertising.ts';
import { alertDisableRoutes } from './routes/alert-disable.ts';
import { alertHistoryRoutes } from './routes/alert-history.ts';
import { alertRoutes } from './routes/alerts.ts';
import { archiveRoutes } from './routes/archive.ts';
import { biasRoutes } from './routes/bias.ts';
import { chatRoutes } from './routes/chat.ts';
import { companyPeopleRoutes } from './routes/companies-people.ts';
import { embedRoutes } from './routes/embeds.ts';
import { entityRoutes } from './routes/entities.ts';
import { episodeStreamRoutes } from './routes/episode-stream.ts';
import { episodeRoutes } from './routes/episodes.ts';
import { healthRoutes, type MetricsText, type ReadinessProbe } from './routes/health.ts';
import { type IngestServices, ingestRoutes } from './routes/ingest.ts';
import { mentionRoutes } from './routes/mentions.ts';
import { notificationEmailRoutes } from './routes/notification-emails.ts';
import { podcastRoutes } from './routes/podcasts.ts';
import { publisherRoutes } from './routes/publishers.ts';
import { rankingRoutes } from './routes/rankings.ts';
import { readOperationRoutes } from './routes/read-operations.ts';
import { searchPodcasts, searchRoutes } from './routes/search.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { ProblemSchema } from './schemas.ts';
import { type ENTITY_SEARCH_TYPES, searchEntities } from './search/name-search.ts';
import type { SearchServices } from './search/search-services.ts';
import { ArchiveBuilds } from './streams/archive-builds.ts';
import { DEFAULT_STREAM_SETTINGS, type StreamSettings, Streams } from './streams/streams.ts';
import { buildRequestValidator, buildResponseSerializer } from './validation.ts';
import type { AnalyticsRouteOptions } from './views/analytics.ts';
import { EpisodeRecord } from './views/episodes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Open streams and their limits (when the archive is served). */
    streams?: Streams;
    /** The bulk download's builds (when the archive is served). */
    archiveBuilds?: ArchiveBuilds;
    /** Calls made to these routes by this process on an authenticated caller's behalf (tool calls). */
    inProcessCalls: InProcessCalls;
    /** Each route's method, path and schemas (what the agent-tool server's tools are built from). */
    restOperations: RestOperations;
    /** OAuth 2.1 for agent clients: grants, clients, access tokens. */
    agentAuth: AgentAuth;
  }
}

/** Largest request line and headers the server reads. */
export const MAX_HEADER_BYTES = 128 * 1024;

export interface ApiSettings {
  /** Public base URL of this API, used in links and the OpenAPI `servers`; the OAuth issuer. */
  publicUrl: string;
  /** The agent-tool server's public address (`{mcp_url}`): the OAuth resource (default: port 8081 of the API's host, `/mcp`). */
  mcpUrl?: string;
  /** OAuth for agents: the clock (tests) and how long codes live (default 60 s). */
  agents?: { now?: () => number; codeTtlMs?: number; limits?: OAuthLimits };
  docsUrl: string;
  /** Public address of the dashboard the API serves under `/dashboard` (`{dashboard_url}`). */
  dashboardUrl: string;
  /** Sign-in, reset and sign-up attempts allowed (default `ATTEMPT_LIMITS`). */
  attemptLimits?: AttemptLimits;
  /** The team-chat app, for the install from the dashboard (absent: not offered). */
  chatOAuth?: ChatOAuthSettings;
  /** Overrides every plan's per-minute request limit when set. */
  rateLimitPerMinute?: number;
  /**
   * Instances sharing one deployment's requests (default 1): the counters are this process's,
   * so it allows ⌈limit ÷ instances⌉ a minute per key.
   */
  rateLimitInstances?: number;
  /** Failed authentications allowed per client address and minute (default 20; half per key prefix). */
  failedAuthPerMinute?: number;
  bodyLimitBytes: number;
  /** Largest batch body on `POST /v1/ingest/batches`. */
  ingestBodyLimitBytes?: number;
  /** Event streams and downloads: per-key limit, buffers, heartbeat (DEFAULT_STREAM_SETTINGS). */
  streams?: Partial<StreamSettings>;
  /** How far back the live episode stream resumes (default 7 days). */
  streamRetentionMs?: number;
  /** Where the bulk download builds the archive's days (default: under the OS temp dir). */
  archiveBuildsDir?: string;
  /** How long a built day serves before it is built again (default 10 minutes). */
  archiveBuildsTtlMs?: number;
  /** Pay per request (default: the default price table, payments off). */
  payments?: PaymentSettings;
}

export interface PaymentSettings {
  /** What each payable operation and tool costs (default `api/payments/prices.json`). */
  prices?: PriceTable;
  /** The network the terms name, also when payments are off (default `eip155:8453`). */
  network?: string;
  /** Recipient, asset and challenge key: payments are on when present. */
  terms?: PaymentTermsSettings;
}

/** What routes read from. Each store or engine the API needs is one field here. */
export interface ApiServices {
  state: StateStore;
  accounts: Accounts;
  catalog: CatalogReader;
  /** Webhook and team-chat connections, outbound guard, mailer, link tokens. */
  delivery: DeliveryKit;
  /** Alert previews and podcast bias; by default from `analytics` (neither: previews answer 503). */
  alerts?: AlertApiExtras;
  /** Search index and query embeddings (absent: the search routes are not served). */
  search?: SearchServices;
  /** ClickHouse projections (absent: the analytics, catalog and transcript reads are not served). */
  analytics?: AnalyticsStore;
  /** Batch ingest: producer, ingest state and ingest tokens (absent: the route is not served). */
  ingest?: IngestServices;
  /**
   * The episode archive and the live order as this process follows it (absent: the live stream,
   * the archive replay and the bulk download are not served).
   */
  archive?: { store: ArchiveStore; feed: LiveFeed };
  /** People, sessions, memberships and key usage (default: on `state`, links signed with `delivery.box`). */
  people?: PeopleServices;
  /** Verifies and settles payments (absent with payments on: terms offered, payments refused with 503). */
  facilitator?: Facilitator;
}

/** The dashboard's services on a state store; verification links are signed with a key of their own. */
export function peopleServices(state: StateStore, delivery: DeliveryKit): PeopleServices {
  return {
    people: new People(state, new TokenSigner(delivery.box, 'account-verification')),
    sessions: new Sessions(state),
    memberships: new Memberships(state),
    usage: new ApiKeyUsage(state),
  };
}

export interface AppDeps {
  logger: Logger;
  readiness: ReadinessProbe;
  /** What `GET /metrics` reports (absent: nothing). */
  metrics?: MetricsText;
  services: ApiServices;
  settings: ApiSettings;
}

/** The fastify instance every HTTP application of the service starts from (the API, HTTP ingest). */
export function newFastify(logger: Logger, settings: Pick<ApiSettings, 'bodyLimitBytes' | 'docsUrl'>) {
  return Fastify({
    loggerInstance: logger,
    // One line per answered request (probes at debug).
    logController: new RequestLogController(),
    bodyLimit: settings.bodyLimitBytes,
    // A `__proto__` or `constructor.prototype` key in a JSON body is dropped, like any unknown
    // field, rather than failing the whole body as "not JSON".
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    // Path parameters are validated by their schemas (at most 200 characters, a 422 beyond);
    // the router refuses only segments past this (414 problem).
    routerOptions: { maxParamLength: 2048 },
    // Room for the longest request line the OpenAPI document allows, percent-encoded (a test
    // checks every operation against this); beyond it, 431 problem.
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    frameworkErrors: frameworkErrors(settings.docsUrl),
    clientErrorHandler: clientErrorHandler(settings.docsUrl),
    // Text parts coerced to their types, JSON bodies not; non-finite numbers refused everywhere.
    schemaController: {
      compilersFactory: {
        buildValidator: buildRequestValidator,
        buildSerializer: buildResponseSerializer as never,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
}

/**
 * The HTTP application, in layers: cross-cutting plugins (errors, text every store accepts,
 * OpenAPI, rate limits, authentication), then the routes. Everything is served by one fastify
 * instance.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { settings, services } = deps;
  const app = newFastify(deps.logger, settings);

  app.addSchema(ProblemSchema);
  // Every route's schemas, as registered: the agent-tool server's tools are built from them.
  const restOperations = new RestOperations();
  app.decorate('restOperations', restOperations);
  app.addHook('onRoute', restOperations.onRoute);
  // Cursors are signed with a key derived from the secrets key, which every API process shares.
  app.decorate('cursors', new Cursors(services.delivery.box));
  await app.register(problemsPlugin, { docsUrl: settings.docsUrl });
  await app.register(textGuardPlugin);
  const prices = settings.payments?.prices ?? loadPriceTable();
  const network = settings.payments?.terms?.network ?? settings.payments?.network ?? DEFAULT_NETWORK;
  const paymentTerms = settings.payments?.terms;
  const gate = paymentTerms
    ? new PaymentGate(paymentTerms, new PaymentLedger(services.state), services.facilitator)
    : undefined;
  const mcpUrl = settings.mcpUrl ?? defaultMcpUrl(settings.publicUrl);
  await app.register(openapiPlugin, {
    publicUrl: settings.publicUrl,
    docsUrl: settings.docsUrl,
    dashboardUrl: settings.dashboardUrl,
    prices,
    paymentInfo: (cents) => paymentInfo(paymentTerms, network, cents),
    mcpUrl,
  });
  // Rate limits first: their failed-authentication check runs before a key is looked up.
  await app.register(rateLimitsPlugin, {
    perMinute: settings.rateLimitPerMinute,
    failedPerMinute: settings.failedAuthPerMinute,
    fallbackPerMinute: 120,
    instances: settings.rateLimitInstances ?? 1,
    lockouts: sharedLockouts(services.state, deps.logger),
  });
  const inProcess = new InProcessCalls();
  app.decorate('inProcessCalls', inProcess);
  await app.register(authenticationPlugin, {
    accounts: services.accounts,
    dashboardUrl: settings.dashboardUrl,
    inProcess,
    payable: (request) => payableRoute(gate, prices, request) !== undefined,
  });
  // After authentication: a request with an account never takes the payment path.
  await app.register(paymentsPlugin, {
    gate,
    prices,
    publicUrl: settings.publicUrl,
    docsUrl: settings.docsUrl,
    network,
    mcpUrl,
  });
  const people = services.people ?? peopleServices(services.state, services.delivery);
  const usageCounter = new UsageCounter(people.usage, app.log);
  await app.register(usagePlugin, { counter: usageCounter });

  // Alerting: one set of services (rules, reads, connections, notification emails) for its routes.
  const alerting = alertApiServices({
    state: services.state,
    catalog: services.catalog,
    delivery: services.delivery,
    extras: services.alerts,
    analytics: services.analytics,
  });
  // OAuth 2.1 for agent clients: the authorization server, whose consent page is the dashboard's.
  const now = settings.agents?.now ?? Date.now;
  const grants = new OAuthGrants(services.state);
  const agentAuth = new AgentAuth(
    {
      issuer: settings.publicUrl.replace(/\/$/, ''),
      resource: mcpUrl,
      codeTtlMs: settings.agents?.codeTtlMs,
    },
    grants,
    new Clients(grants, services.delivery.http, now),
    new AccessTokens(
      new OAuthSigningKeyRows(services.state),
      services.delivery.box,
      settings.publicUrl.replace(/\/$/, ''),
      now,
    ),
    new TokenSigner(services.delivery.box, 'oauth-authorize'),
    now,
  );
  app.decorate('agentAuth', agentAuth);
  await app.register(oauthRoutes, {
    auth: agentAuth,
    publicUrl: settings.publicUrl.replace(/\/$/, ''),
    dashboardUrl: settings.dashboardUrl,
    docsUrl: settings.docsUrl,
    limits: settings.agents?.limits,
  });
  await app.register(healthRoutes, { readiness: deps.readiness, metrics: deps.metrics });
  await app.register(pageRoutes, { dashboardUrl: settings.dashboardUrl });
  await app.register(accountRoutes, {
    accounts: services.accounts,
    notificationEmails: alerting.notificationEmails,
    dashboardUrl: settings.dashboardUrl,
    onNotificationEmailCreated: alerting.notificationEmails.verificationSender(app.log),
  });
  await app.register(notificationEmailRoutes, { alerting });
  await app.register(webhookRoutes, { alerting });
  await app.register(chatRoutes, { alerting, dashboardUrl: settings.dashboardUrl });
  await app.register(alertRoutes, { alerting, dashboardUrl: settings.dashboardUrl });
  await app.register(alertHistoryRoutes, { alerting });
  await app.register(alertDisableRoutes, { alerting, accounts: services.accounts });
  if (services.ingest) {
    await app.register(ingestRoutes, {
      services: services.ingest,
      bodyLimitBytes: settings.ingestBodyLimitBytes ?? 32 * 1024 * 1024,
    });
  }
  if (services.search) await app.register(searchRoutes, { services: services.search });
  if (services.archive) {
    const streams = new Streams({ ...DEFAULT_STREAM_SETTINGS, ...settings.streams });
    const builds = new ArchiveBuilds({
      dir: settings.archiveBuildsDir ?? path.join(os.tmpdir(), `earshot-archive-builds-${process.pid}`),
      ttlMs: settings.archiveBuildsTtlMs ?? 600_000,
      archive: services.archive.store,
      catalog: services.catalog,
    });
    app.addSchema(EpisodeRecord);
    app.decorate('streams', streams);
    app.decorate('archiveBuilds', builds);
    // Open streams would hold the server's close up: they end first, asking clients to come back.
    app.addHook('preClose', async () => streams.shutdown());
    await app.register(episodeStreamRoutes, {
      archive: services.archive.store,
      feed: services.archive.feed,
      catalog: services.catalog,
      streams,
      dashboardUrl: settings.dashboardUrl,
      retentionMs: settings.streamRetentionMs ?? 7 * 86_400_000,
    });
    await app.register(archiveRoutes, {
      archive: services.archive.store,
      catalog: services.catalog,
      streams,
      builds,
      dashboardUrl: settings.dashboardUrl,
    });
  }
  if (services.analytics) {
    // Every read served from the analytics store and the catalog: mentions, entities, sponsors and
    // ads, rankings, bias, podcasts / publishers / companies / people, episodes and transcripts.
    const search = services.search;
    const options: AnalyticsRouteOptions = {
      reads: analyticsReads(services.analytics),
      catalog: services.catalog,
      lists: new CatalogLists(services.state),
      dashboardUrl: settings.dashboardUrl,
      ...(search ? { searchPodcasts: (p: { q: string }) => searchPodcasts(search, app.cursors, p) } : {}),
    };
    for (const routes of [
      mentionRoutes,
      entityRoutes,
      advertisingRoutes,
      rankingRoutes,
      biasRoutes,
      podcastRoutes,
      publisherRoutes,
      companyPeopleRoutes,
      episodeRoutes,
    ])
      await app.register(routes, options);
    // Reads declared as operations (a query-service call with its input and output schemas),
    // served here and declarable as agent tools from the same declaration.
    await app.register(embedRoutes, {
      reads: options.reads,
      catalog: services.catalog,
      publicUrl: settings.publicUrl,
    });
    const readServices = { reads: options.reads, catalog: services.catalog, cursors: app.cursors };
    await app.register(readOperationRoutes, {
      operations: readOperations(readServices),
      requirePremium: (request) => requirePremiumEndpoint(request, settings.dashboardUrl),
    });
  }
  await registerDashboard(app as unknown as FastifyInstance, {
    services: {
      ...people,
      accounts: services.accounts,
      usageCounter,
      alerting,
      catalog: services.catalog,
      ...(services.search ? { entitySearch: entitySearch(services.search, app.cursors) } : {}),
      agentAuth,
      toolUsage: new ToolUsage(services.state),
    },
    settings: {
      dashboardUrl: settings.dashboardUrl,
      publicUrl: settings.publicUrl,
      rateLimitPerMinute: settings.rateLimitPerMinute,
      chatOAuth: settings.chatOAuth,
    },
    keys: {
      cookie: services.delivery.box.subkey('earshot/dashboard/cookie'),
      csrf: services.delivery.box.subkey('earshot/dashboard/csrf'),
      chatInstall: new TokenSigner(services.delivery.box, 'chat-install'),
    },
    limits: settings.attemptLimits,
  });
  return app as unknown as FastifyInstance;
}

/** Lockouts counted in the state store, so that they hold across the instances sharing it. */
export function sharedLockouts(state: StateStore, logger: Logger): Lockouts {
  return new Lockouts(new AttemptCounters(state), {
    onError: (err) => logger.warn({ err }, 'attempt counters unavailable: counting in this process'),
  });
}

/** Every read declared as an operation (REST routes here; agent tools from the same list). */
export function readOperations(services: Parameters<typeof advertisingReads>[0]): ReadOperation[] {
  return [
    ...topicReads(services),
    ...guestReads(services),
    ...ratingReads(services),
    ...advertisingReads(services),
  ];
}

/** `{mcp_url}` when not configured: port 8081 of the API's host, path `/mcp`. */
export function defaultMcpUrl(publicUrl: string): string {
  const url = new URL(publicUrl);
  url.port = '8081';
  url.pathname = '/mcp';
  url.search = '';
  return url.toString();
}

const ALERT_ENTITY_TYPES = {
  person: 'PERSON',
  company: 'COMPANY',
  knowledge_graph_entity: 'KNOWLEDGE_GRAPH_ENTITY',
} as const satisfies Record<(typeof ENTITY_SEARCH_TYPES)[number], string>;

/** The dashboard's entity picker: the first 8 results of entity search (none for a query it refuses). */
function entitySearch(search: SearchServices, cursors: Cursors) {
  return async (q: string): Promise<EntityHit[]> => {
    const found = await searchEntities(search, cursors, { q, limit: 8 }).catch((err: unknown) => {
      if (err instanceof ProblemError) return { data: [] };
      throw err;
    });
    return found.data.map((item) => {
      const type = item.type as (typeof ENTITY_SEARCH_TYPES)[number];
      const record = item[type] as { id: string; name: string };
      return { id: record.id, name: record.name, entity_type: ALERT_ENTITY_TYPES[type] };
    });
  };
}
