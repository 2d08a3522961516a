import type { Queryable } from '../../../../projections/state/state-store.ts';
import { deliveryPageUrl } from '../../presentation/match-document.ts';
import type { DeliveryJob } from '../jobs.ts';
import type { TokenSigner } from '../secrets.ts';
import {
  type AttemptResult,
  type ChannelSender,
  type CommonDeps,
  isResult,
  loadContent,
  newAttemptId,
  unique,
} from './attempt.ts';
import { isPermanentMailError, type Mailer } from './mailer.ts';
import { renderEmail } from './render.ts';

export interface EmailSenderDeps extends CommonDeps {
  db: Queryable;
  mailer?: Mailer;
  disableTokens: TokenSigner;
  entityNames(ids: string[]): Promise<Map<string, string>>;
}

function disableUrl(publicUrl: string, tokens: TokenSigner, alertId: string, email: string): string {
  const token = tokens.sign({ a: alertId, e: email.toLowerCase() });
  return `${publicUrl.replace(/\/$/, '')}/v1/alerts/disable?token=${encodeURIComponent(token)}`;
}

/** One email per recipient: realtime per match, digests per window; verified addresses only; never backfills. */
export class EmailSender implements ChannelSender {
  readonly type = 'EMAIL' as const;

  constructor(private readonly deps: EmailSenderDeps) {}

  async prepare(jobs: DeliveryJob[]) {
    const addresses = unique(jobs.map((j) => j.channel.email?.toLowerCase()));
    const [content, verified] = await Promise.all([
      loadContent(this.deps, jobs),
      this.deps.db.query<{ project_id: string; email: string }>(
        `SELECT p.id AS project_id, lower(ne.email) AS email
         FROM projects p JOIN notification_emails ne ON ne.organization_id = p.organization_id
         WHERE p.id = ANY($1::text[]) AND lower(ne.email) = ANY($2::text[])
           AND ne.verified_at IS NOT NULL AND ne.deleted_at IS NULL`,
        [unique(jobs.map((j) => j.project_id)), addresses],
      ),
    ]);
    const ok = new Set(verified.map((v) => `${v.project_id}|${v.email}`));
    return async (job: DeliveryJob): Promise<AttemptResult> => {
      const to = job.channel.email ?? '';
      const destination = to;
      if (!ok.has(`${job.project_id}|${to.toLowerCase()}`)) {
        return { outcome: 'skip', destination, reason: 'recipient address is not verified' };
      }
      const resolved = content.resolve(job, destination);
      if (isResult(resolved)) return resolved;
      const docs = resolved.docs.filter((m) => !m.is_backfilled);
      if (docs.length === 0) {
        return { outcome: 'skip', destination, reason: 'backfilled matches never send email' };
      }
      const attemptId = newAttemptId();
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      if (!this.deps.mailer) {
        return {
          outcome: 'failed',
          attemptId,
          destination,
          statusCode: null,
          error: 'email is unavailable: SMTP_URL is not set',
          durationMs: 0,
        };
      }
      const names = await this.deps.entityNames(unique(docs.map((m) => m.entity_id)));
      const unsubscribe = disableUrl(this.deps.publicUrl, this.deps.disableTokens, job.alert_id, to);
      const body = renderEmail({
        alert: resolved.alert,
        cadence: job.cadence,
        matches: docs,
        entityNames: names,
        deliveryUrl: deliveryPageUrl(this.deps.dashboardUrl, job.delivery_id),
        windowStart: job.window_start,
        windowEnd: job.window_end,
        recipient: to,
        disableUrl: unsubscribe,
      });
      try {
        await this.deps.mailer.send({
          to,
          ...body,
          headers: {
            'List-Unsubscribe': `<${unsubscribe}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            'X-Earshot-Delivery-Id': job.delivery_id,
            'X-Earshot-Alert-Id': job.alert_id,
          },
        });
        return {
          outcome: 'delivered',
          attemptId,
          destination,
          statusCode: null,
          error: null,
          durationMs: elapsed(),
        };
      } catch (err) {
        const e = err as { responseCode?: number; message?: string };
        return {
          outcome: isPermanentMailError(err) ? 'abandon' : 'failed',
          attemptId,
          destination,
          statusCode: e.responseCode ?? null,
          error: `smtp: ${(e.message ?? String(err)).slice(0, 300)}`,
          durationMs: elapsed(),
        };
      }
    };
  }
}
