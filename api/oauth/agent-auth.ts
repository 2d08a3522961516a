import { createHash } from 'node:crypto';
import type { TokenSigner } from '../../processors/alerts/index.ts';
import type { OAuthGrants } from '../../projections/state/oauth-grants.ts';
import { ACCESS_TOKEN_TTL_S, type AccessTokens } from './access-tokens.ts';
import { type Clients, OAuthError } from './clients.ts';

export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;
export const CODE_TTL_MS = 60_000;
/** How long a person has to approve on the consent page. */
export const CONSENT_TTL_MS = 10 * 60_000;

/** An authorization request, checked, carried signed from `/oauth/authorize` to the consent page. */
export interface AuthorizationRequest {
  client_id: string;
  client_name: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  state?: string;
  /** Expiry, epoch milliseconds. */
  exp: number;
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

/** What OAuth needs to know about this deployment. */
export interface AgentAuthSettings {
  /** The authorization server (`iss`): the API's public URL. */
  issuer: string;
  /** The agent-tool resource (`{mcp_url}`): the only `resource` and `aud` there is. */
  resource: string;
  /** Lifetime of authorization codes (default 60 s). */
  codeTtlMs?: number;
}

/** The redirect URI with the answer's parameters (and `iss`, RFC 9207). */
export function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * OAuth 2.1 for agent clients, the logic behind the routes and the consent page: authorization
 * requests checked and signed for the consent page, approval, the code and refresh-token grants,
 * revocation. Codes live 60 seconds and are single-use; refresh tokens 30 days, rotated on every
 * use; access tokens 15 minutes, audience-bound to the agent-tool resource.
 */
export class AgentAuth {
  readonly codeTtlMs: number;

  constructor(
    readonly settings: AgentAuthSettings,
    readonly grants: OAuthGrants,
    readonly clients: Clients,
    readonly tokens: AccessTokens,
    private readonly requests: TokenSigner,
    private readonly now: () => number = Date.now,
  ) {
    this.codeTtlMs = settings.codeTtlMs ?? CODE_TTL_MS;
  }

  /**
   * Checks an authorization request (RFC 6749 §4.1.1 with OAuth 2.1's PKCE and RFC 8707's
   * `resource`). A client or redirect URI that does not check out is told to the person
   * (`redirect: undefined`); any other problem goes back to the client's redirect URI.
   */
  async authorize(
    q: Record<string, string | undefined>,
  ): Promise<{ ok: true; request: string } | { ok: false; redirect?: string; error: OAuthError }> {
    if (!q.client_id)
      return { ok: false, error: new OAuthError('invalid_request', 'client_id is required.') };
    let client: Awaited<ReturnType<Clients['resolve']>>;
    try {
      client = await this.clients.resolve(q.client_id);
    } catch (err) {
      if (err instanceof OAuthError) return { ok: false, error: err };
      throw err;
    }
    const redirectUri =
      q.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (!redirectUri || !client.redirectUris.includes(redirectUri))
      return {
        ok: false,
        error: new OAuthError(
          'invalid_request',
          'redirect_uri is missing or is not one the client registered.',
        ),
      };
    const back = (error: string, description: string) => ({
      ok: false as const,
      redirect: redirectWith(redirectUri, {
        error,
        error_description: description,
        state: q.state,
        iss: this.settings.issuer,
      }),
      error: new OAuthError(error, description),
    });
    if (q.response_type !== 'code') return back('unsupported_response_type', 'response_type must be "code".');
    if (!q.code_challenge) return back('invalid_request', 'code_challenge is required (PKCE with S256).');
    if (q.code_challenge_method !== 'S256')
      return back('invalid_request', 'code_challenge_method must be "S256"; "plain" is not accepted.');
    if (!PKCE_CHALLENGE.test(q.code_challenge))
      return back(
        'invalid_request',
        'code_challenge must be the base64url SHA-256 of the verifier (43 characters).',
      );
    if (!q.resource) return back('invalid_target', `resource is required: ${this.settings.resource}`);
    if (q.resource !== this.settings.resource)
      return back('invalid_target', `resource must be the agent-tool server, ${this.settings.resource}`);
    if (q.state !== undefined && q.state.length > 1000)
      return back('invalid_request', 'state is longer than 1,000 characters.');
    const request: AuthorizationRequest = {
      client_id: client.id,
      client_name: client.name,
      redirect_uri: redirectUri,
      code_challenge: q.code_challenge,
      resource: q.resource,
      ...(q.state !== undefined ? { state: q.state } : {}),
      exp: this.now() + CONSENT_TTL_MS,
    };
    return { ok: true, request: this.requests.sign({ ...request }) };
  }

  /** The signed request of the consent page, or undefined when it is not one of ours or has expired. */
  readRequest(token: string | undefined): AuthorizationRequest | undefined {
    if (!token || token.length > 8000) return undefined;
    const r = this.requests.verify<AuthorizationRequest & Record<string, unknown>>(token);
    return r && typeof r.exp === 'number' && r.exp > this.now() ? r : undefined;
  }

