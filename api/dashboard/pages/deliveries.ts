import type { FastifyInstance } from 'fastify';
import { dashboardPaths as paths } from '../../dashboard-paths.ts';
import { html } from '../../html.ts';
import { Position } from '../../pagination.ts';
import { TYPE_LABELS } from '../alert-form.ts';
import type { DashboardContext } from '../context.ts';
import { queryOf } from '../forms.ts';
import { href, page, projectTabs, table, when } from '../layout.ts';
import { notFound } from '../visit.ts';

const HIDE = { schema: { hide: true } } as const;
const PAGE = 25;

const seconds = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

/**
 * The delivery page every notification links to (webhook envelope `url`, the "details" link of
 * mails and chat messages): what was sent, on which channels with what outcome, and its matches
 * with their episodes and the lines that matched. The same reads as `GET /v1/alerts/deliveries/{id}`;
 * a member of the delivery's project sees it, anyone else 404 (sign-in first). Also the entity
 * search the alert form's picker asks as one types (JSON, same session).
 */
export function deliveryPages(app: FastifyInstance, ctx: DashboardContext): void {
  const { reads, alerts } = ctx.alerting;

  app.get<{ Params: { id: string } }>('/deliveries/:id', HIDE, async (request, reply) => {
    ctx.visits.requireUser(request);
    const found = request.params.id.length <= 200 ? await reads.delivery(request.params.id) : undefined;
    if (!found) throw notFound();
    const { project } = await ctx.memberProject(request, found.projectId);
    const view = ctx.view(request);
    const endpoint = `dashboard-delivery:${found.delivery.id}`;
    const from = app.cursors.decode(endpoint, queryOf(request, 'page'), Position.offset()) ?? 0;
    const ids = found.matchIds.slice(from, from + PAGE);
    const [matches, history] = await Promise.all([
      reads.matches(ids),
      alerts.history(found.delivery.alert_id),
    ]);
    const names = await ctx.catalog.entitiesByIds([...new Set(matches.map((m) => m.entity_id))]);
    const live = history ? await alerts.get(history.id) : undefined;
    const d = found.delivery;
    const next = from + PAGE < found.matchIds.length ? app.cursors.encode(endpoint, from + PAGE) : undefined;
    return ctx.send(
      reply,
      page(view, {
        title: `Delivery of ${live?.title ?? 'a deleted alert'}`,
        wide: true,
        crumbs: [
          { label: 'Overview', path: paths.home() },
          { label: project.name, path: paths.project(project.id) },
          { label: 'Alerts', path: paths.alerts(project.id) },
          ...(live ? [{ label: live.title, path: paths.alert(live.id) }] : []),
          { label: 'Delivery' },
        ],
        tabs: projectTabs(view, project.id, 'Alerts'),
        body: html`<dl class="facts">
<dt>Status</dt><dd>${d.status.toLowerCase().replace('_', ' ')}</dd>
<dt>Requested</dt><dd>${when(d.created_at)}</dd>
<dt>Kind</dt><dd>${d.cadence === 'REALTIME' ? 'one match' : `${d.cadence.toLowerCase()} digest${d.window_start ? html`, ${when(d.window_start)} to ${when(d.window_end)}` : ''}`}</dd>
<dt>Matches</dt><dd>${d.match_count}</dd>
<dt>Delivery id</dt><dd><code>${d.id}</code> (API: <code>GET /v1/alerts/deliveries/${d.id}</code>)</dd>
</dl>
${table({
  caption: 'Channels',
  head: ['Channel', 'Status', 'Attempts', 'Answer', 'Last attempt'],
  rows: d.channels.map((c) => [
    c.type === 'EMAIL'
      ? `email ${c.email}`
      : c.type === 'WEBHOOK'
        ? `webhook ${c.webhook_connection_id}`
        : `team chat ${c.chat_channel_id}`,
    c.status.toLowerCase(),
    String(c.attempts),
    c.status_code ? String(c.status_code) : (c.error ?? '—'),
    when(c.last_attempt_at),
  ]),
})}
<h2>Matches</h2>
${matches.map(
  (m) => html`<section class="card">
<h3>${m.episode ? html`${m.episode.podcast_title}: ${m.episode.title}` : m.source_id}</h3>
<p>${names.get(m.entity_id)?.name ?? m.entity_id} (${TYPE_LABELS[m.entity_type] ?? m.entity_type}), ${m.mention_count} line(s), ${
    m.relevance === 'on_target' ? 'on target' : 'incidental'
  }${m.episode ? html`, published ${when(m.episode.published_at)}` : ''}${m.episode?.podcast_popularity_badge ? ` · ${m.episode.podcast_popularity_badge}` : ''}.</p>
${m.windows.map(
  (w) =>
    html`<figure><figcaption>${seconds(w.start_seconds)}–${seconds(w.end_seconds)}${
      w.clip_url ? html` · <a href="${w.clip_url}">listen</a>` : ''
    }</figcaption><ul>${w.lines.map(
      (l) =>
        html`<li>${l.is_mention ? html`<strong>${l.speaker}: ${l.text}</strong>` : html`${l.speaker}: ${l.text}`}</li>`,
    )}</ul></figure>`,
)}
</section>`,
)}
${next ? html`<p><a href="${href(view, paths.delivery(d.id))}?page=${encodeURIComponent(next)}">More matches</a></p>` : ''}`,
      }),
    );
  });

  // The picker's suggestions: people, companies and topics by name, as entity search ranks them.
  app.get('/entity-search', HIDE, async (request, reply) => {
    ctx.visits.requireUser(request);
    const q = queryOf(request, 'q') ?? '';
    const found =
      ctx.entitySearch && q.trim().length >= 2 && q.length <= 200 ? await ctx.entitySearch(q) : [];
    return reply.type('application/json; charset=utf-8').send({
      data: found.map((e) => ({ ...e, kind_label: TYPE_LABELS[e.entity_type] ?? e.entity_type })),
    });
  });
}
