import type { StateStore } from '../../../projections/state/state-store.ts';
import type { AlertEntityType } from '../../../schemas/event-enums.ts';
import { type Alert, speakerRolesOf } from '../model.ts';
import { alertFromRow } from '../rules/store.ts';

/**
 * The live alerts (active, not deleted, on a plan with alerts) in memory, indexed by entity id,
 * so the matcher looks alerts up per mention without a query. One index per process; processes
 * share nothing but the state store. Kept fresh by polling every `pollMs`: each refresh reads
 * only the rows written by transactions that had not finished at the previous refresh (the
 * `written_xid` every write stamps, against the snapshot xmin taken before the previous read —
 * migration 006), so a write committed late, in any process, is never missed however many other
 * writes went by; rows already held at the same `version` are skipped. Plan changes do not
 * touch alerts: a fingerprint of the projects' plans is read every `planCheckMs`, and a change
 * reloads everything (as does `fullReloadMs`, a safety net).
 */
export interface IndexedAlert {
  alert: Alert;
  /** entity id → entity type, for the entities of this alert */
  entities: Map<string, AlertEntityType>;
  /** position of each entity in the alert (earlier entities win ties) */
  order: Map<string, number>;
  speakerRoles: ReadonlySet<string>;
}

export interface AlertIndexOptions {
  pollMs?: number;
  planCheckMs?: number;
  fullReloadMs?: number;
}

interface Row extends Record<string, unknown> {
  includes_alerts: boolean;
}

export class AlertIndex {
  private readonly byId = new Map<string, IndexedAlert>();
  private readonly mention = new Map<string, IndexedAlert[]>();
  private readonly speaker = new Map<string, IndexedAlert[]>();
  /** alert id → `version/written_xid` of the row held (a write that forgot the version still differs). */
  private readonly versions = new Map<string, string>();
  /** Snapshot xmin taken before the last read: every transaction below it was visible to that read. */
  private watermark?: string;
  private lastFull = 0;
  private lastPlanCheck = 0;
  private plans?: string;
  private loaded?: Promise<void>;
  private refreshing?: Promise<Alert[]>;
  private timer?: NodeJS.Timeout;
  private lastForced = 0;
  private readonly listeners = new Set<(changed: Alert[]) => void | Promise<void>>();
  readonly options: Required<AlertIndexOptions>;

  constructor(
    private readonly state: StateStore,
    options: AlertIndexOptions = {},
  ) {
    this.options = { pollMs: 250, planCheckMs: 5000, fullReloadMs: 600_000, ...options };
  }

  get size(): number {
    return this.byId.size;
  }

