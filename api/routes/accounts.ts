import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import {
  type AlertApiServices,
  NotificationEmailSchema,
  notificationEmailView,
} from '../../processors/alerts/index.ts';
import type { Accounts, Project } from '../../projections/state/accounts.ts';
import { sqlState, UNIQUE_VIOLATION } from '../../projections/state/state-store.ts';
import { dashboardLink, dashboardPaths } from '../dashboard-paths.ts';
import { requireOwnOrganization } from '../ownership.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { principalOf } from '../plugins/authentication.ts';
import { problem } from '../problem.ts';
import { Timestamp, withProblems } from '../schemas.ts';

const ProjectSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  plan: Type.String({ description: 'starter, growth, team, business or enterprise' }),
  created_at: Timestamp,
});

const projectView = (p: Project) => ({
  id: p.id,
  organization_id: p.organization_id,
  name: p.name,
  slug: p.slug,
  plan: p.plan_code,
  created_at: p.created_at.toISOString(),
});

const KEY_MANAGEMENT_REFUSAL =
  'API keys cannot be created, rolled or revoked with an API key. A signed-in human does this in the dashboard.';

export const accountRoutes: FastifyPluginAsyncTypebox<{
  accounts: Accounts;
  /** The organizations' notification emails (alerting's service). */
  notificationEmails: AlertApiServices['notificationEmails'];
  dashboardUrl: string;
  /** Sends the verification mail of a newly added address (never throws). */
  onNotificationEmailCreated?: (row: { id: string; email: string }) => Promise<void>;
}> = async (app, { accounts, notificationEmails, dashboardUrl, onNotificationEmailCreated }) => {
  app.get(
    '/v1/organizations/:orgId/projects',
    {
      schema: {
        tags: ['accounts'],
        summary: "List the projects of the API key's organization",
        params: Type.Object({ orgId: Type.String({ maxLength: 200 }) }),
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(ProjectSchema) }),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      requireOwnOrganization(request.params.orgId, principal.project.organization_id);
      const endpoint = 'organization-projects';
      const limit = request.query.limit ?? 25;
      const after = app.cursors.decode(endpoint, request.query.cursor, Position.id());
      const rows = await accounts.projectsOf(principal.project.organization_id, after, limit + 1);
      return app.cursors.page(endpoint, rows, limit, projectView, (p) => p.id);
    },
  );

  app.post(
    '/v1/organizations/:orgId/notification-emails',
    {
      schema: {
        tags: ['notification emails'],
        summary: 'Add an address alerts may mail once it is verified',
        params: Type.Object({ orgId: Type.String({ maxLength: 200 }) }),
        body: Type.Object({ email: Type.String({ format: 'email', maxLength: 320 }) }),
        response: withProblems({ 201: NotificationEmailSchema }),
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      requireOwnOrganization(request.params.orgId, principal.project.organization_id);
      try {
        const row = await notificationEmails.add(principal.project.organization_id, request.body.email);
        await onNotificationEmailCreated?.(row);
        return reply.code(201).send(notificationEmailView(row));
      } catch (err) {
        if (sqlState(err) === UNIQUE_VIOLATION) {
          throw problem(
            'notification_email_exists',
            `${request.body.email} is already a notification email of this organization.`,
            {
              errors: [{ location: 'body.email', message: 'already exists', value: request.body.email }],
            },
          );
        }
        throw err;
      }
    },
  );

  app.get(
    '/v1/organizations/:orgId/notification-emails',
    {
      schema: {
        tags: ['notification emails'],
        summary: "List the organization's notification emails",
        params: Type.Object({ orgId: Type.String({ maxLength: 200 }) }),
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(NotificationEmailSchema) }),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      requireOwnOrganization(request.params.orgId, principal.project.organization_id);
      const endpoint = 'notification-emails';
      const limit = request.query.limit ?? 25;
      const after = app.cursors.decode(endpoint, request.query.cursor, Position.id());
      const rows = await notificationEmails.list(principal.project.organization_id, after, limit + 1);
      return app.cursors.page(endpoint, rows, limit, notificationEmailView, (r) => r.id);
    },
  );

  const refuse = (param: 'projectId' | 'keyId') => ({
    schema: {
      tags: ['accounts'],
      summary: 'Always refused: keys are managed in the dashboard',
      description: `${KEY_MANAGEMENT_REFUSAL} The project's keys page: ${dashboardLink(dashboardUrl, dashboardPaths.keys('{projectId}'))}.`,
      params: Type.Object({ [param]: Type.String({ maxLength: 200 }) }),
      response: withProblems({}),
    },
  });
  const refusal = async (request: FastifyRequest) => {
    throw problem('credential_management_forbidden', KEY_MANAGEMENT_REFUSAL, {
      resolve: {
        message: 'Mint and revoke API keys in the dashboard, signed in.',
        action: 'use_dashboard',
        url: dashboardLink(dashboardUrl, dashboardPaths.keys(principalOf(request).project.id)),
      },
    });
  };
  app.post('/v1/projects/:projectId/api-keys', refuse('projectId'), refusal);
  app.post('/v1/api-keys/:keyId/roll', refuse('keyId'), refusal);
  app.delete('/v1/api-keys/:keyId', refuse('keyId'), refusal);
};
