import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AlertManagement, AlertRuleError } from '../../projections/alerts/alert-management.ts';
import type { Alert, AlertFilters } from '../../projections/alerts/alert-model.ts';
import {
  type AlertReadServices,
  deliveriesPage,
  deliveryDocument,
  matchDocument,
  matchDocuments,
  matchesPage,
  type PodcastBiasReader,
} from '../../projections/alerts/alert-reads.ts';
import {
  AlertPreviews,
  analyticsBiasReader,
  analyticsMatchCounter,
  type PreviewRow,
} from '../../projections/alerts/preview.ts';
import type { AnalyticsStore } from '../../projections/analytics/analytics-store.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { Principal } from '../../projections/state/accounts.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { dashboardLink, dashboardPaths } from '../dashboard/paths.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { principalOf } from '../plugins/authentication.ts';
import { bodyRule } from '../plugins/openapi-document.ts';
import { type FieldError, type ProblemError, problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';
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
} from '../views/alerts.ts';

/**
 * Alerts over HTTP: management (create, list, get, update, pause/resume, soft delete), previews,
 * matches and deliveries, and the legacy `monitors` paths. The rules (plan gates, validation)
 * are alert management's (projections/alerts/alert-management.ts), which the dashboard uses too;
 * this file maps requests to it and its refusals to problem documents (403
 * `plan_does_not_support_alerts` and `add_on_required`, 422 `validation_error` and
 * `unprocessable_entity`, each field located in the body).
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
  /** Alert management (default: on `state` and `catalog`). */
  management?: AlertManagement;
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

/** A refusal of the alert rules as a problem document: fields are located in the body. */
function ruleProblem(err: AlertRuleError, principal: Principal, dashboardUrl: string): ProblemError {
  const { plan, project } = principal;
  const errors: FieldError[] = err.violations.map((v) =>
    'value' in v
      ? { location: `body.${v.field}`, message: v.message, value: v.value }
      : { location: `body.${v.field}`, message: v.message },
  );
  switch (err.code) {
    case 'validation_error':
      return problem('validation_error', errors.map((e) => `${e.location} ${e.message}`).join('; '), {
        errors,
      });
    case 'unprocessable_entity':
      return problem('unprocessable_entity', err.message, { errors });
    case 'plan_does_not_support_alerts':
      return problem('plan_does_not_support_alerts', err.message, {
        resolve: {
          message: 'Upgrade the project to a Team, Business or Enterprise plan in the dashboard.',
          action: 'upgrade_plan',
          url: dashboardLink(dashboardUrl, dashboardPaths.plan(project.id)),
        },
      });
    case 'add_on_required':
      return problem('add_on_required', err.message, {
        resolve: {
          message: `Buy an Alerts Pack add-on (${plan.alerts_per_pack} more active alerts), or pause or delete an alert.`,
          action: 'buy_alerts_pack',
          url: dashboardLink(dashboardUrl, dashboardPaths.addOns(project.id)),
        },
      });
  }
}

/** The rule of `speakerRolesRefusal`, stated in the OpenAPI document of create and preview. */
const SPEAKER_ROLES_RULE = bodyRule(
  'filters.speaker_roles is accepted only with kind PODCAST_SPEAKER (otherwise 422 unprocessable_entity)',
  { required: ['filters'], properties: { filters: { required: ['speaker_roles'] } } },
  { required: ['kind'], properties: { kind: { const: 'PODCAST_SPEAKER' } } },
);

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
  const { state } = services;
  const alerts = services.management ?? new AlertManagement(state, services.catalog);

  /** Runs a use of the alert rules, answering their refusals as problems. */
  async function ruled<T>(principal: Principal, use: () => T | Promise<T>): Promise<T> {
    try {
      return await use();
    } catch (err) {
      if (err instanceof AlertRuleError) throw ruleProblem(err, principal, dashboardUrl);
      throw err;
    }
  }
  const tags = ['alerts'];

  /** The caller's live alert, or 404. */
  async function alertFor(request: FastifyRequest, id: string): Promise<Alert> {
    const principal = principalOf(request);
    const alert = await alerts.get(id);
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
    const row = await alerts.history(id);
    if (!row || row.project_id !== principal.project.id) {
      throw problem('not_found', `No alert ${id} in this project.`, {
        errors: [{ location: 'path.id', message: 'is not an alert of this project', value: id }],
      });
    }
    return row;
  }

  async function create(request: FastifyRequest, body: CreateBody): Promise<Alert> {
    const principal = principalOf(request);
    return ruled(principal, () => alerts.create(principal, body));
  }

  async function update(request: FastifyRequest, id: string, body: PatchBody): Promise<Alert> {
    const principal = principalOf(request);
    const alert = await alertFor(request, id);
    const updated = await ruled(principal, () => alerts.update(principal, alert, body));
    if (!updated) throw problem('not_found', `No alert ${id} in this project.`);
    return updated;
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
    const rows = await alerts.list(
      principal.project.id,
      after ? { created_at: after.c, id: after.i } : undefined,
      limit + 1,
    );
    const names = await alerts.entityNames(rows);
    return app.cursors.page(
      endpoint,
      rows,
      limit,
      (a) => alertView(a, names),
      (a) => ({ c: a.created_at.toISOString(), i: a.id }),
    );
  }

  const view = async (a: Alert) => alertView(a, await alerts.entityNames([a]));
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
      await alerts.softDelete(request.params.id);
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
      const body = request.body as Static<typeof PreviewBody>;
      const checked = await ruled(principal, () => alerts.previewRequest(principal, body));
      if (!services.previews) {
        throw problem(
          'service_unavailable',
          'Previews are unavailable: the analytics store is not configured.',
        );
      }
      const { preview, settled } = await services.previews.start(
        principal.project.id,
        checked.kind,
        checked.entityIds,
        checked.languages,
        checked.speakerRoles,
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
      const page = await deliveriesPage(services, alert.id, after, limit, publicUrl);
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
      const found = await deliveryDocument(services, request.params.id, publicUrl);
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
