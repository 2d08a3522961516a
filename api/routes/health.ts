import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Readiness } from '../../infra/readiness.ts';

const Check = Type.Object({ ok: Type.Boolean(), detail: Type.Optional(Type.Unknown()) });
const ReadyBody = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('starting')]),
  checks: Type.Record(Type.String(), Check),
  info: Type.Record(Type.String(), Type.Unknown()),
});

/** Liveness and readiness probes of the operational contract. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ readiness: Readiness }> = async (
  app,
  { readiness },
) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Liveness: 200 while the process lives',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: 200 once engines are connected and consumers have caught up',
        response: { 200: ReadyBody, 503: ReadyBody },
      },
    },
    async (_request, reply) => {
      const { ready, checks, info } = await readiness.evaluate();
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'starting', checks, info });
    },
  );
};
