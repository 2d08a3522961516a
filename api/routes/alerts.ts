import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Alert, AlertEntityRef, AlertFilters, Channel } from '../../processors/alerts/model.ts';
import {
  AlertSchema,
  CreateAlertBody,
  DeliveryLandingSchema,
  DeliverySchema,
  MatchListItem,
  MatchSchema,
  MonitorSchema,
  PatchAlertBody,
  PreviewBody,
  PreviewSchema,
} from '../../processors/alerts/presentation/http-schemas.ts';
import { analyticsBiasReader, type PodcastBiasReader } from '../../processors/alerts/reads/bias.ts';
import { deliveriesPage, deliveryDocument } from '../../processors/alerts/reads/deliveries.ts';
import {
  type AlertReadServices,
  matchDocument,
  matchDocuments,
  matchesPage,
} from '../../processors/alerts/reads/matches.ts';
import {
  AlertPreviews,
  analyticsMatchCounter,
  type PreviewRow,
} from '../../processors/alerts/reads/preview.ts';
import {
  liveChatConnections,
  liveWebhookConnections,
  verifiedNotificationEmails,
} from '../../processors/alerts/rules/references.ts';
import { AlertsStore, AllowanceExceededError } from '../../processors/alerts/rules/store.ts';
import type { AnalyticsStore } from '../../projections/analytics/analytics-store.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { Principal } from '../../projections/state/accounts.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { type AlertKind, SPEAKER_ROLES } from '../../schemas/event-enums.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { principalOf } from '../plugins/authentication.ts';
import { bodyRule } from '../plugins/openapi-document.ts';
import { type FieldError, problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';

/**
 * Alerts: management (create, list, get, update, pause/resume, soft delete), previews, matches
 * and deliveries, and the legacy `monitors` paths. Rules of the spec enforced here:
 *
 * - alerts need a plan with alerts (403 `plan_does_not_support_alerts`); creating or resuming
 *   an active alert at the allowance (included + packs × per pack) is 403 `add_on_required`;
 *   paused and deleted alerts do not count;
 * - 1-100 entities (slug or id, resolved to ids; the declared type must be the entity's), 1-20
 *   channels, no duplicates; an EMAIL channel names a verified notification email of the
 *   organization, a WEBHOOK channel a live webhook connection of the project with the alert's
 *   surface, a CHAT channel a live chat connection of the project (`validation_error`);
 * - `kind` is fixed at creation; `filters.speaker_roles` is for PODCAST_SPEAKER alerts only
 *   (422 `unprocessable_entity`);
 * - PATCH replaces `entities`, `notifications` and `filters` wholesale; `filters: {}` clears
 *   every axis; an absent field is left as it is.
 *
 * An alert of another project answers 404, as does a deleted one (its matches and deliveries
 * stay readable by id: history is kept).
 */
/** What alert routes need beyond the state store and catalog (both from the analytics store). */
export interface AlertApiExtras {
  /** Absent when no analytics store is configured: previews answer 503. */
  previews?: AlertPreviews;
  podcastBias?: PodcastBiasReader;
}

/** Previews counted in, and podcast bias read from, the analytics store (none without one). */
export function alertApiExtras(state: StateStore, analytics: AnalyticsStore | undefined): AlertApiExtras {
  if (!analytics) return {};
  return {
    previews: new AlertPreviews(state, analyticsMatchCounter(analytics)),
    podcastBias: analyticsBiasReader(analytics),
  };
}

export interface AlertRouteServices extends AlertReadServices, AlertApiExtras {
  state: StateStore;
  catalog: CatalogReader;
}

type CreateBody = Static<typeof CreateAlertBody>;
type PatchBody = Static<typeof PatchAlertBody>;

const AlertParams = Type.Object({ id: Type.String({ maxLength: 200 }) });
const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 200 }) });

const LIST_POSITION = Type.Object({ c: Position.instant(), i: Position.id() });
const TIME_POSITION = Type.Object({ d: Position.instant(), i: Position.id() });
const INDEX_POSITION = Position.offset();

