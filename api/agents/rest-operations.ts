import type { RouteOptions } from 'fastify';

/** A JSON Schema as plain data (TypeBox's symbols dropped). */
export type JsonSchema = Record<string, unknown>;

/** One REST operation as the router registered it: method, path pattern, schemas. */
export interface RestOperation {
  method: string;
  /** The router's pattern, e.g. `/v1/podcasts/episodes/:id`. */
  path: string;
  summary?: string;
  description?: string;
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema;
  /** The schema of the 200 (or 201) answer. */
  response?: JsonSchema;
  /** `config.public`: needs no credential. */
  public: boolean;
}

const plain = (schema: unknown): JsonSchema | undefined =>
  schema === undefined ? undefined : (JSON.parse(JSON.stringify(schema)) as JsonSchema);

/**
 * The REST operations of the application, collected as routes are registered (an `onRoute`
 * hook): the agent-tool server builds each tool's input and output schema from the operation it
 * mirrors, so a tool and its endpoint cannot describe different things.
 */
export class RestOperations {
  private readonly byKey = new Map<string, RestOperation>();

  readonly onRoute = (route: RouteOptions): void => {
    const url = route.url;
    if (!url?.startsWith('/v1/')) return;
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    const responses = (schema.response ?? {}) as Record<string, unknown>;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      this.byKey.set(`${method} ${url}`, {
        method,
        path: url,
        summary: schema.summary as string | undefined,
        description: schema.description as string | undefined,
        params: plain(schema.params),
        querystring: plain(schema.querystring),
        body: plain(schema.body),
        response: plain(responses['200'] ?? responses['201'] ?? responses['202']),
        public: Boolean((route.config as { public?: boolean } | undefined)?.public),
      });
    }
  };

  get(method: string, path: string): RestOperation | undefined {
    return this.byKey.get(`${method} ${path}`);
  }

  all(): RestOperation[] {
    return [...this.byKey.values()];
  }
}
