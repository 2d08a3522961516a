import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  type Tool as ListedTool,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { protectedResourceMetadata } from '../oauth/routes.ts';
import { Lockouts } from '../plugins/lockouts.ts';
import { type ErrorCode as ProblemCode, problem, toDocument } from '../problem.ts';
import type { AgentCredentials } from './agent-credentials.ts';
import { JsonResponseTransport } from './json-transport.ts';
import type { ToolCallPath } from './tool-calls.ts';
import { type SelectorParam, selectTools, type Tool } from './tool-registry.ts';

/**
 * The protocol revisions served: the current one and the one before it, which clients still
 * use. An `initialize` asking for another is answered with the current one (the client then
 * decides); any other request naming another revision in `MCP-Protocol-Version` is a 400.
 */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18'] as const;

const INSTRUCTIONS =
  "Earshot's podcast data as tools. Every slug or ID a tool returns is accepted by the other tools " +
  '(episode_id, podcast_id, entity_id, publisher_id, …). Lists are paged: pass the returned cursor with the same ' +
  'arguments for the next page. Search first (earshot_search_dialogue, earshot_search_entities, ' +
  'earshot_search_podcasts), then read (earshot_get_episode, earshot_get_transcript, …).';

export interface McpHostOptions {
  logger: Logger;
  /** Every tool (the registry joined with the REST operations). */
  tools: Tool[];
  /** The call path (REST in-process, metered; a payment wrapper goes here). */
  calls: ToolCallPath;
  credentials: AgentCredentials;
  /** `{mcp_url}`, e.g. `https://mcp.example.com/mcp`. */
  mcpUrl: string;
  /** The authorization server (the API's public URL). */
  issuer: string;
  /** Problem `type` URLs point here. */
  docsUrl: string;
  /** `/auth.md`, as the API host serves it. */
  authGuide: string;
  /** Failed authentications allowed per client address and minute (default 20). */
  failedAuthPerMinute?: number;
  /** Where failed authentications are counted (default: in this process). */
  lockouts?: Lockouts;
  /**
   * Browser origins allowed to call `{mcp_url}` (besides its own): a request with another
   * `Origin` is refused (DNS rebinding); a request without one (not a browser) goes on.
   */
  allowedOrigins?: readonly string[];
  version?: string;
  /** An HTTP server already listening (the service binds the port first, to know `{mcp_url}`). */
  server?: HttpServer;
  /**
   * Payments are on: a request with no account credential (none, or `Authorization: Payment`)
   * is served without a caller (`initialize`, `tools/list` free; `calls` decides on `tools/call`).
   */
  payPerCall?: boolean;
}

/** Whether a request presents an account credential (anything but no credential or `Authorization: Payment`). */
function presentsAccount(request: FastifyRequest): boolean {
  const key = request.headers['x-api-key'];
  const auth = request.headers.authorization;
  return (
    (typeof key === 'string' && key.trim() !== '') ||
    (typeof auth === 'string' && auth.trim() !== '' && !/^Payment(\s|$)/i.test(auth.trim()))
  );
}

interface Selection {
  result: ReturnType<typeof selectTools>;
  listed: ListedTool[];
  byName: Map<string, Tool>;
}

/** A tool as `tools/list` shows it. */
function listedTool(t: Tool): ListedTool {
  return {
    name: t.declaration.name,
    title: t.declaration.title,
    description: t.operation.summary
      ? `${t.declaration.description} (${t.operation.method} ${t.operation.path.replace(/:(\w+)/g, '{$1}')}: ${t.operation.summary})`
      : t.declaration.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    annotations: { title: t.declaration.title, ...t.declaration.annotations },
  };
}

/**
 * The agent-tool server: Model Context Protocol over Streamable HTTP (the official SDK,
 * stateless: each POST to `/mcp` is answered on its own, as JSON), on its own listener. Tools
 * are selected per connection by `?tools=` and `?include=`; a call runs the REST operation the
 * tool mirrors for the caller. Also `/.well-known/oauth-protected-resource` (RFC 9728) and
 * `/auth.md`.
 */
