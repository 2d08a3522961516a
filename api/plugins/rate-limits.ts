import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { displayPrefix } from '../../projections/state/accounts.ts';
import { problem } from '../problem.ts';
import { accessOf, presentedCredential } from './authentication.ts';
import type { Lockouts } from './lockouts.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Attempt counters shared by the instances (failed authentications, sign-in attempts). */
    lockouts: Lockouts;
  }
}

/**
 * Failed authentications (a 401 to a presented credential) allowed per window, per client
 * address and per key prefix (`esk_` + 6 characters, the prefix keys are listed with). Past
 * either, requests presenting a credential get 429 before any lookup, until the window ends.
 * `failedPerMinute` (per address) overrides the default; a prefix gets half of it.
 */
export const FAILED_AUTHENTICATIONS = { perAddress: 20, perKeyPrefix: 10, windowMs: 60_000 } as const;

function failureLimits(perAddress?: number): { perAddress: number; perKeyPrefix: number } {
  if (perAddress === undefined) return FAILED_AUTHENTICATIONS;
  return { perAddress, perKeyPrefix: Math.max(1, Math.floor(perAddress / 2)) };
}

const address = (request: FastifyRequest) => `ip:${normalizeIP(request.ip)}`;

/** The credential a request presents as its route reads it: an ingest token, or an API key. */
function presented(request: FastifyRequest): { key: string; via: string } | undefined {
  const access = accessOf(request);
  if (access === 'ingest') {
    const token = request.headers['x-ingest-token'];
    if (typeof token === 'string' && token.length > 0)
      return { key: token.trim(), via: 'header.x-ingest-token' };
  }
  return access === 'api_key' || access === 'ingest' ? presentedCredential(request) : undefined;
}

function rateLimited(detail: string, retryAfterMs: number, location?: string) {
  const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return problem('rate_limited', `${detail}; retry in ${retryAfter} s.`, {
    headers: { 'retry-after': String(retryAfter) },
    ...(location ? { errors: [{ location, message: 'too many failed authentications' }] } : {}),
    resolve: {
      message: location
        ? 'Check the API key you send, then retry after Retry-After seconds.'
        : 'Wait for Retry-After seconds, or move to a plan with a higher rate limit.',
      action: 'retry_later',
    },
  });
}

/**
 * Two limits, both decided on the route the router matched (never the raw URL):
 *
 * - Requests per key and minute, from the key's plan unless `perMinute` overrides it for every
 *   key; requests to public `/v1` routes are counted per client address. The counters are this
 *   process's: with `instances` processes sharing a deployment's requests, each allows
 *   ⌈limit ÷ instances⌉ (docs/scaling.md). Counted in `onRequest`
 *   right after authentication, before validation, so requests that fail validation (422)
 *   count too. Batch ingest (ingest tokens) is bounded by batch size, not by rate.
 * - Failed authentications per client address and per presented key prefix
 *   (`FAILED_AUTHENTICATIONS`), checked before authentication looks a key up, so guessing keys
 *   gets 429 long before it costs many lookups. Covers API keys and ingest tokens. Counted in
 *   the state store (`Lockouts`), so the limit holds across the instances sharing it.
 *
 * Register before the authentication plugin: its failure check must run first.
 */
export const rateLimitsPlugin = fp<{
  perMinute?: number;
  fallbackPerMinute: number;
  failedPerMinute?: number;
  /** Processes the deployment's requests are spread over (default 1). */
  instances?: number;
  /** Failed authentications, counted for every instance (the state store). */
  lockouts: Lockouts;
}>(async (app: FastifyInstance, opts) => {
  await app.register(rateLimit, {
    global: true,
    // Route-level `onRequest` hooks run after the application's, so after authentication.
    hook: 'onRequest',
    timeWindow: 60_000,
    allowList: (request) => {
      const access = accessOf(request);
      return access === 'open' || access === 'ingest';
    },
    keyGenerator: (request) => request.principal?.keyId ?? address(request),
    max: (request) =>
      Math.ceil(
        (opts.perMinute ?? request.principal?.plan.requests_per_minute ?? opts.fallbackPerMinute) /
          (opts.instances ?? 1),
      ),
    errorResponseBuilder: (_request, context) =>
      rateLimited(`Rate limit of ${context.max} requests per minute reached`, context.ttl),
  });

  const allowed = failureLimits(opts.failedPerMinute);
  const { lockouts } = opts;
  app.decorate('lockouts', lockouts);
  const limits = [
    {
      what: 'this address',
      max: allowed.perAddress,
      key: (request: FastifyRequest) => `auth-${address(request)}`,
    },
    {
      what: 'this key prefix',
      max: allowed.perKeyPrefix,
      key: (request: FastifyRequest) => `auth-prefix:${displayPrefix(presented(request)?.key ?? '')}`,
    },
  ];
  app.addHook('onRequest', async (request) => {
    const credential = presented(request);
    if (!credential) return;
    for (const { what, max, key } of limits) {
      const retryAfterMs = lockouts.retryAfterMs(key(request), max);
      if (retryAfterMs > 0) {
        throw rateLimited(`Too many failed authentications from ${what}`, retryAfterMs, credential.via);
      }
    }
  });

  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode !== 401 || !presented(request)) return;
    for (const { key } of limits) await lockouts.count(key(request), FAILED_AUTHENTICATIONS.windowMs);
  });
});
