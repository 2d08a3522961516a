import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentStack, agentStack } from '../support/agents.ts';

/**
 * The agent-tool host at the HTTP level: the Streamable HTTP POST rules (Accept, JSON-RPC shape,
 * batches, notifications) as the SDK's transport applies them.
 */
let stack: AgentStack;
let key: string;

beforeAll(async () => {
  stack = await agentStack();
  key = stack.api.keys.business!;
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${stack.mcpUrl}?include=alerts`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('agent-tool host transport', () => {
  it('answers a request with its JSON-RPC answer, and a batch with one answer per request in order', async () => {
    const one = await post({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await one.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });

    const batch = await post([
      { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
    ]);
    expect(batch.status).toBe(200);
    const answers = (await batch.json()) as { id: string; result: { tools?: unknown[] } }[];
    expect(answers.map((a) => a.id)).toEqual(['b', 'a']);
    expect(answers[0]!.result.tools!.length).toBeGreaterThan(0);
  });

  it('accepts notifications alone with 202 and no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('refuses a client that does not accept both JSON and event streams (406)', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000);
  });

  it('refuses what is not JSON-RPC (400, parse error) and an initialize that is not alone', async () => {
    const bad = await post({ hello: 'world' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const two = await post([init, { jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(two.status).toBe(400);
    expect(((await two.json()) as { error: { code: number } }).error.code).toBe(-32600);
    const alone = await post(init);
    expect(alone.status).toBe(200);
    expect(((await alone.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(
      '2025-11-25',
    );
  });
});
