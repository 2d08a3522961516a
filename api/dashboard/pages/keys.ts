import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../../../projections/state/accounts.ts';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { type Fragment, html } from '../../html.ts';
import type { DashboardContext, ProjectAccess } from '../context.ts';
import { formOf, nameProblem, queryOf } from '../forms.ts';
import {
  action,
  errorSummary,
  field,
  form,
  notice,
  page,
  plural,
  projectTabs,
  select,
  shownOnce,
  table,
  when,
} from '../layout.ts';
import { notFound, Redirect } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;
const DAY_MS = 86_400_000;
const LIFETIMES = [
  { value: 'never', label: 'Never expires', ms: undefined },
  { value: '30d', label: '30 days', ms: 30 * DAY_MS },
  { value: '90d', label: '90 days', ms: 90 * DAY_MS },
  { value: '365d', label: '1 year', ms: 365 * DAY_MS },
] as const;
export const USAGE_DAYS = 30;

function keyStatus(k: ApiKeyRecord, now = Date.now()): Fragment {
  if (k.revoked_at) return html`<span class="badge bad">revoked ${when(k.revoked_at)}</span>`;
  if (k.expires_at && new Date(k.expires_at).getTime() <= now)
    return html`<span class="badge bad">expired</span>`;
  return html`<span class="badge ok">active</span>`;
}

/**
 * API keys (mint — the full key shown once, with a copy button —, list, revoke: the API refuses
 * a revoked key from the next request on) and usage: requests per key and day for 30 days, as
 * the API counted them, with each key's rate-limit state.
 */
