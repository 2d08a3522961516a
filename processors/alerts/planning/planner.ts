import type { Logger } from 'pino';
import type { OutputEvent } from '../../../ingest/event-producer.ts';
import type { CatalogReader } from '../../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../../projections/state/state-store.ts';
import type { AlertMatched, DeliveryRequested } from '../../../schemas/generated/index.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import type { ProcessorDefinition } from '../../consumer-runner.ts';
import { ok, skip } from '../../step-result.ts';
import type { AlertIndex } from '../matching/alert-index.ts';
import { type Alert, needsPopularity, passesFilters, realtimeDeliveryId, wireChannel } from '../model.ts';

/**
 * The realtime half of the delivery planner: one delivery per match of a live REALTIME alert
 * that passes the alert's `relevance` and `source_popularity` filters (the shared
 * `passesFilters`, with the podcast's popularity now), requested on every channel of the alert
 * — one `deliveries.requested` event per channel, all with the delivery id derived from the
 * match id. DAILY and WEEKLY alerts are bundled by the digest scheduler instead.
 *
 * Backfilled matches are never delivered, on any channel: they are history, read through the
 * matches list (the spec says they never send email; a webhook or chat flood of week-old
 * episodes on creating an alert would be worse than useless).
 *
 * A delivery already recorded in `deliveries` is not requested again (a replay of
 * alerts.matched does not resend); otherwise a crash between producing and committing repeats a
 * request, and senders deliver at least once.
 */
export type PlannerOutput = OutputEvent<'requested', DeliveryRequested>;

export interface PlannerOptions {
  index: AlertIndex;
  state: StateStore;
  catalog: CatalogReader;
  output: { write(items: PlannerOutput[]): Promise<void> };
  logger: Logger;
  clock?: () => number;
}

/** Delivery requests, one per channel, for one delivery of an alert. */
export function deliveryRequests(
  alert: Alert,
  deliveryId: string,
  matchIds: string[],
  window: { start: number; end: number } | null,
  requestedAt: number,
): PlannerOutput[] {
  return alert.notifications.map((channel) => ({
    output: 'requested' as const,
    key: deliveryId,
    value: {
      delivery_id: deliveryId,
      alert_id: alert.id,
      project_id: alert.project_id,
      cadence: alert.delivery_cadence,
      channel: wireChannel(channel),
      match_ids: matchIds,
      window_start: window?.start ?? null,
      window_end: window?.end ?? null,
      requested_at: requestedAt,
    },
  }));
}

/** Podcast popularity for the podcasts of matches whose alert filters on it. */
export async function popularityOf(
  catalog: CatalogReader,
  podcastIds: string[],
): Promise<Map<string, number | null>> {
  if (podcastIds.length === 0) return new Map();
  const rows = await catalog.podcastsByIds(podcastIds);
  return new Map([...rows.values()].map((p) => [p.id, p.popularity]));
}

export class DeliveryPlanner {
  readonly stats = { planned: 0, filtered: 0, notLive: 0, digest: 0, duplicates: 0 };
  private readonly clock: () => number;

  constructor(private readonly opts: PlannerOptions) {
    this.clock = opts.clock ?? Date.now;
  }

  definition(): ProcessorDefinition<AlertMatched, AlertMatched> {
    return {
      name: 'delivery-planner',
      groupId: 'processor.delivery-planner',
      inputs: [TOPICS.alertMatches],
      handle: (record) =>
        record.value.is_backfilled ? skip('backfilled matches are never delivered') : ok(record.value),
      sink: { write: (matches) => this.plan(matches) },
    };
  }

  async plan(matches: AlertMatched[]): Promise<void> {
    const { index } = this.opts;
    await index.ready();
    const unique = [...new Map(matches.map((m) => [m.id, m])).values()];
    const planned: { match: AlertMatched; alert: Alert }[] = [];
    for (const match of unique) {
      const entry = await index.fresh(match.alert_id);
      if (!entry) {
        this.stats.notLive++;
        continue;
      }
      if (entry.alert.delivery_cadence !== 'REALTIME') {
        this.stats.digest++;
        continue;
      }
      planned.push({ match, alert: entry.alert });
    }
    const popularity = await popularityOf(
      this.opts.catalog,
      planned.filter((p) => needsPopularity(p.alert.filters)).map((p) => p.match.podcast_id),
    );
    const wanted = planned.filter(({ match, alert }) => {
      const pass = passesFilters(alert.filters, {
        relevance: match.relevance,
        popularity: popularity.get(match.podcast_id),
      });
      if (!pass) this.stats.filtered++;
      return pass;
    });
    if (wanted.length === 0) return;
    const ids = wanted.map(({ match }) => realtimeDeliveryId(match.id));
    const known = new Set(
      (
        await this.opts.state.query<{ id: string }>('SELECT id FROM deliveries WHERE id = ANY($1::text[])', [
          ids,
        ])
      ).map((r) => r.id),
    );
    const now = this.clock();
    const out: PlannerOutput[] = [];
    wanted.forEach(({ match, alert }, i) => {
      if (known.has(ids[i]!)) {
        this.stats.duplicates++;
        return;
      }
      out.push(...deliveryRequests(alert, ids[i]!, [match.id], null, now));
      this.stats.planned++;
    });
    if (out.length > 0) await this.opts.output.write(out);
  }
}
