import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildAgentToolServer } from '../api/agents/index.ts';
import { type ApiSettings, buildApp } from '../api/app.ts';
import { buildIngestApp } from '../api/ingest-app.ts';
import { AccessTokens } from '../api/oauth/access-tokens.ts';
import type { PartitionLag } from '../ingest/event-log/event-log.ts';
import { startIngestRole } from '../ingest/ingest-role.ts';
import { BatchIngest } from '../ingest/loader/batch-ingest.ts';
import { IngestState } from '../ingest/loader/ingest-state.ts';
import { ConsumerRunner } from '../processors/consumer-runner.ts';
import { IngestTokens } from '../projections/state/ingest-tokens.ts';
import { OAuthSigningKeyRows } from '../projections/state/oauth-keys.ts';
import { PaymentLedger } from '../projections/state/payments.ts';
import { adminSocketPath, startAdminSocket } from './admin-socket.ts';
import { buildPlatform, createFeedHttp, type Platform } from './composition.ts';
import { type Config, dashboardUrlOf, ingestStateDirOf, mcpUrlOf, publicUrlOf } from './config.ts';
import { consumerMetrics, Metrics } from './metrics.ts';
import { operatorActions } from './operator.ts';
import { createFacilitator, paymentSettings } from './payments.ts';
import { declarePipeline, ofRoles } from './pipeline.ts';
import { Readiness } from './readiness.ts';
import { announceWhenReady, type DemoKey } from './ready-banner.ts';

export interface Service {
  platform: Platform;
  readiness: Readiness;
  runners: ConsumerRunner<unknown, unknown>[];
  app?: FastifyInstance;
  /** `http://host:port` when the api role listens (or an ingest role without it). */
  url?: string;
  /** `{mcp_url}` when the mcp role serves. */
  mcpUrl?: string;
  stop(): Promise<void>;
}

export function apiSettings(config: Config): ApiSettings {
  const { env } = config;
  return {
    publicUrl: publicUrlOf(config),
    mcpUrl: mcpUrlOf(config),
    // Problem `type` URLs resolve: to the docs host when there is one, else to this service's /errors pages.
    docsUrl: env.EARSHOT_DOCS_URL ?? publicUrlOf(config),
    dashboardUrl: dashboardUrlOf(config),
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    rateLimitInstances: env.RATE_LIMIT_INSTANCES,
    failedAuthPerMinute: env.RATE_LIMIT_FAILED_AUTH_PER_MINUTE,
    bodyLimitBytes: env.API_BODY_LIMIT_BYTES,
    ingestBodyLimitBytes: env.INGEST_BODY_LIMIT_BYTES,
    streams: {
      perKey: env.EARSHOT_STREAMS_PER_KEY,
      bufferBytes: env.EARSHOT_STREAM_BUFFER_BYTES,
      heartbeatMs: env.EARSHOT_STREAM_HEARTBEAT_MS,
    },
    streamRetentionMs: env.EARSHOT_STREAM_RETENTION_HOURS * 3_600_000,
    archiveBuildsDir: env.EARSHOT_ARCHIVE_CACHE_DIR ?? path.join(config.dataDir, 'archive-cache'),
    archiveBuildsTtlMs: env.EARSHOT_ARCHIVE_CACHE_TTL_S * 1000,
    ...(env.EARSHOT_CHAT_CLIENT_ID && env.EARSHOT_CHAT_CLIENT_SECRET
      ? {
          chatOAuth: {
            clientId: env.EARSHOT_CHAT_CLIENT_ID,
            clientSecret: env.EARSHOT_CHAT_CLIENT_SECRET,
            authorizeUrl: env.EARSHOT_CHAT_AUTHORIZE_URL,
          },
        }
      : {}),
  };
}

function demoKeyOf(demo: Awaited<ReturnType<Platform['accounts']['ensureDemoAccount']>>): DemoKey {
  const projectId = demo.project.id;
  if (demo.mintedKey) return { kind: 'minted', key: demo.mintedKey, projectId };
  if (demo.bootstrapped) return { kind: 'bootstrap', projectId };
  return { kind: 'printed-before', projectId };
}

