import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { StateStore } from '../projections/state/state-store.ts';
import { newFastify, sharedLockouts } from './app.ts';
import { problemsPlugin } from './plugins/problems.ts';
import { rateLimitsPlugin } from './plugins/rate-limits.ts';
import { textGuardPlugin } from './plugins/text-guard.ts';
import { healthRoutes, type MetricsText, type ReadinessProbe } from './routes/health.ts';
import { type IngestServices, ingestRoutes } from './routes/ingest.ts';
import { ProblemSchema } from './schemas.ts';

export interface IngestAppDeps {
  logger: Logger;
  readiness: ReadinessProbe;
  metrics?: MetricsText;
  /** Batch ingest, and the state store its failed-authentication lockouts are counted in. */
  services: { ingest: IngestServices; state: StateStore };
  settings: {
    docsUrl: string;
    bodyLimitBytes: number;
    ingestBodyLimitBytes?: number;
    failedAuthPerMinute?: number;
  };
}

/**
 * The HTTP application of an `ingest` instance without the `api` role: `POST /v1/ingest/batches`
 * (ingest tokens, the same route and answers as on the API), `/healthz`, `/readyz` and
 * `/metrics`; nothing else. The same cross-cutting layers as the API's for what it serves:
 * problem documents, the text guard, and failed-authentication lockouts on ingest tokens
 * counted in the state store with the API's (batch ingest has no per-minute request limit).
 */
export async function buildIngestApp(deps: IngestAppDeps): Promise<FastifyInstance> {
  const { settings, services } = deps;
  const app = newFastify(deps.logger, settings);
  app.addSchema(ProblemSchema);
  await app.register(problemsPlugin, { docsUrl: settings.docsUrl });
  await app.register(textGuardPlugin);
  await app.register(rateLimitsPlugin, {
    failedPerMinute: settings.failedAuthPerMinute,
    fallbackPerMinute: 120,
    lockouts: sharedLockouts(services.state, deps.logger),
  });
  await app.register(healthRoutes, { readiness: deps.readiness, metrics: deps.metrics });
  await app.register(ingestRoutes, {
    services: services.ingest,
    bodyLimitBytes: settings.ingestBodyLimitBytes ?? 32 * 1024 * 1024,
  });
  return app as unknown as FastifyInstance;
}
