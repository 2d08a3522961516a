import { newAttemptId } from './channels/attempt.ts';
import { matchEnvelope } from './channels/envelope.ts';
import { sendWebhook } from './channels/webhook-sender.ts';
import type { DeliveryKit } from './kit.ts';

/**
 * A test send of an alert to its webhooks: a real-shaped `alert.match.created` with
 * `test: true` (the alert's newest match, or a sample on its first entity), signed like every
 * delivery, to every live webhook connection the alert names. Nothing is stored; an endpoint
 * that fails is `delivered: false`.
 */
export interface TestDelivery {
  webhook_connection_id: string;
  url: string;
  /** true when the endpoint answered 2xx */
  delivered: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export type TestSend =
  /** No live alert of that id in the project. */
  | { status: 'no_alert' }
  /** The alert names no live webhook connection. */
  | { status: 'no_connection'; alertId: string }
  | { status: 'sent'; deliveries: TestDelivery[] };

export async function sendTestWebhooks(
  kit: DeliveryKit,
  alertId: string,
  projectId: string,
): Promise<TestSend> {
  const alert = (await kit.content.alerts([alertId])).get(alertId);
  if (!alert || alert.deleted || alert.project_id !== projectId) return { status: 'no_alert' };
  const connections = [...(await kit.webhooks.forDelivery(alert.webhook_connection_ids)).values()].filter(
    (c) => !c.deleted_at,
  );
  if (connections.length === 0) return { status: 'no_connection', alertId: alert.id };
  const match = await kit.content.sampleMatch(alert);
  const deliveries = await Promise.all(
    connections.map(async (c) => {
      const attemptId = newAttemptId();
      const envelope = matchEnvelope({
        attemptId,
        // A test send has no delivery record: the link points at the alert.
        url: `${kit.settings.publicUrl}/v1/alerts/${encodeURIComponent(alert.id)}`,
        alert,
        match,
        test: true,
      });
      const res = await sendWebhook(kit.http, {
        url: c.url,
        secret: c.secret,
        attemptId,
        body: JSON.stringify(envelope),
        timeoutMs: kit.settings.requestTimeoutMs,
      });
      return {
        webhook_connection_id: c.id,
        url: c.url,
        delivered: res.outcome === 'delivered',
        status_code: res.statusCode,
        duration_ms: res.durationMs,
        error: res.error,
      };
    }),
  );
  return { status: 'sent', deliveries };
}
