import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { type AlertApiServices, SIGNED_TOKEN_PATTERN } from '../../processors/alerts/index.ts';
import type { Accounts } from '../../projections/state/accounts.ts';
import { problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';

const DisableView = Type.Object({
  alert: Type.Object({ id: Type.String(), title: Type.String(), is_active: Type.Boolean() }),
  email: Type.String({ description: 'the recipient the link was mailed to' }),
  disable: Type.Object(
    { method: Type.String(), url: Type.String() },
    { description: 'how to disable the alert with this token' },
  ),
});

/** A signed token as TokenSigner writes it: base64url payload, a dot, base64url HMAC-SHA256. */
const TokenSchema = Type.String({
  maxLength: 1000,
  pattern: SIGNED_TOKEN_PATTERN,
  description: 'the token of the email footer link; one this service did not sign is a 401',
});

const Responses = withProblems({
  200: DisableView,
  401: Type.Ref('Problem', {
    description: '`invalid_link_token`: the token is not one this service signed (or is missing)',
  }),
});

/**
 * The email-footer disable link: public, authorised by a signed token carrying the alert id and
 * the recipient (`GET` describes, `POST` disables). `POST` takes the token in a JSON body or in
 * the query string, and accepts the one-click form post mail clients send for
 * `List-Unsubscribe-Post` (RFC 8058).
 */
export const alertDisableRoutes: FastifyPluginAsyncTypebox<{
  alerting: AlertApiServices;
  accounts: Accounts;
}> = async (app, { alerting, accounts }) => {
  const { alerts, delivery } = alerting;
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  async function resolve(token: string, location: string) {
    const payload = delivery.disableTokens.verify<{ a?: unknown; e?: unknown }>(token);
    if (!payload || typeof payload.a !== 'string' || typeof payload.e !== 'string') {
      throw problem('invalid_link_token', 'This is not a disable link of this service.', {
        errors: [{ location, message: 'is not a valid disable token', value: token }],
      });
    }
    const alert = await alerts.get(payload.a);
    if (!alert) throw problem('not_found', 'The alert of this link no longer exists.');
    return { alert, email: payload.e };
  }

  const view = (alert: { id: string; title: string; is_active: boolean }, email: string) => ({
    alert: { id: alert.id, title: alert.title, is_active: alert.is_active },
    email,
    disable: { method: 'POST', url: `${delivery.settings.publicUrl}/v1/alerts/disable` },
  });

  app.get(
    '/v1/alerts/disable',
    {
      config: { public: true },
      schema: {
        tags: ['alerts'],
        summary: 'Check an email-footer disable token and describe the alert it disables',
        querystring: Type.Object({ token: TokenSchema }),
        response: Responses,
      },
    },
    async (request) => {
      const { alert, email } = await resolve(request.query.token, 'query.token');
      return view(alert, email);
    },
  );

  app.post(
    '/v1/alerts/disable',
    {
      config: { public: true },
      schema: {
        tags: ['alerts'],
        summary: 'Disable (pause) the alert of an email-footer token',
        description:
          'Send the token as `{"token": …}` or as the `token` query parameter. Disabling twice is harmless.',
        querystring: Type.Object({ token: Type.Optional(TokenSchema) }),
        body: Type.Optional(
          Type.Object({ token: Type.Optional(TokenSchema) }, { additionalProperties: true }),
        ),
        response: Responses,
      },
    },
    async (request) => {
      const fromBody = (request.body as { token?: string } | undefined)?.token;
      const token = fromBody ?? request.query.token;
      if (!token) {
        throw problem('invalid_link_token', 'Send the token of the disable link.', {
          errors: [{ location: 'body.token', message: 'is required (or pass it as ?token=)' }],
        });
      }
      const { alert, email } = await resolve(token, fromBody ? 'body.token' : 'query.token');
      if (!alert.is_active) return view(alert, email);
      const project = await accounts.project(alert.project_id);
      if (!project) throw problem('not_found', 'The alert of this link no longer exists.');
      const plan = await accounts.plan(project.plan_code);
      const updated = await alerts.pause(alert.id, { plan, project });
      if (!updated) throw problem('not_found', 'The alert of this link no longer exists.');
      request.log.info({ alert: alert.id }, 'alert disabled from an email link');
      return view(updated, email);
    },
  );
};
