import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sqlState, UNIQUE_VIOLATION } from '../../../projections/state/state-store.ts';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { type Fragment, html } from '../../html.ts';
import type { DashboardContext } from '../context.ts';
import { emailProblem, formOf, queryOf } from '../forms.ts';
import {
  action,
  errorSummary,
  type FieldErrors,
  field,
  form,
  href,
  notice,
  page,
  table,
  when,
} from '../layout.ts';
import { notFound, Redirect } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;

const DONE: Record<string, string> = {
  added:
    'The address was added; a confirmation link is on its way to it. Alerts can mail it once it is confirmed.',
  resent: 'A new confirmation link is on its way; the previous one no longer works.',
  removed: 'The address was removed.',
};

/**
 * An organization's notification emails: the addresses its alerts may mail, once each is
 * confirmed through the link mailed to it (the API's verification link). Add, send the link
 * again, remove — refused while an alert lists the address (the API's 409
 * `notification_email_in_use`), with the alerts to edit first. The same service as the API's
 * `/v1/organizations/{orgId}/notification-emails`.
 */
export function notificationEmailPages(app: FastifyInstance, ctx: DashboardContext): void {
  const { notificationEmails, alerts } = ctx.alerting;

  async function memberOrg(request: FastifyRequest, orgId: string) {
    const user = ctx.visits.requireUser(request);
    const org = await ctx.memberships.organizationOf(user.id, orgId);
    if (!org) throw notFound();
    return org;
  }

  const emailsPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    orgId: string,
    opts: { errors?: FieldErrors; email?: string; banner?: Fragment; status?: number } = {},
  ) => {
    const org = await memberOrg(request, orgId);
    const view = ctx.view(request);
    const rows = await notificationEmails.list(org.id, undefined, 200);
    const done = DONE[queryOf(request, 'done') ?? ''];
    const base = paths.notificationEmails(org.id);
    return ctx.send(
      reply,
      page(view, {
        title: 'Notification emails',
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: org.name, path: paths.organization(org.id) },
          { label: 'Notification emails' },
        ],
        body: html`${done ? notice(done, 'success') : ''}${opts.banner ?? ''}
<p>Alerts of every project of ${org.name} can mail these addresses, once each is confirmed by the link mailed to it.${
          notificationEmails.canMail
            ? ''
            : html` <strong>Email is not configured on this deployment (<code>SMTP_URL</code>), so no link can be mailed.</strong>`
        }</p>
${table({
  caption: 'Addresses',
  hideCaption: true,
  head: ['Address', 'Confirmed', 'Added', ''],
  rows: rows.map((r) => [
    r.email,
    r.verified_at ? when(r.verified_at) : html`<span class="badge off">not yet</span>`,
    when(r.created_at),
    html`<div class="actions">${r.verified_at || !notificationEmails.canMail ? '' : action(view, `${base}/${encodeURIComponent(r.id)}/resend`, 'Send the link again', { context: `to ${r.email}` })}${action(
      view,
      `${base}/${encodeURIComponent(r.id)}/remove`,
      'Remove',
      { danger: true, confirm: `Remove ${r.email}?`, context: r.email },
    )}</div>`,
  ]),
  empty: 'No addresses yet.',
})}
<h2>Add an address</h2>
${errorSummary(opts.errors ?? {}, { email: 'Email address' })}
${form(
  view,
  base,
  html`${field({ name: 'email', label: 'Email address', type: 'email', required: true, maxlength: 254, value: opts.email, error: opts.errors?.email })}
<div class="actions"><button type="submit">Add address</button></div>`,
  { label: 'Add a notification email' },
)}`,
      }),
      opts.status ?? (opts.errors && Object.keys(opts.errors).length > 0 ? 422 : 200),
    );
  };

  app.get<{ Params: { orgId: string } }>('/orgs/:orgId/notification-emails', HIDE, async (request, reply) =>
    emailsPage(request, reply, request.params.orgId),
  );

  app.post<{ Params: { orgId: string } }>(
    '/orgs/:orgId/notification-emails',
    HIDE,
    async (request, reply) => {
      const org = await memberOrg(request, request.params.orgId);
      const email = formOf(request).one('email');
      const bad = emailProblem(email);
      if (bad) return emailsPage(request, reply, org.id, { errors: { email: bad }, email });
      try {
        const row = await notificationEmails.add(org.id, email);
        await notificationEmails.verificationSender(request.log)(row);
      } catch (err) {
        if (sqlState(err) !== UNIQUE_VIOLATION) throw err;
        return emailsPage(request, reply, org.id, {
          errors: { email: 'is already a notification email of this organization' },
          email,
          status: 409,
        });
      }
      throw new Redirect(`${ctx.base}${paths.notificationEmails(org.id)}?done=added`);
    },
  );

  app.post<{ Params: { orgId: string; id: string } }>(
    '/orgs/:orgId/notification-emails/:id/resend',
    HIDE,
    async (request) => {
      const org = await memberOrg(request, request.params.orgId);
      const row = await notificationEmails.get(request.params.id, org.id);
      if (!row) throw notFound();
      if (!row.verified_at) await notificationEmails.resendVerification(row);
      throw new Redirect(`${ctx.base}${paths.notificationEmails(org.id)}?done=resent`);
    },
  );

  app.post<{ Params: { orgId: string; id: string } }>(
    '/orgs/:orgId/notification-emails/:id/remove',
    HIDE,
    async (request, reply) => {
      const org = await memberOrg(request, request.params.orgId);
      const row = await notificationEmails.get(request.params.id, org.id);
      if (!row) throw notFound();
      const using = await alerts.usingNotificationEmail(org.id, row.email);
      if (using.length > 0) {
        const view = ctx.view(request);
        return emailsPage(request, reply, org.id, {
          status: 409,
          banner: notice(
            html`<strong>${row.email} is still a notification channel of ${using.length === 1 ? 'an alert' : `${using.length} alerts`}</strong>, so it cannot be removed yet (an alert must keep the channels it names). Remove the address from the notifications of ${using.length === 1 ? 'this alert' : 'these alerts'} first, then remove it here:<ul>${using
              .slice(0, 50)
              .map(
                (a) => html`<li><a href="${href(view, paths.editAlert(a.id))}">${a.title}</a></li>`,
              )}</ul>`,
            'warning',
          ),
        });
      }
      await notificationEmails.softDelete(row.id);
      throw new Redirect(`${ctx.base}${paths.notificationEmails(org.id)}?done=removed`);
    },
  );
}