export function keyPages(app: FastifyInstance, ctx: DashboardContext): void {
  const keysPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    access: ProjectAccess,
    opts: { minted?: { key: string; record: ApiKeyRecord }; error?: string; name?: string } = {},
  ) => {
    const { project } = access;
    const view = ctx.view(request);
    const keys = await ctx.accounts.apiKeys(project.id);
    const done = queryOf(request, 'done');
    const rows = keys.map((k) => [
      k.name,
      html`<code>${k.display_prefix}…</code>`,
      when(k.created_at),
      when(k.last_used_at, 'never'),
      when(k.expires_at, 'never'),
      keyStatus(k),
      k.revoked_at
        ? ''
        : action(view, `${paths.keys(project.id)}/${encodeURIComponent(k.id)}/revoke`, 'Revoke', {
            context: `key ${k.name}`,
            danger: true,
            confirm: `Revoke the key "${k.name}" (${k.display_prefix}…)? Requests with it are refused from then on.`,
          }),
    ]);
    return ctx.send(
      reply,
      page(view, {
        title: 'API keys',
        wide: true,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'API keys' },
        ],
        tabs: projectTabs(view, project.id, 'API keys'),
        body: html`${opts.minted ? shownOnce(`Your new key "${opts.minted.record.name}".`, opts.minted.key, 'new-key') : ''}${
          done === 'revoked' ? notice('The key was revoked: the API refuses it from now on.', 'success') : ''
        }
<p>A key belongs to this project only. Send it in the <code>X-API-Key</code> header. Keys cannot be shown again after they are minted: mint a new one and revoke the old one instead.</p>
${table({ caption: 'Keys of this project', head: ['Name', 'Starts with', 'Created', 'Last used', 'Expires', 'Status', ''], rows, empty: 'No keys yet.' })}
<h2>Mint a key</h2>
${errorSummary(opts.error ? { name: opts.error } : {}, { name: 'Key name' })}
${form(
  view,
  paths.keys(project.id),
  html`${field({ name: 'name', label: 'Key name', value: opts.name, required: true, maxlength: 100, error: opts.error, hint: 'What uses it, e.g. "newsroom backend".' })}
${select({ name: 'expires', label: 'Expires', options: LIFETIMES.map((l) => ({ value: l.value, label: l.label })), value: 'never' })}
<div class="actions"><button type="submit">Mint key</button></div>`,
  { label: 'Mint a key' },
)}`,
      }),
      opts.minted ? 201 : opts.error ? 422 : 200,
    );
  };

  app.get<{ Params: { projectId: string } }>('/projects/:projectId/keys', HIDE, async (request, reply) =>
    keysPage(request, reply, await ctx.memberProject(request, request.params.projectId)),
  );

  app.post<{ Params: { projectId: string } }>('/projects/:projectId/keys', HIDE, async (request, reply) => {
    const access = await ctx.memberProject(request, request.params.projectId);
    const f = formOf(request);
    const name = f.one('name');
    const bad = nameProblem(name, 'name for the key');
    if (bad) return keysPage(request, reply, access, { error: bad, name });
    const lifetime = LIFETIMES.find((l) => l.value === f.one('expires')) ?? LIFETIMES[0];
    const minted = await ctx.accounts.createApiKey({
      projectId: access.project.id,
      name,
      ...(lifetime.ms ? { expiresAt: new Date(Date.now() + lifetime.ms) } : {}),
    });
    request.log.info({ user: request.visit.user!.id, key: minted.record.id }, 'API key minted');
    return keysPage(request, reply, access, { minted });
  });

  app.post<{ Params: { projectId: string; keyId: string } }>(
    '/projects/:projectId/keys/:keyId/revoke',
    HIDE,
    async (request) => {
      const access = await ctx.memberProject(request, request.params.projectId);
      const key = (await ctx.accounts.apiKeys(access.project.id)).find((k) => k.id === request.params.keyId);
      if (!key) throw notFound();
      await ctx.accounts.revokeApiKey(key.id);
      request.log.info({ user: request.visit.user!.id, key: key.id }, 'API key revoked');
      throw new Redirect(`${ctx.base}${paths.keys(access.project.id)}?done=revoked`);
    },
  );

  app.get<{ Params: { projectId: string } }>('/projects/:projectId/usage', HIDE, async (request, reply) => {
    const { project, plan } = await ctx.memberProject(request, request.params.projectId);
    const view = ctx.view(request);
    // What this process counted so far is added first, so the page is up to date.
    await ctx.usageCounter.flush();
    const [keys, usage] = await Promise.all([
      ctx.accounts.apiKeys(project.id),
      ctx.usage.ofProject(project.id, USAGE_DAYS),
    ]);
    const now = Date.now();
    const limit = ctx.requestsPerMinute(plan);
    const days = Array.from({ length: USAGE_DAYS }, (_, i) =>
      new Date(now - (USAGE_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10),
    ).reverse();
    const byDayKey = new Map(usage.map((u) => [`${u.day} ${u.key_id}`, u]));
    const used = keys.filter(
      (k) =>
        usage.some((u) => u.key_id === k.id) ||
        (!k.revoked_at && !(k.expires_at && new Date(k.expires_at).getTime() <= now)),
    );
    const totals = days.map((d) =>
      used.reduce((sum, k) => sum + (byDayKey.get(`${d} ${k.id}`)?.requests ?? 0), 0),
    );
    const peak = Math.max(1, ...totals);
    const today = days[0]!;
    const limitRows = used
      .filter((k) => !k.revoked_at)
      .map((k) => [
        html`${k.name} <code>${k.display_prefix}…</code>`,
        html`<span class="num">${ctx.usageCounter.thisMinute(k.id, now).toLocaleString('en-US')}</span>`,
        html`<span class="num">${limit.toLocaleString('en-US')}</span>`,
        html`<span class="num">${(byDayKey.get(`${today} ${k.id}`)?.rate_limited ?? 0).toLocaleString('en-US')}</span>`,
      ]);
    return ctx.send(
      reply,
      page(view, {
        title: 'Usage',
        wide: true,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'Usage' },
        ],
        tabs: projectTabs(view, project.id, 'Usage'),
        body: html`<h2>Rate limits</h2>
<p>Each key may make ${limit.toLocaleString('en-US')} requests per minute${limit === plan.requests_per_minute ? ` on the ${plan.name} plan` : ' (set for every key on this deployment)'}; past that the API answers <code>429</code> with <code>Retry-After</code>. Requests this minute are those this API process served.</p>
${table({ caption: 'Rate-limit state per key', hideCaption: true, head: ['Key', 'Requests this minute', 'Limit per minute', 'Refused (429) today'], rows: limitRows, empty: 'No active keys.' })}
<h2>Requests per day</h2>
<p>The last ${USAGE_DAYS} days (UTC), every authenticated request counted, refused ones included: ${plural(
          totals.reduce((a, b) => a + b, 0),
          'request',
        )}.</p>
${table({
  caption: `Requests per key and day, last ${USAGE_DAYS} days`,
  hideCaption: true,
  head: ['Day', ...used.map((k) => html`${k.name} <code>${k.display_prefix}…</code>`), 'All keys'],
  rows: days.map((d, i) => [
    html`<time datetime="${d}">${d}</time>`,
    ...used.map((k) => {
      const u = byDayKey.get(`${d} ${k.id}`);
      return u
        ? html`<span class="num">${u.requests.toLocaleString('en-US')}</span>${u.rate_limited ? html` <span class="badge bad">${u.rate_limited} × 429</span>` : ''}`
        : html`<span class="num">0</span>`;
    }),
    html`<meter min="0" max="${peak}" value="${totals[i]!}" aria-hidden="true"></meter> <span class="num">${totals[i]!.toLocaleString('en-US')}</span>`,
  ]),
})}`,
      }),
    );
  });
}
