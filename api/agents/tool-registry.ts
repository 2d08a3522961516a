import type { JsonSchema, RestOperation, RestOperations } from './rest-operations.ts';

/** Tool categories; `tools/list` shows the default ones unless `?include=` opts in to others. */
export const TOOL_CATEGORIES = [
  'search',
  'episodes',
  'podcasts',
  'entities',
  'mentions',
  'rankings',
  'advertising',
  'bias',
  'alerts',
] as const;
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

/** What `/mcp` serves without `?tools=` or `?include=`. */
export const DEFAULT_CATEGORIES: readonly ToolCategory[] = [
  'search',
  'episodes',
  'podcasts',
  'entities',
  'mentions',
];

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A REST read: changes nothing, same answer for the same input, closed world (this service's data). */
export const READ: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * One tool, declared once: its name (`earshot_` prefix), category, the REST operation it mirrors
 * and how the tool's input maps onto that operation. Its input and output schemas are the
 * operation's own (path parameters renamed, query parameters and body fields as they are), and
 * its call is that operation, run in-process for the caller (see tool-calls.ts): a tool has no
 * implementation of its own.
 */
export interface ToolDeclaration {
  name: `earshot_${string}`;
  title: string;
  /** What it does, for the model choosing a tool; the operation's summary is appended. */
  description: string;
  category: ToolCategory;
  /** The REST operation: method and the router's path pattern. */
  operation: { method: 'GET' | 'POST' | 'PATCH'; path: string };
  annotations: ToolAnnotations;
  /** Path parameter → the tool's input name and its description (e.g. `id` → `episode_id`). */
  params?: Record<string, { name: string; description: string }>;
  /** A path parameter filled with the caller's project when the input leaves it out. */
  projectParam?: string;
  /** Query parameters the tool does not offer (e.g. ones meant for browsers). */
  omitQuery?: string[];
  /** The body's fields become the tool's input (writes). */
  bodyInput?: boolean;
  /** A fixed body (e.g. `{ is_active: false }` to pause). */
  fixedBody?: Record<string, unknown>;
  /** Defaults the tool applies that its REST operation does not (smaller pages for a model). */
  defaults?: Record<string, unknown>;
  /** A line on the whole answer, after the title (e.g. totals). */
  summary?: (result: Record<string, unknown>) => string;
  /** One line per result, for the text rendering (default: titles, names and ids it finds). */
  line?: (item: Record<string, unknown>) => string | undefined;
}

/** A declaration joined with its REST operation: what `tools/list` shows and `tools/call` runs. */
export interface Tool {
  declaration: ToolDeclaration;
  operation: RestOperation;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  /** The input names that fill the operation's path, query and body. */
  pathInputs: Record<string, string>;
  queryInputs: Set<string>;
  bodyInputs: Set<string>;
  /** Whether the operation pages with `limit` (the tool halves it to keep answers in bounds). */
  pages: boolean;
}

const objectSchema = (s: JsonSchema | undefined) => ({
  properties: (s?.properties ?? {}) as Record<string, JsonSchema>,
  required: (s?.required ?? []) as string[],
});

/** Schemas of fields with a default the tool sets: the default shown is the tool's. */
function withDefault(schema: JsonSchema, value: unknown): JsonSchema {
  return { ...schema, default: value };
}

/**
 * Joins declarations with the operations they mirror. A tool whose operation this application
 * does not serve (e.g. search without a search index) is left out, as its endpoint is.
 */
export function buildTools(declarations: readonly ToolDeclaration[], operations: RestOperations): Tool[] {
  const names = new Set<string>();
  return declarations.flatMap((d) => {
    if (names.has(d.name)) throw new Error(`tool ${d.name} is declared twice`);
    names.add(d.name);
    const operation = operations.get(d.operation.method, d.operation.path);
    if (!operation) return [];
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const pathInputs: Record<string, string> = {};
    const params = objectSchema(operation.params);
    for (const [param, schema] of Object.entries(params.properties)) {
      const renamed = d.params?.[param];
      const name = renamed?.name ?? param;
      pathInputs[param] = name;
      properties[name] = { ...schema, ...(renamed ? { description: renamed.description } : {}) };
      if (param === d.projectParam)
        properties[name] = {
          ...properties[name],
          description: `${properties[name].description ?? 'project ID'}; the caller's project when omitted`,
        };
      else required.push(name);
    }
    const query = objectSchema(operation.querystring);
    const queryInputs = new Set<string>();
    for (const [name, schema] of Object.entries(query.properties)) {
      if (d.omitQuery?.includes(name)) continue;
      queryInputs.add(name);
      properties[name] = name in (d.defaults ?? {}) ? withDefault(schema, d.defaults![name]) : schema;
    }
    required.push(...query.required.filter((r) => queryInputs.has(r)));
    const bodyInputs = new Set<string>();
    if (d.bodyInput) {
      const body = objectSchema(operation.body);
      for (const [name, schema] of Object.entries(body.properties)) {
        bodyInputs.add(name);
        properties[name] = schema;
      }
      required.push(...body.required);
    }
    const response = operation.response;
    if (response?.type !== 'object')
      throw new Error(`tool ${d.name}: ${d.operation.method} ${d.operation.path} answers no object schema`);
    const tool: Tool = {
      declaration: d,
      operation,
      inputSchema: {
        type: 'object',
        properties,
        ...(required.length > 0 ? { required: [...new Set(required)] } : {}),
        additionalProperties: false,
      },
      outputSchema: response as JsonSchema & { type: 'object' },
      pathInputs,
      queryInputs,
      bodyInputs,
      pages: queryInputs.has('limit'),
    };
    return [tool];
  });
}

/** A selector parameter as the query parser gives it: absent, once, or repeated. */
export type SelectorParam = string | readonly string[] | undefined;

/**
 * Which tools a connection sees: `?tools=` names them exactly, `?include=` adds categories. A
 * repeated parameter (`?tools=a&tools=b`) is one list, as `?tools=a,b`.
 */
export function selectTools(
  tools: readonly Tool[],
  query: { tools?: SelectorParam; include?: SelectorParam },
): { ok: true; tools: Tool[] } | { ok: false; message: string; location: string } {
  const split = (v: SelectorParam) =>
    (typeof v === 'string' ? v : (v ?? []).join(','))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const named = split(query.tools);
  const included = split(query.include);
  const byName = new Map<string, Tool>(tools.map((t) => [t.declaration.name, t]));
  const unknownTool = named.find((n) => !byName.has(n));
  if (unknownTool)
    return { ok: false, message: `unknown tool ${unknownTool.slice(0, 100)}`, location: 'query.tools' };
  const all = included.includes('all');
  const unknownCategory = included.find(
    (c) => c !== 'all' && !(TOOL_CATEGORIES as readonly string[]).includes(c),
  );
  if (unknownCategory)
    return {
      ok: false,
      message: `unknown category ${unknownCategory.slice(0, 100)}; categories: ${TOOL_CATEGORIES.join(', ')}, all`,
      location: 'query.include',
    };
  const categories = new Set<string>(named.length > 0 ? [] : DEFAULT_CATEGORIES);
  for (const c of all ? TOOL_CATEGORIES : included) categories.add(c);
  const names = new Set(named);
  // The registry's order, whatever the order of the query: `tools/list` is stable.
  return {
    ok: true,
    tools: tools.filter((t) => names.has(t.declaration.name) || categories.has(t.declaration.category)),
  };
}
