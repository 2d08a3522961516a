import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Readiness } from '../infra/readiness.ts';
import { healthRoutes } from './routes/health.ts';

export interface AppDeps {
  logger: Logger;
  readiness: Readiness;
}

/** The HTTP application: external plugins, then application plugins, then routes. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: deps.logger }).withTypeProvider<TypeBoxTypeProvider>();
  await app.register(healthRoutes, { readiness: deps.readiness });
  return app as unknown as FastifyInstance;
}
