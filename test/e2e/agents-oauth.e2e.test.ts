import {
  auth,
  discoverAuthorizationServerMetadata,
  type OAuthClientProvider,
  refreshAuthorization,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfUtcDay } from '../../ingest/corpus/generate.ts';
import { type AgentStack, agentStack, consent, personWithProject, testClock } from '../support/agents.ts';
import { projectedCorpus } from '../support/analytics.ts';

/**
 * The agent-tool server end to end with the official SDK's own client and its OAuth client
 * provider: discovery from a 401, protected-resource and authorization-server metadata,
 * dynamic registration, authorization (the consent page walked by a signed-in person), the code
 * exchange, tools/list, a chain of calls passing slugs between tools, refresh rotation, reuse of
 * a rotated refresh token revoking the grant, revocation. Then the same tools with an API key.
 */
class TestProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:9/callback';
  authorizationUrl?: URL;
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier?: string;

  get clientMetadata() {
    return {
      client_name: 'Test agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no verifier');
    return this.verifier;
  }
}

const clock = testClock();
let stack: AgentStack;
let fx: Awaited<ReturnType<typeof projectedCorpus>>;

beforeAll(async () => {
  fx = await projectedCorpus({
    podcasts: 4,
    episodesPerPodcast: 4,
    seed: 18,
    asOf: startOfUtcDay(Date.now()),
  });
  stack = await agentStack({ state: fx.state, analytics: fx.analytics, now: clock.now });
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await fx?.close();
});

type Structured = Record<string, unknown> & { data?: Record<string, unknown>[] };