  /** Called after each refresh with the alerts whose rows changed (live or not). */
  onChange(listener: (changed: Alert[]) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Loads the index once; later calls wait for that first load. */
  ready(): Promise<void> {
    this.loaded ??= this.refresh().then(() => undefined);
    return this.loaded;
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.timer = setTimeout(async () => {
        try {
          await this.refresh();
        } catch {
          // the store is unavailable: keep the index as it is and try again
        }
        if (this.timer) tick();
      }, this.options.pollMs);
      this.timer.unref?.();
    };
    tick();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  get(id: string): IndexedAlert | undefined {
    return this.byId.get(id);
  }

  /** Live ENTITY_MENTION alerts watching an entity. */
  mentionAlerts(entityId: string): readonly IndexedAlert[] | undefined {
    return this.mention.get(entityId);
  }

  /** Live PODCAST_SPEAKER alerts watching a person. */
  speakerAlerts(entityId: string): readonly IndexedAlert[] | undefined {
    return this.speaker.get(entityId);
  }

  all(): IterableIterator<IndexedAlert> {
    return this.byId.values();
  }

  /**
   * The live alert with this id, refreshing first when it is unknown (it may have been created a
   * moment ago). Forced refreshes are spaced at least `pollMs / 5` apart.
   */
  async fresh(id: string): Promise<IndexedAlert | undefined> {
    await this.ready();
    const hit = this.byId.get(id);
    if (hit) return hit;
    if (Date.now() - this.lastForced >= this.options.pollMs / 5) {
      this.lastForced = Date.now();
      await this.refresh();
    }
    return this.byId.get(id);
  }

  /** Reads what changed since the last refresh (everything, periodically). Serialised. */
  refresh(): Promise<Alert[]> {
    this.refreshing ??= this.refreshNow().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refreshNow(): Promise<Alert[]> {
    const now = Date.now();
    let full = now - this.lastFull >= this.options.fullReloadMs;
    if (full || now - this.lastPlanCheck >= this.options.planCheckMs) {
      // A fingerprint of every project's plan: a change means some alerts went live or dark.
      this.lastPlanCheck = now;
      const [row] = await this.state.query<{ f: string }>(
        `SELECT md5(coalesce(string_agg(id || '/' || plan_code, ',' ORDER BY id), '')) AS f FROM projects`,
      );
      if (this.plans !== undefined && this.plans !== row?.f) full = true;
      this.plans = row?.f;
    }
    // Taken before the read: a transaction below this xmin had finished before the read began,
    // so the read saw its rows; one at or above it may commit later and is read again next time.
    const [snapshot] = await this.state.query<{ xmin: string }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin',
    );
    const since = full ? undefined : this.watermark;
    const select = `SELECT a.*, pl.includes_alerts FROM alerts a
       JOIN projects p ON p.id = a.project_id JOIN plans pl ON pl.code = p.plan_code`;
    const rows =
      since === undefined
        ? await this.state.query<Row>(`${select} ORDER BY a.version`)
        : await this.state.query<Row>(`${select} WHERE a.written_xid >= $1::xid8 ORDER BY a.version`, [
            since,
          ]);
    this.watermark = snapshot!.xmin;
    const changed: Alert[] = [];
    const seen = full ? new Set<string>() : undefined;
    for (const row of rows) {
      const { includes_alerts, ...rest } = row;
      const alert = alertFromRow(rest as unknown as Parameters<typeof alertFromRow>[0]);
      const written = `${alert.version}/${String(row.written_xid)}`;
      seen?.add(alert.id);
      const live = alert.is_active && alert.deleted_at === null && includes_alerts;
      const current = this.byId.get(alert.id);
      if (this.versions.get(alert.id) === written && (current !== undefined) === live) continue;
      this.versions.set(alert.id, written);
      if (current) this.remove(current);
      if (live) this.add(alert);
      changed.push(alert);
    }
    if (seen) {
      // A full reload also drops alerts that are no longer live because their plan changed.
      for (const entry of [...this.byId.values()]) {
        if (!seen.has(entry.alert.id)) this.remove(entry);
      }
      this.lastFull = Date.now();
    }
    if (changed.length > 0) for (const l of this.listeners) await l(changed);
    return changed;
  }

  private add(alert: Alert): void {
    const entities = new Map<string, AlertEntityType>();
    const order = new Map<string, number>();
    alert.entities.forEach((e, i) => {
      entities.set(e.entity_id, e.entity_type);
      if (!order.has(e.entity_id)) order.set(e.entity_id, i);
    });
    const entry: IndexedAlert = {
      alert,
      entities,
      order,
      speakerRoles: new Set(speakerRolesOf(alert.filters)),
    };
    this.byId.set(alert.id, entry);
    const map = alert.kind === 'ENTITY_MENTION' ? this.mention : this.speaker;
    for (const id of entities.keys()) {
      const list = map.get(id);
      if (list) list.push(entry);
      else map.set(id, [entry]);
    }
  }

  private remove(entry: IndexedAlert): void {
    this.byId.delete(entry.alert.id);
    const map = entry.alert.kind === 'ENTITY_MENTION' ? this.mention : this.speaker;
    for (const id of entry.entities.keys()) {
      const list = map.get(id);
      if (!list) continue;
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) map.delete(id);
    }
  }
}
