import {
  canonicalUrl,
  type OutboundGuard,
  OutboundRefusedError,
  OutboundResolveError,
} from '../outbound/outbound-guard.ts';

/**
 * The URL of a webhook connection as the outbound guard reads it: its canonical form, the one
 * to store and connect to, or why it is refused (webhook-url rules in docs/alerts.md).
 */
export type Destination =
  | { ok: true; url: string }
  | {
      ok: false;
      reason: string;
      /** The address range refused (`loopback`, `private`, …) when the host is not public. */
      range?: string;
    };

/** A new destination: canonical, resolving only to permitted addresses. */
export async function checkDestination(guard: OutboundGuard, url: string): Promise<Destination> {
  try {
    return { ok: true, url: (await guard.check(url)).url.href };
  } catch (err) {
    if (err instanceof OutboundResolveError) return { ok: false, reason: 'does not resolve to an address' };
    if (err instanceof OutboundRefusedError) {
      return err.range
        ? { ok: false, reason: err.message, range: err.range }
        : { ok: false, reason: err.message };
    }
    throw err;
  }
}

/**
 * A stored destination (an older release may have kept another form): its canonical form, or
 * why nothing can be delivered to it. Addresses are checked again at each delivery.
 */
export function storedDestination(url: string): Destination {
  try {
    return { ok: true, url: canonicalUrl(url).href };
  } catch (err) {
    if (err instanceof OutboundRefusedError) return { ok: false, reason: err.message };
    throw err;
  }
}
