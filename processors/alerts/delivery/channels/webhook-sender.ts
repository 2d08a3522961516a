import { deliveryPageUrl } from '../../presentation/match-document.ts';
import type { WebhookConnections } from '../connections/webhook-connections.ts';
import type { DeliveryJob } from '../jobs.ts';
import type { OutboundHttp } from '../outbound/outbound-http.ts';
import { parseRetryAfter } from '../retry-schedule.ts';
import {
  type AttemptResult,
  type ChannelSender,
  type CommonDeps,
  isResult,
  loadContent,
  newAttemptId,
  unique,
} from './attempt.ts';
import { digestEnvelope, matchEnvelope } from './envelope.ts';
import { signWebhook } from './webhook-signature.ts';

export interface WebhookSenderDeps extends CommonDeps {
  connections: WebhookConnections;
  http: OutboundHttp;
  timeoutMs: number;
  /** Most attempts in flight to one connection (default 128; at most 64 connections per origin). */
  perConnection?: number;
}

const PER_CONNECTION_IN_FLIGHT = 128;

/** Signed webhook POSTs: `alert.match.created` per realtime match, `alert.digest.created` per digest. */
export class WebhookSender implements ChannelSender {
  readonly type = 'WEBHOOK' as const;
  /**
   * Attempts in flight per connection, and the attempts waiting for one of its slots: a slow
   * endpoint holds at most `perConnection` attempts, and the dispatcher claims no more jobs for
   * it while it is at that limit (see `saturated`), so other endpoints keep being served.
   */
  private readonly slots = new Map<string, { busy: number; waiting: (() => void)[] }>();
  private readonly perConnection: number;

  constructor(private readonly deps: WebhookSenderDeps) {
    this.perConnection = deps.perConnection ?? PER_CONNECTION_IN_FLIGHT;
  }

  load(): { perConnection: number; inFlight: Record<string, number> } {
    const inFlight: Record<string, number> = {};
    for (const [id, s] of this.slots) inFlight[id] = s.busy + s.waiting.length;
    return { perConnection: this.perConnection, inFlight };
  }

  private async acquire(id: string): Promise<void> {
    let slot = this.slots.get(id);
    if (!slot) {
      slot = { busy: 0, waiting: [] };
      this.slots.set(id, slot);
    }
    if (slot.busy >= this.perConnection) await new Promise<void>((resolve) => slot.waiting.push(resolve));
    slot.busy++;
  }

  private release(id: string): void {
    const slot = this.slots.get(id);
    if (!slot) return;
    slot.busy--;
    const next = slot.waiting.shift();
    if (next) next();
    else if (slot.busy === 0) this.slots.delete(id);
  }

  async prepare(jobs: DeliveryJob[]) {
    const [connections, content] = await Promise.all([
      this.deps.connections.forDelivery(unique(jobs.map((j) => j.channel.webhook_connection_id))),
      loadContent(this.deps, jobs),
    ]);
    return async (job: DeliveryJob): Promise<AttemptResult> => {
      const connection = connections.get(job.channel.webhook_connection_id ?? '');
      const destination = connection?.url ?? String(job.channel.webhook_connection_id);
      if (!connection || connection.deleted_at) {
        return { outcome: 'skip', destination, reason: 'webhook connection deleted' };
      }
      const resolved = content.resolve(job, destination);
      if (isResult(resolved)) return resolved;
      await this.acquire(connection.id);
      try {
        const attemptId = newAttemptId();
        const url = deliveryPageUrl(this.deps.dashboardUrl, job.delivery_id);
        const envelope =
          job.cadence === 'REALTIME'
            ? matchEnvelope({ attemptId, url, alert: resolved.alert, match: resolved.docs[0]! })
            : digestEnvelope({
                attemptId,
                url,
                alert: resolved.alert,
                matches: resolved.docs.map((m) => this.deps.content.summarize(m)),
              });
        const result = await sendWebhook(this.deps.http, {
          url: connection.url,
          secret: connection.secret,
          attemptId,
          body: JSON.stringify(envelope),
          timeoutMs: this.deps.timeoutMs,
        });
        return { ...result, attemptId, destination };
      } finally {
        this.release(connection.id);
      }
    };
  }
}

export interface WebhookSendResult {
  outcome: 'delivered' | 'failed' | 'abandon';
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  retryAfterMs?: number;
}

/** One signed POST: any 2xx is success; redirects are failures; refusals are final. */
export async function sendWebhook(
  http: OutboundHttp,
  input: { url: string; secret: string; attemptId: string; body: string; timeoutMs: number },
): Promise<WebhookSendResult> {
  const headers = signWebhook(input.secret, input.attemptId, Math.floor(Date.now() / 1000), input.body);
  const res = await http.post({
    url: input.url,
    body: input.body,
    headers: headers as unknown as Record<string, string>,
    timeoutMs: input.timeoutMs,
  });
  if (res.status === undefined) {
    return {
      outcome: res.refused ? 'abandon' : 'failed',
      statusCode: null,
      error: res.error ?? 'no response',
      durationMs: res.durationMs,
    };
  }
  if (res.status >= 200 && res.status < 300) {
    return { outcome: 'delivered', statusCode: res.status, error: null, durationMs: res.durationMs };
  }
  const redirect = res.status >= 300 && res.status < 400;
  return {
    outcome: 'failed',
    statusCode: res.status,
    error: redirect ? `HTTP ${res.status} (redirects are not followed)` : `HTTP ${res.status}`,
    durationMs: res.durationMs,
    retryAfterMs: parseRetryAfter(res.headers?.['retry-after'], Date.now()),
  };
}
