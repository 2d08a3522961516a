import { newId } from '../../../../projections/state/accounts.ts';
import type { Queryable } from '../../../../projections/state/state-store.ts';
import type { ChannelType } from '../../../../schemas/event-enums.ts';
import { deliveryPageUrl, type MatchDocument } from '../../presentation/match-document.ts';
import type { ChatConnections } from '../connections/chat-connections.ts';
import type { WebhookConnections } from '../connections/webhook-connections.ts';
import type { AlertInfo, DeliveryContent } from '../content.ts';
import type { DeliveryJob } from '../jobs.ts';
import type { OutboundHttp } from '../outbound/outbound-http.ts';
import { parseRetryAfter } from '../retry-schedule.ts';
import type { TokenSigner } from '../secrets.ts';
import { type ChatApi, PERMANENT_CHAT_ERRORS } from './chat-api.ts';
import { digestEnvelope, matchEnvelope } from './envelope.ts';
import { isPermanentMailError, type Mailer } from './mailer.ts';
import { renderChat, renderEmail } from './render.ts';
import { signWebhook } from './webhook-signature.ts';

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

function unique(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];
}

export interface CommonDeps {
  content: DeliveryContent;
  publicUrl: string;
  now: () => number;
}

/** Loads alerts and matches for a batch, and resolves one job's matches (oldest first). */
async function loadContent(deps: CommonDeps, jobs: DeliveryJob[]) {
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

function isResult(x: unknown): x is AttemptResult {
  return typeof x === 'object' && x !== null && 'outcome' in x;
}

export function newAttemptId(): string {
  return newId('msg');
}

export interface WebhookChannelDeps extends CommonDeps {
  connections: WebhookConnections;
  http: OutboundHttp;
  timeoutMs: number;
  /** Most attempts in flight to one connection (default 128; at most 64 connections per origin). */
  perConnection?: number;
}

const PER_CONNECTION_IN_FLIGHT = 128;

/** Signed webhook POSTs: `alert.match.created` per realtime match, `alert.digest.created` per digest. */
export class WebhookChannel implements ChannelSender {
  readonly type = 'WEBHOOK' as const;
  /**
   * Attempts in flight per connection, and the attempts waiting for one of its slots: a slow
   * endpoint holds at most `perConnection` attempts, and the dispatcher claims no more jobs for
   * it while it is at that limit (see `saturated`), so other endpoints keep being served.
   */
  private readonly slots = new Map<string, { busy: number; waiting: (() => void)[] }>();
  private readonly perConnection: number;

  constructor(private readonly deps: WebhookChannelDeps) {
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
        const url = deliveryPageUrl(this.deps.publicUrl, job.delivery_id);
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

export interface EmailChannelDeps extends CommonDeps {
  db: Queryable;
  mailer?: Mailer;
  disableTokens: TokenSigner;
  entityNames(ids: string[]): Promise<Map<string, string>>;
}

export function disableUrl(publicUrl: string, tokens: TokenSigner, alertId: string, email: string): string {
  const token = tokens.sign({ a: alertId, e: email.toLowerCase() });
  return `${publicUrl.replace(/\/$/, '')}/v1/alerts/disable?token=${encodeURIComponent(token)}`;
}

/** One email per recipient: realtime per match, digests per window; verified addresses only; never backfills. */
export class EmailChannel implements ChannelSender {
  readonly type = 'EMAIL' as const;

  constructor(private readonly deps: EmailChannelDeps) {}

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
        deliveryUrl: deliveryPageUrl(this.deps.publicUrl, job.delivery_id),
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

export interface ChatChannelDeps extends CommonDeps {
  connections: ChatConnections;
  api: ChatApi;
  entityNames(ids: string[]): Promise<Map<string, string>>;
}

/** Posts matches to the attached channel through the chat Web API. */
export class ChatChannel implements ChannelSender {
  readonly type = 'CHAT' as const;

  constructor(private readonly deps: ChatChannelDeps) {}

  async prepare(jobs: DeliveryJob[]) {
    const [connections, content] = await Promise.all([
      this.deps.connections.forDelivery(unique(jobs.map((j) => j.channel.chat_connection_id))),
      loadContent(this.deps, jobs),
    ]);
    return async (job: DeliveryJob): Promise<AttemptResult> => {
      const connection = connections.get(job.channel.chat_connection_id ?? '');
      const destination = `${job.channel.chat_connection_id}/${job.channel.chat_channel_id}`;
      if (!connection || connection.deleted_at) {
        return { outcome: 'skip', destination, reason: 'chat connection deleted' };
      }
      const resolved = content.resolve(job, destination);
      if (isResult(resolved)) return resolved;
      const attemptId = newAttemptId();
      const names = await this.deps.entityNames(unique(resolved.docs.map((m) => m.entity_id)));
      const message = renderChat({
        alert: resolved.alert,
        cadence: job.cadence,
        matches: resolved.docs,
        entityNames: names,
        deliveryUrl: deliveryPageUrl(this.deps.publicUrl, job.delivery_id),
      });
      const res = await this.deps.api.postMessage(connection.token, {
        channel: job.channel.chat_channel_id ?? '',
        ...message,
      });
      const base = { attemptId, destination, statusCode: res.status ?? null, durationMs: res.durationMs };
      if (res.ok) return { ...base, outcome: 'delivered', error: null };
      const permanent = res.refused || PERMANENT_CHAT_ERRORS.has(res.error ?? '');
      return {
        ...base,
        outcome: permanent ? 'abandon' : 'failed',
        error: res.error ?? 'chat API error',
        retryAfterMs: res.retryAfterMs,
      };
    };
  }
}
