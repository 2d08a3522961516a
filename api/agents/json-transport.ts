import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** The most messages one POST may carry (the SDK's own bound). */
const MAX_BATCH = 100;

/** A JSON-RPC error answer at the HTTP level (before any message reaches the server). */
export interface HttpRpcError {
  status: number;
  body: { jsonrpc: '2.0'; id: null; error: { code: number; message: string } };
}

// Once a message has passed JSONRPCMessageSchema, its shape tells its kind (the SDK's `isJSONRPC…`
// guards parse it again with zod each time).
const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } =>
  'method' in m && 'id' in m;
const isAnswer = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } =>
  !('method' in m) && 'id' in m && ('result' in m || 'error' in m);

const rpcError = (status: number, code: number, message: string): HttpRpcError => ({
  status,
  body: { jsonrpc: '2.0', id: null, error: { code, message } },
});

/**
 * The POST half of the Streamable HTTP transport, stateless, answering in JSON, for one request:
 * the checks the SDK's transport makes (Accept, JSON-RPC shape, one `initialize` alone, batch
 * bound), then the messages handed to the SDK's protocol `Server` and its answers collected.
 *
 * Why not the SDK's `StreamableHTTPServerTransport`: it turns each Node request into a web
 * `Request` and the answer back into a Node response (through `@hono/node-server`) and keeps
 * stream bookkeeping a stateless JSON answer does not need; on this path that was most of what
 * a tool call added to its REST call (see docs/benchmarks.md, "Agent-tool server").
 * Server-to-client requests and notifications have nowhere to go without a stream and are
 * dropped, as the SDK's transport drops them in JSON mode.
 */
export class JsonResponseTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly waiting = new Set<RequestId>();
  private readonly answers = new Map<RequestId, JSONRPCMessage>();
  private finish?: () => void;
  private closed = false;

  /**
   * Checks a POST's headers and parsed body: an HTTP-level error, or the messages to run.
   */
  static parse(
    accept: string | undefined,
    body: unknown,
  ): HttpRpcError | { messages: JSONRPCMessage[]; batch: boolean } {
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream'))
      return rpcError(
        406,
        -32000,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    const batch = Array.isArray(body);
    const raw = batch ? (body as unknown[]) : [body];
    if (raw.length > MAX_BATCH)
      return rpcError(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    const messages: JSONRPCMessage[] = [];
    for (const m of raw) {
      const parsed = JSONRPCMessageSchema.safeParse(m);
      if (!parsed.success) return rpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
      messages.push(parsed.data);
    }
    if (messages.length === 0) return rpcError(400, -32600, 'Invalid Request: empty batch');
    if (messages.length > 1 && messages.some((m) => isRequest(m) && m.method === 'initialize'))
      return rpcError(400, -32600, 'Invalid Request: Only one initialization request is allowed');
    return { messages, batch };
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.finish?.();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!isAnswer(message) || !this.waiting.delete(message.id)) return;
    const id = message.id;
    this.answers.set(id, message);
    if (this.waiting.size === 0) this.finish?.();
  }

  /**
   * Hands the messages to the connected server. Resolves with the answers to its requests, in
   * their order (none when it carried only notifications or responses: HTTP 202), or with what
   * was answered by the time the transport closed (the client went away).
   */
  run(messages: JSONRPCMessage[]): Promise<JSONRPCMessage[]> {
    const requests = messages.filter(isRequest);
    for (const r of requests) this.waiting.add(r.id);
    const done = new Promise<void>((resolve) => {
      this.finish = resolve;
    });
    for (const m of messages) this.onmessage?.(m);
    if (requests.length === 0) return Promise.resolve([]);
    return done.then(() => requests.flatMap((r) => this.answers.get(r.id) ?? []));
  }
}
