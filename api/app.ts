import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Readiness } from '../infra/readiness.ts';
import type { CatalogReader } from '../projections/catalog/catalog-reader.ts';
import type { Accounts } from '../projections/state/accounts.ts';
import type { StateStore } from '../projections/state/state-store.ts';
import { authenticationPlugin } from './plugins/authentication.ts';
import { openapiPlugin } from './plugins/openapi.ts';
import { problemsPlugin } from './plugins/problems.ts';
import { rateLimitsPlugin } from './plugins/rate-limits.ts';
import { accountRoutes } from './routes/accounts.ts';
import { healthRoutes } from './routes/health.ts';
import { ProblemSchema } from './schemas.ts';

export interface ApiSettings {
  /** Public base URL of this API, used in links and the OpenAPI `servers`. */
  publicUrl: string;
  docsUrl: string;
  dashboardUrl: string;
  /** Overrides every plan's per-minute request limit when set. */
  rateLimitPerMinute?: number;
  bodyLimitBytes: number;
}

/** What routes read from. Each store or engine the API needs is one field here. */
export interface ApiServices {
  state: StateStore;
  accounts: Accounts;
  catalog: CatalogReader;
}

export interface AppDeps {
  logger: Logger;
  readiness: Readiness;
  services: ApiServices;
  settings: ApiSettings;
}

/**
 * The HTTP application, in layers: cross-cutting plugins (errors, OpenAPI, authentication,
 * rate limits), then the routes. Everything is served by one fastify instance.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { settings, services } = deps;
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: settings.bodyLimitBytes,
    ajv: {
      customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: true, useDefaults: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addSchema(ProblemSchema);
  await app.register(problemsPlugin, { docsUrl: settings.docsUrl });
  await app.register(openapiPlugin, { publicUrl: settings.publicUrl, docsUrl: settings.docsUrl });
  await app.register(authenticationPlugin, { accounts: services.accounts, docsUrl: settings.docsUrl });
  await app.register(rateLimitsPlugin, {
    perMinute: settings.rateLimitPerMinute,
    fallbackPerMinute: 120,
  });

  await app.register(healthRoutes, { readiness: deps.readiness });
  await app.register(accountRoutes, {
    accounts: services.accounts,
    state: services.state,
    dashboardUrl: settings.dashboardUrl,
  });
  return app as unknown as FastifyInstance;
}
