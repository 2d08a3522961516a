import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type Accounts, isExpired, type Principal } from '../../projections/state/accounts.ts';
import { dashboardLink, dashboardPaths } from '../dashboard-paths.ts';
import { looksLikeJwt } from '../oauth/access-tokens.ts';
import type { AcceptedPayment } from '../payments/gate.ts';
import type { PayableResource } from '../payments/terms.ts';
import { problem } from '../problem.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A `/v1` route anyone may call without a credential (embeds, alert-disable links). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

const CACHE_MS = 5000;

/** A call paid for by the tool call that makes it: the tool call settles it, the route never does. */
export interface PaidInProcessCall {
  paid: { accepted: AcceptedPayment; resource: PayableResource };
}

/** Who an in-process call is made for: an account's principal, or a paid tool call. */
export type InProcessCaller = Principal | PaidInProcessCall;

/**
 * Calls this process makes to its own routes on a caller's behalf (the agent-tool server's tool
 * calls): the caller was authenticated already (or its tool call paid for), so the request
 * carries a one-time token that stands for its principal (or the payment) instead of a
 * credential. The token is 192 random bits, lives in this process's memory only until the
 * request is authenticated, and works once.
 */
export class InProcessCalls {
  static readonly HEADER = 'x-earshot-in-process-call';
  private readonly pending = new Map<string, InProcessCaller>();

  /** A token for one call as `caller`; `release` it when the call is over. */
  admit(caller: InProcessCaller): string {
    const token = randomBytes(24).toString('base64url');
    this.pending.set(token, caller);
    return token;
  }

  take(token: string): InProcessCaller | undefined {
    const principal = this.pending.get(token);
    this.pending.delete(token);
    return principal;
  }

  release(token: string): void {
    this.pending.delete(token);
  }
}

/**
 * Who may call a route: `api_key` for `/v1` routes unless marked `public` (no credential) or
 * `ingest` (ingest tokens, checked by the route); `open` for everything else (health, documents)
 * and for requests no route matched, which only ever get a 404 or 405 problem.
 *
 * Decided on the pattern the router matched (`request.routeOptions.url`), never on the request
 * URL: the router decodes percent-encoding (`/%761/…` is `/v1/…`), so a test on the raw URL
 * would let encoded spellings of a path skip authentication.
 */
export type RouteAccess = 'api_key' | 'public' | 'ingest' | 'open';

export function routeAccess(
  url: string | undefined,
  config: { public?: boolean; ingest?: boolean } | undefined,
): RouteAccess {
  if (url === undefined || !url.startsWith('/v1/')) return 'open';
  if (config?.ingest) return 'ingest';
  if (config?.public) return 'public';
  return 'api_key';
}

/** The access rule of the route a request matched (`open` when none did). */
export function accessOf(request: FastifyRequest): RouteAccess {
  return routeAccess(request.routeOptions.url, request.routeOptions.config);
}

/** The credential a request presents, in the order the docs recommend. */
export function presentedCredential(request: FastifyRequest): { key: string; via: string } | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return { key: header.trim(), via: 'header.x-api-key' };
  const auth = request.headers.authorization;
  // `Authorization: Payment …` pays for the request (see plugins/payments.ts); it is no account credential.
  if (typeof auth === 'string' && auth.length > 0 && !/^Payment(\s|$)/i.test(auth.trim())) {
    const m = /^Bearer\s+(.+)$/i.exec(auth);
    return { key: m ? m[1]!.trim() : auth, via: 'header.authorization' };
  }
  const query = (request.query as Record<string, unknown> | undefined)?.['api-key'];
  if (typeof query === 'string' && query.length > 0) return { key: query, via: 'query.api-key' };
  return undefined;
}

/**
 * API-key authentication for `/v1` routes. Any presented credential, even an invalid one,
 * takes the account path (401 when it does not verify, `api_key_expired` past its expiry). Keys
 * are looked up by SHA-256 digest; verified keys are cached for a few seconds. A revocation made
 * in this process drops the key from the cache at once; one made by another process sharing the
 * state store takes effect here within the cache time. An expiry takes effect at once: it is
 * checked on every request.
 */
