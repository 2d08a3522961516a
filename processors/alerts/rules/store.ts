import { newId, type Plan, type Project } from '../../../projections/state/accounts.ts';
import type { Queryable, StateStore } from '../../../projections/state/state-store.ts';
import { type Alert, periodStart } from '../model.ts';

/**
 * Alert definitions in the state store (`alerts`, migration 003): create, read, list, update,
 * soft delete, and the plan's active-alert allowance. The records alerts refer to are read in
 * references.ts.
 *
 * Every write takes the next `alerts_version_seq` value, which is how the processors' in-memory
 * alert index (`alert-index.ts`) picks changes up.
 */

/** An alert as the driver returns its row: timestamps may come as strings. */
type AlertRow = Omit<Alert, 'created_at' | 'updated_at' | 'deleted_at' | 'activated_at'> & {
  created_at: Date | string;
  updated_at: Date | string;
  deleted_at: Date | string | null;
  activated_at: Date | string | null;
};

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

/** What a new alert is given; the store adds the rest. */
export type NewAlert = Pick<
  Alert,
  | 'title'
  | 'description'
  | 'kind'
  | 'delivery_cadence'
  | 'entities'
  | 'notifications'
  | 'filters'
  | 'is_active'
>;

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
