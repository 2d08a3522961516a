import type { Static } from '@sinclair/typebox';
import type { CatalogReader } from '../../../projections/catalog/catalog-reader.ts';
import type { Plan, Principal, Project } from '../../../projections/state/accounts.ts';
import type { StateStore } from '../../../projections/state/state-store.ts';
import type { AlertKind } from '../../../schemas/event-enums.ts';
import type { Alert, AlertFilters } from '../model.ts';
import type { PatchAlertBody, PreviewBody } from '../presentation/http-schemas.ts';
import { alertsUsingNotificationEmail } from './references.ts';
import { AlertRuleError, type RuleViolation, validationFailed } from './refusal.ts';
import { AlertsStore, AllowanceExceededError } from './store.ts';
import { type AlertInput, normalizeFilters, resolveChannels, resolveEntities } from './validation.ts';

/**
 * Alert management: the rules of the spec over the alerts store.
 *
 * - alerts need a plan with alerts (`plan_does_not_support_alerts`); creating or resuming an
 *   active alert at the allowance (included + packs × per pack) is `add_on_required`; paused
 *   and deleted alerts do not count;
 * - entities and channels are validated as validation.ts says (`validation_error`);
 * - `kind` is fixed at creation; `filters.speaker_roles` is for PODCAST_SPEAKER alerts only
 *   (`unprocessable_entity`);
 * - PATCH replaces `entities`, `notifications` and `filters` wholesale; `filters: {}` clears
 *   every axis; an absent field is left as it is.
 *
 * Refusals are AlertRuleError; checks run in the order the API has always answered them.
 */
export type AlertPatchInput = Static<typeof PatchAlertBody>;
export type PreviewInput = Static<typeof PreviewBody>;

/** What a preview counts: the request's count-affecting settings, entities resolved to ids. */
export interface PreviewRequest {
  kind: AlertKind;
  entityIds: string[];
  languages: string[] | undefined;
  speakerRoles: string[] | undefined;
}

export class AlertManagement {
  private readonly store: AlertsStore;

  constructor(
    private readonly state: StateStore,
    private readonly catalog: CatalogReader,
  ) {
    this.store = new AlertsStore(state);
  }

  /** Refuses a project whose plan has no alerts. */
  requireAlertsPlan(principal: Principal): void {
    if (principal.plan.includes_alerts) return;
    throw new AlertRuleError(
      'plan_does_not_support_alerts',
      `The ${principal.plan.name} plan does not include alerts; alerts need a Team, Business or Enterprise plan.`,
    );
  }

  async create(principal: Principal, body: AlertInput): Promise<Alert> {
    this.requireAlertsPlan(principal);
    const kind: AlertKind = body.kind ?? 'ENTITY_MENTION';
    if (body.filters?.speaker_roles !== undefined && kind !== 'PODCAST_SPEAKER') speakerRolesRefusal();
    const entityViolations: RuleViolation[] = [];
    const channelViolations: RuleViolation[] = [];
    const [entities, notifications] = await Promise.all([
      resolveEntities(this.catalog, body.entities, entityViolations),
      resolveChannels(this.state, principal, 'PLATFORM', body.notifications, channelViolations),
    ]);
    refuseViolations(entityViolations, channelViolations);
    return allowanceChecked(principal, () =>
      this.store.create(principal.project, principal.plan, {
        title: body.title,
        description: body.description ?? null,
        kind,
        delivery_cadence: body.delivery_cadence ?? 'REALTIME',
        entities,
        notifications,
        filters: body.filters ? normalizeFilters(body.filters) : {},
        is_active: body.is_active ?? true,
      }),
    );
  }

