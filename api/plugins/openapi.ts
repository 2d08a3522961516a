import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { dashboardLink, dashboardPaths } from '../dashboard-paths.ts';
import { authGuide } from '../docs/auth-guide.ts';
import { routeAccess } from './authentication.ts';
import {
  constrainBody,
  describeServerBehaviour,
  describeStream,
  OPENAPI_VERSION,
  type Operation,
  type QueryConstraint,
  queryAsQuerystring,
  type StreamResponse,
} from './openapi-document.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Payable per request without an account; the price is in whole US cents. */
    billable?: { priceCents: number };
    /**
     * Rules relating query parameters (one of two required, two that exclude each other), for
     * the OpenAPI document: the operation's query string is then described as one schema
     * (OpenAPI 3.2 `in: querystring`). The route enforces them itself, with its own messages.
     */
    queryConstraints?: QueryConstraint[];
    /** Rules relating fields of the JSON body, for the document (the route enforces them). */
    bodyConstraints?: QueryConstraint[];
    /**
     * A response written as a sequence of items (event stream, NDJSON) by the route itself: the
     * document describes it with OpenAPI 3.2 `itemSchema`.
     */
    streamResponse?: StreamResponse;
  }
}

export const API_VERSION = '0.1.0';

/** `/v1/alerts/:id` → `/v1/alerts/{id}` */
function openapiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

interface OperationInfo {
  method: string;
  path: string;
  summary?: string;
  priceCents?: number;
  queryConstraints?: QueryConstraint[];
  bodyConstraints?: QueryConstraint[];
  streamResponse?: StreamResponse;
}

/**
 * OpenAPI 3.1 generated from the route schemas (`GET /openapi.json`), an interactive reference
 * at `/docs`, the authentication guide at `/auth.md` and an LLM-readable index at `/llms.txt`.
 */
export const openapiPlugin = fp<{ publicUrl: string; docsUrl: string; dashboardUrl: string; mcpUrl: string }>(
  async (app: FastifyInstance, opts) => {
    const operations: OperationInfo[] = [];
    app.addHook('onRoute', (route) => {
      if (route.schema?.hide || !route.url.startsWith('/')) return;
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
        (m) => m !== 'HEAD',
      );
      for (const method of methods) {
        operations.push({
          method,
          path: openapiPath(route.url),
          summary: route.schema?.summary as string | undefined,
          priceCents: route.config?.billable?.priceCents,
          queryConstraints: route.config?.queryConstraints,
          bodyConstraints: route.config?.bodyConstraints,
          streamResponse: route.config?.streamResponse,
        });
      }
    });

    await app.register(swagger, {
      openapi: {
        openapi: OPENAPI_VERSION,
        info: {
          title: 'Earshot API',
          version: API_VERSION,
          description:
            'Podcast intelligence: diarized, speaker-identified transcripts, dialogue search, entity mentions, clips, sponsors, charts, bias leaderboards and alerts. ' +
            `Accounts, projects, API keys, webhook connections, team-chat installs and alerts are managed by people in the dashboard: ${dashboardLink(opts.dashboardUrl, dashboardPaths.home())}`,
        },
        servers: [{ url: opts.publicUrl }],
        components: {
          securitySchemes: {
            ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
            BearerKey: { type: 'http', scheme: 'bearer', description: 'the API key as a bearer token' },
            ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'api-key' },
            IngestToken: {
              type: 'http',
              scheme: 'bearer',
              description: 'an ingest token (eit_…), for batch ingest only',
            },
          },
        },
      },
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) =>
          typeof json.$id === 'string' ? json.$id : `def-${i}`,
      },
      transform: ({ schema, url, route }) => {
        const secured = routeAccess(url, route.config) === 'api_key';
        const out = { ...(schema ?? {}) } as Record<string, unknown>;
        if (secured) out.security = [{ ApiKeyHeader: [] }, { BearerKey: [] }, { ApiKeyQuery: [] }];
        return { schema: out as never, url };
      },
      transformObject: (documentObject) => {
        const openapiObject =
          'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
        const doc = openapiObject as { paths?: Record<string, Record<string, Operation>> };
        for (const item of Object.values(doc.paths ?? {})) {
          for (const operation of Object.values(item)) {
            if (operation && typeof operation === 'object' && !Array.isArray(operation))
              describeServerBehaviour(operation);
          }
        }
        for (const op of operations) {
          const operation = doc.paths?.[op.path]?.[op.method.toLowerCase()];
          if (!operation) continue;
          if (op.priceCents !== undefined) {
            operation['x-payment-info'] = {
              price: { amount: (op.priceCents / 100).toFixed(2), currency: 'USD', cents: op.priceCents },
              protocols: ['x402', 'mpp'],
              network: 'eip155:8453',
            };
          }
          if (op.queryConstraints) queryAsQuerystring(operation, op.queryConstraints);
          if (op.bodyConstraints) constrainBody(operation, op.bodyConstraints);
          if (op.streamResponse) describeStream(operation, op.streamResponse);
        }
        return openapiObject;
      },
    });

    await app.register(swaggerUi, {
      routePrefix: '/docs',
      uiConfig: { docExpansion: 'list', deepLinking: true },
    });

    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

    const guide = authGuide(opts);
    app.get('/auth.md', { schema: { hide: true } }, async (_req, reply) =>
      reply.type('text/markdown; charset=utf-8').send(guide),
    );

    app.get('/llms.txt', { schema: { hide: true } }, async (_req, reply) => {
      const lines = [
        '# Earshot API',
        '',
        '> Podcast intelligence over REST: transcripts, dialogue search, entity mentions, clips, sponsors, charts, bias leaderboards and alerts. All data endpoints live under /v1/ and take an API key in the X-API-Key header.',
        '',
        '## Docs',
        '',
        `- [OpenAPI document](${opts.publicUrl}/openapi.json): every endpoint, parameter and response schema`,
        `- [Authentication](${opts.publicUrl}/auth.md): API keys, OAuth for agents, errors, rate limits`,
        `- [Agent-tool server](${opts.mcpUrl}): Model Context Protocol (Streamable HTTP), the same data as tools`,
        `- [Interactive reference](${opts.publicUrl}/docs)`,
        '',
        '## Dashboard',
        '',
        `- [Sign up](${dashboardLink(opts.dashboardUrl, dashboardPaths.signUp())}): an account, its organization and projects`,
        `- [Sign in](${dashboardLink(opts.dashboardUrl, dashboardPaths.signIn())}): mint and revoke API keys, see usage and rate limits, manage webhook connections, team-chat installs, notification emails and alerts`,
        `- API keys of a project: ${dashboardLink(opts.dashboardUrl, dashboardPaths.keys('{projectId}'))}`,
        `- Alerts of a project: ${dashboardLink(opts.dashboardUrl, dashboardPaths.alerts('{projectId}'))}; a delivery (what webhook envelopes' \`url\` links to): ${dashboardLink(opts.dashboardUrl, dashboardPaths.delivery('{deliveryId}'))}`,
        `- Plan and how to upgrade: ${dashboardLink(opts.dashboardUrl, dashboardPaths.plan('{projectId}'))}`,
        '',
        '## Endpoints',
        '',
        ...operations
          .filter((o) => o.path.startsWith('/v1/'))
          .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
          .map((o) => `- ${o.method} ${o.path}${o.summary ? `: ${o.summary}` : ''}`),
        '',
      ];
      return reply.type('text/plain; charset=utf-8').send(lines.join('\n'));
    });
  },
);