function ownProject(principal: Principal, ref: string): void {
  const p = principal.project;
  if (ref !== p.id && ref !== p.slug) {
    throw problem('forbidden', `This API key belongs to project ${p.id}, not ${ref}.`, {
      errors: [{ location: 'path.projectId', message: 'is not the project of this API key', value: ref }],
    });
  }
}

function requireAlertsPlan(principal: Principal, dashboardUrl: string): void {
  if (principal.plan.includes_alerts) return;
  throw problem(
    'plan_does_not_support_alerts',
    `The ${principal.plan.name} plan does not include alerts; alerts need a Team, Business or Enterprise plan.`,
    {
      resolve: {
        message: 'Upgrade the project to a Team, Business or Enterprise plan in the dashboard.',
        action: 'upgrade_plan',
        url: `${dashboardUrl}/projects/${principal.project.id}/billing`,
      },
    },
  );
}

function allowanceProblem(err: AllowanceExceededError, principal: Principal, dashboardUrl: string) {
  const { plan, project } = principal;
  return problem(
    'add_on_required',
    `This project has ${err.active} active alerts, all its ${plan.name} plan allows ` +
      `(${plan.active_alerts_included} included + ${project.alerts_packs} Alerts Pack(s) × ${plan.alerts_per_pack}).`,
    {
      resolve: {
        message: `Buy an Alerts Pack add-on (${plan.alerts_per_pack} more active alerts), or pause or delete an alert.`,
        action: 'buy_alerts_pack',
        url: `${dashboardUrl}/projects/${project.id}/billing/add-ons`,
      },
    },
  );
}

/** The rule of `speakerRolesRefusal`, stated in the OpenAPI document of create and preview. */
const SPEAKER_ROLES_RULE = bodyRule(
  'filters.speaker_roles is accepted only with kind PODCAST_SPEAKER (otherwise 422 unprocessable_entity)',
  { required: ['filters'], properties: { filters: { required: ['speaker_roles'] } } },
  { required: ['kind'], properties: { kind: { const: 'PODCAST_SPEAKER' } } },
);

function speakerRolesRefusal(path: string): never {
  throw problem('unprocessable_entity', 'filters.speaker_roles applies only to PODCAST_SPEAKER alerts.', {
    errors: [{ location: path, message: 'is only allowed when kind is PODCAST_SPEAKER' }],
  });
}

/** Filters as stored: the axes given, languages deduplicated. */
function normalizeFilters(filters: NonNullable<CreateBody['filters']>): AlertFilters {
  const out: AlertFilters = {};
  if (filters.languages !== undefined) out.languages = [...new Set(filters.languages)];
  if (filters.relevance !== undefined) out.relevance = filters.relevance;
  if (filters.source_popularity !== undefined) out.source_popularity = filters.source_popularity;
  if (filters.speaker_roles !== undefined) {
    const set = new Set(filters.speaker_roles);
    out.speaker_roles = SPEAKER_ROLES.filter((r) => set.has(r));
  }
  return out;
}

/** Resolves entity references (slug or id) to ids, checking existence, type and duplicates. */
async function resolveEntities(
  catalog: CatalogReader,
  input: { entity_type: AlertEntityRef['entity_type']; entity_id: string }[],
  errors: FieldError[],
): Promise<AlertEntityRef[]> {
  const rows = await catalog.entities(input.map((e) => e.entity_id));
  const byRef = new Map<string, (typeof rows)[number]>();
  for (const r of rows) {
    byRef.set(r.id, r);
    byRef.set(r.slug, r);
  }
  const seen = new Set<string>();
  const out: AlertEntityRef[] = [];
  input.forEach((e, i) => {
    const row = byRef.get(e.entity_id);
    const where = `body.entities[${i}]`;
    if (!row) {
      errors.push({
        location: `${where}.entity_id`,
        message: 'is not a known entity (slug or ID)',
        value: e.entity_id,
      });
      return;
    }
    if (row.kind !== e.entity_type) {
      errors.push({
        location: `${where}.entity_type`,
        message: `does not match the entity, which is a ${row.kind}`,
        value: e.entity_type,
      });
      return;
    }
    if (seen.has(row.id)) {
      errors.push({
        location: `${where}.entity_id`,
        message: 'is listed more than once',
        value: e.entity_id,
      });
      return;
    }
    seen.add(row.id);
    out.push({ entity_type: e.entity_type, entity_id: row.id });
  });
  return out;
}