/** Starts the roles of `config.roles` in this process. */
export async function startService(config: Config, logger: Logger): Promise<Service> {
  const started = Date.now();
  const platform = await buildPlatform(config, logger);
  const readiness = new Readiness();
  readiness.add('event-log', async () => {
    const topics = await platform.eventLog.listTopics();
    return { ok: true, detail: { engine: platform.eventLog.kind, topics: topics.length } };
  });
  readiness.add('schema-registry', async () => {
    await platform.registry.latestVersion('catalog.podcasts-value');
    return { ok: true, detail: { engine: platform.registry.kind } };
  });
  // Search: the index and a cached embeddings model, before the projectors (a missing model is
  // fetched in the background; keyword search does not wait for it).
  await platform.search.start({
    query: config.roles.has('api'),
    indexing: config.roles.has('projectors'),
    fetchIfMissing: config.env.EARSHOT_EMBEDDINGS_FETCH === 'on',
    logger,
  });
  // Open, and (once the consumers have caught up) refreshed, so that keyword search, exact phrases
  // included, covers what was ingested at start (search-runtime.ts).
  readiness.add('search-index', async () => ({
    ok: platform.search.keywordReady,
    detail: platform.search.status(),
  }));
  readiness.describe('search', () => platform.search.status());

  // What these roles run, from the pipeline's declaration (infra/pipeline.ts).
  const pipeline = ofRoles(declarePipeline(platform), config.roles);
  const runners = pipeline.steps.map(
    (step) =>
      new ConsumerRunner(step.definition, platform.eventLog, platform.producer, logger, {
        maxBatchItems: config.env.CONSUMER_BATCH_SIZE,
        maxBatchWaitMs: config.env.CONSUMER_BATCH_WAIT_MS,
      }),
  );
  // Concurrently: on Kafka each consumer's group join takes seconds.
  await Promise.all(runners.map((runner) => runner.start()));
  // Timers: the alert matcher and digest scheduler (processors), the delivery dispatcher (senders).
  const { tasks } = pipeline;
  for (const task of tasks) await task.start();

  // One ingest state per process, shared by the ingest role and the batch ingest route. HTTP
  // batches a kill interrupted are resolved from the event log before anything else appends to
  // it or compacts it.
  // HTTP batch ingest is served by the api role, and by an ingest role without it (its own
  // listener on PORT). Processes of one machine may share the state (EARSHOT_INGEST_STATE_DIR).
  const servesIngest = config.roles.has('ingest') || config.roles.has('api');
  const ingestState = servesIngest ? new IngestState(ingestStateDirOf(config)) : undefined;
  const batchIngest =
    servesIngest && ingestState
      ? new BatchIngest({
          producer: platform.producer,
          log: platform.eventLog,
          state: ingestState,
          logger,
          crashAt: config.env.EARSHOT_TEST_CRASH_AT,
        })
      : undefined;
  await batchIngest?.recover().catch((err: unknown) => {
    // Requests try again before they publish anything; the service still starts.
    logger.error({ err }, 'resolving interrupted ingest batches failed');
  });

  const maintain = () =>
    platform.eventLog
      .maintain?.()
      .then((removed) => removed > 0 && logger.info({ removed }, 'event log retention applied'))
      .catch((err: unknown) => logger.error({ err }, 'event log maintenance failed'));
  void maintain();
  const maintenance = setInterval(maintain, 3_600_000).unref();

  // Ingest role: the demo corpus on an empty data dir (loaded before the consumers' targets are
  // captured, so readiness waits for it to be processed) and the feed poller.
  const feedHttp = config.roles.has('ingest') ? createFeedHttp(config) : undefined;
  const ingest = feedHttp
    ? await startIngestRole(
        { ...platform, ingestState, feedHttp },
        { dataDir: config.dataDir, demo: config.env.EARSHOT_DEMO === 'on' },
        logger,
      )
    : undefined;

  // Ready once every declared step of these roles has committed what was in its topics when the
  // service started.
  const targets = new Map<ConsumerRunner<unknown, unknown>, PartitionLag[]>();
  for (const runner of runners) targets.set(runner, await runner.lag());
  const behindTargets = async () => {
    const behind: Record<string, number> = {};
    for (const [runner, atStart] of targets) {
      const now = await runner.lag();
      let remaining = 0;
      for (const start of atStart) {
        const current = now.find((p) => p.topic === start.topic && p.partition === start.partition);
        remaining += Math.max(0, start.end - Math.max(current?.committed ?? -1, start.end - start.lag));
      }
      if (remaining > 0) behind[runner.name] = remaining;
    }
    return behind;
  };
  // Dead letters do not hold readiness up (they are set aside so that the topic goes on); they
  // are counted per step since the process started (`earshot dlq list` counts what the topics hold).
  const deadLetters = () => {
    const byStep: Record<string, number> = {};
    // A step may run as several members of its group (the heavy analytics projectors): summed.
    for (const r of runners)
      if (r.stats.deadLettered > 0) byStep[r.name] = (byStep[r.name] ?? 0) + r.stats.deadLettered;
    return byStep;
  };
  readiness.add('consumers', async () => {
    const behind = await behindTargets();
    return {
      ok: Object.keys(behind).length === 0,
      detail: { consumers: runners.length, behind, dead_letters: deadLetters() },
    };
  });
  const metrics = new Metrics();
  metrics.add(consumerMetrics(runners));
  // Search vectors: embedded by a catch-up pass once the consumers have caught up (text is
  // searchable by keyword first); semantic search opens when that backlog is done (/readyz info).
  platform.search.startVectors({
    fill: config.roles.has('projectors'),
    indexingCaughtUp: async () => Object.keys(await behindTargets()).length === 0,
    logger,
  });

  readiness.add('state-store', async () => {
    await platform.state.query('SELECT 1');
    return { ok: true, detail: { engine: platform.state.kind } };
  });
  readiness.add('analytics-store', async () => {
    await platform.analytics.query('SELECT 1');
    return { ok: true, detail: { engine: platform.analytics.kind } };
  });

  // A process whose engines are all servers (a projectors instance on Kafka, PostgreSQL,
  // OpenSearch and ClickHouse) writes nothing else under its data dir: make it for the socket.
  fs.mkdirSync(config.dataDir, { recursive: true });
  const admin = await startAdminSocket(
    adminSocketPath(config.dataDir),
    operatorActions(
      platform.accounts,
      platform.delivery,
      new IngestTokens(platform.state),
      { host: config.env.HOST, roles: config.roles, apiUrl: publicUrlOf(config) },
      // `earshot oauth rotate-keys` against a running service: the keys are rows of the shared
      // store, so a rotation here is seen by every process (the API's caches within a minute).
      new AccessTokens(new OAuthSigningKeyRows(platform.state), platform.delivery.box, publicUrlOf(config)),
      new PaymentLedger(platform.state),
    ),
    logger,
  );

  let app: FastifyInstance | undefined;
  let url: string | undefined;
  let demoKey: DemoKey | undefined;
  // The agent-tool server's port is bound first: its address is the OAuth resource the API names.
  const mcpServer = config.roles.has('mcp') ? await bindMcpPort(config) : undefined;
  const mcpUrl = mcpServer
    ? (config.env.EARSHOT_MCP_URL ??
      mcpUrlOf({ ...config, env: { ...config.env, MCP_PORT: (mcpServer.address() as AddressInfo).port } }))
    : mcpUrlOf(config);
  let mcp: FastifyInstance | undefined;
  const ingestTokens = new IngestTokens(platform.state);
  // What HTTP batch ingest needs, wherever it is served (the API, or an ingest instance's own app).
  const ingestServices =
    batchIngest && ingestState
      ? {
          batches: batchIngest,
          state: ingestState,
          tokens: ingestTokens,
          slugHolders: platform.catalog.slugHolders.bind(platform.catalog),
        }
      : undefined;
  if (batchIngest && config.env.EARSHOT_INGEST_TOKEN) {
    const { record } = await ingestTokens.create({
      name: 'EARSHOT_INGEST_TOKEN',
      token: config.env.EARSHOT_INGEST_TOKEN,
    });
    if (record.revoked_at)
      logger.warn({ token: record.id }, 'EARSHOT_INGEST_TOKEN was revoked; it stays revoked');
  }
  if (config.roles.has('api') || config.roles.has('mcp')) {
    if (config.roles.has('api')) {
      const demo = await platform.accounts.ensureDemoAccount(config.env.EARSHOT_BOOTSTRAP_API_KEY);
      demoKey = demoKeyOf(demo);
    }
    // The mcp role runs the API application in-process (without listening, unless the api role
    // is here too): a tool call is a call of the REST operation it mirrors.
    app = await buildApp({
      logger,
      readiness,
      metrics,
      services: {
        state: platform.state,
        accounts: platform.accounts,
        catalog: platform.catalog,
        delivery: platform.delivery,
        analytics: platform.analytics,
        archive: { store: platform.archive, feed: platform.liveFeed },
        ...(ingestServices && config.roles.has('api') ? { ingest: ingestServices } : {}),
        facilitator: createFacilitator(config),
        search: {
          index: platform.search.searchIndex,
          catalog: platform.catalog,
          state: platform.state,
          embeddings: () => platform.search.queryEmbeddings(),
          semanticUnavailableReason: () => platform.search.unavailableReason(),
          semanticCoverage: () => platform.search.semanticCoverage(),
        },
      },
      settings: { ...apiSettings(config), mcpUrl, payments: paymentSettings(config, platform.delivery.box) },
    });
    if (config.roles.has('api')) url = await app.listen({ port: config.env.PORT, host: config.env.HOST });
    else await app.ready();
    if (mcpServer) {
      const settings = apiSettings(config);
      mcp = await buildAgentToolServer(app, {
        logger,
        state: platform.state,
        accounts: platform.accounts,
        publicUrl: settings.publicUrl,
        dashboardUrl: settings.dashboardUrl,
        docsUrl: settings.docsUrl,
        failedAuthPerMinute: config.env.RATE_LIMIT_FAILED_AUTH_PER_MINUTE,
        allowedOrigins: config.env.EARSHOT_MCP_ALLOWED_ORIGINS.split(',')
          .map((o) => o.trim())
          .filter(Boolean),
        server: mcpServer,
      });
      await mcp.ready();
      logger.info({ mcpUrl, port: (mcpServer.address() as AddressInfo).port }, 'agent-tool server listening');
    }
  }
  // An ingest instance without the api role: HTTP batch ingest (and probes) on PORT.
  let ingestApp: FastifyInstance | undefined;
  if (ingestServices && !config.roles.has('api')) {
    const settings = apiSettings(config);
    ingestApp = await buildIngestApp({
      logger,
      readiness,
      metrics,
      services: { ingest: ingestServices, state: platform.state },
      settings: {
        docsUrl: settings.docsUrl,
        bodyLimitBytes: settings.bodyLimitBytes,
        ingestBodyLimitBytes: settings.ingestBodyLimitBytes,
        failedAuthPerMinute: settings.failedAuthPerMinute,
      },
    });
    url = await ingestApp.listen({ port: config.env.PORT, host: config.env.HOST });
    logger.info({ url }, 'HTTP batch ingest listening');
  }
  logger.info(
    { roles: [...config.roles], url, ...(mcpServer ? { mcpUrl } : {}), startupMs: Date.now() - started },
    'earshot started',
  );
  // Printed last, once /readyz would answer 200: where the API is, a key and a request to try.
  const stopBanner =
    url && config.roles.has('api')
      ? announceWhenReady({
          readiness,
          url: (config.env.EARSHOT_PUBLIC_URL ?? url).replace(/\/$/, ''),
          demo: demoKey,
          logger,
          startedAt: started,
        })
      : undefined;

  let stopping: Promise<void> | undefined;
  return {
    platform,
    readiness,
    runners,
    app,
    url,
    ...(mcpServer ? { mcpUrl } : {}),
    stop() {
      stopping ??= (async () => {
        clearInterval(maintenance);
        stopBanner?.();
        await mcp?.close();
        if (mcpServer) await new Promise<void>((resolve) => mcpServer.close(() => resolve()));
        await app?.close();
        await ingestApp?.close();
        await admin.close();
        await ingest?.stop();
        await feedHttp?.close();
        await ingestState?.close();
        await Promise.all(runners.map((r) => r.stop()));
        for (const task of tasks) await task.stop();
        await platform.close();
        logger.info('earshot stopped');
      })();
      return stopping;
    },
  };
}

/** Binds `MCP_PORT`; a port in use stops the start with an error that says what to do. */
async function bindMcpPort(config: Config): Promise<http.Server> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(
          new Error(
            `MCP_PORT ${config.env.MCP_PORT} on ${config.env.HOST} is in use (8081 is also the schema registry's port when the real engines run here): set MCP_PORT to a free port, or start without the mcp role (--roles api,ingest,processors,projectors,senders)`,
          ),
        );
      else reject(err);
    });
    server.listen(config.env.MCP_PORT, config.env.HOST, () => resolve());
  });
  return server;
}
