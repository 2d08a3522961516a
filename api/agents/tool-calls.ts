import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Principal } from '../../projections/state/accounts.ts';
import type { ToolUsage, ToolUsageCount } from '../../projections/state/tool-usage.ts';
import { BatchedCounts } from '../batched-counts.ts';
import { InProcessCalls, type PaidInProcessCall } from '../plugins/authentication.ts';
import type { Tool } from './tool-registry.ts';

/** Who calls a tool: the verified principal and the credential it came with. */
export interface ToolCaller {
  principal: Principal;
  /** `api_key`: an API key (`principal.keyId`); `oauth`: an access token of grant `principal.grantId`. */
  credential: 'api_key' | 'oauth';
}

export interface ToolCall {
  tool: Tool;
  args: Record<string, unknown>;
  /** Absent: no account credential came (payments on); the call must be paid for. */
  caller?: ToolCaller;
  /** What a call without an account presents to pay with (see tool-payments.ts). */
  payment?: ToolCallPayment;
  /** Set by the payment wrapper once a payment is reserved: the REST call is made as paid. */
  paid?: PaidInProcessCall['paid'];
}

/** The payment parts of a tool call: its HTTP request's headers and the call's `_meta`. */
export interface ToolCallPayment {
  /** `PAYMENT-SIGNATURE` and `Authorization` (when its scheme is `Payment`) of the HTTP request. */
  headers: { signature?: string; authorization?: string };
  /** `params._meta` of the `tools/call`. */
  meta?: Record<string, unknown>;
  /** Adds a header to the HTTP response that carries this call's answer. */
  setHeader(name: string, value: string): void;
  /** The client's address (rate limits of the REST call). */
  ip: string;
}

/**
 * The one path every tool call takes. A wrapper (metering, payment) is a function from one
 * `ToolCallPath` to another, so it sees every call and its result:
 * `meteredCalls(restCalls(api), usage)`.
 */
export type ToolCallPath = (call: ToolCall) => Promise<CallToolResult>;

/** Answers above this many characters of JSON (about 20k tokens) are paged smaller. */
export const MAX_RESULT_CHARS = 80_000;
const FALLBACK_LIMIT = 25;

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

interface Problem {
  status?: number;
  error_code?: string;
  detail?: string;
  errors?: { location?: string; message?: string }[];
  resolve?: { message?: string; url?: string };
}

/** A problem document as a tool error a model can act on; REST's locations named as the tool's inputs. */
function problemResult(tool: Tool, status: number, body: string): CallToolResult {
  let p: Problem = {};
  try {
    p = JSON.parse(body) as Problem;
  } catch {
    // not JSON: the status says enough
  }
  const rename = (location = '') => {
    const [part, name] = location.split('.', 2);
    if (part === 'path' && name) return tool.pathInputs[name] ?? name;
    return part === 'query' || part === 'body' ? (name ?? location) : location;
  };
  const lines = [`${status} ${p.error_code ?? 'error'}: ${p.detail ?? 'the call failed'}`];
  for (const e of p.errors ?? []) lines.push(`- ${rename(e.location)}: ${e.message ?? ''}`);
  if (p.resolve?.message)
    lines.push(`To resolve: ${p.resolve.message}${p.resolve.url ? ` (${p.resolve.url})` : ''}`);
  return errorResult(lines.join('\n'));
}

/**
 * Tool calls as calls of their REST operation, made in-process (`inject`) for the caller: the
 * route's validation, handler, query services, views and response schema, with the caller's
 * principal (no credential travels), its rate limit and plan gates. An answer over
 * MAX_RESULT_CHARS is asked again with half the page size until it fits.
 */
export function restCalls(api: FastifyInstance): ToolCallPath {
  return async ({ tool, args, caller, paid, payment }) => {
    const d = tool.declaration;
    const as = paid ? { paid } : caller?.principal;
    if (!as)
      return errorResult('401 authentication_required: this call has neither an account nor a payment');
    const known = tool.inputSchema.properties as Record<string, unknown>;
    const unknown = Object.keys(args).filter((k) => !(k in known));
    if (unknown.length > 0)
      return errorResult(`422 validation_error: unknown argument(s) ${unknown.join(', ')}`);
    let path = tool.operation.path;
    for (const [param, input] of Object.entries(tool.pathInputs)) {
      let value = args[input];
      if (value === undefined && param === d.projectParam) value = caller?.principal.project.id;
      if (typeof value !== 'string' && typeof value !== 'number')
        return errorResult(`422 validation_error: ${input} is required (a string)`);
      path = path.replace(`:${param}`, encodeURIComponent(String(value)));
    }
    const query: Record<string, string | string[]> = {};
    for (const name of tool.queryInputs) {
      const value = args[name] ?? d.defaults?.[name];
      if (value === undefined || value === null) continue;
      query[name] = Array.isArray(value)
        ? value.map(String)
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
    }
    let body: Record<string, unknown> | undefined = d.fixedBody;
    if (d.bodyInput) body = Object.fromEntries(Object.entries(args).filter(([k]) => tool.bodyInputs.has(k)));
    let limit = query.limit === undefined ? undefined : Number(query.limit);
    let reduced = false;
    for (;;) {
      const token = api.inProcessCalls.admit(as);
      let res: Awaited<ReturnType<FastifyInstance['inject']>>;
      try {
        res = await api.inject({
          method: tool.operation.method as 'GET',
          url: path,
          query: limit === undefined ? query : { ...query, limit: String(limit) },
          ...(paid && payment ? { remoteAddress: payment.ip } : {}),
          headers: {
            [InProcessCalls.HEADER]: token,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { payload: JSON.stringify(body) } : {}),
        });
      } finally {
        api.inProcessCalls.release(token);
      }
      if (res.statusCode >= 400) return problemResult(tool, res.statusCode, res.body);
      if (res.body.length > MAX_RESULT_CHARS && tool.pages && (limit ?? 2) > 1) {
        limit = Math.max(1, Math.floor((limit ?? FALLBACK_LIMIT * 2) / 2));
        reduced = true;
        continue;
      }
      if (res.body.length > MAX_RESULT_CHARS)
        return errorResult(
          `The answer is larger than this server returns at once (${res.body.length} characters of JSON); narrow the request.`,
        );
      const structured = (res.body ? JSON.parse(res.body) : {}) as Record<string, unknown>;
      return {
        content: [{ type: 'text', text: render(tool, structured, reduced ? limit : undefined) }],
        structuredContent: structured,
      };
    }
  };
}

