import { newId, type Plan, type Project } from '../../../projections/state/accounts.ts';
import { type Queryable, type StateStore, sqlState } from '../../../projections/state/state-store.ts';
import type { AlertKind, Cadence } from '../../../schemas/event-enums.ts';
import { type Alert, type AlertEntityRef, type AlertFilters, type Channel, periodStart } from '../model.ts';

/**
 * Alert definitions in the state store (`alerts`, migration 003): create, read, list, update,
 * soft delete, the plan's active-alert allowance, and the reference checks alerts need
 * (verified notification emails, live webhook and chat connections).
 *
 * Every write takes the next `alerts_version_seq` value, which is how the processors' in-memory
 * alert index (`alert-index.ts`) picks changes up.
 */

interface AlertRow {
  id: string;
  project_id: string;
  title: string;
  description: string | null;
  kind: AlertKind;
  delivery_cadence: Cadence;
  entities: AlertEntityRef[];
  notifications: Channel[];
  filters: AlertFilters;
  is_active: boolean;
  surface: string;
  created_at: Date | string;
  updated_at: Date | string;
  deleted_at: Date | string | null;
  activated_at: Date | string | null;
  version: number;
}

export function alertFromRow(row: AlertRow): Alert {
  // `written_xid` (migration 006) is the alert index's bookkeeping, not part of the alert.
  const { written_xid: _written, ...rest } = row as AlertRow & { written_xid?: unknown };
  return {
    ...rest,
    version: Number(row.version),
    created_at: new Date(row.created_at),
    updated_at: new Date(row.updated_at),
    deleted_at: row.deleted_at === null ? null : new Date(row.deleted_at),
    activated_at: row.activated_at === null ? null : new Date(row.activated_at),
  };
}

export interface NewAlert {
  title: string;
  description: string | null;
  kind: AlertKind;
  delivery_cadence: Cadence;
  entities: AlertEntityRef[];
  notifications: Channel[];
  filters: AlertFilters;
  is_active: boolean;
}

export type AlertPatch = Partial<Omit<NewAlert, 'kind'>>;

/** The plan's allowance: included active alerts plus Alerts Packs. */
export function activeAlertAllowance(plan: Plan, project: Project): number {
  return plan.active_alerts_included + project.alerts_packs * plan.alerts_per_pack;
}

/** Raised when activating one more alert would exceed the allowance. */
export class AllowanceExceededError extends Error {
  constructor(
    readonly active: number,
    readonly allowance: number,
  ) {
    super(`the project has ${active} active alerts and its allowance is ${allowance}`);
    this.name = 'AllowanceExceededError';
  }
}

const SELECT = 'SELECT * FROM alerts';

export class AlertsStore {
  constructor(private readonly db: StateStore) {}

