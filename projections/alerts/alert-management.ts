import type { CatalogReader } from '../catalog/catalog-reader.ts';
import type { Principal } from '../state/accounts.ts';
import type { Queryable, StateStore } from '../state/state-store.ts';
import {
  type Alert,
  type AlertEntityRef,
  type AlertFilters,
  type AlertKind,
  type Cadence,
  type Channel,
  type ChannelType,
  SPEAKER_ROLES,
  type SpeakerRole,
} from './alert-model.ts';
import {
  AlertsStore,
  AllowanceExceededError,
  alertsUsingNotificationEmail,
  liveChatConnections,
  liveWebhookConnections,
  verifiedNotificationEmails,
} from './alerts-store.ts';

/**
 * Alert management: the rules of the spec over the alerts store, for every client — the API's
 * routes and the dashboard's pages alike.
 *
 * - alerts need a plan with alerts (`plan_does_not_support_alerts`); creating or resuming an
 *   active alert at the allowance (included + packs × per pack) is `add_on_required`; paused and
 *   deleted alerts do not count;
 * - 1-100 entities (slug or id, resolved to ids; the declared type must be the entity's), 1-20
 *   channels, no duplicates; an EMAIL channel names a verified notification email of the
 *   organization, a WEBHOOK channel a live webhook connection of the project with the alert's
 *   surface, a CHAT channel a live chat connection of the project (`validation_error`);
 * - `kind` is fixed at creation; `filters.speaker_roles` is for PODCAST_SPEAKER alerts only
 *   (`unprocessable_entity`);
 * - a patch replaces `entities`, `notifications` and `filters` wholesale; `filters: {}` clears
 *   every axis; an absent field is left as it is.
 *
 * Input is the shape the API's request schemas check; refusals are AlertRuleError naming each
 * offending field as a path into the input (`entities[0].entity_id`, `notifications[1].email`).
 */
export type RefusalCode =
  | 'validation_error'
  | 'unprocessable_entity'
  | 'plan_does_not_support_alerts'
  | 'add_on_required';

export interface RuleViolation {
  field: string;
  message: string;
  value?: unknown;
}

export class AlertRuleError extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    readonly violations: RuleViolation[] = [],
  ) {
    super(message);
    this.name = 'AlertRuleError';
  }
}

function validationFailed(violations: RuleViolation[]): never {
  throw new AlertRuleError(
    'validation_error',
    violations.map((v) => `${v.field} ${v.message}`).join('; '),
    violations,
  );
}

export interface ChannelInput {
  type: ChannelType;
  email?: string;
  chat_connection_id?: string;
  chat_channel_id?: string;
  webhook_connection_id?: string;
}

export interface FiltersInput {
  languages?: string[];
  relevance?: AlertFilters['relevance'];
  source_popularity?: AlertFilters['source_popularity'];
  speaker_roles?: SpeakerRole[];
}

export interface AlertInput {
  title: string;
  description?: string | null;
  kind?: AlertKind;
  delivery_cadence?: Cadence;
  entities: { entity_type: AlertEntityRef['entity_type']; entity_id: string }[];
  notifications: ChannelInput[];
  filters?: FiltersInput;
  is_active?: boolean;
}

export type AlertPatchInput = Partial<AlertInput>;

/** Filters as stored: the axes given, languages deduplicated, roles in their canonical order. */
export function normalizeFilters(filters: FiltersInput): AlertFilters {
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
  input: AlertInput['entities'],
  violations: RuleViolation[],
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
    const where = `entities[${i}]`;
    if (!row) {
      violations.push({
        field: `${where}.entity_id`,
        message: 'is not a known entity (slug or ID)',
        value: e.entity_id,
      });
      return;
    }
    if (row.kind !== e.entity_type) {
      violations.push({
        field: `${where}.entity_type`,
        message: `does not match the entity, which is a ${row.kind}`,
        value: e.entity_type,
      });
      return;
    }
    if (seen.has(row.id)) {
      violations.push({
        field: `${where}.entity_id`,
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

/** Checks each channel's fields and references; returns channels with only their type's fields. */
async function resolveChannels(
  state: Queryable,
  principal: Principal,
  surface: string,
  input: ChannelInput[],
  violations: RuleViolation[],
): Promise<Channel[]> {
  const projectId = principal.project.id;
  const need = (c: ChannelInput, i: number, field: keyof ChannelInput) => {
    if (!c[field])
      violations.push({ field: `notifications[${i}].${field}`, message: `is required for ${c.type}` });
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
    const where = `notifications[${i}]`;
    let channel: Channel | undefined;
    if (c.type === 'EMAIL') {
      if (!need(c, i, 'email')) return;
      const email = c.email!.toLowerCase();
      if (!verified.has(email)) {
        violations.push({
          field: `${where}.email`,
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
        violations.push({
          field: `${where}.webhook_connection_id`,
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
        violations.push({
          field: `${where}.chat_connection_id`,
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
      violations.push({ field: where, message: 'is listed more than once' });
      return;
    }
    seen.add(key);
    out.push(channel);
  });
  return out;
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
    const violations: RuleViolation[] = [];
    const [entities, notifications] = await Promise.all([
      resolveEntities(this.catalog, body.entities, violations),
      resolveChannels(this.state, principal, 'PLATFORM', body.notifications, violations),
    ]);
    if (violations.length > 0) validationFailed(violations);
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
    const violations: RuleViolation[] = [];
    const [entities, notifications] = await Promise.all([
      body.entities ? resolveEntities(this.catalog, body.entities, violations) : undefined,
      body.notifications
        ? resolveChannels(this.state, principal, alert.surface, body.notifications, violations)
        : undefined,
    ]);
    if (violations.length > 0) validationFailed(violations);
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
  async previewRequest(
    principal: Principal,
    body: Pick<AlertInput, 'kind' | 'entities' | 'filters'>,
  ): Promise<{ kind: AlertKind; entityIds: string[]; languages?: string[]; speakerRoles?: SpeakerRole[] }> {
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

  /** Live alerts of the organization whose notifications list the address. */
  usingNotificationEmail(organizationId: string, email: string) {
    return alertsUsingNotificationEmail(this.state, organizationId, email);
  }

  /** Display names and slugs of the alerts' entities. */
  entityNames(alerts: Alert[]) {
    return this.catalog.entitiesByIds([
      ...new Set(alerts.flatMap((a) => a.entities.map((e) => e.entity_id))),
    ]);
  }
}
