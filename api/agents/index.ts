import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Accounts } from '../../projections/state/accounts.ts';
import { Memberships } from '../../projections/state/memberships.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { ToolUsage } from '../../projections/state/tool-usage.ts';
import { authGuide } from '../docs/auth-guide.ts';
import { checkToolPrices } from '../payments/prices.ts';
import { AgentCredentials } from './agent-credentials.ts';
import { buildMcpHost } from './mcp-host.ts';
import { meteredCalls, restCalls, type ToolCallPath, ToolUsageCounter } from './tool-calls.ts';
import { toolPayments } from './tool-payments.ts';
import { buildTools } from './tool-registry.ts';
import { TOOLS } from './tools.ts';

export { PROTOCOL_VERSIONS } from './mcp-host.ts';
export type { ToolCall, ToolCaller, ToolCallPath } from './tool-calls.ts';
export { buildTools, DEFAULT_CATEGORIES, TOOL_CATEGORIES, type ToolDeclaration } from './tool-registry.ts';
export { TOOLS } from './tools.ts';

export interface AgentToolServerOptions {
  logger: Logger;
  state: StateStore;
  accounts: Accounts;
  /** The API's public URL (the OAuth issuer), the dashboard's, the docs host's. */
  publicUrl: string;
  dashboardUrl: string;
  docsUrl: string;
  failedAuthPerMinute?: number;
  /** Browser origins allowed to call the server besides `{mcp_url}`'s (see McpHostOptions). */
  allowedOrigins?: readonly string[];
  /** Wraps the call path (after metering and per-call payments). */
  wrapCalls?: (path: ToolCallPath) => ToolCallPath;
  /** Clock of access-token checks (tests). */
  now?: () => number;
  /** An HTTP server already listening, to serve on (instead of `listen`ing later). */
  server?: import('node:http').Server;
}

/**
 * The agent-tool server over an API application built in this process (`buildApp`, ready, not
 * necessarily listening): its tools are that application's REST operations, its OAuth the
 * application's. Returns the listener-to-be; closing it flushes the tool-usage counts.
 */
export async function buildAgentToolServer(
  api: FastifyInstance,
  opts: AgentToolServerOptions,
): Promise<FastifyInstance> {
  const auth = api.agentAuth;
  const tools = buildTools(TOOLS, api.restOperations);
  const usage = new ToolUsageCounter(new ToolUsage(opts.state), opts.logger);
  const metered = meteredCalls(restCalls(api), usage);
  // Pay per call (payments on): the API's gate, ledger and price table, its `tools` section checked here.
  const { gate, prices } = api.payments;
  checkToolPrices(
    prices,
    TOOLS.map((d) => ({ name: d.name, method: d.operation.method, path: d.operation.path })),
  );
  const metadataUrl = new URL(
    `/.well-known/oauth-protected-resource${new URL(auth.settings.resource).pathname.replace(/\/$/, '')}`,
    auth.settings.resource,
  ).toString();
  const paying = gate
    ? toolPayments(metered, {
        gate,
        prices,
        mcpUrl: auth.settings.resource,
        bearerChallenge: `Bearer realm="mcp", resource_metadata="${metadataUrl}"`,
        logger: opts.logger,
      })
    : metered;
  const credentials = new AgentCredentials({
    accounts: opts.accounts,
    memberships: new Memberships(opts.state),
    grants: auth.grants,
    tokens: auth.tokens,
    resource: auth.settings.resource,
    now: opts.now,
  });
  const host = await buildMcpHost({
    logger: opts.logger,
    tools,
    calls: opts.wrapCalls ? opts.wrapCalls(paying) : paying,
    payPerCall: gate !== undefined,
    credentials,
    mcpUrl: auth.settings.resource,
    issuer: auth.settings.issuer,
    docsUrl: opts.docsUrl,
    authGuide: authGuide({
      publicUrl: opts.publicUrl,
      dashboardUrl: opts.dashboardUrl,
      mcpUrl: auth.settings.resource,
    }),
    failedAuthPerMinute: opts.failedAuthPerMinute,
    // The API application's counters (the state store): shared by every instance.
    lockouts: api.lockouts,
    allowedOrigins: opts.allowedOrigins,
    server: opts.server,
  });
  host.decorate('toolUsage', usage);
  // The same discovery document as the API host's: every payable operation and tool.
  host.get('/.well-known/x402', async () => api.x402Document());
  host.addHook('onClose', async () => {
    credentials.close();
    await usage.close();
  });
  return host;
}
