import type { StateStore } from '../../../projections/state/state-store.ts';
import type { Cadence } from '../../../schemas/event-enums.ts';
import type { DeliveryRequested } from '../../../schemas/generated/index.ts';
import { channelKey } from '../model.ts';

/** Finished jobs (delivered or abandoned) are kept this long, then pruned. */
export const JOB_RETENTION_MS = 30 * 86_400_000;
export type DeliveryChannel = DeliveryRequested['channel'];

/** A delivery the senders still owe: one channel of one alert, one match or a digest window. */
export interface DeliveryJob {
  /** `<delivery_id>|<channel key>`: a delivery has one job per channel. */
  job_id: string;
  delivery_id: string;
  alert_id: string;
  project_id: string;
  cadence: Cadence;
  channel: DeliveryChannel;
  match_ids: string[];
  window_start: number | null;
  window_end: number | null;
  requested_at: number;
  /** Attempts made so far. */
  attempts: number;
  next_attempt_at: number;
}

export interface JobUpdate {
  job_id: string;
  state: 'PENDING' | 'DELIVERED' | 'ABANDONED';
  attempts: number;
  /** For PENDING: when to try again. */
  next_attempt_at: number | null;
  last_error: string | null;
}

/** A job as the driver returns its row: times are timestamps. */
type JobRow = Omit<DeliveryJob, 'window_start' | 'window_end' | 'requested_at' | 'next_attempt_at'> & {
  window_start: Date | null;
  window_end: Date | null;
  requested_at: Date;
  next_attempt_at: Date;
};

const ms = (d: Date | string | null): number | null => (d === null ? null : new Date(d).getTime());

function jobOf(r: JobRow): DeliveryJob {
  return {
    job_id: r.job_id,
    delivery_id: r.delivery_id,
    alert_id: r.alert_id,
    project_id: r.project_id,
    cadence: r.cadence,
    channel: r.channel,
    match_ids: r.match_ids,
    window_start: ms(r.window_start),
    window_end: ms(r.window_end),
    requested_at: ms(r.requested_at)!,
    attempts: r.attempts,
    next_attempt_at: ms(r.next_attempt_at)!,
  };
}

/**
 * The senders' durable schedule in the state store (`delivery_jobs`). Requests are enqueued
 * idempotently (a replayed request is ignored); due jobs are claimed with a lease so several
 * sender processes on one PostgreSQL never attempt the same delivery at once.
 */
export function jobIdOf(deliveryId: string, channel: DeliveryChannel): string {
  return `${deliveryId}|${channelKey(channel)}`;
}

export class DeliveryJobs {
  constructor(private readonly db: StateStore) {}

  /**
   * Records requested deliveries, due at `now`; a delivery id already known is left alone, and a
   * request older than the retention of finished jobs is ignored (a topic replay must not send
   * deliveries again whose jobs were pruned).
   */
  async enqueue(requests: DeliveryRequested[], now: number): Promise<number> {
    const fresh = requests.filter((r) => r.requested_at > now - JOB_RETENTION_MS);
    if (fresh.length === 0) return 0;
    const rows = fresh.map((r) => ({
      job_id: jobIdOf(r.delivery_id, r.channel),
      delivery_id: r.delivery_id,
      alert_id: r.alert_id,
      project_id: r.project_id,
      cadence: r.cadence,
      channel_type: r.channel.type,
      channel: r.channel,
      match_ids: r.match_ids,
      window_start: r.window_start,
      window_end: r.window_end,
      requested_at: r.requested_at,
    }));
    const inserted = await this.db.query<{ job_id: string }>(
      `INSERT INTO delivery_jobs (job_id, delivery_id, alert_id, project_id, cadence, channel_type, channel, match_ids,
         window_start, window_end, requested_at, next_attempt_at)
       SELECT r.job_id, r.delivery_id, r.alert_id, r.project_id, r.cadence, r.channel_type, r.channel, r.match_ids,
         to_timestamp(r.window_start / 1000.0), to_timestamp(r.window_end / 1000.0),
         to_timestamp(r.requested_at / 1000.0), to_timestamp($2 / 1000.0)
       FROM jsonb_to_recordset($1::jsonb) AS r(job_id text, delivery_id text, alert_id text, project_id text, cadence text,
         channel_type text, channel jsonb, match_ids jsonb, window_start float8, window_end float8, requested_at float8)
       ON CONFLICT (job_id) DO NOTHING
       RETURNING job_id`,
      [JSON.stringify(rows), now],
    );
    return inserted.length;
  }

