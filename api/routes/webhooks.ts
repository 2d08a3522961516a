import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { newAttemptId, sendWebhook } from '../../processors/alerts/delivery/channels/channels.ts';
import { matchEnvelope } from '../../processors/alerts/delivery/channels/envelope.ts';
import type { WebhookConnection } from '../../processors/alerts/delivery/connections/webhook-connections.ts';
import type { DeliveryKit } from '../../processors/alerts/delivery/kit.ts';
import {
  canonicalUrl,
  OutboundRefusedError,
  OutboundResolveError,
} from '../../processors/alerts/delivery/outbound/outbound-guard.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { principalOf } from '../plugins/authentication.ts';
import { invalidParameter, problem } from '../problem.ts';
import { Timestamp, withProblems } from '../schemas.ts';

const WebhookConnectionSchema = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  created_at: Timestamp,
  surface: Type.String({ description: '`PLATFORM` for connections made with an API key' }),
  secret_prefix: Type.String({ description: 'masked prefix of the signing secret' }),
  secret: Type.Optional(
    Type.String({ description: 'the full signing secret: returned only on create and on rotate' }),
  ),
});

const connectionView = (c: WebhookConnection, secret?: string) => ({
  id: c.id,
  project_id: c.project_id,
  name: c.name,
  url: c.url,
  created_at: new Date(c.created_at).toISOString(),
  surface: c.surface,
  secret_prefix: c.secret_prefix,
  ...(secret ? { secret } : {}),
});

const TestDelivery = Type.Object({
  webhook_connection_id: Type.String(),
  url: Type.String(),
  delivered: Type.Boolean({ description: 'true when the endpoint answered 2xx' }),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
});

const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 200 }) });
const ConnectionParams = Type.Object({
  projectId: Type.String({ maxLength: 200 }),
  id: Type.String({ maxLength: 200 }),
});

/** A key acts for its own project only (by id or slug). */
export function requireOwnProject(request: FastifyRequest, projectId: string) {
  const principal = principalOf(request);
  const project = principal.project;
  if (projectId !== project.id && projectId !== project.slug) {
    throw problem('forbidden', `This API key belongs to project ${project.id}, not ${projectId}.`, {
      errors: [
        { location: 'path.projectId', message: 'is not the project of this API key', value: projectId },
      ],
    });
  }
  return principal;
}

/**
 * Checks a destination URL with the outbound guard and returns its canonical form, the one to
 * store; a refusal is a 422 naming `location`.
 */
export async function checkDestination(kit: DeliveryKit, url: string, location: string): Promise<string> {
  try {
    return (await kit.guard.check(url)).url.href;
  } catch (err) {
    if (err instanceof OutboundRefusedError || err instanceof OutboundResolveError) {
      const message = err instanceof OutboundResolveError ? 'does not resolve to an address' : err.message;
      throw invalidParameter(location, message, url);
    }
    throw err;
  }
}

const notFound = (id: string) =>
  problem('not_found', `No webhook connection ${id} in this project.`, {
    errors: [{ location: 'path.id', message: 'no such webhook connection', value: id }],
  });

