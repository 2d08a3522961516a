import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Plan } from '../../../projections/state/accounts.ts';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { html } from '../../html.ts';
import type { DashboardContext, ProjectAccess } from '../context.ts';
import { formOf, nameProblem, queryOf } from '../forms.ts';
import { errorSummary, field, form, href, notice, page, projectTabs, table, when } from '../layout.ts';
import { Redirect } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;

/** The active alerts a project may have: included in its plan plus its Alerts Packs. */
export function alertAllowance(plan: Plan, alertsPacks: number): number {
  return plan.active_alerts_included + alertsPacks * plan.alerts_per_pack;
}

/**
 * A project's overview (its facts, a rename form, how to call the API) and its plan page (the
 * plans, the project's add-ons and how to upgrade: an operator changes plans, there is no
 * checkout here).
 */
export function projectPages(app: FastifyInstance, ctx: DashboardContext): void {
  const overview = async (
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    opts: { error?: string; name?: string } = {},
  ) => {
    const { project, plan } = access;
    const view = ctx.view(request);
    const org = await ctx.memberships.organizationOf(request.visit.user!.id, project.organization_id);
    const done = queryOf(request, 'done');
    return ctx.send(
      reply,
      page(view, {
        title: project.name,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: org?.name ?? project.organization_id, path: paths.organization(project.organization_id) },
          { label: project.name },
        ],
        tabs: projectTabs(view, project.id, 'Overview'),
        body: html`${done === 'created' ? notice('The project was created. Mint an API key to start calling the API.', 'success') : ''}${
          done === 'renamed' ? notice('The project was renamed.', 'success') : ''
        }
<dl class="facts">
<dt>Project id</dt><dd><code>${project.id}</code></dd>
<dt>Slug</dt><dd><code>${project.slug}</code></dd>
<dt>Plan</dt><dd>${plan.name}${project.alerts_packs > 0 ? ` with ${project.alerts_packs} Alerts Pack(s)` : ''} · <a href="${href(view, paths.plan(project.id))}">plan and add-ons</a></dd>
<dt>Created</dt><dd>${when(project.created_at)}</dd>
</dl>
<h2>Call the API</h2>
<p><a href="${href(view, paths.keys(project.id))}">Mint an API key</a>, then send it in the <code>X-API-Key</code> header:</p>
<pre><code>curl -H "X-API-Key: $EARSHOT_API_KEY" "${ctx.publicUrl}/v1/podcasts?limit=5"</code></pre>
<p>How keys, errors and limits work: <a href="${ctx.publicUrl}/auth.md">authentication guide</a> · <a href="${ctx.publicUrl}/docs">API reference</a>.</p>
<h2>Rename the project</h2>
${errorSummary(opts.error ? { name: opts.error } : {}, { name: 'Project name' })}
${form(
  view,
  `${paths.project(project.id)}/rename`,
  html`${field({ name: 'name', label: 'Project name', value: opts.name ?? project.name, required: true, maxlength: 100, error: opts.error, hint: 'The slug and id stay as they are.' })}
<div class="actions"><button type="submit">Rename</button></div>`,
)}`,
      }),
      opts.error ? 422 : 200,
    );
  };

  app.get<{ Params: { projectId: string } }>('/projects/:projectId', HIDE, async (request, reply) =>
    overview(request, reply, await ctx.memberProject(request, request.params.projectId)),
  );

  app.post<{ Params: { projectId: string } }>('/projects/:projectId/rename', HIDE, async (request, reply) => {
    const access = await ctx.memberProject(request, request.params.projectId);
    const name = formOf(request).one('name');
    const bad = nameProblem(name, 'project name');
    if (bad) return overview(request, reply, access, { error: bad, name });
    await ctx.accounts.renameProject(access.project.id, name);
    throw new Redirect(`${ctx.base}${paths.project(access.project.id)}?done=renamed`);
  });

  app.get<{ Params: { projectId: string } }>('/projects/:projectId/plan', HIDE, async (request, reply) => {
    const { project, plan } = await ctx.memberProject(request, request.params.projectId);
    const view = ctx.view(request);
    const plans = await ctx.accounts.plans();
    const allowance = alertAllowance(plan, project.alerts_packs);
    return ctx.send(
      reply,
      page(view, {
        title: `Plan of ${project.name}`,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'Plan' },
        ],
        tabs: projectTabs(view, project.id, 'Plan'),
        body: html`<p>This project is on the <strong>${plan.name}</strong> plan: ${plan.requests_per_minute.toLocaleString('en-US')} requests per minute per key, ${
          plan.includes_alerts ? `alerts (up to ${allowance} active)` : 'no alerts'
        }, ${plan.premium_endpoints ? 'premium endpoints' : 'no premium endpoints'}.</p>
${table({
  caption: 'Plans',
  head: [
    'Plan',
    'Requests per minute',
    'Alerts',
    'Active alerts included',
    'Per Alerts Pack',
    'Premium endpoints',
  ],
  rows: plans.map((p) => [
    p.code === plan.code ? html`<strong>${p.name}</strong> (this project)` : p.name,
    p.requests_per_minute.toLocaleString('en-US'),
    p.includes_alerts ? 'yes' : 'no',
    String(p.active_alerts_included),
    p.alerts_per_pack ? String(p.alerts_per_pack) : '–',
    p.premium_endpoints ? 'yes' : 'no',
  ]),
})}
<h2 id="add-ons">Add-ons</h2>
<p>${project.alerts_packs === 0 ? 'No Alerts Pack.' : `${project.alerts_packs} Alerts Pack(s), ${project.alerts_packs * plan.alerts_per_pack} more active alerts.`} ${
          plan.includes_alerts
            ? `An Alerts Pack adds ${plan.alerts_per_pack} active alerts on the ${plan.name} plan.`
            : 'Alerts Packs need a plan with alerts (Team, Business or Enterprise).'
        }</p>
<h2 id="upgrade">How to upgrade</h2>
<p>Plans and add-ons are changed by the Earshot operators; there is no online checkout. Write to your Earshot contact with the project id <code>${project.id}</code> and the plan you want. Operators run:</p>
<pre><code>npx earshot projects set-plan --project ${project.id} --plan team --alerts-packs 1</code></pre>
<p>The new limits apply to the project's keys within a few seconds.</p>`,
      }),
    );
  });
}
