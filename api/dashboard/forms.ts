import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PageError } from './visit.ts';

/** The fields of a posted form: `one` the first value of a name (trimmed unless told), `all` every value. */
export function formOf(request: FastifyRequest) {
  const body = (request.body ?? {}) as Record<string, string | string[] | undefined>;
  const values = (name: string): string[] => {
    const v = body[name];
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  };
  return {
    one: (name: string, opts: { trim?: boolean } = {}) => {
      const v = values(name)[0] ?? '';
      return opts.trim === false ? v : v.trim();
    },
    all: values,
  };
}

/** The first value of a query parameter. */
export function queryOf(request: FastifyRequest, name: string): string | undefined {
  const v = (request.query as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v[0] : v;
}

const EMAIL = /^[^\s@"<>]+@[^\s@"<>]+\.[^\s@"<>]+$/;

/** Why an address is refused, or undefined. */
export function emailProblem(email: string): string | undefined {
  if (email.length === 0) return 'enter your email address';
  if (email.length > 254 || !EMAIL.test(email)) return 'enter an address like name@example.com';
  return undefined;
}

export function nameProblem(name: string, what: string, max = 100): string | undefined {
  if (name.length === 0) return `enter a ${what}`;
  if ([...name].length > max) return `must be at most ${max} characters`;
  return undefined;
}

/**
 * A limit on attempts (sign-in, reset, sign-up) per window, counted per client address and, when
 * `account` gives one, per address typed into the form. Past either, the attempt is refused with
 * 429 and `Retry-After` before any work is done.
 */
export function attemptLimit(
  app: FastifyInstance,
  name: string,
  limit: { perClient: number; perAccount?: number; windowMs: number },
) {
  // Counted in the state store (`app.lockouts`): the limits hold across the API instances.
  const client = {
    max: limit.perClient,
    key: (request: FastifyRequest) => `dashboard-${name}-ip:${normalizeIP(request.ip)}`,
  };
  const perAccount = limit.perAccount;
  const account = perAccount
    ? {
        max: perAccount,
        key: (request: FastifyRequest) =>
          `dashboard-${name}-account:${formOf(request).one('email').toLowerCase()}`,
      }
    : undefined;
  return async (request: FastifyRequest): Promise<void> => {
    for (const check of account && formOf(request).one('email') ? [client, account] : [client]) {
      const window = await app.lockouts.count(check.key(request), limit.windowMs);
      if (window.count > check.max) {
        const retry = Math.max(1, Math.ceil((window.resetAt - Date.now()) / 1000));
        throw new PageError(
          429,
          'Too many attempts',
          `Too many attempts in a short time. Wait ${retry} seconds, then try again.`,
          { 'retry-after': String(retry) },
        );
      }
    }
  };
}
