import type { Queryable } from '../../../projections/state/state-store.ts';
import type { DeliveryAttempted } from '../../../schemas/generated/index.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import type { ProcessorDefinition } from '../../consumer-runner.ts';
import { ok } from '../../step-result.ts';

/**
 * Projects `deliveries.attempted` into `delivery_attempts`: one row per attempt, keyed by the
 * attempt's wire id (`X-Webhook-ID`), so a replay writes nothing twice.
 */
export async function writeAttempts(db: Queryable, attempts: DeliveryAttempted[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(
    `INSERT INTO delivery_attempts (attempt_id, delivery_id, attempt, alert_id, channel_type, destination, succeeded,
       status_code, error, duration_ms, attempted_at, next_attempt_at)
     SELECT a.attempt_id, a.delivery_id, a.attempt, a.alert_id, a.channel_type, a.destination, a.succeeded,
       a.status_code, a.error, a.duration_ms, to_timestamp(a.attempted_at / 1000.0), to_timestamp(a.next_attempt_at / 1000.0)
     FROM jsonb_to_recordset($1::jsonb) AS a(attempt_id text, delivery_id text, attempt int, alert_id text,
       channel_type text, destination text, succeeded boolean, status_code int, error text, duration_ms int,
       attempted_at float8, next_attempt_at float8)
     ON CONFLICT (attempt_id) DO NOTHING`,
    [JSON.stringify(attempts)],
  );
}

export function deliveryAttemptsProjector(
  db: Queryable,
): ProcessorDefinition<DeliveryAttempted, DeliveryAttempted> {
  return {
    name: 'delivery-attempts-projector',
    groupId: 'projectors.delivery-attempts',
    inputs: [TOPICS.deliveriesAttempted],
    handle: (record) => ok(record.value),
    sink: {
      write: (items) => writeAttempts(db, items),
      probe: async () => {
        await db.query('SELECT 1');
      },
    },
  };
}
