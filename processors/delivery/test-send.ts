import { newAttemptId, sendWebhook } from './channels.ts';
import { matchEnvelope } from './envelope.ts';
import type { DeliveryKit } from './kit.ts';
import { OutboundRefusedError, OutboundResolveError } from './outbound-guard.ts';

/** The outcome of a test send to one webhook connection. */
export interface TestDelivery {
  webhook_connection_id: string;
  url: string;
  /** true when the endpoint answered 2xx */
  delivered: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** A destination URL as the outbound guard reads it: its canonical form, or why it is refused. */
export type Destination = { ok: true; url: string } | { ok: false; reason: string };

/** A new webhook destination: canonical, resolving only to permitted addresses. */
export async function checkDestination(kit: Pick<DeliveryKit, 'guard'>, url: string): Promise<Destination> {
  try {
    return { ok: true, url: (await kit.guard.check(url)).url.href };
  } catch (err) {
    if (err instanceof OutboundResolveError) return { ok: false, reason: 'does not resolve to an address' };
    if (err instanceof OutboundRefusedError) return { ok: false, reason: err.message };
    throw err;
  }
}

/**
 * A test send to one webhook connection of a project, before any alert uses it: a real-shaped
 * `alert.match.created` with `test: true` on a sample match, signed with the connection's secret
 * like every delivery. Nothing is stored. `link` is the envelope's `url`. Undefined when the
 * project has no such live connection.
 */
export async function sendTestToConnection(
  kit: DeliveryKit,
  projectId: string,
  connectionId: string,
  link: string,
): Promise<TestDelivery | undefined> {
  const connection = (await kit.webhooks.forDelivery([connectionId])).get(connectionId);
  if (!connection || connection.deleted_at || connection.project_id !== projectId) return undefined;
  const alert = {
    id: 'alrt_test',
    project_id: projectId,
    organization_id: '',
    title: 'Test alert',
    kind: 'ENTITY_MENTION' as const,
    is_active: true,
    deleted: false,
    webhook_connection_ids: [connection.id],
    entities: [{ entity_type: 'COMPANY', entity_id: 'ent_test' }],
  };
  const match = await kit.content.sampleMatch(alert);
  const attemptId = newAttemptId();
  const res = await sendWebhook(kit.http, {
    url: connection.url,
    secret: connection.secret,
    attemptId,
    body: JSON.stringify(matchEnvelope({ attemptId, url: link, alert, match, test: true })),
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
