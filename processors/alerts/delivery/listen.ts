import type { WebhookConnection } from './connections/webhook-connections.ts';
import type { DeliveryKit } from './kit.ts';
import { canonicalUrl } from './outbound/outbound-guard.ts';

/**
 * A local receiver's session (`earshot webhooks listen`): the project's webhook connection named
 * `LISTEN_CONNECTION_NAME` — created the first time, then reused with its secret, pointed at the
 * receiver's current URL — and a lease that lets the outbound guard reach the receiver's
 * loopback address and port while the command runs. The command renews the lease; one it stops
 * renewing lapses after `LISTEN_LEASE_MS`, and deliveries to the connection are refused again.
 */
export const LISTEN_CONNECTION_NAME = 'earshot webhooks listen';
export const LISTEN_LEASE_MS = 30_000;

export interface ListenSession {
  connection: WebhookConnection;
  /** The connection's signing secret: the receiver verifies every delivery with it. */
  secret: string;
  /** True when an earlier session's connection was reused (alerts that notify it reach this one). */
  reused: boolean;
  leaseId: string;
  leaseMs: number;
}

export class ListenRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenRefusedError';
  }
}

/** Opens a session for a receiver at `url`: `http://<loopback IP>:<port>/…`. */
export async function openListenSession(
  kit: DeliveryKit,
  input: { projectId: string; url: string },
): Promise<ListenSession> {
  let url: URL;
  try {
    url = canonicalUrl(input.url);
  } catch (err) {
    throw new ListenRefusedError(`the receiver's URL ${input.url} ${(err as Error).message}`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let lease: ReturnType<DeliveryKit['guard']['lease']>;
  try {
    lease = kit.guard.lease(
      host,
      Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
      LISTEN_LEASE_MS,
    );
  } catch (err) {
    throw new ListenRefusedError(
      `the receiver must listen on a loopback IP address: ${(err as Error).message}`,
    );
  }
  try {
    // The lease is in place: the guard reads the URL as it will at delivery.
    const checked = (await kit.guard.check(url.href)).url.href;
    const existing = await kit.webhooks.findByName(input.projectId, LISTEN_CONNECTION_NAME);
    if (existing) {
      const connection = (await kit.webhooks.setUrl(input.projectId, existing.id, checked)) ?? existing;
      const secret = (await kit.webhooks.forDelivery([existing.id])).get(existing.id)!.secret;
      return { connection, secret, reused: true, leaseId: lease.id, leaseMs: LISTEN_LEASE_MS };
    }
    const { connection, secret } = await kit.webhooks.create({
      projectId: input.projectId,
      url: checked,
      name: LISTEN_CONNECTION_NAME,
    });
    return { connection, secret, reused: false, leaseId: lease.id, leaseMs: LISTEN_LEASE_MS };
  } catch (err) {
    kit.guard.release(lease.id);
    throw err;
  }
}

/** Keeps a session's lease for another `LISTEN_LEASE_MS`; false when it has lapsed or ended. */
export function renewListenSession(kit: DeliveryKit, leaseId: string): boolean {
  return kit.guard.renew(leaseId, LISTEN_LEASE_MS) !== undefined;
}

/** Ends a session: its receiver is refused again at once. */
export function closeListenSession(kit: DeliveryKit, leaseId: string): boolean {
  return kit.guard.release(leaseId);
}
