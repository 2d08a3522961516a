import { type StateStore, sqlState } from '../../../projections/state/state-store.ts';
import type {
  DeliveryAbandoned,
  DeliveryAttempted,
  DeliveryDelivered,
  DeliveryRequested,
} from '../../../schemas/generated/index.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { PermanentWriteError, type ProcessorDefinition } from '../../consumer-runner.ts';
import { ok, skip } from '../../step-result.ts';
import { channelKey } from '../model.ts';

/**
 * Projects the delivery topics into the state store:
 * - `deliveries.requested` → `deliveries` (one row per delivery id), `delivery_channels` (one
 *   per channel), `delivery_matches` (which matches each delivery carries);
 * - `deliveries.attempted` / `delivered` / `abandoned` → `delivery_outcomes` per (delivery,
 *   channel type, destination). A status only moves up (RETRYING < ABANDONED < DELIVERED), so
 *   events consumed in any order, or twice, end in the same state.
 */
export type DeliveryItem =
  | { kind: 'requested'; value: DeliveryRequested }
  | { kind: 'attempted'; value: DeliveryAttempted }
  | { kind: 'delivered'; value: DeliveryDelivered }
  | { kind: 'abandoned'; value: DeliveryAbandoned };

const KIND_BY_TOPIC: Record<string, DeliveryItem['kind']> = {
  [TOPICS.deliveriesRequested.name]: 'requested',
  [TOPICS.deliveriesAttempted.name]: 'attempted',
  [TOPICS.deliveriesDelivered.name]: 'delivered',
  [TOPICS.deliveriesAbandoned.name]: 'abandoned',
};

const RANK: Record<string, number> = { RETRYING: 1, ABANDONED: 2, DELIVERED: 3 };

interface Outcome {
  delivery_id: string;
  channel_type: string;
  destination: string;
  status: 'RETRYING' | 'ABANDONED' | 'DELIVERED';
  attempts: number;
  status_code: number | null;
  error: string | null;
  last_attempt_at: number | null;
}

function fold(into: Map<string, Outcome>, o: Outcome): void {
  const key = `${o.delivery_id}\u0001${o.channel_type}\u0001${o.destination}`;
  const cur = into.get(key);
  if (!cur) {
    into.set(key, o);
    return;
  }
  const newer = (o.last_attempt_at ?? 0) >= (cur.last_attempt_at ?? 0);
  into.set(key, {
    ...cur,
    status: RANK[o.status]! > RANK[cur.status]! ? o.status : cur.status,
    attempts: Math.max(cur.attempts, o.attempts),
    status_code: newer ? (o.status_code ?? cur.status_code) : cur.status_code,
    error: newer ? (o.error ?? cur.error) : cur.error,
    last_attempt_at: Math.max(cur.last_attempt_at ?? 0, o.last_attempt_at ?? 0) || null,
  });
}

