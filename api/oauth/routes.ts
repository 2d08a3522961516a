import formbody from '@fastify/formbody';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { dashboardLink, dashboardPaths } from '../dashboard-paths.ts';
import { html } from '../html.ts';
import { problem, toDocument } from '../problem.ts';
import type { AgentAuth } from './agent-auth.ts';
import { OAuthError, registrationMetadata } from './clients.ts';

const HIDE = { schema: { hide: true } } as const;

/**
 * Requests allowed per client address and window on the endpoints anyone may call without a
 * credential: registration as the dashboard's sign-up (10 an hour), tokens as failed
 * authentications (a code exchange and a refresh every 15 minutes per client is far below).
 */
export const OAUTH_LIMITS = {
  register: { perClient: 10, windowMs: 60 * 60_000 },
  token: { perClient: 60, windowMs: 60_000 },
} as const;
export type OAuthLimits = { [K in keyof typeof OAUTH_LIMITS]: { perClient: number; windowMs: number } };

export interface OAuthRouteOptions {
  auth: AgentAuth;
  publicUrl: string;
  dashboardUrl: string;
  /** Problem `type` URLs point here. */
  docsUrl: string;
  limits?: OAuthLimits;
}

/** The protected resource's metadata (RFC 9728): the agent-tool server and who authorizes for it. */
export function protectedResourceMetadata(resource: string, issuer: string) {
  return {
    resource,
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
    resource_name: 'Earshot agent-tool server (Model Context Protocol)',
    resource_documentation: `${issuer}/auth.md`,
  };
}

/** `agent_auth`: how an agent gets to call the tools, in one block of the AS metadata. */
export function agentAuthBlock(opts: { publicUrl: string; dashboardUrl: string; resource: string }) {
  return {
    resource: opts.resource,
    documentation: `${opts.publicUrl}/auth.md`,
    flows: [
      {
        type: 'oauth2_authorization_code',
        for: 'interactive agent clients acting for a person',
        pkce: 'S256',
        registration: ['dynamic_client_registration', 'client_id_metadata_document'],
        human_approval: dashboardLink(opts.dashboardUrl, dashboardPaths.oauthConsent()),
        access_token_lifetime_seconds: 900,
        refresh_token_lifetime_seconds: 2_592_000,
        refresh_token_rotation: true,
      },
      {
        type: 'api_key',
        for: 'agents configured by a person with a project key',
        headers: ['Authorization: Bearer <API_KEY>', 'X-API-Key: <API_KEY>'],
        obtain: dashboardLink(opts.dashboardUrl, dashboardPaths.home()),
      },
    ],
    pay_per_request: {
      for: 'agents without an account: each tool call paid for itself (initialize and tools/list are free)',
      protocols: ['x402', 'mpp'],
      discovery: `${opts.publicUrl}/.well-known/x402`,
    },
    not_supported: [
      'anonymous_registration',
      'identity_assertion_rfc7523',
      'device_authorization_rfc8628',
      'otp_claim',
      'oauth_tokens_on_rest',
    ],
  };
}