  /** Active alerts count against the allowance; paused and deleted ones do not. */
  async activeCount(projectId: string, db: Queryable = this.db): Promise<number> {
    const [row] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM alerts WHERE project_id = $1 AND is_active AND deleted_at IS NULL',
      [projectId],
    );
    return row?.n ?? 0;
  }

  /**
   * Creates an alert. An active one is refused with AllowanceExceededError when the project is at
   * its allowance; the check and the insert run under a lock on the project row, so concurrent
   * creates cannot both take the last slot.
   */
  async create(project: Project, plan: Plan, input: NewAlert): Promise<Alert> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [project.id]);
      if (input.is_active) {
        const active = await this.activeCount(project.id, tx);
        const allowance = activeAlertAllowance(plan, project);
        if (active >= allowance) throw new AllowanceExceededError(active, allowance);
      }
      const [row] = await tx.query<AlertRow>(
        `INSERT INTO alerts (id, project_id, title, description, kind, delivery_cadence, entities, notifications,
           filters, is_active, activated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10, CASE WHEN $10 THEN now() END)
         RETURNING *`,
        [
          newId('alrt'),
          project.id,
          input.title,
          input.description,
          input.kind,
          input.delivery_cadence,
          JSON.stringify(input.entities),
          JSON.stringify(input.notifications),
          JSON.stringify(input.filters),
          input.is_active,
        ],
      );
      const alert = alertFromRow(row!);
      if (alert.delivery_cadence !== 'REALTIME') {
        await resetDigestWindow(tx, alert.id, alert.delivery_cadence, alert.created_at.getTime());
      }
      return alert;
    });
  }

  async get(id: string, db: Queryable = this.db): Promise<Alert | undefined> {
    const [row] = await db.query<AlertRow>(`${SELECT} WHERE id = $1 AND deleted_at IS NULL`, [id]);
    return row ? alertFromRow(row) : undefined;
  }

  /** A project's live alerts, oldest first, after the alert `after` (keyset pagination). */
  async list(projectId: string, after: { created_at: string; id: string } | undefined, limit: number) {
    const rows = await this.db.query<AlertRow>(
      `${SELECT} WHERE project_id = $1 AND deleted_at IS NULL
         AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::text))
       ORDER BY created_at, id LIMIT $4`,
      [projectId, after?.created_at ?? null, after?.id ?? '', limit],
    );
    return rows.map(alertFromRow);
  }

  /**
   * Applies a patch. Resuming a paused alert is refused with AllowanceExceededError at the
   * allowance. Changing the cadence to DAILY or WEEKLY starts a fresh digest schedule.
   */
  async update(
    id: string,
    patch: AlertPatch,
    gate: { plan: Plan; project: Project },
  ): Promise<Alert | undefined> {
    return this.db.transaction(async (tx) => {
      const [locked] = await tx.query<AlertRow>(`${SELECT} WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, [
        id,
      ]);
      if (!locked) return undefined;
      const current = alertFromRow(locked);
      if (patch.is_active === true && !current.is_active) {
        await tx.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [current.project_id]);
        const active = await this.activeCount(current.project_id, tx);
        const allowance = activeAlertAllowance(gate.plan, gate.project);
        if (active >= allowance) throw new AllowanceExceededError(active, allowance);
      }
      const [row] = await tx.query<AlertRow>(
        `UPDATE alerts SET
           title = COALESCE($2, title),
           description = CASE WHEN $3::boolean THEN $4 ELSE description END,
           delivery_cadence = COALESCE($5, delivery_cadence),
           entities = COALESCE($6::jsonb, entities),
           notifications = COALESCE($7::jsonb, notifications),
           filters = COALESCE($8::jsonb, filters),
           is_active = COALESCE($9, is_active),
           activated_at = CASE WHEN $9 AND NOT is_active THEN now() ELSE activated_at END,
           updated_at = now(),
           version = nextval('alerts_version_seq')
         WHERE id = $1 RETURNING *`,
        [
          id,
          patch.title ?? null,
          patch.description !== undefined,
          patch.description ?? null,
          patch.delivery_cadence ?? null,
          patch.entities ? JSON.stringify(patch.entities) : null,
          patch.notifications ? JSON.stringify(patch.notifications) : null,
          patch.filters ? JSON.stringify(patch.filters) : null,
          patch.is_active ?? null,
        ],
      );
      const updated = alertFromRow(row!);
      if (updated.delivery_cadence !== current.delivery_cadence && updated.delivery_cadence !== 'REALTIME') {
        await resetDigestWindow(tx, id, updated.delivery_cadence, Date.now());
      }
      return updated;
    });
  }

  /** Soft delete: history (matches, deliveries) is kept. False when there was no live alert. */
  async softDelete(id: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE alerts SET deleted_at = now(), updated_at = now(), version = nextval('alerts_version_seq')
       WHERE id = $1 AND deleted_at IS NULL RETURNING id`,
      [id],
    );
    return rows.length > 0;
  }
}

/** Starts the digest schedule of an alert at the period containing `from`; nothing before `from` is bundled. */
async function resetDigestWindow(db: Queryable, alertId: string, cadence: 'DAILY' | 'WEEKLY', from: number) {
  await db.query(
    `INSERT INTO alert_digest_windows (alert_id, cadence, next_window_start, not_before)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (alert_id) DO UPDATE SET cadence = excluded.cadence, next_window_start = excluded.next_window_start,
       not_before = excluded.not_before, updated_at = now()`,
    [alertId, cadence, new Date(periodStart(cadence, from)), new Date(from)],
  );
}

// ---------------------------------------------------------------------------------------------
// References alerts make to other records.

const UNDEFINED_TABLE = '42P01';

async function queryIfTableExists<T>(
  db: Queryable,
  sql: string,
  params: unknown[],
): Promise<T[] | undefined> {
  try {
    return await db.query<T>(sql, params);
  } catch (err) {
    if (sqlState(err) === UNDEFINED_TABLE) return undefined;
    throw err;
  }
}

/** The verified, live notification emails of an organization among `emails` (lower case). */
export async function verifiedNotificationEmails(
  db: Queryable,
  organizationId: string,
  emails: string[],
): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows = await db.query<{ email: string }>(
    `SELECT lower(email) AS email FROM notification_emails
     WHERE organization_id = $1 AND lower(email) = ANY($2::text[]) AND verified_at IS NOT NULL AND deleted_at IS NULL`,
    [organizationId, emails.map((e) => e.toLowerCase())],
  );
  return new Set(rows.map((r) => r.email));
}