type ChannelInput = CreateBody['notifications'][number];

/** Checks each channel's fields and references; returns channels with only their type's fields. */
async function resolveChannels(
  state: StateStore,
  principal: Principal,
  surface: string,
  input: ChannelInput[],
  errors: FieldError[],
): Promise<Channel[]> {
  const projectId = principal.project.id;
  const need = (c: ChannelInput, i: number, field: keyof ChannelInput) => {
    if (!c[field])
      errors.push({ location: `body.notifications[${i}].${field}`, message: `is required for ${c.type}` });
    return Boolean(c[field]);
  };
  const emails = input.filter((c) => c.type === 'EMAIL' && c.email).map((c) => c.email!.toLowerCase());
  const hooks = input
    .filter((c) => c.type === 'WEBHOOK' && c.webhook_connection_id)
    .map((c) => c.webhook_connection_id!);
  const chats = input
    .filter((c) => c.type === 'CHAT' && c.chat_connection_id)
    .map((c) => c.chat_connection_id!);
  const [verified, liveHooks, liveChats] = await Promise.all([
    verifiedNotificationEmails(state, principal.project.organization_id, emails),
    liveWebhookConnections(state, projectId, hooks),
    liveChatConnections(state, projectId, chats),
  ]);
  const out: Channel[] = [];
  const seen = new Set<string>();
  input.forEach((c, i) => {
    const where = `body.notifications[${i}]`;
    let channel: Channel | undefined;
    if (c.type === 'EMAIL') {
      if (!need(c, i, 'email')) return;
      const email = c.email!.toLowerCase();
      if (!verified.has(email)) {
        errors.push({
          location: `${where}.email`,
          message: 'is not a verified notification email of this organization',
          value: c.email,
        });
        return;
      }
      channel = { type: 'EMAIL', email };
    } else if (c.type === 'WEBHOOK') {
      if (!need(c, i, 'webhook_connection_id')) return;
      const hook = liveHooks.get(c.webhook_connection_id!);
      if (!hook || hook.surface !== surface) {
        errors.push({
          location: `${where}.webhook_connection_id`,
          message: hook
            ? `is a ${hook.surface} connection; this alert's surface is ${surface}`
            : 'is not a webhook connection of this project',
          value: c.webhook_connection_id,
        });
        return;
      }
      channel = { type: 'WEBHOOK', webhook_connection_id: c.webhook_connection_id! };
    } else {
      const ok = need(c, i, 'chat_connection_id') && need(c, i, 'chat_channel_id');
      if (!ok) return;
      if (!liveChats.has(c.chat_connection_id!)) {
        errors.push({
          location: `${where}.chat_connection_id`,
          message: 'is not a team-chat connection of this project',
          value: c.chat_connection_id,
        });
        return;
      }
      channel = {
        type: 'CHAT',
        chat_connection_id: c.chat_connection_id!,
        chat_channel_id: c.chat_channel_id!,
      };
    }
    const key = JSON.stringify(channel);
    if (seen.has(key)) {
      errors.push({ location: where, message: 'is listed more than once' });
      return;
    }
    seen.add(key);
    out.push(channel);
  });
  return out;
}

function validationFailed(errors: FieldError[]): never {
  throw problem('validation_error', errors.map((e) => `${e.location} ${e.message}`).join('; '), { errors });
}

async function entityNames(catalog: CatalogReader, alerts: Alert[]) {
  return catalog.entitiesByIds([...new Set(alerts.flatMap((a) => a.entities.map((e) => e.entity_id)))]);
}

