import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { problem } from '../problem.ts';
import { accessOf } from './authentication.ts';

/**
 * Requests per key and minute, from the key's plan unless `perMinute` overrides it for every
 * key. Runs after authentication; unauthenticated routes are limited per client address.
 */
export const rateLimitsPlugin = fp<{ perMinute?: number; fallbackPerMinute: number }>(
  async (app: FastifyInstance, opts) => {
    await app.register(rateLimit, {
      global: true,
      hook: 'preHandler',
      timeWindow: 60_000,
      // Batch ingest is an operator path (ingest tokens), bounded by batch size, not by rate.
      // Decided on the matched route, never the raw URL (see `routeAccess`).
      allowList: (request) => {
        const access = accessOf(request);
        return access === 'open' || access === 'ingest';
      },
      keyGenerator: (request) => request.principal?.keyId ?? `ip:${request.ip}`,
      max: (request) =>
        opts.perMinute ?? request.principal?.plan.requests_per_minute ?? opts.fallbackPerMinute,
      errorResponseBuilder: (_request, context) => {
        const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
        return problem(
          'rate_limited',
          `Rate limit of ${context.max} requests per minute reached; retry in ${retryAfter} s.`,
          {
            headers: { 'retry-after': String(retryAfter) },
            resolve: {
              message: 'Wait for Retry-After seconds, or move to a plan with a higher rate limit.',
              action: 'retry_later',
            },
          },
        );
      },
    });
  },
);