async function connect(transport: StreamableHTTPClientTransport) {
  const client = new Client({ name: 'earshot-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect((result.content as { type: string; text: string }[])[0]!.text.length).toBeGreaterThan(0);
  return result.structuredContent as Structured;
}

/** podcasts → a podcast → its episodes → an episode → its transcript → its entities → their mentions. */
async function slugChain(client: Client) {
  const podcasts = await call(client, 'earshot_list_podcasts', { limit: 2 });
  const podcastSlug = podcasts.data![0]!.slug as string;
  const podcast = await call(client, 'earshot_get_podcast', { podcast_id: podcastSlug });
  expect(podcast.slug).toBe(podcastSlug);
  const episodes = await call(client, 'earshot_list_episodes', { podcast_id: podcastSlug, limit: 3 });
  const episodeSlug = (episodes.data![0]! as { slug: string }).slug;
  const episode = await call(client, 'earshot_get_episode', { episode_id: episodeSlug });
  expect(episode.slug).toBe(episodeSlug);
  const transcript = await call(client, 'earshot_get_transcript', { episode_id: episodeSlug, limit: 5 });
  expect((transcript.lines as unknown[]).length).toBeLessThanOrEqual(5);
  if (transcript.has_more) {
    const next = await call(client, 'earshot_get_transcript', {
      episode_id: episodeSlug,
      limit: 5,
      cursor: transcript.cursor,
    });
    expect((next.lines as { number: number }[])[0]!.number).toBeGreaterThan(
      (transcript.lines as { number: number }[]).at(-1)!.number,
    );
  }
  const mentioned = await call(client, 'earshot_get_transcript_mentions', { episode_id: episodeSlug });
  const entities = mentioned.entities as { entity: { id: string; slug: string } }[];
  expect(entities.length).toBeGreaterThan(0);
  const entity = entities[0]!.entity;
  const mentions = await call(client, 'earshot_list_mentions', {
    entity_id: entity.slug,
    since: '2000-01-01',
  });
  expect(mentions.data!.length).toBeGreaterThan(0);
  const timeseries = await call(client, 'earshot_mention_timeseries', {
    entity_id: entity.id,
    interval: 'month',
    since: '2020-01-01',
  });
  expect((timeseries.entity as { id: string }).id).toBe(entity.id);
}

describe('OAuth 2.1 with the SDK client', () => {
  it('discovers, registers, is approved, exchanges, lists and calls tools, rotates, detects reuse and revokes', async () => {
    const person = await personWithProject(stack, 'agent-owner@example.com');
    const provider = new TestProvider();

    // 1. A first request answers 401; the SDK follows resource_metadata to the AS and registers.
    const first = new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { authProvider: provider });
    await expect(connect(first)).rejects.toThrow(UnauthorizedError);
    expect(provider.clientInformation()?.client_id).toMatch(/^cli_/);
    const authorization = provider.authorizationUrl!;
    expect(authorization.origin).toBe(stack.publicUrl);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(stack.mcpUrl);

    // 2. The person approves on the consent page, picking their project.
    const back = await consent(stack, person.browser, authorization, person.project.id);
    expect(back.origin + back.pathname).toBe(provider.redirectUrl);
    expect(back.searchParams.get('state')).toBe(authorization.searchParams.get('state'));
    expect(back.searchParams.get('iss')).toBe(stack.publicUrl);
    await first.finishAuth(back.searchParams.get('code')!);
    const tokens = provider.tokens()!;
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expires_in).toBe(900);

    // 3. Connected: tools/list in a stable order, then a chain of calls passing slugs.
    const client = await connect(
      new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { authProvider: provider }),
    );
    const listed = await client.listTools();
    const names = listed.tools.map((t) => t.name);
    // (No search index in this test: the search tools, like their endpoints, are not served.)
    expect(names).toEqual(
      expect.arrayContaining(['earshot_list_podcasts', 'earshot_get_transcript', 'earshot_list_mentions']),
    );
    expect(names.every((n) => n.startsWith('earshot_'))).toBe(true);
    expect(names).not.toContain('earshot_create_alert'); // alerts are opt-in
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(names);
    for (const t of listed.tools) {
      expect(t.outputSchema?.type).toBe('object');
      expect(t.annotations?.readOnlyHint).toBe(true);
    }
    await slugChain(client);
    await client.close();

    // 4. Refresh: the SDK swaps the refresh token for a new pair; the old one is spent.
    const before = provider.tokens()!;
    expect(await auth(provider, { serverUrl: stack.mcpUrl })).toBe('AUTHORIZED');
    const after = provider.tokens()!;
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.access_token).not.toBe(before.access_token);

    // 5. Presenting the rotated token again revokes the whole grant: the new one stops too.
    const metadata = await discoverAuthorizationServerMetadata(stack.publicUrl);
    const clientInformation = provider.clientInformation()!;
    await expect(
      refreshAuthorization(stack.publicUrl, {
        metadata,
        clientInformation,
        refreshToken: before.refresh_token!,
        resource: new URL(stack.mcpUrl),
      }),
    ).rejects.toThrow(/already used/);
    await expect(
      refreshAuthorization(stack.publicUrl, {
        metadata,
        clientInformation,
        refreshToken: after.refresh_token!,
        resource: new URL(stack.mcpUrl),
      }),
    ).rejects.toThrow(/revoked/);
    // Its access token is refused once the tool server's 5-second view of grants has passed.
    clock.advance(6000);
    const refused = await fetch(stack.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${after.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toMatch(/revoked/);

    // 6. A new approval, revoked by the client (RFC 7009): its refresh token ends.
    const again = new TestProvider();
    again.saveClientInformation(clientInformation);
    expect(await auth(again, { serverUrl: stack.mcpUrl })).toBe('REDIRECT');
    const code = (
      await consent(stack, person.browser, again.authorizationUrl!, person.project.id)
    ).searchParams.get('code')!;
    expect(await auth(again, { serverUrl: stack.mcpUrl, authorizationCode: code })).toBe('AUTHORIZED');
    const live = again.tokens()!;
    const revoked = await fetch(`${stack.publicUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: live.refresh_token!, client_id: clientInformation.client_id }),
    });
    expect(revoked.status).toBe(200);
    await expect(
      refreshAuthorization(stack.publicUrl, {
        metadata,
        clientInformation,
        refreshToken: live.refresh_token!,
        resource: new URL(stack.mcpUrl),
      }),
    ).rejects.toThrow(/revoked/);

    // The dashboard lists both grants, revoked, with why.
    const page = await person.browser.get(`/projects/${person.project.id}/agents`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Test agent');
    expect(page.body).toContain('rotated refresh token reused');
    expect(page.body).toContain('revoked by the client');
  });

  it('a person revokes a grant in the dashboard', async () => {
    const person = await personWithProject(stack, 'agent-revoker@example.com');
    const provider = new TestProvider();
    expect(await auth(provider, { serverUrl: stack.mcpUrl })).toBe('REDIRECT');
    const code = (
      await consent(stack, person.browser, provider.authorizationUrl!, person.project.id)
    ).searchParams.get('code')!;
    expect(await auth(provider, { serverUrl: stack.mcpUrl, authorizationCode: code })).toBe('AUTHORIZED');
    const page = await person.browser.get(`/projects/${person.project.id}/agents`);
    const grantId = /agents\/(grt_[a-z0-9]+)\/revoke/.exec(page.body)![1]!;
    const done = await person.browser.post(`/projects/${person.project.id}/agents/${grantId}/revoke`, {});
    expect(done.status).toBe(303);
    // Its refresh token is refused: the client has to ask the person again.
    await expect(auth(provider, { serverUrl: stack.mcpUrl })).rejects.toThrow(/revoked/);
  });
});

describe('the same tools with an API key', () => {
  it('Authorization: Bearer <API key> and X-API-Key both work; tool calls are counted per tool', async () => {
    const key = stack.api.keys.business!;
    const bearer = await connect(
      new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    await slugChain(bearer);
    await bearer.close();
    const header = await connect(
      new StreamableHTTPClientTransport(new URL(`${stack.mcpUrl}?include=alerts`), {
        requestInit: { headers: { 'x-api-key': key } },
      }),
    );
    const names = (await header.listTools()).tools.map((t) => t.name);
    expect(names).toContain('earshot_create_alert');
    const alerts = await call(header, 'earshot_list_alerts', {});
    expect(Array.isArray(alerts.data)).toBe(true);
    await header.close();

    await (stack.mcp as unknown as { toolUsage: { flush(): Promise<void> } }).toolUsage.flush();
    const rows = await stack.api.state.query<{ tool: string; calls: string }>(
      'SELECT tool, calls FROM tool_usage WHERE project_id = $1 ORDER BY tool',
      [stack.api.projects.business],
    );
    expect(rows.find((r) => r.tool === 'earshot_get_episode')?.calls).toBeDefined();
    expect(Number(rows.find((r) => r.tool === 'earshot_list_alerts')?.calls)).toBe(1);
  });
});