/**
 * Live (not deleted) alerts of any project of the organization whose notifications list the
 * address (case-insensitive). Used to refuse deleting a notification email that is in use.
 */
export async function alertsUsingNotificationEmail(
  db: Queryable,
  organizationId: string,
  email: string,
): Promise<{ id: string; project_id: string; title: string }[]> {
  return db.query(
    `SELECT a.id, a.project_id, a.title FROM alerts a JOIN projects p ON p.id = a.project_id
     WHERE p.organization_id = $1 AND a.deleted_at IS NULL
       AND EXISTS (SELECT 1 FROM jsonb_array_elements(a.notifications) n
                   WHERE n->>'type' = 'EMAIL' AND lower(n->>'email') = lower($2))
     ORDER BY a.created_at, a.id`,
    [organizationId, email],
  );
}

/**
 * Live webhook connections of a project among `ids`, with their surface. Reads the
 * `webhook_connections` table of migration 004 (id, project_id, surface, deleted_at); none
 * while that table does not exist.
 */
export async function liveWebhookConnections(
  db: Queryable,
  projectId: string,
  ids: string[],
): Promise<Map<string, { id: string; surface: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await queryIfTableExists<{ id: string; surface: string }>(
    db,
    `SELECT id, surface FROM webhook_connections
     WHERE project_id = $1 AND id = ANY($2::text[]) AND deleted_at IS NULL`,
    [projectId, ids],
  );
  return new Map((rows ?? []).map((r) => [r.id, r]));
}

/** Live chat connections of a project among `ids` (table `chat_connections` of migration 004). */
export async function liveChatConnections(
  db: Queryable,
  projectId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await queryIfTableExists<{ id: string }>(
    db,
    `SELECT id FROM chat_connections WHERE project_id = $1 AND id = ANY($2::text[]) AND deleted_at IS NULL`,
    [projectId, ids],
  );
  return new Set((rows ?? []).map((r) => r.id));
}

/** Webhook connection urls by id (any state), for pairing delivery outcomes with channels. */
export async function webhookConnectionUrls(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await queryIfTableExists<{ id: string; url: string }>(
    db,
    'SELECT id, url FROM webhook_connections WHERE id = ANY($1::text[])',
    [ids],
  );
  return new Map((rows ?? []).map((r) => [r.id, r.url]));
}
