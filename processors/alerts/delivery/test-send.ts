import type { MatchDocument } from '../presentation/match-document.ts';
import { newAttemptId } from './channels/attempt.ts';
import { matchEnvelope } from './channels/envelope.ts';
import { sendWebhook } from './channels/webhook-sender.ts';
import type { DeliverableWebhook } from './connections/webhook-connections.ts';
import type { AlertInfo } from './content.ts';
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
  // A test send has no delivery record: the link points at the alert.
  const link = `${kit.settings.publicUrl}/v1/alerts/${encodeURIComponent(alert.id)}`;
  const deliveries = await Promise.all(connections.map((c) => sendTest(kit, c, alert, match, link)));
  return { status: 'sent', deliveries };
}

/**
 * A test send to one webhook connection of a project, before any alert uses it: the same
 * real-shaped, signed `alert.match.created` with `test: true`, on a sample match of a sample
 * alert. `link` is the envelope's `url`. Undefined when the project has no such live connection.
 */
export async function sendTestToConnection(
  kit: DeliveryKit,
  projectId: string,
  connectionId: string,
  link: string,
): Promise<TestDelivery | undefined> {
  const connection = (await kit.webhooks.forDelivery([connectionId])).get(connectionId);
  if (!connection || connection.deleted_at || connection.project_id !== projectId) return undefined;
  const alert: AlertInfo = {
    id: 'alrt_test',
    project_id: projectId,
    organization_id: '',
    title: 'Test alert',
    kind: 'ENTITY_MENTION',
    is_active: true,
    deleted: false,
    webhook_connection_ids: [connection.id],
    entities: [{ entity_type: 'COMPANY', entity_id: 'ent_test' }],
  };
  return sendTest(kit, connection, alert, await kit.content.sampleMatch(alert), link);
}

async function sendTest(
  kit: DeliveryKit,
  connection: DeliverableWebhook,
  alert: AlertInfo,
  match: MatchDocument,
  link: string,
): Promise<TestDelivery> {
  const attemptId = newAttemptId();
  const envelope = matchEnvelope({ attemptId, url: link, alert, match, test: true });
  const res = await sendWebhook(kit.http, {
    url: connection.url,
    secret: connection.secret,
    attemptId,
    body: JSON.stringify(envelope),
    timeoutMs: kit.settings.requestTimeoutMs,
  });
  return {
    webhook_connection_id: connection.id,
    url: connection.url,
    delivered: res.outcome === 'delivered',
    status_code: res.statusCode,
    duration_ms: res.durationMs,
    error: res.error,
  };
}
