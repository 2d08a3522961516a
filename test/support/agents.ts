import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { buildAgentToolServer } from '../../api/agents/index.ts';
import type { OAuthLimits } from '../../api/oauth/routes.ts';
import { silentLogger } from '../../infra/logger.ts';
import type { AnalyticsStore } from '../../projections/analytics/analytics-store.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { TEST_SETTINGS, testApi } from './api.ts';
import { signedInMember } from './dashboard.ts';
import { freePort } from './free-port.ts';
import type { PageClient } from './page-client.ts';

/** A clock tests move forward (codes, access tokens and credential caches read it). */
export function testClock() {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms: number) {
      offset += ms;
    },
  };
}

/**
 * The API (with its OAuth authorization server and dashboard) and the agent-tool server, both
 * listening on 127.0.0.1 at free ports, their public URLs those addresses.
 */
export async function agentStack(
  options: {
    state?: StateStore;
    analytics?: AnalyticsStore;
    now?: () => number;
    codeTtlMs?: number;
    /** Serves the archive (its builds under this directory). */
    archive?: { buildsDir: string };
    /** Per-address limits of OAuth registration and tokens (default OAUTH_LIMITS). */
    oauthLimits?: OAuthLimits;
    /** Browser origins the agent-tool server accepts besides its own. */
    allowedOrigins?: string[];
  } = {},
) {
  const [apiPort, mcpPort] = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${apiPort}`;
  const dashboardUrl = `${publicUrl}/dashboard`;
  const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  const api = await testApi(
    {
      publicUrl,
      dashboardUrl,
      mcpUrl,
      rateLimitPerMinute: 1_000_000,
      agents: { now: options.now, codeTtlMs: options.codeTtlMs, limits: options.oauthLimits },
      ...(options.archive ? { archiveBuildsDir: options.archive.buildsDir } : {}),
    },
    undefined,
    {
      state: options.state,
      analytics: options.analytics,
      ...(options.archive ? { archive: { pollMs: 50 } } : {}),
    },
  );
  await api.app.listen({ port: apiPort, host: '127.0.0.1' });
  const mcp: FastifyInstance = await buildAgentToolServer(api.app, {
    logger: silentLogger(),
    state: api.state,
    accounts: api.accounts,
    publicUrl,
    dashboardUrl,
    docsUrl: TEST_SETTINGS.docsUrl,
    now: options.now,
    allowedOrigins: options.allowedOrigins,
  });
  await mcp.listen({ port: mcpPort, host: '127.0.0.1' });
  return {
    api,
    mcp,
    publicUrl,
    mcpUrl,
    async close() {
      await mcp.close();
      await api.close();
    },
  };
}

export type AgentStack = Awaited<ReturnType<typeof agentStack>>;

/** A signed-in person (the documented test sign-in: a verified account, signed in through the form) with a project of their own. */
export async function personWithProject(stack: AgentStack, email: string, plan = 'business') {
  const member = await signedInMember(stack.api, email);
  const project = await stack.api.accounts.createProject({
    organizationId: member.organization.id,
    name: `${email.split('@')[0]} agents`,
    plan,
  });
  return { ...member, project };
}

/**
 * The person's part of the authorization: open the authorization URL, follow it to the consent
 * page, pick the project and approve (or deny). Returns where the browser is sent back to.
 */
export async function consent(
  stack: AgentStack,
  browser: PageClient,
  authorizationUrl: URL | string,
  projectId: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const url = new URL(authorizationUrl);
  const start = await stack.api.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
  expect(start.statusCode, start.body).toBe(303);
  const consentPage = new URL(start.headers.location as string);
  const page = await browser.get(`${consentPage.pathname}${consentPage.search}`);
  expect(page.status, page.body).toBe(200);
  const answer = await browser.post('/oauth/consent', {
    request: consentPage.searchParams.get('request')!,
    project: projectId,
    decision,
  });
  expect(answer.status, answer.body).toBe(303);
  return new URL(answer.location!);
}