  /** Applies a patch to a live alert of the principal's project; undefined when it is gone. */
  async update(principal: Principal, alert: Alert, body: AlertPatchInput): Promise<Alert | undefined> {
    if (body.kind !== undefined && body.kind !== alert.kind) {
      throw new AlertRuleError(
        'unprocessable_entity',
        `kind is fixed at creation; this alert is ${alert.kind}.`,
        [{ field: 'kind', message: `must be ${alert.kind} (fixed at creation)`, value: body.kind }],
      );
    }
    if (body.filters?.speaker_roles !== undefined && alert.kind !== 'PODCAST_SPEAKER') speakerRolesRefusal();
    if (body.is_active === true && !alert.is_active) this.requireAlertsPlan(principal);
    const entityViolations: RuleViolation[] = [];
    const channelViolations: RuleViolation[] = [];
    const [entities, notifications] = await Promise.all([
      body.entities ? resolveEntities(this.catalog, body.entities, entityViolations) : undefined,
      body.notifications
        ? resolveChannels(this.state, principal, alert.surface, body.notifications, channelViolations)
        : undefined,
    ]);
    refuseViolations(entityViolations, channelViolations);
    return allowanceChecked(principal, () =>
      this.store.update(
        alert.id,
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
      ),
    );
  }

  /** Checks a preview request as creating the alert would, and resolves its entities. */
  async previewRequest(principal: Principal, body: PreviewInput): Promise<PreviewRequest> {
    this.requireAlertsPlan(principal);
    const kind: AlertKind = body.kind ?? 'ENTITY_MENTION';
    const filters = body.filters ?? {};
    if (filters.speaker_roles !== undefined && kind !== 'PODCAST_SPEAKER') speakerRolesRefusal();
    const violations: RuleViolation[] = [];
    const entities = await resolveEntities(this.catalog, body.entities, violations);
    if (violations.length > 0) validationFailed(violations);
    return {
      kind,
      entityIds: entities.map((e) => e.entity_id),
      languages: filters.languages,
      speakerRoles: filters.speaker_roles,
    };
  }

  /** A live (not deleted) alert. */
  get(id: string): Promise<Alert | undefined> {
    return this.store.get(id);
  }

  /** A project's live alerts, oldest first, after the alert `after`. */
  list(projectId: string, after: { created_at: string; id: string } | undefined, limit: number) {
    return this.store.list(projectId, after, limit);
  }

  /** An alert deleted or not (its history stays readable), with what its reads need. */
  async history(id: string): Promise<{ id: string; project_id: string; filters: AlertFilters } | undefined> {
    const [row] = await this.state.query<{ id: string; project_id: string; filters: AlertFilters }>(
      'SELECT id, project_id, filters FROM alerts WHERE id = $1',
      [id],
    );
    return row;
  }

  /** Soft delete: matches and deliveries are kept. */
  softDelete(id: string): Promise<boolean> {
    return this.store.softDelete(id);
  }

  /** Pauses an alert (an email-footer link); undefined when it is gone. */
  pause(id: string, gate: { plan: Plan; project: Project }): Promise<Alert | undefined> {
    return this.store.update(id, { is_active: false }, gate);
  }

  /** Display names and slugs of the alerts' entities. */
  entityNames(alerts: Alert[]) {
    return this.catalog.entitiesByIds([
      ...new Set(alerts.flatMap((a) => a.entities.map((e) => e.entity_id))),
    ]);
  }

  /** Live alerts of the organization whose notifications list the address. */
  usingNotificationEmail(organizationId: string, email: string) {
    return alertsUsingNotificationEmail(this.state, organizationId, email);
  }
}

/** Refuses with every violation, entities first then channels (the fields' order in the body). */
function refuseViolations(entities: RuleViolation[], channels: RuleViolation[]): void {
  const all = [...entities, ...channels];
  if (all.length > 0) validationFailed(all);
}

function speakerRolesRefusal(): never {
  throw new AlertRuleError(
    'unprocessable_entity',
    'filters.speaker_roles applies only to PODCAST_SPEAKER alerts.',
    [{ field: 'filters.speaker_roles', message: 'is only allowed when kind is PODCAST_SPEAKER' }],
  );
}

/** Runs a write that activates an alert; at the allowance, `add_on_required`. */
async function allowanceChecked<T>(principal: Principal, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof AllowanceExceededError)) throw err;
    const { plan, project } = principal;
    throw new AlertRuleError(
      'add_on_required',
      `This project has ${err.active} active alerts, all its ${plan.name} plan allows ` +
        `(${plan.active_alerts_included} included + ${project.alerts_packs} Alerts Pack(s) × ${plan.alerts_per_pack}).`,
    );
  }
}