/** The first string of these fields an item has. */
const first = (item: Record<string, unknown>, fields: string[]) => {
  for (const f of fields) {
    const v = item[f];
    if (typeof v === 'string' && v.length > 0) return v;
  }
  return undefined;
};

const clip = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One line for a result item: its label and the references other tools accept. */
function itemLine(item: Record<string, unknown>): string {
  const nested = [
    'episode',
    'podcast',
    'entity',
    'person',
    'company',
    'knowledge_graph_entity',
    'publisher',
    'line',
  ]
    .map((k) => item[k])
    .filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v));
  const label =
    first(item, ['title', 'name', 'text', 'sponsor_name']) ??
    nested.map((n) => first(n, ['title', 'name', 'text'])).find(Boolean) ??
    '';
  const refs: string[] = [];
  for (const key of ['slug', 'id']) {
    const v = item[key];
    if (typeof v === 'string') refs.push(`${key} ${v}`);
  }
  for (const n of nested) {
    const ref = first(n, ['slug', 'id']);
    if (ref) refs.push(`${Object.keys(item).find((k) => item[k] === n)} ${ref}`);
  }
  return `- ${clip(label)}${refs.length ? ` (${refs.slice(0, 3).join(', ')})` : ''}`;
}

/** A concise text rendering: counts, one line per item, the cursor for the next page. */
function render(tool: Tool, result: Record<string, unknown>, reducedTo: number | undefined): string {
  const listKey = ['data', 'lines', 'entities', 'words', 'buckets', 'matches', 'deliveries', 'days'].find(
    (k) => Array.isArray(result[k]),
  );
  const out: string[] = [tool.declaration.title];
  if (tool.declaration.summary) out.push(tool.declaration.summary(result));
  if (listKey) {
    const items = result[listKey] as Record<string, unknown>[];
    out[0] = `${tool.declaration.title}: ${items.length} ${listKey === 'data' ? 'result' : listKey.replace(/s$/, '')}${items.length === 1 ? '' : 's'}`;
    const line = tool.declaration.line ?? itemLine;
    for (const item of items.slice(0, 50)) {
      const l = typeof item === 'object' && item !== null ? line(item) : String(item);
      if (l) out.push(l);
    }
    if (items.length > 50) out.push(`… ${items.length - 50} more in the structured result`);
  } else {
    out.push(itemLine(result));
  }
  if (result.has_more === true && typeof result.cursor === 'string')
    out.push(
      `More: call ${tool.declaration.name} again with the same arguments and cursor "${result.cursor}".`,
    );
  if (reducedTo !== undefined) out.push(`(Page size reduced to ${reducedTo} to keep the answer small.)`);
  return out.join('\n');
}

/**
 * Counts each tool call per project, tool, credential and UTC day (an error result counts as an
 * error), adding them to `tool_usage` every few seconds and when closed.
 */
export class ToolUsageCounter {
  private readonly counts: BatchedCounts<ToolUsageCount>;

  constructor(store: ToolUsage, log: FastifyBaseLogger, intervalMs = 5000) {
    this.counts = new BatchedCounts({
      write: (batch) => store.add(batch),
      merge: (into, from) => {
        into.calls += from.calls;
        into.errors += from.errors;
      },
      log,
      what: 'tool usage',
      intervalMs,
    });
  }

  count(projectId: string, tool: string, credentialId: string, error: boolean, now = Date.now()): void {
    const day = new Date(now).toISOString().slice(0, 10);
    this.counts.add(
      `${projectId} ${tool} ${credentialId} ${day}`,
      () => ({ projectId, tool, credentialId, day, calls: 0, errors: 0 }),
      (entry) => {
        entry.calls += 1;
        if (error) entry.errors += 1;
      },
    );
  }

  flush(): Promise<void> {
    return this.counts.flush();
  }

  close(): Promise<void> {
    return this.counts.close();
  }
}

/** Every call of an account counted per tool (see ToolUsageCounter), whatever its outcome (paid calls are in the payment ledger). */
export function meteredCalls(next: ToolCallPath, usage: ToolUsageCounter): ToolCallPath {
  return async (call) => {
    if (!call.caller) return next(call);
    const { principal } = call.caller;
    try {
      const result = await next(call);
      usage.count(principal.project.id, call.tool.declaration.name, principal.keyId, result.isError === true);
      return result;
    } catch (err) {
      usage.count(principal.project.id, call.tool.declaration.name, principal.keyId, true);
      throw err;
    }
  };
}
