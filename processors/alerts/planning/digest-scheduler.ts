import type { Logger } from 'pino';
import type { CatalogReader } from '../../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../../projections/state/state-store.ts';
import {
  type Alert,
  type AlertFilters,
  digestDeliveryId,
  needsPopularity,
  passesFilters,
  periodLength,
  periodStart,
} from '../model.ts';
import { alertFromRow } from '../rules/store.ts';
import { deliveryRequests, type PlannerOutput, popularityOf } from './planner.ts';

/**
 * The digest half of the delivery planner. DAILY alerts get one delivery per UTC day bundling
 * that day's matches; WEEKLY alerts one per week, planned on Monday, bundling Monday 00:00 UTC
 * to Monday 00:00 UTC. A window is planned `graceMs` after it closes (so matches detected just
 * before the end have reached the read model), bundles every non-backfilled match of the alert
 * detected in it that passes the alert's filters now (`passesFilters`, as the matches list and
 * realtime deliveries), and is requested on every channel of the alert. Empty windows, and
 * windows of paused alerts, send nothing.
 *
 * `alert_digest_windows` holds, per alert, the start of the next window to plan. Each window is
 * planned in one transaction that locks the alert's row, produces the requests and advances
 * the marker: a crash before the commit plans the same window again with the same delivery id
 * (at least once); after it, never again. Several scheduler instances do not plan a window twice.
 */
export interface DigestSchedulerOptions {
  state: StateStore;
  catalog: CatalogReader;
  output: { write(items: PlannerOutput[]): Promise<void> };
  logger: Logger;
  clock?: () => number;
  intervalMs?: number;
  graceMs?: number;
}

interface DueRow extends Record<string, unknown> {
  includes_alerts: boolean;
  window_cadence: string | null;
  next_window_start: Date | string | null;
}

export class DigestScheduler {
  readonly stats = { windows: 0, deliveries: 0, empty: 0 };
  private readonly clock: () => number;
  private readonly graceMs: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(private readonly opts: DigestSchedulerOptions) {
    this.clock = opts.clock ?? Date.now;
    this.graceMs = opts.graceMs ?? 60_000;
  }

  start(): void {
    if (this.timer) return;
    const loop = () => {
      this.timer = setTimeout(async () => {
        try {
          await this.tick();
        } catch (err) {
          this.opts.logger.warn({ err }, 'digest scheduler tick failed; retrying');
        }
        if (this.timer) loop();
      }, this.opts.intervalMs ?? 30_000);
      this.timer.unref?.();
    };
    loop();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Plans every window that is due; returns how many digest deliveries were requested. */
  tick(): Promise<number> {
    this.running ??= this.tickNow().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async tickNow(): Promise<number> {
    const now = this.clock();
    const rows = await this.opts.state.query<DueRow>(
      `SELECT a.*, pl.includes_alerts, w.cadence AS window_cadence, w.next_window_start
       FROM alerts a JOIN projects p ON p.id = a.project_id JOIN plans pl ON pl.code = p.plan_code
       LEFT JOIN alert_digest_windows w ON w.alert_id = a.id
       WHERE a.delivery_cadence IN ('DAILY', 'WEEKLY') AND a.deleted_at IS NULL`,
    );
    let requested = 0;
    for (const row of rows) {
      const { includes_alerts, window_cadence, next_window_start, ...rest } = row;
      const alert = alertFromRow(rest as unknown as Parameters<typeof alertFromRow>[0]);
      const cadence = alert.delivery_cadence as 'DAILY' | 'WEEKLY';
      if (window_cadence !== cadence || next_window_start === null) {
        await this.initialise(alert.id, cadence, now);
        continue;
      }
      let start = new Date(next_window_start).getTime();
      while (start + periodLength(cadence) + this.graceMs <= now) {
        const end = start + periodLength(cadence);
        const live = alert.is_active && includes_alerts;
        const n = await this.planWindow(alert, cadence, start, end, live);
        if (n === undefined) break; // another instance planned it
        requested += n;
        start = end;
      }
    }
    return requested;
  }

  private async initialise(alertId: string, cadence: 'DAILY' | 'WEEKLY', now: number): Promise<void> {
    await this.opts.state.query(
      `INSERT INTO alert_digest_windows (alert_id, cadence, next_window_start, not_before) VALUES ($1, $2, $3, $4)
       ON CONFLICT (alert_id) DO UPDATE SET cadence = excluded.cadence, next_window_start = excluded.next_window_start,
         not_before = excluded.not_before, updated_at = now()`,
      [alertId, cadence, new Date(periodStart(cadence, now)), new Date(now)],
    );
  }

  /**
   * Plans one window: reads and filters its matches, then in one transaction locks the marker,
   * checks nobody planned the window meanwhile (undefined if so), produces and advances it.
   */
  private async planWindow(
    alert: Alert,
    cadence: 'DAILY' | 'WEEKLY',
    start: number,
    end: number,
    live: boolean,
  ): Promise<number | undefined> {
    const { state } = this.opts;
    const marker = async (db: Pick<StateStore, 'query'>, lock: boolean) => {
      const [row] = await db.query<{
        next_window_start: Date | string;
        not_before: Date | string;
        cadence: string;
      }>(
        `SELECT next_window_start, not_before, cadence FROM alert_digest_windows WHERE alert_id = $1${lock ? ' FOR UPDATE' : ''}`,
        [alert.id],
      );
      return row && row.cadence === cadence && new Date(row.next_window_start).getTime() === start
        ? row
        : undefined;
    };
    const before = await marker(state, false);
    if (!before) return undefined;
    let kept: { id: string }[] = [];
    if (live) {
      const from = Math.max(start, new Date(before.not_before).getTime());
      const matches = await state.query<{ id: string; podcast_id: string; relevance: string }>(
        `SELECT id, podcast_id, relevance FROM alert_matches
         WHERE alert_id = $1 AND NOT is_backfilled AND detected_at >= $2 AND detected_at < $3
         ORDER BY detected_at, id`,
        [alert.id, new Date(from), new Date(end)],
      );
      kept = await this.filter(alert.filters, matches);
    }
    return state.transaction(async (tx) => {
      if (!(await marker(tx, true))) return undefined;
      let requested = 0;
      if (kept.length > 0) {
        const id = digestDeliveryId(alert.id, cadence, start);
        await this.opts.output.write(
          deliveryRequests(
            { ...alert, delivery_cadence: cadence },
            id,
            kept.map((m) => m.id),
            { start, end },
            this.clock(),
          ),
        );
        requested = 1;
        this.stats.deliveries++;
      } else {
        this.stats.empty++;
      }
      await tx.query(
        'UPDATE alert_digest_windows SET next_window_start = $2, updated_at = now() WHERE alert_id = $1',
        [alert.id, new Date(end)],
      );
      this.stats.windows++;
      return requested;
    });
  }

  private async filter<M extends { podcast_id: string; relevance: string }>(
    filters: AlertFilters,
    matches: M[],
  ): Promise<M[]> {
    const popularity = needsPopularity(filters)
      ? await popularityOf(
          this.opts.catalog,
          matches.map((m) => m.podcast_id),
        )
      : new Map<string, number | null>();
    return matches.filter((m) =>
      passesFilters(filters, { relevance: m.relevance, popularity: popularity.get(m.podcast_id) }),
    );
  }
}