export async function buildMcpHost(opts: McpHostOptions): Promise<FastifyInstance> {
  const server = opts.server;
  const app = Fastify({
    loggerInstance: opts.logger,
    bodyLimit: 1_048_576,
    ...(server
      ? {
          serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
            server.on('request', handler);
            return server;
          },
        }
      : {}),
  });
  const mcpPath = new URL(opts.mcpUrl).pathname.replace(/\/$/, '') || '/';
  const metadataUrl = new URL(
    `/.well-known/oauth-protected-resource${mcpPath === '/' ? '' : mcpPath}`,
    opts.mcpUrl,
  ).toString();
  const failedPerMinute = opts.failedAuthPerMinute ?? 20;
  // Built once, not per request: the SDK's `Server` otherwise makes (and compiles the meta
  // schemas of) an Ajv instance each time; `tools/list` entries and selections are the same
  // for every request asking for them.
  const validator = new AjvJsonSchemaValidator();
  const listed = new Map<Tool, ListedTool>(opts.tools.map((t) => [t, listedTool(t)]));
  const selections = new Map<string, Selection>();
  const select = (query: { tools?: SelectorParam; include?: SelectorParam }): Selection => {
    const flat = (v: SelectorParam) => (typeof v === 'string' ? v : (v ?? []).join(','));
    const key = `${flat(query.tools)}\n${flat(query.include)}`;
    const cached = selections.get(key);
    if (cached) return cached;
    const result = selectTools(opts.tools, query);
    // Bounded: selections that are not tool sets (errors, odd orders) are few in practice.
    if (selections.size >= 256) selections.clear();
    const entry: Selection = result.ok
      ? {
          result,
          listed: result.tools.map((t) => listed.get(t)!),
          byName: new Map(result.tools.map((t) => [t.declaration.name, t])),
        }
      : { result, listed: [], byName: new Map() };
    selections.set(key, entry);
    return entry;
  };
  // Failed authentications per address and minute: in the state store when given (every
  // instance counts into one window), else in this process.
  const lockouts = opts.lockouts ?? new Lockouts();

  const send = (
    reply: FastifyReply,
    request: FastifyRequest,
    code: ProblemCode,
    detail: string,
    extra: Parameters<typeof problem>[2] = {},
  ) => {
    const err = problem(code, detail, extra);
    for (const [k, v] of Object.entries(extra.headers ?? {})) reply.header(k, v);
    return reply
      .code(err.status)
      .type('application/problem+json')
      .send(toDocument(err, opts.docsUrl, request.url.split('?')[0] ?? '/'));
  };

  const prm = protectedResourceMetadata(opts.mcpUrl, opts.issuer);
  app.get('/.well-known/oauth-protected-resource', async () => prm);
  if (mcpPath !== '/') app.get(`/.well-known/oauth-protected-resource${mcpPath}`, async () => prm);
  app.get('/auth.md', async (_request, reply) =>
    reply.type('text/markdown; charset=utf-8').send(opts.authGuide),
  );

  // The transport spec: servers MUST validate Origin (a page on a rebound name reaching a server
  // on a private address). Checked before anything else, on every method of the path.
  const origins = new Set([
    new URL(opts.mcpUrl).origin,
    ...(opts.allowedOrigins ?? []).map((o) => new URL(o).origin),
  ]);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (
      origin === undefined ||
      (request.url.split('?')[0] ?? '/').replace(/\/$/, '') !== mcpPath.replace(/\/$/, '')
    )
      return;
    if (origins.has(origin)) return;
    return send(
      reply,
      request,
      'forbidden',
      `Origin ${origin.slice(0, 200)} may not call this server; allowed: ${[...origins].join(', ')}.`,
      {
        errors: [{ location: 'header.origin', message: 'is not an allowed origin' }],
      },
    );
  });

  const notAllowed = async (request: FastifyRequest, reply: FastifyReply) =>
    send(
      reply,
      request,
      'method_not_allowed',
      'This server is stateless: POST JSON-RPC messages to it; it opens no event stream.',
      {
        headers: { allow: 'POST' },
      },
    );
  app.get(mcpPath, notAllowed);
  app.delete(mcpPath, notAllowed);

  app.post(mcpPath, async (request, reply) => {
    const {
      result: selection,
      listed: tools,
      byName: selected,
    } = select(request.query as { tools?: SelectorParam; include?: SelectorParam });
    if (!selection.ok)
      return send(reply, request, 'validation_error', selection.message, {
        errors: [{ location: selection.location, message: selection.message }],
      });

    const failureKey = `mcp-auth-ip:${request.ip}`;
    const retryAfterMs = lockouts.retryAfterMs(failureKey, failedPerMinute);
    if (retryAfterMs > 0) {
      const retry = Math.max(1, Math.ceil(retryAfterMs / 1000));
      return send(
        reply,
        request,
        'rate_limited',
        `Too many failed authentications from this address; retry in ${retry} s.`,
        { headers: { 'retry-after': String(retry) } },
      );
    }
    const checked =
      opts.payPerCall && !presentsAccount(request)
        ? ({ ok: true, caller: undefined } as const)
        : await opts.credentials.check(request);
    if (!checked.ok) {
      await lockouts.count(failureKey, 60_000);
      return send(reply, request, checked.code, checked.reason, {
        errors: [{ location: checked.location, message: checked.reason }],
        headers: {
          'www-authenticate': `Bearer realm="mcp", error="invalid_token", error_description="${checked.reason.replace(/["\\]/g, '')}", resource_metadata="${metadataUrl}"`,
        },
      });
    }

    const version = request.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !(PROTOCOL_VERSIONS as readonly string[]).includes(version))
      return reply.code(400).send({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `Unsupported protocol version ${version.slice(0, 40)}; this server speaks ${PROTOCOL_VERSIONS.join(', ')}`,
        },
      });
    const body = request.body as { method?: unknown; params?: { protocolVersion?: unknown } } | undefined;
    if (
      body?.method === 'initialize' &&
      body.params &&
      !(PROTOCOL_VERSIONS as readonly unknown[]).includes(body.params.protocolVersion)
    )
      body.params.protocolVersion = PROTOCOL_VERSIONS[0];

    const server = new Server(
      { name: 'earshot', title: 'Earshot', version: opts.version ?? '0.1.0' },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: INSTRUCTIONS,
        jsonSchemaValidator: validator,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (req) => {
      const tool = selected.get(req.params.name);
      if (!tool)
        throw new McpError(
          ErrorCode.InvalidParams,
          `Unknown tool: ${req.params.name.slice(0, 100)} (not served on this connection)`,
        );
      const header = (name: string) => {
        const v = request.headers[name];
        return typeof v === 'string' ? v : undefined;
      };
      return opts.calls({
        tool,
        args: (req.params.arguments ?? {}) as Record<string, unknown>,
        caller: checked.caller,
        ...(checked.caller
          ? {}
          : {
              payment: {
                headers: { signature: header('payment-signature'), authorization: header('authorization') },
                meta: req.params._meta as Record<string, unknown> | undefined,
                setHeader: (name: string, value: string) => {
                  if (!reply.raw.headersSent) reply.raw.setHeader(name, value);
                },
                ip: request.ip,
              },
            }),
      });
    });
    const parsed = JsonResponseTransport.parse(request.headers.accept, request.body);
    if ('status' in parsed) return reply.code(parsed.status).send(parsed.body);
    const transport = new JsonResponseTransport();
    await server.connect(transport);
    // A client gone before its answer: close, so handlers see their signal aborted. Otherwise
    // nothing holds the server (closing it costs an error object per request).
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) void server.close();
    });
    const answers = await transport.run(parsed.messages);
    if (answers.length === 0) return reply.code(202).send();
    return reply
      .code(200)
      .type('application/json')
      .send(parsed.batch ? answers : answers[0]);
  });

  app.setNotFoundHandler((request, reply) =>
    send(reply, request, 'not_found', `No such path here; the agent-tool server is at ${mcpPath}.`),
  );
  app.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status === 413) return send(reply, request, 'payload_too_large', 'The message is larger than 1 MiB.');
    if (status >= 400 && status < 500) return send(reply, request, 'bad_request', (error as Error).message);
    request.log.error({ err: error }, 'agent-tool request failed');
    return send(reply, request, 'internal_error', 'Something went wrong; it has been logged.');
  });
  return app as unknown as FastifyInstance;
}
