import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  type AlertApiServices,
  checkDestination,
  sendTestWebhooks,
  storedDestination,
  TestDeliverySchema,
  WebhookConnectionSchema,
  webhookConnectionView,
} from '../../processors/alerts/index.ts';
import { requireOwnProject } from '../ownership.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { principalOf } from '../plugins/authentication.ts';
import { invalidParameter, problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';

const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 200 }) });
const ConnectionParams = Type.Object({
  projectId: Type.String({ maxLength: 200 }),
  id: Type.String({ maxLength: 200 }),
});

const notFound = (id: string) =>
  problem('not_found', `No webhook connection ${id} in this project.`, {
    errors: [{ location: 'path.id', message: 'no such webhook connection', value: id }],
  });

/**
 * A destination that is not a public address: how to reach one on purpose — a receiver on this
 * machine with `earshot webhooks listen`, or a private network through the allowlist.
 */
function notPublic(reason: string, range: string, url: string) {
  const local =
    range === 'loopback'
      ? 'To receive webhooks on the machine the service runs on, run `earshot webhooks listen --project ' +
        '<project>`: it creates a connection to its own receiver and lets it through while it runs. '
      : '';
  return problem('validation_error', `body.url: ${reason}`, {
    errors: [{ location: 'body.url', message: reason, value: url }],
    resolve: {
      action: 'allow_outbound_destination',
      message:
        `Webhooks are delivered to public addresses only. ${local}To deliver to a private network on ` +
        'purpose, the operator lists it (CIDRs) in EARSHOT_OUTBOUND_ALLOWLIST and restarts the service.',
    },
  });
}

/**
 * Webhook connections of a project (the signing secret is shown on create and rotate only) and
 * test sends of an alert to its webhooks. Destinations pass the outbound guard
 * (`checkDestination`); connections and test sends are the alerting module's.
 */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ alerting: AlertApiServices }> = async (
  app,
  { alerting },
) => {
  const { delivery } = alerting;
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
      const destination = await checkDestination(delivery.guard, request.body.url);
      if (!destination.ok) {
        if (destination.range) throw notPublic(destination.reason, destination.range, request.body.url);
        throw invalidParameter('body.url', destination.reason, request.body.url);
      }
      const { url } = destination;
      const { connection, secret } = await webhooks.create({
        projectId: principal.project.id,
        url,
        name: request.body.name,
      });
      return reply.code(201).send(webhookConnectionView(connection, secret));
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
        (c) => webhookConnectionView(c),
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
      return webhookConnectionView(connection);
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
      const stored = storedDestination(current.url);
      if (!stored.ok) {
        throw invalidParameter(
          'path.id',
          `has a stored URL that is refused (${stored.reason}); delete this connection and create a new one`,
          request.params.id,
        );
      }
      const rotated = await webhooks.rotate(principal.project.id, request.params.id, stored.url);
      if (!rotated) throw notFound(request.params.id);
      return webhookConnectionView(rotated.connection, rotated.secret);
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
        response: withProblems({ 200: Type.Object({ deliveries: Type.Array(TestDeliverySchema) }) }),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const sent = await sendTestWebhooks(delivery, request.params.id, principal.project.id);
      if (sent.status === 'no_alert') {
        throw problem('not_found', `No alert ${request.params.id} in this project.`, {
          errors: [{ location: 'path.id', message: 'no such alert', value: request.params.id }],
        });
      }
      if (sent.status === 'no_connection') {
        throw problem('unprocessable_entity', `Alert ${sent.alertId} has no active webhook connection.`, {
          errors: [{ location: 'path.id', message: 'has no active webhook connection', value: sent.alertId }],
          resolve: {
            message:
              'Create a webhook connection, add a WEBHOOK channel with its id to the alert notifications, then retry.',
            action: 'add_webhook_channel',
            endpoint: `/v1/alerts/${sent.alertId}`,
            method: 'PATCH',
          },
        });
      }
      return { deliveries: sent.deliveries };
    },
  );
};