  /** A person approved: the grant, and where their browser goes with the code. */
  async approve(request: AuthorizationRequest, userId: string, projectId: string): Promise<string> {
    const { code } = await this.grants.approve({
      clientId: request.client_id,
      clientName: request.client_name,
      userId,
      projectId,
      resource: request.resource,
      redirectUri: request.redirect_uri,
      codeChallenge: request.code_challenge,
      codeExpiresAt: new Date(this.now() + this.codeTtlMs),
    });
    return redirectWith(request.redirect_uri, { code, state: request.state, iss: this.settings.issuer });
  }

  deny(request: AuthorizationRequest): string {
    return redirectWith(request.redirect_uri, {
      error: 'access_denied',
      error_description: 'The person declined.',
      state: request.state,
      iss: this.settings.issuer,
    });
  }

  /** `POST /oauth/token`. */
  async token(body: Record<string, string | undefined>): Promise<TokenAnswer> {
    const grantType = body.grant_type;
    if (grantType === 'authorization_code') return this.codeGrant(body);
    if (grantType === 'refresh_token') return this.refreshGrant(body);
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
    throw new OAuthError(
      'unsupported_grant_type',
      `grant_type ${grantType.slice(0, 100)} is not supported: use authorization_code (with PKCE) and refresh_token. The device grant, client credentials, passwords and assertions (RFC 7523) are not supported.`,
    );
  }

  /** `POST /oauth/revoke` (RFC 7009): a refresh token ends its grant; an access token, its grant too. */
  async revoke(body: Record<string, string | undefined>): Promise<void> {
    const token = body.token;
    if (!token) throw new OAuthError('invalid_request', 'token is required.');
    if (token.length > 4000) return;
    const now = new Date(this.now());
    if (await this.grants.revokeByRefreshToken(token, body.client_id, now)) return;
    try {
      const access = await this.tokens.verify(token, this.settings.resource);
      if (body.client_id === undefined || access.client_id === body.client_id)
        await this.grants.revokeGrant(access.grant_id, 'revoked by the client', now);
    } catch {
      // Unknown tokens are answered like known ones (RFC 7009 §2.2).
    }
  }

  private checkResource(resource: string | undefined, granted: string) {
    if (resource !== undefined && resource !== granted)
      throw new OAuthError('invalid_target', `resource must be the agent-tool server, ${granted}`);
  }

  private async codeGrant(body: Record<string, string | undefined>): Promise<TokenAnswer> {
    const { code, code_verifier: verifier, client_id: clientId } = body;
    if (!code) throw new OAuthError('invalid_request', 'code is required.');
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is required.');
    if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE).');
    if (code.length > 200) throw new OAuthError('invalid_grant', 'The authorization code is not valid.');
    const now = new Date(this.now());
    const redeemed = await this.grants.redeemCode(code, now);
    if (!redeemed.ok) {
      const why = {
        unknown: 'The authorization code is not valid.',
        expired: 'The authorization code has expired; authorize again.',
        reused: 'The authorization code was already used; the grant it started is revoked.',
        revoked: 'The grant of this code has been revoked.',
      }[redeemed.why];
      throw new OAuthError('invalid_grant', why);
    }
    const { grant } = redeemed;
    const refuse = async (description: string) => {
      await this.grants.revokeGrant(grant.id, 'code exchange refused', now);
      return new OAuthError('invalid_grant', description);
    };
    if (grant.client_id !== clientId) throw await refuse('The code was issued to another client.');
    if (body.redirect_uri !== undefined && body.redirect_uri !== redeemed.redirectUri)
      throw await refuse('redirect_uri differs from the authorization request.');
    if (!PKCE_VERIFIER.test(verifier) || s256(verifier) !== redeemed.codeChallenge)
      throw await refuse('code_verifier does not match the code_challenge.');
    if (body.resource !== undefined && body.resource !== grant.resource) {
      await this.grants.revokeGrant(grant.id, 'code exchange refused', now);
      throw new OAuthError('invalid_target', `resource must be the agent-tool server, ${grant.resource}`);
    }
    const refreshToken = await this.grants.issueRefreshToken(
      grant.id,
      new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
    );
    return this.answer(grant, refreshToken);
  }

  private async refreshGrant(body: Record<string, string | undefined>): Promise<TokenAnswer> {
    const { refresh_token: raw, client_id: clientId } = body;
    if (!raw) throw new OAuthError('invalid_request', 'refresh_token is required.');
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is required.');
    if (raw.length > 200) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
    this.checkResource(body.resource, this.settings.resource);
    const now = new Date(this.now());
    const rotated = await this.grants.rotateRefreshToken(
      raw,
      clientId,
      now,
      new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
    );
    if (!rotated.ok) {
      const why = {
        unknown: 'The refresh token is not valid.',
        expired: 'The refresh token has expired; authorize again.',
        reused: 'The refresh token was already used; the whole grant is revoked. Authorize again.',
        revoked: 'The grant has been revoked; authorize again.',
      }[rotated.why];
      throw new OAuthError('invalid_grant', why);
    }
    return this.answer(rotated.grant, rotated.refreshToken);
  }

  private async answer(
    grant: { id: string; user_id: string; project_id: string; client_id: string; resource: string },
    refreshToken: string,
  ): Promise<TokenAnswer> {
    const accessToken = await this.tokens.sign(
      { grant_id: grant.id, project_id: grant.project_id, client_id: grant.client_id },
      grant.user_id,
      grant.resource,
    );
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_S,
      refresh_token: refreshToken,
    };
  }
}
