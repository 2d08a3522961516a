import type { HttpResult, OutboundHttp } from '../outbound/outbound-http.ts';
import { parseRetryAfter } from '../retry-schedule.ts';

/**
 * A client of a team-chat Web API in the `chat.postMessage` style: every method is a POST to
 * `${baseUrl}/${method}` with `Authorization: Bearer <bot token>`, answered with
 * `{ok: true, …}` or `{ok: false, error}`. Calls go through the outbound guard like webhooks.
 */
export interface ChatCallResult<T> {
  ok: boolean;
  data?: T;
  /** The platform's error code (`channel_not_found`, `ratelimited` …) or a transport error. */
  error?: string;
  status?: number;
  retryAfterMs?: number;
  refused?: boolean;
  durationMs: number;
}

export interface ChatChannel {
  id: string;
  name: string;
  is_private: boolean;
  is_member: boolean;
}

export interface ChatIdentity {
  team_id: string | null;
  team: string | null;
  user_id: string | null;
  bot_id: string | null;
}

/** What an OAuth v2 install gives: the bot token and the workspace it was installed in. */
export interface ChatInstall {
  token: string;
  team_id: string | null;
  team: string | null;
  bot_user_id: string | null;
}

/** Errors meaning the platform no longer accepts the token: the workspace must be reconnected. */
export const TOKEN_REJECTED_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
]);

/** Errors after which retrying the same message cannot succeed. */
export const PERMANENT_CHAT_ERRORS = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  ...TOKEN_REJECTED_ERRORS,
  'no_permission',
  'missing_scope',
  'restricted_action',
  'msg_too_long',
  'invalid_blocks',
  'invalid_arguments',
  'team_access_not_granted',
]);

export class ChatApi {
  constructor(
    readonly baseUrl: string,
    private readonly http: OutboundHttp,
    private readonly timeoutMs = 30_000,
  ) {}

  call<T>(
    method: string,
    token: string,
    params: Record<string, unknown>,
    encoding: 'json' | 'form' = 'json',
  ): Promise<ChatCallResult<T>> {
    return this.request<T>(method, `Bearer ${token}`, params, encoding);
  }

  private async request<T>(
    method: string,
    authorization: string,
    params: Record<string, unknown>,
    encoding: 'json' | 'form',
  ): Promise<ChatCallResult<T>> {
    const body =
      encoding === 'json'
        ? JSON.stringify(params)
        : new URLSearchParams(
            Object.entries(params)
              .filter(([, v]) => v !== undefined && v !== null)
              .map(([k, v]): [string, string] => [k, String(v)]),
          ).toString();
    const res: HttpResult = await this.http.post({
      url: `${this.baseUrl.replace(/\/$/, '')}/${method}`,
      body,
      headers: {
        authorization,
        'content-type':
          encoding === 'json' ? 'application/json; charset=utf-8' : 'application/x-www-form-urlencoded',
        'user-agent': 'Earshot-Chat/1.0',
      },
      timeoutMs: this.timeoutMs,
      keepBodyBytes: 4 << 20,
    });
    const base = { status: res.status, durationMs: res.durationMs, refused: res.refused };
    if (res.status === undefined) return { ...base, ok: false, error: res.error ?? 'no response' };
    const retryAfterMs = parseRetryAfter(res.headers?.['retry-after'], Date.now());
    if (res.status === 429) return { ...base, ok: false, error: 'ratelimited', retryAfterMs };
    let parsed: { ok?: boolean; error?: string } & Record<string, unknown>;
    try {
      parsed = JSON.parse(res.body?.toString('utf8') ?? '');
    } catch {
      return { ...base, ok: false, error: `HTTP ${res.status} without a JSON answer`, retryAfterMs };
    }
    if (parsed.ok === true) return { ...base, ok: true, data: parsed as T };
    return { ...base, ok: false, error: parsed.error ?? `HTTP ${res.status}`, retryAfterMs };
  }

  /**
   * The OAuth v2 install's last step: exchanges the code the platform sent back to the redirect
   * URI for a bot token (`oauth.v2.access`, the app's client id and secret as HTTP Basic).
   */
  async oauthAccess(input: {
    clientId: string;
    clientSecret: string;
    code: string;
    redirectUri: string;
  }): Promise<ChatCallResult<ChatInstall>> {
    const basic = Buffer.from(`${input.clientId}:${input.clientSecret}`).toString('base64');
    const res = await this.request<{
      access_token?: string;
      token_type?: string;
      bot_user_id?: string;
      team?: { id?: string; name?: string } | null;
    }>('oauth.v2.access', `Basic ${basic}`, { code: input.code, redirect_uri: input.redirectUri }, 'form');
    if (!res.ok || !res.data) return res as ChatCallResult<ChatInstall>;
    const d = res.data;
    if (!d.access_token || (d.token_type && d.token_type !== 'bot'))
      return { ...res, ok: false, data: undefined, error: 'no bot token in the answer' };
    return {
      ...res,
      data: {
        token: d.access_token,
        team_id: d.team?.id ?? null,
        team: d.team?.name ?? null,
        bot_user_id: d.bot_user_id ?? null,
      },
    };
  }

  /** Who a token belongs to: workspace and bot user. */
  async identify(token: string): Promise<ChatCallResult<ChatIdentity>> {
    const res = await this.call<{ team_id?: string; team?: string; user_id?: string; bot_id?: string }>(
      'auth.test',
      token,
      {},
      'form',
    );
    if (!res.ok || !res.data) return res as ChatCallResult<ChatIdentity>;
    const d = res.data;
    return {
      ...res,
      data: {
        team_id: d.team_id ?? null,
        team: d.team ?? null,
        user_id: d.user_id ?? null,
        bot_id: d.bot_id ?? null,
      },
    };
  }

  /** One page of the channels the bot can see. */
  async channels(
    token: string,
    page: { cursor?: string; limit: number },
  ): Promise<ChatCallResult<{ channels: ChatChannel[]; next_cursor?: string }>> {
    const res = await this.call<{
      channels?: { id: string; name?: string; is_private?: boolean; is_member?: boolean }[];
      response_metadata?: { next_cursor?: string };
    }>(
      'conversations.list',
      token,
      {
        types: 'public_channel,private_channel',
        exclude_archived: true,
        limit: page.limit,
        cursor: page.cursor,
      },
      'form',
    );
    if (!res.ok || !res.data) return res as ChatCallResult<{ channels: ChatChannel[] }>;
    const next = res.data.response_metadata?.next_cursor;
    return {
      ...res,
      data: {
        channels: (res.data.channels ?? []).map((c) => ({
          id: c.id,
          name: c.name ?? c.id,
          is_private: c.is_private ?? false,
          is_member: c.is_member ?? false,
        })),
        ...(next ? { next_cursor: next } : {}),
      },
    };
  }

  postMessage(
    token: string,
    message: { channel: string; text: string; blocks?: unknown[] },
  ): Promise<ChatCallResult<{ ts?: string; channel?: string }>> {
    return this.call('chat.postMessage', token, { ...message, unfurl_links: false, unfurl_media: false });
  }
}
