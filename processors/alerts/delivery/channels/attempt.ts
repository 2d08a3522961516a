import { newId } from '../../../../projections/state/accounts.ts';
import type { ChannelType } from '../../../../schemas/event-enums.ts';
import type { MatchDocument } from '../../presentation/match-document.ts';
import type { AlertInfo, DeliveryContent } from '../content.ts';
import type { DeliveryJob } from '../jobs.ts';

/**
 * One attempt at one delivery, as a channel reports it:
 * - `delivered`: the destination accepted it;
 * - `failed`: worth retrying on the schedule (non-2xx, timeout, connection error);
 * - `abandon`: an attempt was made (or refused) and retrying cannot help;
 * - `skip`: nothing was sent and nothing will be (connection deleted, alert deleted, address
 *   unverified, only backfilled matches): the delivery ends without an attempt;
 * - `defer`: not attempted yet because what it carries is not readable yet (the match
 *   projection lags the planner); tried again shortly without counting an attempt.
 */
export type AttemptResult =
  | {
      outcome: 'delivered' | 'failed' | 'abandon';
      attemptId: string;
      destination: string;
      statusCode: number | null;
      error: string | null;
      durationMs: number;
      retryAfterMs?: number;
    }
  | { outcome: 'skip'; destination: string; reason: string }
  | { outcome: 'defer'; destination: string; reason: string; delayMs: number };

export interface ChannelSender {
  readonly type: ChannelType;
  /** Loads what a batch of jobs needs in bulk; returns the attempt function for each job. */
  prepare(jobs: DeliveryJob[]): Promise<(job: DeliveryJob) => Promise<AttemptResult>>;
  /** Per-destination limits: the dispatcher claims no more jobs for a connection than it has room for. */
  load?(): { perConnection: number; inFlight: Record<string, number> };
}

/** How long a delivery waits for its matches to become readable before it is dropped. */
const CONTENT_GRACE_MS = 60 * 60_000;
const DEFER_MS = 250;

export function unique(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];
}

/** What every sender needs. */
export interface CommonDeps {
  content: DeliveryContent;
  /** The API's public URL (alert-disable links). */
  publicUrl: string;
  /** The dashboard's public address (delivery pages). */
  dashboardUrl: string;
  now: () => number;
}

/** Loads alerts and matches for a batch, and resolves one job's matches (oldest first). */
export async function loadContent(deps: CommonDeps, jobs: DeliveryJob[]) {
  const [alerts, matches] = await Promise.all([
    deps.content.alerts(unique(jobs.map((j) => j.alert_id))),
    deps.content.matches(unique(jobs.flatMap((j) => j.match_ids))),
  ]);
  return {
    alerts,
    /** The job's alert and matches, or the skip/defer result that ends or postpones it. */
    resolve(
      job: DeliveryJob,
      destination: string,
    ): { alert: AlertInfo; docs: MatchDocument[] } | Extract<AttemptResult, { outcome: 'skip' | 'defer' }> {
      const alert = alerts.get(job.alert_id);
      if (!alert || alert.deleted) return { outcome: 'skip', destination, reason: 'alert deleted' };
      const docs = job.match_ids
        .map((id) => matches.get(id))
        .filter((m): m is MatchDocument => m !== undefined);
      if (docs.length < job.match_ids.length) {
        if (deps.now() - job.requested_at > CONTENT_GRACE_MS) {
          if (docs.length === 0) return { outcome: 'skip', destination, reason: 'matches not found' };
        } else {
          return { outcome: 'defer', destination, reason: 'matches not readable yet', delayMs: DEFER_MS };
        }
      }
      docs.sort((a, b) => Date.parse(a.detected_at) - Date.parse(b.detected_at));
      return { alert, docs };
    },
  };
}

export function isResult(x: unknown): x is AttemptResult {
  return typeof x === 'object' && x !== null && 'outcome' in x;
}

export function newAttemptId(): string {
  return newId('msg');
}