function oauthError(reply: FastifyReply, err: OAuthError) {
  return reply
    .code(err.status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send({ error: err.error, error_description: err.description });
}

/**
 * The OAuth 2.1 authorization server on the API host: metadata (RFC 8414, with `agent_auth`),
 * the JWKS, registration (RFC 7591), authorization (to the dashboard's consent page), tokens and
 * revocation (RFC 7009); and the agent-tool resource's metadata (RFC 9728), which both hosts serve.
 * Errors are OAuth's own JSON (`error`, `error_description`), as OAuth clients read them.
 */
export const oauthRoutes: FastifyPluginAsync<OAuthRouteOptions> = async (app, opts) => {
  const { auth } = opts;
  const issuer = auth.settings.issuer;
  const resource = auth.settings.resource;
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  /** A per-address limit: past it, 429 (a problem document that also carries OAuth's `error`) and Retry-After. */
  const limited = (name: keyof OAuthLimits) => {
    const limit = (opts.limits ?? OAUTH_LIMITS)[name];
    const check = app.createRateLimit({
      max: limit.perClient,
      timeWindow: limit.windowMs,
      keyGenerator: (request) => `oauth-${name}-ip:${normalizeIP(request.ip)}`,
      allowList: () => false,
    });
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const state = await check(request);
      if (state.isAllowed || !state.isExceeded) return;
      const retry = Math.max(1, Math.ceil(state.ttl / 1000));
      const err = problem(
        'rate_limited',
        `Too many ${name === 'register' ? 'registrations' : 'token requests'} from this address; retry in ${retry} s.`,
        { resolve: { message: 'Wait for Retry-After seconds.', action: 'retry_later' } },
      );
      return reply
        .code(429)
        .header('retry-after', String(retry))
        .header('cache-control', 'no-store')
        .type('application/problem+json')
        .send({
          ...toDocument(err, opts.docsUrl, request.url.split('?')[0] ?? '/'),
          error: 'rate_limited',
          error_description: err.detail,
        });
    };
  };

  app.setErrorHandler(async (error, _request, reply) => {
    if (error instanceof OAuthError) return oauthError(reply, error);
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status >= 400 && status < 500)
      return oauthError(reply, new OAuthError('invalid_request', 'The request could not be read.', 400));
    throw error;
  });

  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    jwks_uri: `${issuer}/oauth/jwks`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${opts.publicUrl}/auth.md`,
    agent_auth: agentAuthBlock({ publicUrl: opts.publicUrl, dashboardUrl: opts.dashboardUrl, resource }),
  };
  app.get('/.well-known/oauth-authorization-server', HIDE, async () => metadata);
  const prm = protectedResourceMetadata(resource, issuer);
  const resourcePath = new URL(resource).pathname.replace(/\/$/, '');
  app.get('/.well-known/oauth-protected-resource', HIDE, async () => prm);
  if (resourcePath) app.get(`/.well-known/oauth-protected-resource${resourcePath}`, HIDE, async () => prm);
  app.get('/oauth/jwks', HIDE, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return auth.tokens.jwks();
  });

  app.post('/oauth/register', { ...HIDE, onRequest: limited('register') }, async (request, reply) => {
    const metadata = registrationMetadata(request.body);
    const client = await auth.grants.registerClient(metadata);
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .send({
        client_id: client.id,
        client_id_issued_at: Math.floor(client.created_at.getTime() / 1000),
        ...metadata,
      });
  });

  app.get('/oauth/authorize', HIDE, async (request, reply) => {
    const q = Object.fromEntries(
      Object.entries((request.query ?? {}) as Record<string, unknown>).map(([k, v]) => [
        k,
        typeof v === 'string' ? v : Array.isArray(v) ? String(v[0]) : undefined,
      ]),
    );
    const checked = await auth.authorize(q);
    if (checked.ok) {
      const consent = dashboardLink(opts.dashboardUrl, dashboardPaths.oauthConsent());
      return reply.redirect(`${consent}?request=${encodeURIComponent(checked.request)}`, 303);
    }
    if (checked.redirect) return reply.redirect(checked.redirect, 303);
    // No trustworthy redirect URI: the person is told, the client is not redirected to.
    return reply
      .code(400)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization request refused</title></head>
<body><h1>This authorization request cannot be served</h1><p>${checked.error.description}</p>
<p><code>${checked.error.error}</code></p></body></html>`.value,
      );
  });

  const fields = (body: unknown): Record<string, string | undefined> => {
    if (body === null || typeof body !== 'object') return {};
    return Object.fromEntries(
      Object.entries(body as Record<string, unknown>).map(([k, v]) => [
        k,
        typeof v === 'string' ? v : undefined,
      ]),
    );
  };
  app.post('/oauth/token', { ...HIDE, onRequest: limited('token') }, async (request, reply) => {
    const answer = await auth.token(fields(request.body));
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer);
  });
  app.post('/oauth/revoke', HIDE, async (request, reply) => {
    await auth.revoke(fields(request.body));
    return reply.code(200).header('cache-control', 'no-store').send({});
  });
  // The device authorization grant (RFC 8628) is not supported; its endpoint says so in OAuth's terms.
  app.post('/oauth/device_authorization', HIDE, async (_request, reply) =>
    oauthError(
      reply,
      new OAuthError('unsupported_grant_type', 'The device authorization grant (RFC 8628) is not supported.'),
    ),
  );
};
