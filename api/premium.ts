import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Entitlement } from '../projections/state/accounts.ts';
import { dashboardLink, dashboardPaths } from './dashboard-paths.ts';
import { principalOf } from './plugins/authentication.ts';
import { invalidParameter, problem } from './problem.ts';

/**
 * Plan gates for premium data: premium endpoints and premium `include` sections need a plan with
 * premium endpoints (`premium_required`, 403). Refusals name what to drop or where to upgrade.
 */
export function requirePremiumEndpoint(request: FastifyRequest, dashboardUrl: string): void {
  // A request paid for per request has bought this endpoint at its price.
  if (request.payment) return;
  const principal = principalOf(request);
  if (principal.plan.premium_endpoints) return;
  const path = request.url.split('?')[0]!;
  throw problem(
    'premium_required',
    `${path} is a premium endpoint; the ${principal.plan.name} plan does not include premium endpoints.`,
    {
      errors: [{ location: 'path', message: 'is a premium endpoint', value: path }],
      resolve: {
        message: 'Move the project to a plan with premium endpoints (Business or Enterprise).',
        action: 'upgrade_plan',
        url: dashboardLink(dashboardUrl, dashboardPaths.plan(principal.project.id)),
      },
    },
  );
}

/**
 * Surfaces available by arrangement (the archive replay and bulk download): the project needs an
 * entitlement an operator grants (`earshot projects grant archive --project P`); without it a
 * 403 `entitlement_required` whose `resolve` says how to get it.
 */
export function requireEntitlement(
  request: FastifyRequest,
  entitlement: Entitlement,
  dashboardUrl: string,
): void {
  const principal = principalOf(request);
  if (principal.entitlements.includes(entitlement)) return;
  const path = request.url.split('?')[0]!;
  throw problem(
    'entitlement_required',
    `${path} is available by arrangement: project ${principal.project.id} does not have the ${entitlement} entitlement.`,
    {
      errors: [{ location: 'path', message: `needs the ${entitlement} entitlement`, value: path }],
      resolve: {
        message: `Ask us to enable the ${entitlement} for project ${principal.project.id} (an operator runs \`earshot projects grant ${entitlement} --project ${principal.project.id}\`); the key works for it within seconds of the grant.`,
        action: 'request_entitlement',
        url: dashboardLink(dashboardUrl, dashboardPaths.project(principal.project.id)),
      },
    },
  );
}

/**
 * The `include` query parameter of an endpoint offering `offered` (premium ones among them):
 * comma-separated values, spaces around them and empty items ignored, as `parseIncludes` reads
 * it. The pattern states which values exist, so an unknown one is refused by validation.
 */
export function IncludeParam(offered: readonly string[], premium: readonly string[]) {
  const value = `(${offered.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})?`;
  return Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: `^ *${value} *(, *${value} *)*$`,
      description: `comma-separated: ${offered.join(', ')}${premium.length > 0 ? `; premium: ${premium.join(', ')}` : ''}`,
    }),
  );
}

/**
 * Parses a comma-separated `include` against the values an endpoint offers (unknown values are a
 * 422 naming them) and refuses premium values on a plan without premium endpoints.
 */
export function parseIncludes<const T extends string>(
  request: FastifyRequest,
  raw: string | undefined,
  offered: readonly T[],
  premium: readonly T[],
  dashboardUrl: string,
): Set<T> {
  const values = (raw ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  const unknown = values.filter((v) => !(offered as readonly string[]).includes(v));
  if (unknown.length > 0) {
    throw invalidParameter(
      'query.include',
      `unknown values ${unknown.join(', ')}; offered: ${offered.join(', ')}`,
      raw,
    );
  }
  const wanted = new Set(values as T[]);
  const refused = [...wanted].filter((v) => premium.includes(v));
  if (refused.length > 0 && !request.payment && !principalOf(request).plan.premium_endpoints) {
    throw problem(
      'premium_required',
      `The include values ${refused.join(', ')} are premium; the ${principalOf(request).plan.name} plan does not include them. Retry without them.`,
      {
        errors: [{ location: 'query.include', message: `premium values: ${refused.join(', ')}`, value: raw }],
        resolve: {
          message: `Retry without ${refused.join(', ')} in include, or move to a plan with premium endpoints.`,
          action: 'remove_premium_includes',
          url: dashboardLink(dashboardUrl, dashboardPaths.plan(principalOf(request).project.id)),
        },
      },
    );
  }
  return wanted;
}
