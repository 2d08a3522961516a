import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentStack, agentStack, consent, personWithProject, testClock } from '../support/agents.ts';

/**
 * Every error path of OAuth for agents, against the real authorization server, consent page and
 * agent-tool server: PKCE missing or `plain`, a wrong verifier, a wrong `resource`, a reused or
 * expired code, an expired access token, a token for another audience, an OAuth token on REST,
 * unsupported grants and registrations, the 401 challenge.
 */
const clock = testClock();
let stack: AgentStack;
let person: Awaited<ReturnType<typeof personWithProject>>;
let clientId: string;
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  stack = await agentStack({ now: clock.now });
  person = await personWithProject(stack, 'oauth-errors@example.com');
  const res = await fetch(`${stack.publicUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Error prober', redirect_uris: [REDIRECT] }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { client_id: string; client_secret?: string };
  expect(body.client_secret).toBeUndefined();
  clientId = body.client_id;
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

function authorizeUrl(params: Record<string, string | undefined>) {
  const url = new URL(`${stack.publicUrl}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

const good = (challenge: string) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: REDIRECT,
  code_challenge: challenge,
  code_challenge_method: 'S256',
  resource: stack.mcpUrl,
  state: 'st-1',
});

/** The error an authorization request is sent back with. */
async function authorizeError(params: Record<string, string | undefined>) {
  const res = await stack.api.app.inject({
    method: 'GET',
    url: authorizeUrl(params).pathname + authorizeUrl(params).search,
  });
  expect(res.statusCode).toBe(303);
  const back = new URL(res.headers.location as string);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  expect(back.searchParams.get('state')).toBe('st-1');
  return back.searchParams.get('error');
}

async function token(fields: Record<string, string>) {
  const res = await fetch(`${stack.publicUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

async function approvedCode(challenge: string) {
  const back = await consent(stack, person.browser, authorizeUrl(good(challenge)), person.project.id);
  return back.searchParams.get('code')!;
}

async function tokens() {
  const { verifier, challenge } = pkce();
  const code = await approvedCode(challenge);
  const res = await token({
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
  });
  expect(res.status).toBe(200);
  return res.body as { access_token: string; refresh_token: string };
}

async function mcp(headers: Record<string, string>) {
  const res = await fetch(stack.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.text() };
}

describe('authorization request', () => {
  it('refuses a request without PKCE, with the plain method, or with a wrong or missing resource', async () => {
    const { challenge } = pkce();
    expect(await authorizeError({ ...good(challenge), code_challenge: undefined })).toBe('invalid_request');
    expect(await authorizeError({ ...good(challenge), code_challenge_method: 'plain' })).toBe(
      'invalid_request',
    );
    expect(await authorizeError({ ...good(challenge), code_challenge_method: undefined })).toBe(
      'invalid_request',
    );
    expect(await authorizeError({ ...good(challenge), resource: 'http://127.0.0.1:1/other' })).toBe(
      'invalid_target',
    );
    expect(await authorizeError({ ...good(challenge), resource: undefined })).toBe('invalid_target');
    expect(await authorizeError({ ...good(challenge), response_type: 'token' })).toBe(
      'unsupported_response_type',
    );
  });

  it('tells the person, and redirects nowhere, when the client or redirect URI is not right', async () => {
    const { challenge } = pkce();
    for (const params of [
      { ...good(challenge), client_id: 'cli_unknown' },
      { ...good(challenge), redirect_uri: 'http://127.0.0.1:9/elsewhere' },
      // A client-ID metadata document at a loopback address: the outbound guard refuses it.
      { ...good(challenge), client_id: 'https://127.0.0.1/client.json' },
    ]) {
      const url = authorizeUrl(params);
      const res = await stack.api.app.inject({ method: 'GET', url: url.pathname + url.search });
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
    }
  });

  it('a person who declines sends the client access_denied', async () => {
    const { challenge } = pkce();
    const back = await consent(
      stack,
      person.browser,
      authorizeUrl(good(challenge)),
      person.project.id,
      'deny',
    );
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('the consent form needs its CSRF token and a project of the person', async () => {
    const { challenge } = pkce();
    const start = await stack.api.app.inject({
      method: 'GET',
      url: authorizeUrl(good(challenge)).pathname + authorizeUrl(good(challenge)).search,
    });
    const request = new URL(start.headers.location as string).searchParams.get('request')!;
    await person.browser.get(`/oauth/consent?request=${encodeURIComponent(request)}`);
    expect(
      (
        await person.browser.post(
          '/oauth/consent',
          { request, project: person.project.id, decision: 'approve' },
          { csrf: null },
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await person.browser.post('/oauth/consent', {
          request,
          project: stack.api.projects.business!,
          decision: 'approve',
        })
      ).status,
    ).toBe(404);
  });
});

describe('token endpoint', () => {
  it('refuses a wrong verifier, and the code is spent (and its grant revoked) afterwards', async () => {
    const { verifier, challenge } = pkce();
    const code = await approvedCode(challenge);
    const wrong = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce().verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const right = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(right).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a wrong resource at the exchange', async () => {
    const { verifier, challenge } = pkce();
    const code = await approvedCode(challenge);
    const res = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
      resource: 'http://127.0.0.1:1/mcp',
    });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
  });

  it('a reused code is refused and revokes what the first use issued', async () => {
    const { verifier, challenge } = pkce();
    const code = await approvedCode(challenge);
    const fields = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    };
    const first = await token(fields);
    expect(first.status).toBe(200);
    const again = await token(fields);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(again.body.error_description).toMatch(/already used/);
    const refresh = await token({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token!,
      client_id: clientId,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('an expired code is refused', async () => {
    const { verifier, challenge } = pkce();
    const code = await approvedCode(challenge);
    clock.advance(61_000);
    const res = await token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(res.body.error_description).toMatch(/expired/);
  });

  it('answers unsupported grants and endpoints with the standard OAuth error', async () => {
    for (const grant of [
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      'client_credentials',
      'password',
    ]) {
      const res = await token({ grant_type: grant, client_id: clientId });
      expect(res).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    }
    const device = await fetch(`${stack.publicUrl}/oauth/device_authorization`, { method: 'POST' });
    expect(device.status).toBe(400);
    expect(((await device.json()) as { error: string }).error).toBe('unsupported_grant_type');
  });

  it('registers public clients only, with the standard errors', async () => {
    const register = async (body: unknown) => {
      const res = await fetch(`${stack.publicUrl}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { error?: string } };
    };
    expect(
      await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    expect(await register({ redirect_uris: [REDIRECT], grant_types: ['client_credentials'] })).toMatchObject({
      status: 400,
      body: { error: 'invalid_client_metadata' },
    });
    expect(await register({ redirect_uris: ['http://example.com/cb'] })).toMatchObject({
      status: 400,
      body: { error: 'invalid_redirect_uri' },
    });
    expect(await register({})).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
  });
});