export function deliveriesProjector(state: StateStore): ProcessorDefinition<unknown, DeliveryItem> {
  return {
    name: 'deliveries-projector',
    groupId: 'projector.deliveries',
    inputs: [
      TOPICS.deliveriesRequested,
      TOPICS.deliveriesAttempted,
      TOPICS.deliveriesDelivered,
      TOPICS.deliveriesAbandoned,
    ],
    handle(record) {
      const kind = KIND_BY_TOPIC[record.topic];
      if (!kind) return skip(`not a delivery topic: ${record.topic}`);
      return ok({ kind, value: record.value } as DeliveryItem);
    },
    sink: {
      async probe() {
        await state.query('SELECT 1');
      },
      async write(items) {
        const deliveries = new Map<string, DeliveryRequested>();
        const channels = new Map<string, Record<string, unknown>>();
        const links = new Map<string, { match_id: string; delivery_id: string; alert_id: string }>();
        const outcomes = new Map<string, Outcome>();
        for (const item of items) {
          if (item.kind === 'requested') {
            const r = item.value;
            if (!deliveries.has(r.delivery_id)) deliveries.set(r.delivery_id, r);
            const key = channelKey(r.channel);
            channels.set(`${r.delivery_id}\u0001${key}`, {
              delivery_id: r.delivery_id,
              channel_key: key,
              ...r.channel,
            });
            for (const m of r.match_ids) {
              links.set(`${m}\u0001${r.delivery_id}`, {
                match_id: m,
                delivery_id: r.delivery_id,
                alert_id: r.alert_id,
              });
            }
          } else if (item.kind === 'attempted') {
            const a = item.value;
            fold(outcomes, {
              delivery_id: a.delivery_id,
              channel_type: a.channel_type,
              destination: a.destination,
              status: a.succeeded ? 'DELIVERED' : 'RETRYING',
              attempts: a.attempt,
              status_code: a.status_code,
              error: a.error,
              last_attempt_at: a.attempted_at,
            });
          } else if (item.kind === 'delivered') {
            const d = item.value;
            fold(outcomes, {
              delivery_id: d.delivery_id,
              channel_type: d.channel_type,
              destination: d.destination,
              status: 'DELIVERED',
              attempts: d.attempts,
              status_code: null,
              error: null,
              last_attempt_at: d.delivered_at,
            });
          } else {
            const d = item.value;
            fold(outcomes, {
              delivery_id: d.delivery_id,
              channel_type: d.channel_type,
              destination: d.destination,
              status: 'ABANDONED',
              attempts: d.attempts,
              status_code: null,
              error: d.reason,
              last_attempt_at: d.abandoned_at,
            });
          }
        }
        try {
          await state.transaction(async (tx) => {
            if (deliveries.size > 0) {
              await tx.query(
                `INSERT INTO deliveries (id, alert_id, project_id, cadence, window_start, window_end, match_ids, requested_at)
                 SELECT delivery_id, alert_id, project_id, cadence, to_timestamp(window_start / 1000.0),
                   to_timestamp(window_end / 1000.0), ARRAY(SELECT jsonb_array_elements_text(match_ids)),
                   to_timestamp(requested_at / 1000.0)
                 FROM jsonb_to_recordset($1::jsonb) AS x(delivery_id text, alert_id text, project_id text, cadence text,
                   window_start float8, window_end float8, match_ids jsonb, requested_at float8)
                 ON CONFLICT (id) DO NOTHING`,
                [JSON.stringify([...deliveries.values()])],
              );
              await tx.query(
                `INSERT INTO delivery_channels (delivery_id, channel_key, type, email, webhook_connection_id,
                   chat_connection_id, chat_channel_id)
                 SELECT delivery_id, channel_key, type, email, webhook_connection_id, chat_connection_id, chat_channel_id
                 FROM jsonb_to_recordset($1::jsonb) AS x(delivery_id text, channel_key text, type text, email text,
                   webhook_connection_id text, chat_connection_id text, chat_channel_id text)
                 ON CONFLICT (delivery_id, channel_key) DO NOTHING`,
                [JSON.stringify([...channels.values()])],
              );
              if (links.size > 0) {
                await tx.query(
                  `INSERT INTO delivery_matches (match_id, delivery_id, alert_id)
                   SELECT match_id, delivery_id, alert_id
                   FROM jsonb_to_recordset($1::jsonb) AS x(match_id text, delivery_id text, alert_id text)
                   ON CONFLICT (match_id, delivery_id) DO NOTHING`,
                  [JSON.stringify([...links.values()])],
                );
              }
            }
            if (outcomes.size > 0) {
              await tx.query(
                `INSERT INTO delivery_outcomes (delivery_id, channel_type, destination, status, attempts, status_code,
                   error, last_attempt_at)
                 SELECT delivery_id, channel_type, destination, status, attempts, status_code, error,
                   to_timestamp(last_attempt_at / 1000.0)
                 FROM jsonb_to_recordset($1::jsonb) AS x(delivery_id text, channel_type text, destination text,
                   status text, attempts int, status_code int, error text, last_attempt_at float8)
                 ON CONFLICT (delivery_id, channel_type, destination) DO UPDATE SET
                   status = CASE WHEN (CASE excluded.status WHEN 'DELIVERED' THEN 3 WHEN 'ABANDONED' THEN 2 ELSE 1 END)
                                    > (CASE delivery_outcomes.status WHEN 'DELIVERED' THEN 3 WHEN 'ABANDONED' THEN 2 ELSE 1 END)
                                 THEN excluded.status ELSE delivery_outcomes.status END,
                   attempts = GREATEST(delivery_outcomes.attempts, excluded.attempts),
                   status_code = CASE WHEN excluded.last_attempt_at >= delivery_outcomes.last_attempt_at
                                        OR delivery_outcomes.last_attempt_at IS NULL
                                      THEN COALESCE(excluded.status_code, delivery_outcomes.status_code)
                                      ELSE delivery_outcomes.status_code END,
                   error = CASE WHEN excluded.last_attempt_at >= delivery_outcomes.last_attempt_at
                                  OR delivery_outcomes.last_attempt_at IS NULL
                                THEN COALESCE(excluded.error, delivery_outcomes.error)
                                ELSE delivery_outcomes.error END,
                   last_attempt_at = GREATEST(delivery_outcomes.last_attempt_at, excluded.last_attempt_at)`,
                [JSON.stringify([...outcomes.values()])],
              );
            }
          });
        } catch (err) {
          const code = sqlState(err);
          if (code?.startsWith('22') || code?.startsWith('23'))
            throw new PermanentWriteError((err as Error).message);
          throw err;
        }
      },
    },
  };
}
