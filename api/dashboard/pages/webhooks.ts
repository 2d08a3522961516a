import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { type Fragment, html } from '../../html.ts';
import type { DashboardContext, ProjectAccess } from '../context.ts';
import { formOf, nameProblem, queryOf } from '../forms.ts';
import {
  action,
  errorSummary,
  type FieldErrors,
  field,
  form,
  notice,
  page,
  projectTabs,
  shownOnce,
  table,
  when,
} from '../layout.ts';
import { notFound, Redirect } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;

/**
 * Webhook connections of a project: create (the signing secret shown once), rotate the secret
 * (the new one shown once; the old one signs nothing from then on), delete (alerts naming it skip
 * it), and a test send. The same connections the API manages; the URL passes the same outbound
 * guard (https, a public address).
 */
export function webhookPages(app: FastifyInstance, ctx: DashboardContext): void {
  const { webhooks } = ctx.delivery;

  const webhooksPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    opts: {
      secret?: { label: string; value: string };
      errors?: FieldErrors;
      values?: Record<string, string>;
      status?: number;
      banner?: Fragment;
    } = {},
  ) => {
    const { project } = access;
    const view = ctx.view(request);
    const connections = await webhooks.list(project.id, undefined, 100);
    const done = queryOf(request, 'done');
    const errors = opts.errors ?? {};
    const base = paths.webhooks(project.id);
    return ctx.send(
      reply,
      page(view, {
        title: 'Webhooks',
        wide: true,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'Webhooks' },
        ],
        tabs: projectTabs(view, project.id, 'Webhooks'),
        body: html`${opts.secret ? shownOnce(opts.secret.label, opts.secret.value, 'webhook-secret') : ''}${opts.banner ?? ''}${
          done === 'deleted' ? notice('The connection was deleted; alerts naming it skip it.', 'success') : ''
        }
<p>Alerts with a webhook channel POST each match to a connection's URL, signed with its secret: <code>X-Webhook-Signature: v1,&lt;base64 HMAC-SHA256 of "{X-Webhook-ID}.{X-Webhook-Timestamp}.{raw body}"&gt;</code> (the Standard Webhooks scheme). Verify it over the raw bytes before trusting a delivery.</p>
${table({
  caption: 'Connections of this project',
  head: ['Name', 'URL', 'Secret starts with', 'Created', 'Secret rotated', ''],
  rows: connections.map((c) => {
    const id = encodeURIComponent(c.id);
    return [
      html`${c.name}<br><code>${c.id}</code>`,
      html`<code>${c.url}</code>`,
      html`<code>${c.secret_prefix}…</code>`,
      when(c.created_at),
      when(c.secret_rotated_at, 'never'),
      html`<div class="actions">${action(view, `${base}/${id}/test`, 'Send a test', { context: `to ${c.name}` })}${action(
        view,
        `${base}/${id}/rotate`,
        'Rotate secret',
        {
          context: `of ${c.name}`,
          confirm: `Rotate the secret of ${c.name}? The current secret stops working at once.`,
        },
      )}${action(view, `${base}/${id}/delete`, 'Delete', {
        danger: true,
        context: c.name,
        confirm: `Delete ${c.name}? Alerts naming it skip it.`,
      })}</div>`,
    ];
  }),
  empty: 'No webhook connections yet.',
})}
<h2>Add a connection</h2>
${errorSummary(errors, { url: 'Endpoint URL', name: 'Name' })}
${form(
  view,
  base,
  html`${field({ name: 'url', label: 'Endpoint URL', type: 'url', required: true, maxlength: 2048, value: opts.values?.url, error: errors.url, hint: 'https, on a public address.', placeholder: 'https://example.com/earshot-webhooks', inputmode: 'url' })}
${field({ name: 'name', label: 'Name', maxlength: 200, value: opts.values?.name, error: errors.name, hint: 'Optional; the host name when empty.' })}
<div class="actions"><button type="submit">Add connection</button></div>`,
  { label: 'Add a webhook connection' },
)}`,
      }),
      opts.status ?? (opts.secret ? 201 : Object.keys(errors).length > 0 ? 422 : 200),
    );
  };

  app.get<{ Params: { projectId: string } }>('/projects/:projectId/webhooks', HIDE, async (request, reply) =>
    webhooksPage(request, reply, await ctx.memberProject(request, request.params.projectId)),
  );

  app.post<{ Params: { projectId: string } }>(
    '/projects/:projectId/webhooks',
    HIDE,
    async (request, reply) => {
      const access = await ctx.memberProject(request, request.params.projectId);
      const f = formOf(request);
      const values = { url: f.one('url'), name: f.one('name') };
      const errors: FieldErrors = {};
      if (values.name) {
        const bad = nameProblem(values.name, 'name', 200);
        if (bad) errors.name = bad;
      }
      let url: string | undefined;
      if (values.url.length === 0 || values.url.length > 2048)
        errors.url = 'enter the https URL of your endpoint';
      else {
        const checked = await ctx.destination(values.url);
        if (checked.ok) url = checked.url;
        else errors.url = checked.reason;
      }
      if (Object.keys(errors).length > 0 || !url)
        return webhooksPage(request, reply, access, { errors, values });
      const { connection, secret } = await webhooks.create({
        projectId: access.project.id,
        url,
        ...(values.name ? { name: values.name } : {}),
      });
      request.log.info(
        { user: request.visit.user!.id, connection: connection.id },
        'webhook connection created',
      );
      return webhooksPage(request, reply, access, {
        secret: { label: `The signing secret of ${connection.name}.`, value: secret },
      });
    },
  );

  app.post<{ Params: { projectId: string; id: string } }>(
    '/projects/:projectId/webhooks/:id/rotate',
    HIDE,
    async (request, reply) => {
      const access = await ctx.memberProject(request, request.params.projectId);
      const current = await webhooks.get(access.project.id, request.params.id);
      if (!current) throw notFound();
      const rotated = await webhooks.rotate(access.project.id, current.id);
      if (!rotated) throw notFound();
      request.log.info({ user: request.visit.user!.id, connection: current.id }, 'webhook secret rotated');
      return webhooksPage(request, reply, access, {
        secret: {
          label: `The new signing secret of ${current.name}; the old one no longer signs anything.`,
          value: rotated.secret,
        },
        status: 200,
      });
    },
  );

  app.post<{ Params: { projectId: string; id: string } }>(
    '/projects/:projectId/webhooks/:id/delete',
    HIDE,
    async (request) => {
      const access = await ctx.memberProject(request, request.params.projectId);
      if (!(await webhooks.delete(access.project.id, request.params.id))) throw notFound();
      throw new Redirect(`${ctx.base}${paths.webhooks(access.project.id)}?done=deleted`);
    },
  );

  app.post<{ Params: { projectId: string; id: string } }>(
    '/projects/:projectId/webhooks/:id/test',
    HIDE,
    async (request, reply) => {
      const access = await ctx.memberProject(request, request.params.projectId);
      const connection = await webhooks.get(access.project.id, request.params.id);
      if (!connection) throw notFound();
      const result = await ctx.testWebhook(access.project.id, connection.id);
      const banner = result.delivered
        ? notice(
            html`The test reached <code>${connection.url}</code>: it answered ${result.status_code} in ${result.duration_ms} ms.`,
            'success',
          )
        : notice(
            html`The test did not reach <code>${connection.url}</code>: ${result.status_code ? `it answered ${result.status_code}` : (result.error ?? 'no answer')} (${result.duration_ms} ms).`,
            'warning',
          );
      return webhooksPage(request, reply, access, { banner });
    },
  );
}
