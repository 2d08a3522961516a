import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Alert, AlertRuleError, sendTestWebhooks } from '../../../processors/alerts/index.ts';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { type Fragment, html } from '../../html.ts';
import { Position } from '../../pagination.ts';
import {
  type AlertFormValues,
  alertForm,
  CADENCES,
  type ChannelOptions,
  type EntityChoice,
  emptyValues,
  errorsOfViolations,
  inputOf,
  KINDS,
  TYPE_LABELS,
  valuesFromAlert,
  valuesFromForm,
} from '../alert-form.ts';
import type { DashboardContext, ProjectAccess } from '../context.ts';
import { formOf, queryOf } from '../forms.ts';
import { action, type FieldErrors, href, notice, page, projectTabs, table, when } from '../layout.ts';
import { notFound, Redirect } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;
const PAGE = 25;
const TIME_POSITION = Type.Object({ d: Position.instant(), i: Position.id() });

const DONE: Record<string, string> = {
  created:
    'The alert was created. Matches over the previous 7 days are being looked for now (they are history and send nothing).',
  saved: 'The alert was saved.',
  paused: 'The alert is paused: it matches nothing new and does not count against the plan.',
  resumed: 'The alert is active again.',
};

/**
 * Alerts of a project: the list, the form (new and edit) with its entity picker, pause, resume,
 * delete and a test send to its webhooks; an alert's page with its matches and deliveries, newest
 * first. All of it through alerting's services — AlertManagement decides what an alert may hold
 * and what the plan allows, exactly as for the API — with the project's own principal.
 */