describe('access tokens', () => {
  it('the agent-tool server takes a fresh token and refuses an expired one with the challenge', async () => {
    const { access_token } = await tokens();
    expect((await mcp({ authorization: `Bearer ${access_token}` })).status).toBe(200);
    clock.advance(15 * 60_000 + 1000);
    const res = await mcp({ authorization: `Bearer ${access_token}` });
    expect(res.status).toBe(401);
    expect(res.body).toMatch(/expired/);
    expect(res.challenge).toMatch(/^Bearer realm="mcp", error="invalid_token"/);
    expect(res.challenge).toContain(
      `resource_metadata="${stack.mcpUrl.replace('/mcp', '')}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('refuses a token issued for another audience', async () => {
    const other = await stack.api.app.agentAuth.tokens.sign(
      { grant_id: 'grt_x', project_id: stack.api.projects.business!, client_id: clientId },
      'usr_x',
      'http://127.0.0.1:1/mcp',
    );
    const res = await mcp({ authorization: `Bearer ${other}` });
    expect(res.status).toBe(401);
    expect(res.body).toMatch(/another resource/);
  });

  it('refuses OAuth tokens on the REST API', async () => {
    const { access_token } = await tokens();
    for (const headers of [{ authorization: `Bearer ${access_token}` }, { 'x-api-key': access_token }]) {
      const res = await stack.api.app.inject({
        method: 'GET',
        url: `/v1/projects/${stack.api.projects.business}/alerts`,
        headers,
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error_code: 'invalid_token' });
    }
  });

  it('answers a missing or unknown credential with 401 and where to authorize', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer esk_not_a_key_at_all_000000000000' },
      { authorization: 'Basic abc' },
    ];
    for (const headers of attempts) {
      const res = await mcp(headers);
      expect(res.status).toBe(401);
      expect(res.challenge).toMatch(/resource_metadata="/);
      expect(JSON.parse(res.body).detail.length).toBeGreaterThan(10);
    }
    const prm = (await (
      await fetch(`${stack.mcpUrl.replace('/mcp', '')}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: stack.mcpUrl, authorization_servers: [stack.publicUrl] });
    const onApi = (await (
      await fetch(`${stack.publicUrl}/.well-known/oauth-protected-resource`)
    ).json()) as Record<string, unknown>;
    expect(onApi).toEqual(prm);
    const as = (await (
      await fetch(`${stack.publicUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: stack.publicUrl,
      code_challenge_methods_supported: ['S256'],
      agent_auth: { resource: stack.mcpUrl },
    });
    const jwks = (await (await fetch(as.jwks_uri as string)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const host of [stack.publicUrl, stack.mcpUrl.replace('/mcp', '')]) {
      const guide = await (await fetch(`${host}/auth.md`)).text();
      expect(guide).toContain(stack.mcpUrl);
    }
  });

  it('rotated signing keys: new tokens carry the new kid, old tokens still verify', async () => {
    const before = await tokens();
    const { kid, retired } = await stack.api.app.agentAuth.tokens.rotate();
    expect(retired.length).toBeGreaterThan(0);
    const after = await tokens();
    const kidOf = (t: string) => JSON.parse(Buffer.from(t.split('.')[0]!, 'base64url').toString()).kid;
    expect(kidOf(after.access_token)).toBe(kid);
    expect(kidOf(before.access_token)).not.toBe(kid);
    expect((await mcp({ authorization: `Bearer ${before.access_token}` })).status).toBe(200);
    expect((await mcp({ authorization: `Bearer ${after.access_token}` })).status).toBe(200);
  });
});