  /**
   * Claims up to `limit` due jobs for `owner` until `now + leaseMs`, oldest due first. Webhook
   * jobs are capped per connection — at most `perConnection` minus what `inFlight` says the
   * connection already has — so one slow or busy endpoint cannot fill a claim; connections with
   * no room are left out before the oldest `4 × limit` due jobs are considered.
   */
  async claim(
    owner: string,
    now: number,
    limit: number,
    leaseMs: number,
    caps: { perConnection: number; inFlight: Record<string, number> } = {
      perConnection: 1_000_000,
      inFlight: {},
    },
  ): Promise<DeliveryJob[]> {
    if (limit <= 0) return [];
    const full = Object.entries(caps.inFlight)
      .filter(([, n]) => n >= caps.perConnection)
      .map(([id]) => id);
    const rows = await this.db.query<JobRow>(
      `UPDATE delivery_jobs j SET lease_owner = $1, lease_until = to_timestamp($3 / 1000.0)
       WHERE j.job_id IN (
         SELECT due.job_id FROM (
           SELECT d.job_id, d.next_attempt_at, d.connection_id,
             row_number() OVER (PARTITION BY COALESCE(d.connection_id, d.job_id) ORDER BY d.next_attempt_at) AS rank
           FROM (
             SELECT job_id, next_attempt_at,
               CASE WHEN channel_type = 'WEBHOOK' THEN channel->>'webhook_connection_id' END AS connection_id
             FROM delivery_jobs
             WHERE state = 'PENDING' AND next_attempt_at <= to_timestamp($2 / 1000.0)
               AND (lease_owner IS NULL OR (lease_owner <> $1 AND lease_until < to_timestamp($2 / 1000.0)))
               AND NOT (channel_type = 'WEBHOOK' AND channel->>'webhook_connection_id' = ANY($7::text[]))
             ORDER BY next_attempt_at LIMIT $4 * 4
           ) d
         ) due
         LEFT JOIN jsonb_each_text($6::jsonb) AS busy(connection_id, n) ON busy.connection_id = due.connection_id
         WHERE due.connection_id IS NULL OR due.rank <= $5 - COALESCE(busy.n::int, 0)
         ORDER BY due.next_attempt_at LIMIT $4)
       AND j.state = 'PENDING'
       AND (j.lease_owner IS NULL OR (j.lease_owner <> $1 AND j.lease_until < to_timestamp($2 / 1000.0)))
       RETURNING j.job_id, j.delivery_id, j.alert_id, j.project_id, j.cadence, j.channel, j.match_ids, j.window_start,
         j.window_end, j.requested_at, j.attempts, j.next_attempt_at`,
      [owner, now, now + leaseMs, limit, caps.perConnection, JSON.stringify(caps.inFlight), full],
    );
    return rows.map(jobOf).sort((a, b) => a.next_attempt_at - b.next_attempt_at);
  }

  /** Records the result of attempts and releases their leases. */
  async complete(updates: JobUpdate[], now: number): Promise<void> {
    if (updates.length === 0) return;
    await this.db.query(
      `UPDATE delivery_jobs j SET state = u.state, attempts = u.attempts,
         next_attempt_at = COALESCE(to_timestamp(u.next_attempt_at / 1000.0), j.next_attempt_at),
         last_error = u.last_error, lease_owner = NULL, lease_until = NULL, updated_at = to_timestamp($2 / 1000.0)
       FROM jsonb_to_recordset($1::jsonb) AS u(job_id text, state text, attempts int, next_attempt_at float8,
         last_error text)
       WHERE j.job_id = u.job_id`,
      [JSON.stringify(updates), now],
    );
  }

  /** Releases every lease (the embedded store is single-process: any lease left is a crashed run's). */
  async releaseAllLeases(): Promise<number> {
    const rows = await this.db.query(
      `UPDATE delivery_jobs SET lease_owner = NULL, lease_until = NULL
       WHERE state = 'PENDING' AND lease_owner IS NOT NULL RETURNING job_id`,
    );
    return rows.length;
  }

  /** Releases this owner's leases without counting an attempt (shutdown before sending). */
  async release(owner: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(
      `UPDATE delivery_jobs SET lease_owner = NULL, lease_until = NULL
       WHERE lease_owner = $1 AND job_id = ANY($2::text[])`,
      [owner, ids],
    );
  }

  /**
   * When the next job this owner could claim falls due (a job leased by another owner counts
   * from its lease's end), or undefined when none is pending.
   */
  async nextDueAt(owner: string, now: number, busyConnections: string[] = []): Promise<number | undefined> {
    const [row] = await this.db.query<{ at: Date | null }>(
      `SELECT min(CASE WHEN lease_owner IS NOT NULL AND lease_owner <> $1 AND lease_until > to_timestamp($2 / 1000.0)
                  THEN lease_until ELSE next_attempt_at END) AS at
       FROM delivery_jobs WHERE state = 'PENDING' AND (lease_owner IS NULL OR lease_owner <> $1)
         AND NOT (channel_type = 'WEBHOOK' AND channel->>'webhook_connection_id' = ANY($3::text[]))`,
      [owner, now, busyConnections],
    );
    return row?.at ? new Date(row.at).getTime() : undefined;
  }

  /** Deletes jobs finished before `now - JOB_RETENTION_MS`. */
  async prune(now: number): Promise<number> {
    const rows = await this.db.query(
      `DELETE FROM delivery_jobs WHERE state <> 'PENDING' AND updated_at < to_timestamp($1 / 1000.0)
       RETURNING job_id`,
      [now - JOB_RETENTION_MS],
    );
    return rows.length;
  }

  async counts(): Promise<Record<string, number>> {
    const rows = await this.db.query<{ state: string; n: number }>(
      'SELECT state, count(*)::int AS n FROM delivery_jobs GROUP BY state',
    );
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  }
}
