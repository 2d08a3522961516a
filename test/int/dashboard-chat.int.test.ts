import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../infra/logger.ts';
import { testApi } from '../support/api.ts';
import { CHAT_APP, startChatPlatform } from '../support/chat-platform.ts';
import { type PageClient, signedInMember, textOf } from '../support/dashboard.ts';

type Api = Awaited<ReturnType<typeof testApi>>;
const AUTHORIZE = 'https://chat.example.test/oauth/v2/authorize';

/**
 * The team-chat install from the dashboard, through the platform's OAuth v2 flow against a local
 * stand-in of its Web API: the install link carries a signed state bound to the session and the
 * project; the callback exchanges the code with `oauth.v2.access` (client id and secret from
 * configuration) and keeps the bot token as a connection whose channels the page lists.
 */
describe('dashboard team chat', () => {
  let api: Api;
  let platform: Awaited<ReturnType<typeof startChatPlatform>>;
  const log = new PassThrough();
  const lines: string[] = [];
  log.on('data', (d: Buffer) => lines.push(d.toString()));

  beforeAll(async () => {
    platform = await startChatPlatform();
    api = await testApi(
      {
        chatOAuth: {
          clientId: CHAT_APP.clientId,
          clientSecret: CHAT_APP.clientSecret,
          authorizeUrl: AUTHORIZE,
        },
      },
      undefined,
      {
        delivery: { settings: { chatApiUrl: platform.apiUrl } },
        logger: createLogger('info', 'earshot', log),
      },
    );
  });
  afterAll(async () => {
    await api?.close();
    await platform?.close();
  });

  async function project(browser: PageClient, orgId: string) {
    await browser.get(`/orgs/${orgId}`);
    const created = await browser.post(`/orgs/${orgId}/projects`, { name: 'Chat' });
    return /\/projects\/([^/?#]+)/.exec(created.location!)![1]!;
  }

  /** Starts the install; returns the authorization URL the person is sent to. */
  async function startInstall(browser: PageClient, projectId: string): Promise<URL> {
    const res = await browser.get(`/projects/${projectId}/chat/install`);
    expect(res.status).toBe(303);
    return new URL(res.location!);
  }

  it('installs a workspace through OAuth v2 and lists its channels', async () => {
    const { browser, organization } = await signedInMember(api, 'chat1@example.test');
    const projectId = await project(browser, organization.id);
    const before = await browser.get(`/projects/${projectId}/chat`);
    expect(textOf(before.body)).toContain('No workspace is connected');
    expect(before.body).toContain('Add to team chat');

    const authorize = await startInstall(browser, projectId);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(AUTHORIZE);
    expect(authorize.searchParams.get('client_id')).toBe(CHAT_APP.clientId);
    expect(authorize.searchParams.get('scope')).toBe('chat:write,channels:read,groups:read');
    const redirectUri = authorize.searchParams.get('redirect_uri')!;
    expect(redirectUri).toBe('http://127.0.0.1:8080/dashboard/chat/oauth/callback');
    const state = authorize.searchParams.get('state')!;

    // The platform sends the person back with a code.
    const back = await browser.get(
      `/chat/oauth/callback?code=${CHAT_APP.code}&state=${encodeURIComponent(state)}`,
    );
    expect(back.status).toBe(303);
    expect(back.location).toBe(`/dashboard/projects/${projectId}/chat?done=installed`);
    expect(platform.installs.at(-1)).toEqual({ code: CHAT_APP.code, redirect_uri: redirectUri });
    // The request was logged, its authorization code not.
    expect(lines.join('')).toContain('/dashboard/chat/oauth/callback?code=[REDACTED]');
    expect(lines.join('')).not.toContain(CHAT_APP.code);
    const page = await browser.get(back.location!);
    const text = textOf(page.body);
    expect(text).toContain('The workspace is connected');
    expect(text).toContain('Acme Newsroom');
    expect(text).toContain('#alerts');
    expect(text).toContain('#newsroom');
    const [stored] = await api.state.query<{ team_id: string; token_sealed: string }>(
      'SELECT team_id, token_sealed FROM chat_connections WHERE project_id = $1',
      [projectId],
    );
    expect(stored!.team_id).toBe('T0ACME');
    expect(stored!.token_sealed).not.toContain(platform.token);

    // The same connection through the API.
    await api.accounts.setPlan(projectId, 'team');
    const { key } = await api.accounts.createApiKey({ projectId });
    const listed = await api.app.inject({
      method: 'GET',
      url: `/v1/projects/${projectId}/slack/connections`,
      headers: { 'x-api-key': key },
    });
    expect(listed.json().data).toMatchObject([{ team_name: 'Acme Newsroom', team_id: 'T0ACME' }]);

    // A token the platform no longer accepts: the API's answer sends the person to this page.
    const stale = await api.delivery.chat.create({ projectId, name: 'stale', token: 'xoxb-revoked' });
    const channels = await api.app.inject({
      method: 'GET',
      url: `/v1/projects/${projectId}/slack/connections/${stale.id}/channels`,
      headers: { 'x-api-key': key },
    });
    expect(channels.statusCode).toBe(422);
    const resolve = (channels.json() as { resolve: { url: string } }).resolve;
    expect(resolve.url).toBe(`http://127.0.0.1:8080/dashboard/projects/${projectId}/chat`);
    expect((await browser.get(new URL(resolve.url).pathname)).status).toBe(200);
    await api.delivery.chat.delete(projectId, stale.id);

    // Deleting it from the page.
    const id = /\/chat\/(chc_[a-z0-9]+)\/delete/.exec(page.body)![1]!;
    const deleted = await browser.post(`/projects/${projectId}/chat/${id}/delete`, {}, { follow: true });
    expect(textOf(deleted.body)).toContain('The connection was deleted');
    expect(textOf(deleted.body)).toContain('No workspace is connected');
  });

  it('refuses a state from another session, an edited or expired one, and a code the platform refuses', async () => {
    const a = await signedInMember(api, 'chat2@example.test');
    const b = await signedInMember(api, 'chat3@example.test');
    const projectId = await project(a.browser, a.organization.id);
    const state = (await startInstall(a.browser, projectId)).searchParams.get('state')!;
    const count = async () =>
      (await api.state.query('SELECT 1 FROM chat_connections WHERE project_id = $1', [projectId])).length;

    // Another person's session (also one that is not a member of the project).
    expect(
      (await b.browser.get(`/chat/oauth/callback?code=${CHAT_APP.code}&state=${encodeURIComponent(state)}`))
        .status,
    ).toBe(400);
    const [body, mac] = state.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...payload, x: Date.now() + 3_600_000 })).toString(
      'base64url',
    );
    expect(
      (await a.browser.get(`/chat/oauth/callback?code=${CHAT_APP.code}&state=${forged}.${mac}`)).status,
    ).toBe(400);
    // The platform refuses the code: back to the page with its error.
    const refused = await a.browser.get(`/chat/oauth/callback?code=wrong&state=${encodeURIComponent(state)}`);
    expect(refused.location).toBe(`/dashboard/projects/${projectId}/chat?error=invalid_code`);
    // The person cancelled on the platform.
    const cancelled = await a.browser.get(
      `/chat/oauth/callback?error=access_denied&state=${encodeURIComponent(state)}`,
    );
    expect(textOf((await a.browser.get(cancelled.location!)).body)).toContain(
      'The install did not complete: access_denied',
    );
    expect(await count()).toBe(0);
    // A member of another organization cannot start an install for this project.
    expect((await b.browser.get(`/projects/${projectId}/chat/install`)).status).toBe(404);
    expect((await b.browser.get(`/projects/${projectId}/chat`)).status).toBe(404);
  });

  it('says how an operator connects a workspace when the install is not configured', async () => {
    const plain = await testApi();
    try {
      const { browser, organization } = await signedInMember(plain, 'chat4@example.test');
      const projectId = await project(browser, organization.id);
      const page = await browser.get(`/projects/${projectId}/chat`);
      expect(textOf(page.body)).toContain(`earshot chat connect --project ${projectId}`);
      expect((await browser.get(`/projects/${projectId}/chat/install`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
