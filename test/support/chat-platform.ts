import { startReceiver } from './receiver.ts';

/** The app an OAuth v2 install is made for, and the code its authorization page hands out. */
export const CHAT_APP = { clientId: '1234.5678', clientSecret: 'chat-app-secret', code: 'install-code-1' };

/**
 * A local stand-in for a team-chat Web API (`chat.postMessage`-compatible): `auth.test`,
 * `conversations.list` (two pages), `chat.postMessage`, with bearer tokens checked, and
 * `oauth.v2.access` (the app's client id and secret as HTTP Basic, the code `CHAT_APP.code`, the
 * redirect URI the authorization used) answering with the bot token.
 */
export async function startChatPlatform(options: { token?: string } = {}) {
  const token = options.token ?? 'xoxb-test-token';
  const installs: { code: string; redirect_uri: string | null }[] = [];
  const channels = [
    { id: 'C001', name: 'alerts', is_private: false, is_member: true },
    { id: 'C002', name: 'newsroom', is_private: false, is_member: true },
    { id: 'G003', name: 'execs', is_private: true, is_member: false },
  ];
  let failWith:
    | { status: number; body: Record<string, unknown>; headers?: Record<string, string> }
    | undefined;
  const rx = await startReceiver((req) => {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
      status,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const method = req.url.replace(/^\/api\//, '');
    if (method === 'oauth.v2.access') {
      const basic = `Basic ${Buffer.from(`${CHAT_APP.clientId}:${CHAT_APP.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== basic) return json(200, { ok: false, error: 'invalid_client_id' });
      const params = new URLSearchParams(req.raw.toString('utf8'));
      installs.push({ code: params.get('code') ?? '', redirect_uri: params.get('redirect_uri') });
      if (params.get('code') !== CHAT_APP.code) return json(200, { ok: false, error: 'invalid_code' });
      return json(200, {
        ok: true,
        access_token: token,
        token_type: 'bot',
        scope: 'chat:write,channels:read,groups:read',
        bot_user_id: 'U0BOT',
        app_id: 'A0APP',
        team: { id: 'T0ACME', name: 'Acme Newsroom' },
        enterprise: null,
      });
    }
    if (req.headers.authorization !== `Bearer ${token}`)
      return json(200, { ok: false, error: 'invalid_auth' });
    if (method === 'auth.test') {
      return json(200, {
        ok: true,
        team: 'Acme Newsroom',
        team_id: 'T0ACME',
        user_id: 'U0BOT',
        bot_id: 'B0BOT',
      });
    }
    if (method === 'conversations.list') {
      const params = new URLSearchParams(req.raw.toString('utf8'));
      const start = Number(params.get('cursor') || 0);
      const limit = Number(params.get('limit') || 100);
      const page = channels.slice(start, start + limit);
      const next = start + limit < channels.length ? String(start + limit) : '';
      return json(200, { ok: true, channels: page, response_metadata: { next_cursor: next } });
    }
    if (method === 'chat.postMessage') {
      if (failWith) return json(failWith.status, failWith.body, failWith.headers);
      const body = req.body as { channel?: string };
      if (!channels.some((c) => c.id === body.channel))
        return json(200, { ok: false, error: 'channel_not_found' });
      return json(200, { ok: true, channel: body.channel, ts: `${Date.now() / 1000}` });
    }
    return json(404, { ok: false, error: 'unknown_method' });
  });
  return {
    ...rx,
    apiUrl: `${rx.url}/api`,
    token,
    installs,
    posts: () => rx.received.filter((r) => r.url === '/api/chat.postMessage'),
    failPosts(next: typeof failWith) {
      failWith = next;
    },
  };
}
