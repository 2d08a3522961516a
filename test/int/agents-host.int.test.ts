import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentStack, agentStack } from '../support/agents.ts';

/**
 * The agent-tool host at the HTTP level: the Streamable HTTP POST rules (Accept, JSON-RPC shape,
 * batches, notifications) as the SDK's transport applies them, the Origin check, and the
 * per-address limits of OAuth registration and tokens on the API host.
 */
let stack: AgentStack;
let key: string;

beforeAll(async () => {
  stack = await agentStack({
    allowedOrigins: ['https://agent.example'],
    oauthLimits: {
      register: { perClient: 3, windowMs: 60_000 },
      token: { perClient: 4, windowMs: 60_000 },
    },
  });
  key = stack.api.keys.business!;
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

function post(body: unknown, headers: Record<string, string> = {}, query = '?include=alerts') {
  return fetch(`${stack.mcpUrl}${query}`, {
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

  it('takes a repeated tools or include parameter as one comma-separated list', async () => {
    const names = async (query: string) => {
      const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, query);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result: { tools: { name: string }[] } };
      return body.result.tools.map((t) => t.name);
    };
    const [a, b] = await names('?include=alerts');
    expect(await names(`?tools=${a}&tools=${b}`)).toEqual([a, b]);
    expect(await names(`?include=alerts&include=advertising`)).toEqual(
      await names('?include=alerts,advertising'),
    );
    const unknown = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, `?tools=${a}&tools=nope`);
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { errors: { location: string }[] }).errors[0]!.location).toBe(
      'query.tools',
    );
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

describe('agent-tool host Origin check (DNS rebinding)', () => {
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

  it('refuses a browser Origin that is not allowed with 403 and a problem, before anything else', async () => {
    for (const origin of ['http://evil.example', 'http://127.0.0.1:1', 'null']) {
      const res = await post(ping, { origin });
      expect(res.status, origin).toBe(403);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const body = (await res.json()) as { error_code: string; errors: { location: string }[] };
      expect(body.error_code).toBe('forbidden');
      expect(body.errors[0]!.location).toBe('header.origin');
    }
    // Refused before authentication: no credential needed to be told.
    const res = await fetch(stack.mcpUrl, { method: 'GET', headers: { origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
  });

  it("serves the server's own origin, configured origins, and clients that send none", async () => {
    for (const headers of [
      { origin: new URL(stack.mcpUrl).origin },
      { origin: 'https://agent.example' },
      {} as Record<string, string>,
    ]) {
      const res = await post(ping, headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('leaves the metadata documents to any origin', async () => {
    const res = await fetch(`${new URL(stack.mcpUrl).origin}/.well-known/oauth-protected-resource`, {
      headers: { origin: 'http://evil.example' },
    });
    expect(res.status).toBe(200);
  });
});

describe('OAuth registration and token limits per client address', () => {
  it('answers registrations past the limit with 429, Retry-After and a problem carrying OAuth error', async () => {
    const register = () =>
      fetch(`${stack.publicUrl}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Limited', redirect_uris: ['http://127.0.0.1:9/cb'] }),
      });
    for (let i = 0; i < 3; i++) expect((await register()).status).toBe(201);
    const res = await register();
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const body = (await res.json()) as { error_code: string; error: string; status: number };
    expect(body).toMatchObject({ error_code: 'rate_limited', error: 'rate_limited', status: 429 });
  });

  it('answers token requests past the limit with 429 and Retry-After, whatever they carry', async () => {
    const token = () =>
      fetch(`${stack.publicUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=guess&client_id=nobody&code_verifier=x',
      });
    for (let i = 0; i < 4; i++) expect((await token()).status).toBe(400);
    const res = await token();
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('rate_limited');
  });
});