export const authenticationPlugin = fp<{
  accounts: Accounts;
  dashboardUrl: string;
  inProcess: InProcessCalls;
  /** Whether a request without an account credential may pay for itself instead (payments on, route priced). */
  payable?: (request: FastifyRequest) => boolean;
}>(async (app: FastifyInstance, { accounts, dashboardUrl, inProcess, payable }) => {
  const cache = new Map<string, { principal?: Principal; until: number }>();
  const touched = new Map<string, number>();
  let revocations = 0;

  async function lookup(key: string): Promise<Principal | undefined> {
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.principal;
    const seen = revocations;
    const principal = await accounts.authenticate(key);
    if (cache.size > 10_000) cache.clear();
    // A lookup that a revocation overtook may have read the key as live: not cached.
    if (seen === revocations) cache.set(key, { principal, until: now + CACHE_MS });
    return principal;
  }

  // A key revoked in this process (dashboard, operator CLI through the admin socket) is
  // refused from the next request on, not after the cache's few seconds.
  const stop = accounts.onRevoked((keyId) => {
    revocations++;
    for (const [key, hit] of cache) if (hit.principal?.keyId === keyId) cache.delete(key);
  });
  app.addHook('onClose', async () => stop());

  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    if (accessOf(request) !== 'api_key') return;
    const call = request.headers[InProcessCalls.HEADER];
    if (typeof call === 'string') {
      const caller = inProcess.take(call);
      if (!caller) throw problem('authentication_required', 'This call is not one this process made.');
      // A paid tool call's REST call: served as paid, settled by the tool call (never here).
      if ('paid' in caller) request.payment = { ...caller.paid, done: true };
      else request.principal = caller;
      return;
    }
    const credential = presentedCredential(request);
    // No account credential on a route one may pay for: the payments plugin answers (402 or serves).
    if (!credential && payable?.(request)) return;
    if (!credential) {
      throw problem('authentication_required', 'Send your API key in the X-API-Key header.', {
        errors: [{ location: 'header.x-api-key', message: 'is required' }],
        headers: { 'www-authenticate': 'Bearer realm="earshot"' },
        resolve: {
          message:
            'Sign up or sign in to the dashboard, mint a key for your project, and send it as X-API-Key, Authorization: Bearer, or ?api-key=.',
          action: 'provide_api_key',
          url: dashboardLink(dashboardUrl, dashboardPaths.signIn()),
        },
      });
    }
    // OAuth access tokens are for the agent-tool server only; the REST API takes API keys.
    if (looksLikeJwt(credential.key)) {
      throw problem(
        'invalid_token',
        'OAuth access tokens are accepted only by the agent-tool server; the REST API takes API keys.',
        {
          errors: [{ location: credential.via, message: 'is an OAuth access token, not an API key' }],
          headers: { 'www-authenticate': 'Bearer realm="earshot", error="invalid_token"' },
          resolve: {
            message: "Send an API key of the project (X-API-Key); mint one on the project's keys page.",
            action: 'provide_api_key',
            url: dashboardLink(dashboardUrl, dashboardPaths.signIn()),
          },
        },
      );
    }
    const principal = await lookup(credential.key);
    if (!principal) {
      throw problem('invalid_api_key', 'The API key is unknown or has been revoked.', {
        errors: [{ location: credential.via, message: 'is not a valid API key' }],
        headers: { 'www-authenticate': 'Bearer realm="earshot", error="invalid_token"' },
      });
    }
    // Checked on every request, cached or not: a key stops working the moment it expires.
    if (isExpired(principal)) {
      throw problem('api_key_expired', `The API key expired at ${principal.expiresAt!.toISOString()}.`, {
        errors: [{ location: credential.via, message: 'has expired' }],
        headers: { 'www-authenticate': 'Bearer realm="earshot", error="invalid_token"' },
        resolve: {
          message:
            "Send a key that has not expired; mint a new one on the project's keys page in the dashboard.",
          action: 'provide_api_key',
          url: dashboardLink(dashboardUrl, dashboardPaths.keys(principal.project.id)),
        },
      });
    }
    request.principal = principal;
    const last = touched.get(principal.keyId) ?? 0;
    if (Date.now() - last > 60_000) {
      touched.set(principal.keyId, Date.now());
      accounts
        .touchApiKey(principal.keyId)
        .catch((err) => request.log.warn({ err }, 'could not record key use'));
    }
  });
});

/** The verified principal of a request on an authenticated route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw problem('authentication_required', 'This endpoint needs an API key.');
  return request.principal;
}