export const webhookRoutes: FastifyPluginAsyncTypebox<{ delivery: DeliveryKit }> = async (
  app,
  { delivery },
) => {
  const { webhooks } = delivery;
  const base = '/v1/projects/:projectId/webhooks/connections';

  app.post(
    base,
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Create a webhook connection; the signing secret is returned once',
        description:
          '`url` must be https and resolve to a public address. Deliveries are signed with the secret ' +
          '(Standard Webhooks scheme: `X-Webhook-Signature: v1,<base64 HMAC-SHA256 of ' +
          '"{X-Webhook-ID}.{X-Webhook-Timestamp}.{raw body}">`).',
        params: ProjectParams,
        body: Type.Object({
          url: Type.String({ minLength: 1, maxLength: 2048, description: 'https endpoint' }),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        }),
        response: withProblems({ 201: WebhookConnectionSchema }),
      },
    },
    async (request, reply) => {
      const principal = requireOwnProject(request, request.params.projectId);
      const url = await checkDestination(delivery, request.body.url, 'body.url');
      const { connection, secret } = await webhooks.create({
        projectId: principal.project.id,
        url,
        name: request.body.name,
      });
      return reply.code(201).send(connectionView(connection, secret));
    },
  );

  app.get(
    base,
    {
      schema: {
        tags: ['webhooks'],
        summary: "List the project's webhook connections (secrets masked)",
        params: ProjectParams,
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(WebhookConnectionSchema) }),
      },
    },
    async (request) => {
      const principal = requireOwnProject(request, request.params.projectId);
      const endpoint = 'webhook-connections';
      const limit = request.query.limit ?? 25;
      const after = app.cursors.decode(endpoint, request.query.cursor, Position.id());
      const rows = await webhooks.list(principal.project.id, after, limit + 1);
      return app.cursors.page(
        endpoint,
        rows,
        limit,
        (c) => connectionView(c),
        (c) => c.id,
      );
    },
  );

  app.get(
    `${base}/:id`,
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Get one webhook connection (secret masked)',
        params: ConnectionParams,
        response: withProblems({ 200: WebhookConnectionSchema }),
      },
    },
    async (request) => {
      const principal = requireOwnProject(request, request.params.projectId);
      const connection = await webhooks.get(principal.project.id, request.params.id);
      if (!connection) throw notFound(request.params.id);
      return connectionView(connection);
    },
  );

  app.post(
    `${base}/:id/rotate-secret`,
    {
      schema: {
        tags: ['webhooks'],
        summary:
          'Rotate the signing secret; the new secret is returned once and the old one is invalid at once',
        params: ConnectionParams,
        response: withProblems({ 200: WebhookConnectionSchema }),
      },
    },
    async (request) => {
      const principal = requireOwnProject(request, request.params.projectId);
      const current = await webhooks.get(principal.project.id, request.params.id);
      if (!current) throw notFound(request.params.id);
      // A URL stored by an older release is canonicalised here, or refused (nothing can be
      // delivered to it: the connection should be deleted and made again).
      let url: string;
      try {
        url = canonicalUrl(current.url).href;
      } catch (err) {
        if (!(err instanceof OutboundRefusedError)) throw err;
        throw invalidParameter(
          'path.id',
          `has a stored URL that is refused (${err.message}); delete this connection and create a new one`,
          request.params.id,
        );
      }
      const rotated = await webhooks.rotate(principal.project.id, request.params.id, url);
      if (!rotated) throw notFound(request.params.id);
      return connectionView(rotated.connection, rotated.secret);
    },
  );

  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook connection (soft); alerts referencing it skip it',
        params: ConnectionParams,
        response: withProblems({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      const principal = requireOwnProject(request, request.params.projectId);
      if (!(await webhooks.delete(principal.project.id, request.params.id)))
        throw notFound(request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/alerts/:id/test-webhook',
    {
      schema: {
        tags: ['alerts'],
        summary: 'Send a test alert.match.created to every active webhook connection of the alert',
        description:
          'A real-shaped `alert.match.created` with `test: true`, signed like every delivery. Nothing is ' +
          'persisted. A non-2xx or unreachable endpoint gives `delivered: false` (still 200). Deleted ' +
          'connections are skipped; with no active webhook connection the answer is 422.',
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: withProblems({ 200: Type.Object({ deliveries: Type.Array(TestDelivery) }) }),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const alert = (await delivery.content.alerts([request.params.id])).get(request.params.id);
      if (!alert || alert.deleted || alert.project_id !== principal.project.id) {
        throw problem('not_found', `No alert ${request.params.id} in this project.`, {
          errors: [{ location: 'path.id', message: 'no such alert', value: request.params.id }],
        });
      }
      const connections = [...(await webhooks.forDelivery(alert.webhook_connection_ids)).values()].filter(
        (c) => !c.deleted_at,
      );
      if (connections.length === 0) {
        throw problem('unprocessable_entity', `Alert ${alert.id} has no active webhook connection.`, {
          errors: [{ location: 'path.id', message: 'has no active webhook connection', value: alert.id }],
          resolve: {
            message:
              'Create a webhook connection, add a WEBHOOK channel with its id to the alert notifications, then retry.',
            action: 'add_webhook_channel',
            endpoint: `/v1/alerts/${alert.id}`,
            method: 'PATCH',
          },
        });
      }
      const match = await delivery.content.sampleMatch(alert);
      const deliveries = await Promise.all(
        connections.map(async (c) => {
          const attemptId = newAttemptId();
          const envelope = matchEnvelope({
            attemptId,
            // A test send has no delivery record: the link points at the alert.
            url: `${delivery.settings.publicUrl}/v1/alerts/${encodeURIComponent(alert.id)}`,
            alert,
            match,
            test: true,
          });
          const res = await sendWebhook(delivery.http, {
            url: c.url,
            secret: c.secret,
            attemptId,
            body: JSON.stringify(envelope),
            timeoutMs: delivery.settings.requestTimeoutMs,
          });
          return {
            webhook_connection_id: c.id,
            url: c.url,
            delivered: res.outcome === 'delivered',
            status_code: res.statusCode,
            duration_ms: res.durationMs,
            error: res.error,
          };
        }),
      );
      return { deliveries };
    },
  );
};
