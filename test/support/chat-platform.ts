import { startReceiver } from './receiver.ts';

/**
 * A local stand-in for a team-chat Web API (`chat.postMessage`-compatible): `auth.test`,
 * `conversations.list` (two pages) and `chat.postMessage`, with bearer tokens checked.
 */
export async function startChatPlatform(options: { token?: string } = {}) {
  const token = options.token ?? 'xoxb-test-token';
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
    if (req.headers.authorization !== `Bearer ${token}`)
      return json(200, { ok: false, error: 'invalid_auth' });
    const method = req.url.replace(/^\/api\//, '');
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
    posts: () => rx.received.filter((r) => r.url === '/api/chat.postMessage'),
    failPosts(next: typeof failWith) {
      failWith = next;
    },
  };
}
