import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import {
  type Alert,
  type AlertApiServices,
  AlertRuleError,
  AlertSchema,
  alertView,
  CreateAlertBody,
  MonitorSchema,
  PatchAlertBody,
  PreviewBody,
  PreviewSchema,
  previewView,
} from '../../processors/alerts/index.ts';
import type { Principal } from '../../projections/state/accounts.ts';
import { dashboardLink, dashboardPaths } from '../dashboard-paths.ts';
import { requireOwnProject } from '../ownership.ts';
import { ListEnvelope, Position, pageQuery } from '../pagination.ts';
import { principalOf } from '../plugins/authentication.ts';
import { bodyRule } from '../plugins/openapi-document.ts';
import { type FieldError, type ProblemError, problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';

/**
 * Alert management over HTTP: create, list, get, update, pause/resume, soft delete, the legacy
 * `monitors` paths, and previews. The rules (plan policy, validation) are the alerting
 * module's (`AlertManagement`); this file maps requests to it and its refusals to problem
 * documents. Matches and deliveries are read in alert-history.ts.
 *
 * An alert of another project answers 404, as does a deleted one (its matches and deliveries
 * stay readable by id: history is kept).
 */
type CreateBody = Static<typeof CreateAlertBody>;
type PatchBody = Static<typeof PatchAlertBody>;

const AlertParams = Type.Object({ id: Type.String({ maxLength: 200 }) });
const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 200 }) });

const LIST_POSITION = Type.Object({ c: Position.instant(), i: Position.id() });

/** The rule of the speaker-roles refusal, stated in the OpenAPI document of create and preview. */
const SPEAKER_ROLES_RULE = bodyRule(
  'filters.speaker_roles is accepted only with kind PODCAST_SPEAKER (otherwise 422 unprocessable_entity)',
  { required: ['filters'], properties: { filters: { required: ['speaker_roles'] } } },
  { required: ['kind'], properties: { kind: { const: 'PODCAST_SPEAKER' } } },
);

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

export const alertRoutes: FastifyPluginAsyncTypebox<{
  alerting: AlertApiServices;
  dashboardUrl: string;
}> = async (app, { alerting, dashboardUrl }) => {
  const { alerts, previews } = alerting;
  const tags = ['alerts'];

  /** Runs a use of the alert rules, answering their refusals as problems. */
  async function ruled<T>(principal: Principal, use: () => T | Promise<T>): Promise<T> {
    try {
      return await use();
    } catch (err) {
      if (err instanceof AlertRuleError) throw ruleProblem(err, principal, dashboardUrl);
      throw err;
    }
  }

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
    const principal = requireOwnProject(request, projectId);
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
      const principal = requireOwnProject(request, request.params.projectId);
      const alert = await ruled(principal, () => alerts.create(principal, request.body as CreateBody));
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
      const principal = requireOwnProject(request, request.params.projectId);
      const body = request.body as Static<typeof PreviewBody>;
      const q = await ruled(principal, () => alerts.previewRequest(principal, body));
      if (!previews) {
        throw problem(
          'service_unavailable',
          'Previews are unavailable: the analytics store is not configured.',
        );
      }
      const { preview } = await previews.start(
        principal.project.id,
        q.kind,
        q.entityIds,
        q.languages,
        q.speakerRoles,
      );
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
      const preview = await previews?.get(request.params.previewId);
      if (!preview || preview.project_id !== principal.project.id) {
        throw problem('not_found', `No preview ${request.params.previewId} in this project.`, {
          errors: [{ location: 'path.previewId', message: 'is not a preview of this project' }],
        });
      }
      return previewView(preview);
    },
  );
};
