import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  type AlertApiServices,
  ChatChannelSchema,
  ChatConnectionSchema,
  chatConnectionView,
  TOKEN_REJECTED_ERRORS,
} from '../../processors/alerts/index.ts';
import { dashboardLink, dashboardPaths } from '../dashboard-paths.ts';
import { requireOwnProject } from '../ownership.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';

const ConnectionParams = Type.Object({
  projectId: Type.String({ maxLength: 200 }),
  id: Type.String({ maxLength: 200 }),
});

/**
 * Team-chat connections. The path segment keeps the platform's product name as the interface
 * gives it. Connecting a workspace is an install done from the dashboard (operators:
 * `earshot chat connect`); the API lists, browses channels and deletes.
 */
export const chatRoutes: FastifyPluginAsyncTypebox<{
  alerting: AlertApiServices;
  dashboardUrl: string;
}> = async (app, { alerting, dashboardUrl }) => {
  const { delivery } = alerting;
  const base = '/v1/projects/:projectId/slack/connections';
  const notFound = (id: string) =>
    problem('not_found', `No team-chat connection ${id} in this project.`, {
      errors: [{ location: 'path.id', message: 'no such connection', value: id }],
    });

  app.get(
    base,
    {
      schema: {
        tags: ['team chat'],
        summary: 'List connected team-chat workspaces',
        description: `A workspace is connected by installing the app from the project's team chat page in the dashboard (${dashboardLink(dashboardUrl, dashboardPaths.chat('{projectId}'))}).`,
        params: Type.Object({ projectId: Type.String({ maxLength: 200 }) }),
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(ChatConnectionSchema) }),
      },
    },
    async (request) => {
      const principal = requireOwnProject(request, request.params.projectId);
      const endpoint = 'chat-connections';
      const limit = request.query.limit ?? 25;
      const after = app.cursors.decode(endpoint, request.query.cursor, Position.id());
      const rows = await delivery.chat.list(principal.project.id, after, limit + 1);
      return app.cursors.page(endpoint, rows, limit, chatConnectionView, (c) => c.id);
    },
  );

  app.get(
    `${base}/:id/channels`,
    {
      schema: {
        tags: ['team chat'],
        summary: 'Channels a connection can post to (read from the chat platform)',
        params: ConnectionParams,
        querystring: Type.Object(pageQuery({ fallback: 100 })),
        response: withProblems({ 200: ListEnvelope(ChatChannelSchema) }),
      },
    },
    async (request) => {
      const principal = requireOwnProject(request, request.params.projectId);
      const connection = await delivery.chat.get(principal.project.id, request.params.id);
      if (!connection) throw notFound(request.params.id);
      const endpoint = `chat-channels:${connection.id}`;
      // The chat platform's own cursor, passed back to it as it gave it.
      const cursor = app.cursors.decode(
        endpoint,
        request.query.cursor,
        Type.String({ minLength: 1, maxLength: 1000 }),
      );
      const res = await delivery.chatApi.channels(connection.token, {
        cursor,
        limit: request.query.limit ?? 100,
      });
      if (!res.ok || !res.data) {
        if (TOKEN_REJECTED_ERRORS.has(res.error ?? '')) {
          throw problem(
            'unprocessable_entity',
            `The chat platform no longer accepts this connection's token (${res.error}).`,
            {
              resolve: {
                message:
                  'Reinstall the app for this workspace from the dashboard, then use the new connection.',
                action: 'reconnect_chat_workspace',
                url: dashboardLink(dashboardUrl, dashboardPaths.chat(principal.project.id)),
              },
            },
          );
        }
        throw problem(
          'service_unavailable',
          `The chat platform could not list channels: ${res.error ?? 'no answer'}.`,
          {
            headers: res.retryAfterMs
              ? { 'retry-after': String(Math.ceil(res.retryAfterMs / 1000)) }
              : undefined,
          },
        );
      }
      const next = res.data.next_cursor;
      return {
        data: res.data.channels,
        has_more: Boolean(next),
        ...(next ? { cursor: app.cursors.encode(endpoint, next) } : {}),
      };
    },
  );

  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags: ['team chat'],
        summary: 'Delete a team-chat connection (soft); alerts posting through it skip it',
        params: ConnectionParams,
        response: withProblems({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      const principal = requireOwnProject(request, request.params.projectId);
      if (!(await delivery.chat.delete(principal.project.id, request.params.id)))
        throw notFound(request.params.id);
      return reply.code(204).send(null);
    },
  );
};