function alertView(a: Alert, names: Map<string, { name: string; slug: string }>) {
  return {
    id: a.id,
    project_id: a.project_id,
    title: a.title,
    description: a.description,
    kind: a.kind,
    delivery_cadence: a.delivery_cadence,
    entities: a.entities.map((e) => ({
      entity_type: e.entity_type,
      entity_id: e.entity_id,
      name: names.get(e.entity_id)?.name ?? null,
      slug: names.get(e.entity_id)?.slug ?? null,
    })),
    notifications: a.notifications,
    filters: a.filters,
    is_active: a.is_active,
    surface: a.surface,
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
  };
}

function previewView(p: PreviewRow) {
  const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
  return {
    preview_id: p.id,
    status: p.status,
    estimated_match_count: p.status === 'COMPLETE' ? p.estimated_match_count : null,
    window_start: iso(p.window_start) ?? iso(p.created_at)!,
    window_end: iso(p.window_end) ?? iso(p.created_at)!,
    error: p.error,
    created_at: iso(p.created_at)!,
    completed_at: p.status === 'COMPLETE' || p.status === 'FAILED' ? iso(p.completed_at) : null,
  };
}

export const alertRoutes: FastifyPluginAsyncTypebox<{
  services: AlertRouteServices;
  publicUrl: string;
  dashboardUrl: string;
  /** Called with each preview count started (tests wait on it). */
  onPreviewStarted?: (settled: Promise<void>) => void;
}> = async (app, { services, publicUrl, dashboardUrl, onPreviewStarted }) => {
  const { state, catalog } = services;
  const store = new AlertsStore(state);
  const tags = ['alerts'];

  /** The caller's live alert, or 404. */
  async function alertFor(request: FastifyRequest, id: string): Promise<Alert> {
    const principal = principalOf(request);
    const alert = await store.get(id);
    if (!alert || alert.project_id !== principal.project.id) {
      throw problem('not_found', `No alert ${id} in this project.`, {
        errors: [{ location: 'path.id', message: 'is not an alert of this project', value: id }],
      });
    }
    return alert;
  }

  /** The caller's alert, deleted or not (history stays readable), or 404. */
  async function alertHistoryFor(
    request: FastifyRequest,
    id: string,
  ): Promise<{ id: string; filters: AlertFilters }> {
    const principal = principalOf(request);
    const [row] = await state.query<{ id: string; project_id: string; filters: AlertFilters }>(
      'SELECT id, project_id, filters FROM alerts WHERE id = $1',
      [id],
    );
    if (!row || row.project_id !== principal.project.id) {
      throw problem('not_found', `No alert ${id} in this project.`, {
        errors: [{ location: 'path.id', message: 'is not an alert of this project', value: id }],
      });
    }
    return row;
  }

  async function create(request: FastifyRequest, body: CreateBody): Promise<Alert> {
    const principal = principalOf(request);
    requireAlertsPlan(principal, dashboardUrl);
    const kind: AlertKind = body.kind ?? 'ENTITY_MENTION';
    if (body.filters?.speaker_roles !== undefined && kind !== 'PODCAST_SPEAKER') {
      speakerRolesRefusal('body.filters.speaker_roles');
    }
    const errors: FieldError[] = [];
    const [entities, notifications] = await Promise.all([
      resolveEntities(catalog, body.entities, errors),
      resolveChannels(state, principal, 'PLATFORM', body.notifications, errors),
    ]);
    if (errors.length > 0) validationFailed(errors);
    try {
      return await store.create(principal.project, principal.plan, {
        title: body.title,
        description: body.description ?? null,
        kind,
        delivery_cadence: body.delivery_cadence ?? 'REALTIME',
        entities,
        notifications,
        filters: body.filters ? normalizeFilters(body.filters) : {},
        is_active: body.is_active ?? true,
      });
    } catch (err) {
      if (err instanceof AllowanceExceededError) throw allowanceProblem(err, principal, dashboardUrl);
      throw err;
    }
  }

  async function update(request: FastifyRequest, id: string, body: PatchBody): Promise<Alert> {
    const principal = principalOf(request);
    const alert = await alertFor(request, id);
    if (body.kind !== undefined && body.kind !== alert.kind) {
      throw problem('unprocessable_entity', `kind is fixed at creation; this alert is ${alert.kind}.`, {
        errors: [
          { location: 'body.kind', message: `must be ${alert.kind} (fixed at creation)`, value: body.kind },
        ],
      });
    }
    if (body.filters?.speaker_roles !== undefined && alert.kind !== 'PODCAST_SPEAKER') {
      speakerRolesRefusal('body.filters.speaker_roles');
    }
    if (body.is_active === true && !alert.is_active) requireAlertsPlan(principal, dashboardUrl);
    const errors: FieldError[] = [];
    const [entities, notifications] = await Promise.all([
      body.entities ? resolveEntities(catalog, body.entities, errors) : undefined,
      body.notifications
        ? resolveChannels(state, principal, alert.surface, body.notifications, errors)
        : undefined,
    ]);
    if (errors.length > 0) validationFailed(errors);
    try {
      const updated = await store.update(
        id,
        {
          title: body.title,
          description: body.description,
          delivery_cadence: body.delivery_cadence,
          entities,
          notifications,
          filters: body.filters ? normalizeFilters(body.filters) : undefined,
          is_active: body.is_active,
        },
        { plan: principal.plan, project: principal.project },
      );
      if (!updated) throw problem('not_found', `No alert ${id} in this project.`);
      return updated;
    } catch (err) {
      if (err instanceof AllowanceExceededError) throw allowanceProblem(err, principal, dashboardUrl);
      throw err;
    }
  }

  async function list(
    request: FastifyRequest,
    projectId: string,
    query: { limit?: number; cursor?: string },
  ) {
    const principal = principalOf(request);
    ownProject(principal, projectId);
    const endpoint = 'project-alerts';
    const limit = query.limit ?? 25;
    const after = app.cursors.decode(endpoint, query.cursor, LIST_POSITION);
    const rows = await store.list(
      principal.project.id,
      after ? { created_at: after.c, id: after.i } : undefined,
      limit + 1,
    );
    const names = await entityNames(catalog, rows);
    return app.cursors.page(
      endpoint,
      rows,
      limit,
      (a) => alertView(a, names),
      (a) => ({ c: a.created_at.toISOString(), i: a.id }),
    );
  }

  const view = async (a: Alert) => alertView(a, await entityNames(catalog, [a]));
  const monitorView = async (a: Alert) => ({ ...(await view(a)), monitor_id: a.id });

  app.post(
    '/v1/projects/:projectId/alerts',
    {
      config: { bodyConstraints: [SPEAKER_ROLES_RULE] },
      schema: {
        tags,
        summary: 'Create an alert',
        description:
          'Needs a Team, Business or Enterprise plan; an active alert counts against the plan allowance. ' +
          'Runs a one-time backfill over the previous 7 days (backfilled matches are never delivered).',
        params: ProjectParams,
        body: CreateAlertBody,
        response: withProblems({ 201: AlertSchema }),
      },
    },
    async (request, reply) => {
      ownProject(principalOf(request), request.params.projectId);
      const alert = await create(request, request.body as CreateBody);
      return reply
        .code(201)
        .header('location', `/v1/alerts/${alert.id}`)
        .send(await view(alert));
    },
  );

  app.get(
    '/v1/projects/:projectId/alerts',
    {
      schema: {
        tags,
        summary: "List the project's alerts (oldest first)",
        params: ProjectParams,
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(AlertSchema) }),
      },
    },
    async (request) => list(request, request.params.projectId, request.query),
  );

  app.get(
    '/v1/alerts/:id',
    {
      schema: {
        tags,
        summary: 'Get an alert',
        params: AlertParams,
        response: withProblems({ 200: AlertSchema }),
      },
    },
    async (request) => view(await alertFor(request, request.params.id)),
  );

  app.patch(
    '/v1/alerts/:id',
    {
      schema: {
        tags,
        summary: 'Update, pause (is_active false) or resume (is_active true) an alert',
        description:
          '`entities`, `notifications` and `filters` replace the whole set; `filters: {}` clears every axis. ' +
          'Resuming counts against the plan allowance.',
        params: AlertParams,
        body: PatchAlertBody,
        response: withProblems({ 200: AlertSchema }),
      },
    },
    async (request) => view(await update(request, request.params.id, request.body as PatchBody)),
  );

  app.delete(
    '/v1/alerts/:id',
    {
      schema: {
        tags,
        summary: 'Delete an alert (soft: its matches and deliveries are kept)',
        params: AlertParams,
        response: withProblems({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await alertFor(request, request.params.id);
      await store.softDelete(request.params.id);
      return reply.code(204).send(null);
    },
  );

  // Legacy names: alerts were once called monitors.
  app.get(
    '/v1/projects/:projectId/monitors',
    {
      schema: {
        tags,
        summary: "List the project's alerts under their old name",
        description: 'Deprecated: use GET /v1/projects/{projectId}/alerts.',
        deprecated: true,
        params: ProjectParams,
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(MonitorSchema) }),
      },
    },
    async (request) => {
      const page = await list(request, request.params.projectId, request.query);
      return { ...page, data: page.data.map((a) => ({ ...a, monitor_id: a.id })) };
    },
  );

  app.patch(
    '/v1/monitors/:id',
    {
      schema: {
        tags,
        summary: 'Update an alert under its old name',
        description: 'Deprecated: use PATCH /v1/alerts/{id}. Same body and rules.',
        deprecated: true,
        params: AlertParams,
        body: PatchAlertBody,
        response: withProblems({ 200: MonitorSchema }),
      },
    },
    async (request) => monitorView(await update(request, request.params.id, request.body as PatchBody)),
  );

  // Previews.
  app.post(
    '/v1/projects/:projectId/alerts/preview',
    {
      config: { bodyConstraints: [SPEAKER_ROLES_RULE] },
      schema: {
        tags,
        summary: 'Start a preview: how many episodes of the previous 7 days an alert would match',
        description:
          'The preview id derives from kind, entities, `languages` and `speaker_roles`: the same ones return the ' +
          'same id and the cached count; `relevance` and `source_popularity` do not change the count.',
        params: ProjectParams,
        body: PreviewBody,
        response: withProblems({ 202: PreviewSchema }),
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      ownProject(principal, request.params.projectId);
      requireAlertsPlan(principal, dashboardUrl);
      const body = request.body as Static<typeof PreviewBody>;
      const kind: AlertKind = body.kind ?? 'ENTITY_MENTION';
      const filters = body.filters ?? {};
      if (filters.speaker_roles !== undefined && kind !== 'PODCAST_SPEAKER') {
        speakerRolesRefusal('body.filters.speaker_roles');
      }
      const errors: FieldError[] = [];
      const entities = await resolveEntities(catalog, body.entities, errors);
      if (errors.length > 0) validationFailed(errors);
      if (!services.previews) {
        throw problem(
          'service_unavailable',
          'Previews are unavailable: the analytics store is not configured.',
        );
      }
      const { preview, settled } = await services.previews.start(
        principal.project.id,
        kind,
        entities.map((e) => e.entity_id),
        filters.languages,
        filters.speaker_roles,
      );
      onPreviewStarted?.(settled);
      return reply
        .code(202)
        .header('location', `/v1/alerts/preview/${preview.id}`)
        .send(previewView(preview));
    },
  );

  app.get(
    '/v1/alerts/preview/:previewId',
    {
      schema: {
        tags,
        summary: 'Poll a preview: status (PENDING, RUNNING, COMPLETE, FAILED) and the estimated match count',
        params: Type.Object({ previewId: Type.String({ maxLength: 200 }) }),
        response: withProblems({ 200: PreviewSchema }),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const preview = await services.previews?.get(request.params.previewId);
      if (!preview || preview.project_id !== principal.project.id) {
        throw problem('not_found', `No preview ${request.params.previewId} in this project.`, {
          errors: [{ location: 'path.previewId', message: 'is not a preview of this project' }],
        });
      }
      return previewView(preview);
    },
  );

  // Matches and deliveries.
  app.get(
    '/v1/alerts/:id/matches',
    {
      schema: {
        tags,
        summary: "An alert's matches, newest first (no episode block)",
        description: "The alert's `relevance` and `source_popularity` filters apply, as for deliveries.",
        params: AlertParams,
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(MatchListItem) }),
      },
    },
    async (request) => {
      const alert = await alertHistoryFor(request, request.params.id);
      const endpoint = `alert-matches:${alert.id}`;
      const limit = request.query.limit ?? 25;
      const after = app.cursors.decode(endpoint, request.query.cursor, TIME_POSITION);
      const page = await matchesPage(services, alert, after, limit);
      return {
        data: page.data,
        has_more: page.next !== undefined,
        ...(page.next ? { cursor: app.cursors.encode(endpoint, page.next) } : {}),
      };
    },
  );

  app.get(
    '/v1/alerts/:id/deliveries',
    {
      schema: {
        tags,
        summary: "An alert's deliveries, newest first",
        params: AlertParams,
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: ListEnvelope(DeliverySchema) }),
      },
    },
    async (request) => {
      const alert = await alertHistoryFor(request, request.params.id);
      const endpoint = `alert-deliveries:${alert.id}`;
      const limit = request.query.limit ?? 25;
      const after = app.cursors.decode(endpoint, request.query.cursor, TIME_POSITION);
      const page = await deliveriesPage(state, alert.id, after, limit, publicUrl);
      return {
        data: page.data,
        has_more: page.next !== undefined,
        ...(page.next ? { cursor: app.cursors.encode(endpoint, page.next) } : {}),
      };
    },
  );

  app.get(
    '/v1/alerts/matches/:id',
    {
      schema: {
        tags,
        summary: 'One match, with its episode block',
        params: AlertParams,
        response: withProblems({ 200: MatchSchema }),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const doc = await matchDocument(services, request.params.id, { audience: 'rest' });
      const owner = doc
        ? (
            await state.query<{ project_id: string }>('SELECT project_id FROM alert_matches WHERE id = $1', [
              doc.id,
            ])
          )[0]
        : undefined;
      if (!doc || owner?.project_id !== principal.project.id) {
        throw problem('not_found', `No match ${request.params.id} in this project.`, {
          errors: [{ location: 'path.id', message: 'is not a match of this project' }],
        });
      }
      return doc;
    },
  );

  app.get(
    '/v1/alerts/deliveries/:id',
    {
      schema: {
        tags,
        summary: 'One delivery (the landing page of a notification) with its matches',
        description: 'Matches page with `limit` and `cursor`; the next page is at `matches_cursor`.',
        params: AlertParams,
        querystring: Type.Object(pageQuery()),
        response: withProblems({ 200: DeliveryLandingSchema }),
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const found = await deliveryDocument(state, request.params.id, publicUrl);
      if (!found || found.projectId !== principal.project.id) {
        throw problem('not_found', `No delivery ${request.params.id} in this project.`, {
          errors: [{ location: 'path.id', message: 'is not a delivery of this project' }],
        });
      }
      const endpoint = `delivery-matches:${request.params.id}`;
      const limit = request.query.limit ?? 25;
      const from = app.cursors.decode(endpoint, request.query.cursor, INDEX_POSITION) ?? 0;
      const ids = found.matchIds.slice(from, from + limit);
      const more = from + limit < found.matchIds.length;
      return {
        ...found.delivery,
        matches: await matchDocuments(services, ids, { audience: 'rest' }),
        matches_has_more: more,
        ...(more ? { matches_cursor: app.cursors.encode(endpoint, from + limit) } : {}),
      };
    },
  );
};
