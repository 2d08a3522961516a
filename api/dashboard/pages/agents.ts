import type { FastifyInstance } from 'fastify';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { html } from '../../html.ts';
import type { AuthorizationRequest } from '../../oauth/agent-auth.ts';
import type { DashboardContext } from '../context.ts';
import { formOf, queryOf } from '../forms.ts';
import { action, form, notice, page, plural, projectTabs, select, table, when } from '../layout.ts';
import { notFound, PageError, Redirect } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;

/** Where the consent form may send the browser on: the dashboard, and the client's redirect URI. */
function formAction(redirectUri: string): string {
  const url = new URL(redirectUri);
  const target = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self' ${target}; frame-ancestors 'none'; base-uri 'none'`;
}

const expired = () =>
  new PageError(
    400,
    'This authorization request has expired',
    'Go back to the application that sent you here and connect again.',
  );

/**
 * Agents: the consent page of OAuth's authorization step (a signed-in person approves an agent
 * client for one of their projects, or declines), and a project's agents page (the grants people
 * approved, revocable; tool calls per tool and day; how to connect).
 */
export function agentPages(app: FastifyInstance, ctx: DashboardContext): void {
  const auth = ctx.agentAuth;

  const readRequest = (token: string | undefined): AuthorizationRequest => {
    const request = auth.readRequest(token);
    if (!request) throw expired();
    return request;
  };

  app.get('/oauth/consent', HIDE, async (request, reply) => {
    const user = ctx.visits.requireUser(request);
    const token = queryOf(request, 'request');
    const authz = readRequest(token);
    const orgs = await ctx.memberships.organizationsOf(user.id);
    const options: { value: string; label: string }[] = [];
    for (const org of orgs)
      for (const p of await ctx.accounts.projectsOf(org.id))
        options.push({ value: p.id, label: `${org.name} / ${p.name}` });
    const view = ctx.view(request);
    const redirect = new URL(authz.redirect_uri);
    reply.header('content-security-policy', formAction(authz.redirect_uri));
    return ctx.send(
      reply,
      page(view, {
        title: `Connect ${authz.client_name}`,
        crumbs: [{ label: 'Overview', path: paths.home() }, { label: 'Connect an agent' }],
        body: html`<p><strong>${authz.client_name}</strong> asks to use Earshot's agent tools on your behalf: read the
catalog, transcripts, mentions and charts, and read and manage the alerts of the project you choose.</p>
<dl class="facts">
<dt>Client</dt><dd><code>${authz.client_id}</code></dd>
<dt>Sends you back to</dt><dd><code>${redirect.origin === 'null' ? redirect.protocol : redirect.origin}</code></dd>
<dt>Tool server</dt><dd><code>${authz.resource}</code></dd>
</dl>
<p>It gets a token for 15 minutes at a time, renewed for up to 30 days of use. Its calls count against the project's rate limit.
You can revoke it at any time on the project's <strong>Agents</strong> page.</p>
${
  options.length === 0
    ? notice('You have no project yet: create one first.', 'warning')
    : form(
        view,
        paths.oauthConsent(),
        html`<input type="hidden" name="request" value="${token ?? ''}">
${select({ name: 'project', label: 'Project', options })}
<div class="actions"><button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>`,
        { label: 'Approve or deny' },
      )
}`,
      }),
    );
  });

  app.post('/oauth/consent', HIDE, async (request) => {
    const user = ctx.visits.requireUser(request);
    const f = formOf(request);
    const authz = readRequest(f.one('request'));
    if (f.one('decision') !== 'approve') {
      request.log.info({ user: user.id, client: authz.client_id }, 'agent authorization denied');
      throw new Redirect(auth.deny(authz));
    }
    const { project } = await ctx.memberProject(request, f.one('project') ?? '');
    const location = await auth.approve(authz, user.id, project.id);
    request.log.info({ user: user.id, client: authz.client_id, project: project.id }, 'agent authorized');
    throw new Redirect(location);
  });

  app.get<{ Params: { projectId: string } }>('/projects/:projectId/agents', HIDE, async (request, reply) => {
    const { project } = await ctx.memberProject(request, request.params.projectId);
    const view = ctx.view(request);
    const [grants, usage] = await Promise.all([
      auth.grants.ofProject(project.id),
      ctx.toolUsage.ofProject(project.id),
    ]);
    const perTool = new Map<string, { calls: number; errors: number }>();
    for (const u of usage) {
      const t = perTool.get(u.tool) ?? { calls: 0, errors: 0 };
      t.calls += u.calls;
      t.errors += u.errors;
      perTool.set(u.tool, t);
    }
    const done = queryOf(request, 'done');
    return ctx.send(
      reply,
      page(view, {
        title: 'Agents',
        wide: true,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'Agents' },
        ],
        tabs: projectTabs(view, project.id, 'Agents'),
        body: html`${done === 'revoked' ? notice('The grant was revoked: its refresh token no longer works and its access token expires within 15 minutes.', 'success') : ''}
<p>AI agents use Earshot's data as tools through the agent-tool server (Model Context Protocol) at <code>${auth.settings.resource}</code>.
An agent that supports OAuth asks you to approve it here; others take an API key of this project
(<code>Authorization: Bearer</code> or <code>X-API-Key</code>).</p>
<h2>Approved agents</h2>
${table({
  caption: 'Agents approved for this project',
  hideCaption: true,
  head: ['Agent', 'Approved', 'Last used', 'Status', ''],
  rows: grants.map((g) => [
    html`${g.client_name} <code>${g.client_id}</code>`,
    when(g.created_at),
    when(g.last_used_at),
    g.revoked_at
      ? html`<span class="badge bad">revoked ${when(g.revoked_at)}</span>${g.revoked_reason ? ` (${g.revoked_reason})` : ''}`
      : html`<span class="badge ok">active</span>`,
    g.revoked_at
      ? ''
      : action(view, `${paths.agents(project.id)}/${encodeURIComponent(g.id)}/revoke`, 'Revoke', {
          confirm: `Revoke ${g.client_name}?`,
          danger: true,
          context: g.client_name,
        }),
  ]),
  empty: 'No agent has been approved for this project.',
})}
<h2>Tool calls, last 30 days</h2>
${table({
  caption: 'Tool calls per tool, last 30 days',
  hideCaption: true,
  head: ['Tool', 'Calls', 'Errors'],
  rows: [...perTool].map(([tool, t]) => [
    html`<code>${tool}</code>`,
    html`<span class="num">${t.calls.toLocaleString('en-US')}</span>`,
    html`<span class="num">${t.errors.toLocaleString('en-US')}</span>`,
  ]),
  empty: 'No tool calls yet.',
})}
<p>${plural(
          usage.reduce((a, u) => a + u.calls, 0),
          'call',
        )} in all.</p>`,
      }),
    );
  });

  app.post<{ Params: { projectId: string; grantId: string } }>(
    '/projects/:projectId/agents/:grantId/revoke',
    HIDE,
    async (request) => {
      const access = await ctx.memberProject(request, request.params.projectId);
      const grant =
        request.params.grantId.length <= 200 ? await auth.grants.grant(request.params.grantId) : undefined;
      if (!grant || grant.project_id !== access.project.id) throw notFound();
      await auth.grants.revokeGrant(grant.id, 'revoked in the dashboard');
      request.log.info({ user: request.visit.user!.id, grant: grant.id }, 'agent grant revoked');
      throw new Redirect(`${ctx.base}${paths.agents(access.project.id)}?done=revoked`);
    },
  );
}
