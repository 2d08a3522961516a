import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  type AlertApiServices,
  NotificationEmailSchema,
  notificationEmailView,
} from '../../processors/alerts/index.ts';
import { principalOf } from '../plugins/authentication.ts';
import { problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';

/**
 * Notification emails beyond create and list (api/routes/accounts.ts): verification by the
 * mailed token (public: the link is opened from a mailbox), sending the mail again, and
 * deletion, which is refused while any alert of the organization lists the address.
 */
export const notificationEmailRoutes: FastifyPluginAsyncTypebox<{ alerting: AlertApiServices }> = async (
  app,
  { alerting },
) => {
  const { alerts, notificationEmails } = alerting;
  const invalidToken = (location: string, token: string) =>
    problem('invalid_link_token', 'The verification token is unknown, already used or expired.', {
      errors: [{ location, message: 'is unknown, used or expired', value: token }],
      resolve: {
        message: 'Ask for a new verification mail, then follow its link.',
        action: 'resend_verification',
        endpoint: '/v1/notification-emails/{id}/resend-verification',
        method: 'POST',
      },
    });

  const TokenSchema = Type.String({
    maxLength: 36,
    pattern: '^nev_[A-Za-z0-9_-]{32}$',
    description: 'the token of the mailed link; an unknown, used or expired one is a 401',
  });
  const Responses = withProblems({
    200: NotificationEmailSchema,
    401: Type.Ref('Problem', {
      description: '`invalid_link_token`: the token is unknown, already used or expired',
    }),
  });

  app.get(
    '/v1/notification-emails/verify',
    {
      config: { public: true },
      schema: {
        tags: ['notification emails'],
        summary: 'Verify a notification email (the link in the verification mail)',
        querystring: Type.Object({ token: TokenSchema }),
        response: Responses,
      },
    },
    async (request) => {
      const row = await notificationEmails.verify(request.query.token);
      if (!row) throw invalidToken('query.token', request.query.token);
      return notificationEmailView(row);
    },
  );

  app.post(
    '/v1/notification-emails/verify',
    {
      config: { public: true },
      schema: {
        tags: ['notification emails'],
        summary: 'Verify a notification email with the mailed token',
        body: Type.Object({ token: TokenSchema }),
        response: Responses,
      },
    },
    async (request) => {
      const row = await notificationEmails.verify(request.body.token);
      if (!row) throw invalidToken('body.token', request.body.token);
      return notificationEmailView(row);
    },
  );

  async function ownAddress(id: string, organizationId: string) {
    const row = await notificationEmails.get(id, organizationId);
    if (!row) {
      throw problem('not_found', `No notification email ${id} in this organization.`, {
        errors: [{ location: 'path.id', message: 'no such notification email', value: id }],
      });
    }
    return row;
  }

  app.post(
    '/v1/notification-emails/:id/resend-verification',
    {
      schema: {
        tags: ['notification emails'],
        summary: 'Send the verification mail again (the previous link stops working)',
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: withProblems({ 202: Type.Object({ id: Type.String(), email: Type.String() }) }),
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const row = await ownAddress(request.params.id, principal.project.organization_id);
      if (row.verified_at) throw problem('conflict', `${row.email} is already verified.`);
      if (!notificationEmails.canMail) {
        throw problem(
          'service_unavailable',
          'Email is not configured on this deployment (SMTP_URL is unset).',
        );
      }
      await notificationEmails.resendVerification(row);
      return reply.code(202).send({ id: row.id, email: row.email });
    },
  );

  app.delete(
    '/v1/notification-emails/:id',
    {
      schema: {
        tags: ['notification emails'],
        summary: 'Delete a notification email (refused while an alert lists it)',
        params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
        response: withProblems({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const orgId = principal.project.organization_id;
      const row = await ownAddress(request.params.id, orgId);
      const using = await alerts.usingNotificationEmail(orgId, row.email);
      if (using.length > 0) {
        const first = using[0]!;
        throw problem(
          'notification_email_in_use',
          `${row.email} is a notification channel of ${using.length} alert${using.length === 1 ? '' : 's'} ` +
            `(${using
              .slice(0, 10)
              .map((a) => a.id)
              .join(', ')}${using.length > 10 ? ', …' : ''}).`,
          {
            errors: using.slice(0, 100).map((a) => ({
              location: 'path.id',
              message: `listed in the notifications of alert ${a.id} ("${a.title}")`,
              value: a.id,
            })),
            resolve: {
              message: `Remove ${row.email} from the notifications of every alert that lists it, then delete it again.`,
              action: 'edit_monitor_notifications',
              endpoint: `/v1/alerts/${first.id}`,
              method: 'PATCH',
            },
          },
        );
      }
      await notificationEmails.softDelete(row.id);
      return reply.code(204).send(null);
    },
  );
};
