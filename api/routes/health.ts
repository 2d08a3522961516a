import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';

const Check = Type.Object({ ok: Type.Boolean(), detail: Type.Optional(Type.Unknown()) });
const ReadyBody = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('starting')]),
  checks: Type.Record(Type.String(), Check),
  info: Type.Record(Type.String(), Type.Unknown()),
});

/** One check of `GET /readyz`: whether it passes, and what it reports. */
export interface CheckResult {
  ok: boolean;
  detail?: unknown;
}

/** What `GET /readyz` answers with: ready once every check passes, and facts that decide nothing. */
export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckResult>;
  info: Record<string, unknown>;
}

/** What `GET /readyz` reads: the process that serves the API decides what its checks are. */
export interface ReadinessProbe {
  evaluate(): Promise<ReadinessReport>;
}

/** What `GET /metrics` serves: the Prometheus text exposition of the process's metrics. */
export interface MetricsText {
  render(): Promise<string>;
}

/** Liveness and readiness probes of the operational contract, and the metrics read. */
export const healthRoutes: FastifyPluginAsyncTypebox<{
  readiness: ReadinessProbe;
  metrics?: MetricsText;
}> = async (app, { readiness, metrics }) => {
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

  // Prometheus text format (not JSON, so not in the OpenAPI document): consumer records, dead
  // letters by step and stage, write retries, lag.
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/plain; version=0.0.4; charset=utf-8').send(metrics ? await metrics.render() : '\n'),
  );
};