export function alertPages(app: FastifyInstance, ctx: DashboardContext): void {
  const { alerts, reads, notificationEmails } = ctx.alerting;

  /** A live alert the signed-in person reaches through its project, or 404. */
  async function memberAlert(
    request: FastifyRequest,
    id: string,
  ): Promise<{ alert: Alert; access: ProjectAccess }> {
    const alert = id.length <= 200 ? await alerts.get(id) : undefined;
    if (!alert) {
      ctx.visits.requireUser(request);
      throw notFound();
    }
    return { alert, access: await ctx.memberProject(request, alert.project_id) };
  }

  async function channelOptions(access: ProjectAccess): Promise<ChannelOptions> {
    const { project } = access;
    const [hooks, emails, chats] = await Promise.all([
      ctx.delivery.webhooks.list(project.id, undefined, 100),
      notificationEmails.list(project.organization_id, undefined, 100),
      ctx.delivery.chat.list(project.id, undefined, 100),
    ]);
    const chatOptions = (
      await Promise.all(
        chats.map(async (c) => {
          const usable = await ctx.delivery.chat.get(project.id, c.id);
          const res = usable ? await ctx.delivery.chatApi.channels(usable.token, { limit: 100 }) : undefined;
          return (res?.ok ? res.data!.channels : []).map((ch) => ({
            value: `${c.id}/${ch.id}`,
            label: `${c.team_name ?? c.name} #${ch.name}${ch.is_member ? '' : ' (add the app to it first)'}`,
          }));
        }),
      )
    ).flat();
    return {
      webhooks: hooks.map((h) => ({ id: h.id, name: h.name, url: h.url })),
      emails: emails.filter((e) => e.verified_at !== null).map((e) => e.email),
      chats: chatOptions,
      manage: {
        webhooks: paths.webhooks(project.id),
        emails: paths.notificationEmails(project.organization_id),
        chat: paths.chat(project.id),
      },
    };
  }

  async function entityChoices(values: string[]): Promise<EntityChoice[]> {
    const ids = values.map((v) => v.slice(v.indexOf(':') + 1));
    const rows = await ctx.catalog.entitiesByIds(ids);
    return values.map((v) => {
      const id = v.slice(v.indexOf(':') + 1);
      return { value: v, name: rows.get(id)?.name ?? id, type: v.slice(0, v.indexOf(':')) };
    });
  }

  async function candidatesFor(q: string): Promise<EntityChoice[]> {
    if (!ctx.entitySearch || q.trim().length === 0 || q.length > 200) return [];
    return (await ctx.entitySearch(q)).map((e) => ({
      value: `${e.entity_type}:${e.id}`,
      name: e.name,
      type: e.entity_type,
    }));
  }

  const formPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    opts: { alert?: Alert; values: AlertFormValues; errors?: FieldErrors; search?: boolean },
  ) => {
    const { project, plan } = access;
    const view = ctx.view(request);
    const [options, chosen, candidates] = await Promise.all([
      channelOptions(access),
      entityChoices(opts.values.entities),
      opts.search ? candidatesFor(opts.values.q) : Promise.resolve([]),
    ]);
    const errors = opts.errors ?? {};
    const title = opts.alert ? `Edit ${opts.alert.title}` : 'New alert';
    const planNote: Fragment = plan.includes_alerts
      ? ''
      : notice(
          html`The ${plan.name} plan does not include alerts. <a href="${href(view, paths.plan(project.id))}">See how to upgrade</a>.`,
          'warning',
        );
    return ctx.send(
      reply,
      page(view, {
        title,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'Alerts', path: paths.alerts(project.id) },
          { label: opts.alert ? opts.alert.title : 'New alert' },
        ],
        tabs: projectTabs(view, project.id, 'Alerts'),
        body: html`${planNote}${alertForm(view, {
          action: opts.alert ? paths.editAlert(opts.alert.id) : paths.newAlert(project.id),
          mode: opts.alert ? 'edit' : 'create',
          values: opts.values,
          errors,
          options,
          chosen,
          candidates,
          ...(ctx.entitySearch ? { searchUrl: href(view, '/entity-search') } : {}),
        })}`,
      }),
      Object.keys(errors).length > 0 ? 422 : 200,
    );
  };

  /** The refusal of the alert rules as form errors (plan gates as a message with the plan page). */
  function ruleErrors(err: AlertRuleError, projectId: string): FieldErrors {
    if (err.code === 'plan_does_not_support_alerts' || err.code === 'add_on_required') {
      return { _form: `${err.message} See the project's plan page (${ctx.link(paths.plan(projectId))}).` };
    }
    return errorsOfViolations(err.violations, err.message);
  }

  // The list.
  app.get<{ Params: { projectId: string } }>('/projects/:projectId/alerts', HIDE, async (request, reply) => {
    const access = await ctx.memberProject(request, request.params.projectId);
    const { project, plan } = access;
    const view = ctx.view(request);
    const list = await alerts.list(project.id, undefined, 200);
    const names = await alerts.entityNames(list);
    const active = list.filter((a) => a.is_active).length;
    const allowance = plan.active_alerts_included + project.alerts_packs * plan.alerts_per_pack;
    const done = queryOf(request, 'done');
    return ctx.send(
      reply,
      page(view, {
        title: 'Alerts',
        wide: true,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'Alerts' },
        ],
        tabs: projectTabs(view, project.id, 'Alerts'),
        body: html`${done === 'deleted' ? notice('The alert was deleted; its matches and deliveries are kept.', 'success') : ''}
${
  plan.includes_alerts
    ? html`<p>${active} of ${allowance} active alerts on the ${plan.name} plan${project.alerts_packs ? ` with ${project.alerts_packs} Alerts Pack(s)` : ''}.</p>`
    : notice(
        html`The ${plan.name} plan does not include alerts. <a href="${href(view, paths.plan(project.id))}">See how to upgrade</a>.`,
        'warning',
      )
}
<p><a class="button" href="${href(view, paths.newAlert(project.id))}">New alert</a></p>
${table({
  caption: 'Alerts of this project',
  head: ['Alert', 'Watches', 'Watch for', 'How often', 'Status', ''],
  rows: list.map((a) => [
    html`<a href="${href(view, paths.alert(a.id))}">${a.title}</a>`,
    a.entities.map((e) => names.get(e.entity_id)?.name ?? e.entity_id).join(', '),
    KINDS.find((k) => k.value === a.kind)?.label ?? a.kind,
    CADENCES.find((c) => c.value === a.delivery_cadence)?.label ?? a.delivery_cadence,
    a.is_active ? html`<span class="badge ok">active</span>` : html`<span class="badge off">paused</span>`,
    html`<div class="actions">${action(view, `${paths.alert(a.id)}/${a.is_active ? 'pause' : 'resume'}`, a.is_active ? 'Pause' : 'Resume', { context: a.title })}</div>`,
  ]),
  empty: 'No alerts yet.',
})}`,
      }),
    );
  });

  // New.
  app.get<{ Params: { projectId: string } }>(
    '/projects/:projectId/alerts/new',
    HIDE,
    async (request, reply) => {
      const access = await ctx.memberProject(request, request.params.projectId);
      return formPage(request, reply, access, { values: emptyValues() });
    },
  );
  app.post<{ Params: { projectId: string } }>(
    '/projects/:projectId/alerts/new',
    HIDE,
    async (request, reply) => {
      const access = await ctx.memberProject(request, request.params.projectId);
      const f = formOf(request);
      const values = valuesFromForm(f);
      if (f.one('intent') === 'search') return formPage(request, reply, access, { values, search: true });
      const { input, errors } = inputOf(values);
      if (!input) return formPage(request, reply, access, { values, errors });
      try {
        const alert = await alerts.create(access.principal, { ...input, is_active: values.active });
        request.log.info({ user: request.visit.user!.id, alert: alert.id }, 'alert created');
        throw new Redirect(`${ctx.base}${paths.alert(alert.id)}?done=created`);
      } catch (err) {
        if (!(err instanceof AlertRuleError)) throw err;
        return formPage(request, reply, access, { values, errors: ruleErrors(err, access.project.id) });
      }
    },
  );

  // Edit.
  app.get<{ Params: { id: string } }>('/alerts/:id/edit', HIDE, async (request, reply) => {
    const { alert, access } = await memberAlert(request, request.params.id);
    return formPage(request, reply, access, { alert, values: valuesFromAlert(alert) });
  });
  app.post<{ Params: { id: string } }>('/alerts/:id/edit', HIDE, async (request, reply) => {
    const { alert, access } = await memberAlert(request, request.params.id);
    const f = formOf(request);
    const values = { ...valuesFromForm(f), kind: alert.kind, active: alert.is_active };
    if (f.one('intent') === 'search')
      return formPage(request, reply, access, { alert, values, search: true });
    const { input, errors } = inputOf(values);
    if (!input) return formPage(request, reply, access, { alert, values, errors });
    try {
      const { kind: _fixed, ...patch } = input;
      // The form holds every axis, so the filters it sends replace the alert's whole set.
      if (!(await alerts.update(access.principal, alert, patch))) throw notFound();
      throw new Redirect(`${ctx.base}${paths.alert(alert.id)}?done=saved`);
    } catch (err) {
      if (!(err instanceof AlertRuleError)) throw err;
      return formPage(request, reply, access, { alert, values, errors: ruleErrors(err, access.project.id) });
    }
  });

  // Pause, resume, delete, test.
  for (const [verb, active] of [
    ['pause', false],
    ['resume', true],
  ] as const) {
    app.post<{ Params: { id: string } }>(`/alerts/:id/${verb}`, HIDE, async (request, reply) => {
      const { alert, access } = await memberAlert(request, request.params.id);
      try {
        if (!(await alerts.update(access.principal, alert, { is_active: active }))) throw notFound();
      } catch (err) {
        if (!(err instanceof AlertRuleError)) throw err;
        return alertPage(
          request,
          reply,
          alert,
          access,
          notice(
            html`${err.message} <a href="${href(ctx.view(request), paths.plan(access.project.id))}">See the plan</a>.`,
            'warning',
          ),
          409,
        );
      }
      throw new Redirect(`${ctx.base}${paths.alert(alert.id)}?done=${active ? 'resumed' : 'paused'}`);
    });
  }
  app.post<{ Params: { id: string } }>('/alerts/:id/delete', HIDE, async (request) => {
    const { alert, access } = await memberAlert(request, request.params.id);
    await alerts.softDelete(alert.id);
    request.log.info({ user: request.visit.user!.id, alert: alert.id }, 'alert deleted');
    throw new Redirect(`${ctx.base}${paths.alerts(access.project.id)}?done=deleted`);
  });
  app.post<{ Params: { id: string } }>('/alerts/:id/test', HIDE, async (request, reply) => {
    const { alert, access } = await memberAlert(request, request.params.id);
    const sent = await sendTestWebhooks(ctx.delivery, alert.id, access.project.id);
    const banner =
      sent.status === 'sent'
        ? notice(
            html`Test sent: ${sent.deliveries.map(
              (d) =>
                html`<br><code>${d.url}</code> ${d.delivered ? `answered ${d.status_code}` : `failed (${d.status_code ?? d.error ?? 'no answer'})`} in ${d.duration_ms} ms`,
            )}`,
            sent.deliveries.every((d) => d.delivered) ? 'success' : 'warning',
          )
        : notice('This alert has no webhook connection to test; add one in its notifications.', 'warning');
    return alertPage(request, reply, alert, access, banner);
  });

  // An alert's page.
  const alertPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    alert: Alert,
    access: ProjectAccess,
    banner: Fragment = '',
    status = 200,
  ) => {
    const { project } = access;
    const view = ctx.view(request);
    const matchesAt = app.cursors.decode(
      `dashboard-matches:${alert.id}`,
      queryOf(request, 'matches'),
      TIME_POSITION,
    );
    const deliveriesAt = app.cursors.decode(
      `dashboard-deliveries:${alert.id}`,
      queryOf(request, 'deliveries'),
      TIME_POSITION,
    );
    const [names, matches, deliveries, hooks] = await Promise.all([
      alerts.entityNames([alert]),
      reads.matchesPage(alert, matchesAt, PAGE),
      reads.deliveriesPage(alert.id, deliveriesAt, PAGE),
      ctx.delivery.webhooks.list(project.id, undefined, 100),
    ]);
    const episodes = await ctx.catalog.episodesByIds([...new Set(matches.data.map((m) => m.source_id))]);
    const done = DONE[queryOf(request, 'done') ?? ''];
    const hookNames = new Map(hooks.map((h) => [h.id, h.name]));
    const channel = (c: Alert['notifications'][number]) =>
      c.type === 'EMAIL'
        ? `email ${c.email}`
        : c.type === 'WEBHOOK'
          ? `webhook ${hookNames.get(c.webhook_connection_id) ?? `${c.webhook_connection_id} (deleted)`}`
          : `team chat ${c.chat_channel_id}`;
    const f = alert.filters;
    const more = (param: string, next: string | undefined) =>
      next
        ? html`<p><a href="${href(view, paths.alert(alert.id))}?${param}=${encodeURIComponent(next)}">Older</a></p>`
        : '';
    return ctx.send(
      reply,
      page(view, {
        title: alert.title,
        wide: true,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'Alerts', path: paths.alerts(project.id) },
          { label: alert.title },
        ],
        tabs: projectTabs(view, project.id, 'Alerts'),
        body: html`${done ? notice(done, 'success') : ''}${banner}
<div class="actions"><a class="button secondary" href="${href(view, paths.editAlert(alert.id))}">Edit</a>
${action(view, `${paths.alert(alert.id)}/${alert.is_active ? 'pause' : 'resume'}`, alert.is_active ? 'Pause' : 'Resume')}
${action(view, `${paths.alert(alert.id)}/test`, 'Send a test to its webhooks')}
${action(view, `${paths.alert(alert.id)}/delete`, 'Delete', { danger: true, confirm: `Delete the alert "${alert.title}"? Its matches and deliveries are kept.` })}</div>
<dl class="facts">
<dt>Status</dt><dd>${alert.is_active ? html`<span class="badge ok">active</span>` : html`<span class="badge off">paused</span>`}</dd>
<dt>Watch for</dt><dd>${KINDS.find((k) => k.value === alert.kind)?.label ?? alert.kind}</dd>
<dt>Who or what</dt><dd>${alert.entities.map((e) => `${names.get(e.entity_id)?.name ?? e.entity_id} (${TYPE_LABELS[e.entity_type] ?? e.entity_type})`).join(', ')}</dd>
<dt>How often</dt><dd>${CADENCES.find((c) => c.value === alert.delivery_cadence)?.label ?? alert.delivery_cadence}</dd>
<dt>Notify</dt><dd>${alert.notifications.map(channel).join('; ')}</dd>
<dt>Filters</dt><dd>${f.languages?.length ? `languages ${f.languages.join(', ')}; ` : 'every language; '}${f.relevance === 'RELEVANT' ? 'on-target mentions only; ' : ''}${f.source_popularity === 'POPULAR' ? 'popular podcasts only; ' : ''}${f.speaker_roles ? `roles ${f.speaker_roles.join(', ').toLowerCase()}` : ''}</dd>
${alert.description ? html`<dt>Description</dt><dd>${alert.description}</dd>` : ''}
<dt>Alert id</dt><dd><code>${alert.id}</code></dd>
<dt>Created</dt><dd>${when(alert.created_at)}</dd>
</dl>
<h2 id="matches">Matches</h2>
${table({
  caption: 'Matches, newest first',
  hideCaption: true,
  head: ['Found', 'Episode', 'Who or what', 'Lines', 'Relevance', ''],
  rows: matches.data.map((m) => [
    when(m.detected_at),
    episodes.get(m.source_id)?.title ?? m.source_id,
    names.get(m.entity_id)?.name ?? m.entity_id,
    String(m.mention_count),
    m.relevance === 'on_target' ? 'on target' : 'incidental',
    m.is_backfilled ? html`<span class="badge off">history</span>` : '',
  ]),
  empty: 'No matches yet.',
})}
${more('matches', matches.next ? app.cursors.encode(`dashboard-matches:${alert.id}`, matches.next) : undefined)}
<h2 id="deliveries">Deliveries</h2>
${table({
  caption: 'Deliveries, newest first',
  hideCaption: true,
  head: ['Sent', 'Status', 'Matches', 'Channels'],
  rows: deliveries.data.map((d) => [
    html`<a href="${href(view, paths.delivery(d.id))}">${when(d.created_at)}</a>`,
    d.status.toLowerCase().replace('_', ' '),
    String(d.match_count),
    d.channels.map((c) => `${c.type.toLowerCase()} ${c.status.toLowerCase()}`).join(', '),
  ]),
  empty: 'Nothing delivered yet.',
})}
${more('deliveries', deliveries.next ? app.cursors.encode(`dashboard-deliveries:${alert.id}`, deliveries.next) : undefined)}`,
      }),
      status,
    );
  };

  app.get<{ Params: { id: string } }>('/alerts/:id', HIDE, async (request, reply) => {
    const { alert, access } = await memberAlert(request, request.params.id);
    return alertPage(request, reply, alert, access);
  });
}
