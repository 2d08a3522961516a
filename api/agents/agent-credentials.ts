import type { FastifyRequest } from 'fastify';
import { type Accounts, isExpired, type Principal } from '../../projections/state/accounts.ts';
import type { Memberships } from '../../projections/state/memberships.ts';
import type { OAuthGrants } from '../../projections/state/oauth-grants.ts';
import { AccessTokenError, type AccessTokens, looksLikeJwt } from '../oauth/access-tokens.ts';
import type { ToolCaller } from './tool-calls.ts';

export type CredentialCheck =
  | { ok: true; caller: ToolCaller }
  | {
      ok: false;
      code: 'authentication_required' | 'invalid_token' | 'invalid_api_key' | 'api_key_expired';
      reason: string;
      location: string;
    };

const CACHE_MS = 5000;

/**
 * Who calls the agent-tool server: `Authorization: Bearer <access token or API key>` or
 * `X-API-Key`. An access token must be signed here for this resource and unexpired, its grant
 * not revoked and its person still a member of the project (both read at most every 5 s); an
 * API key is checked as the REST API checks it (5 s cache, revocations in this process at once,
 * expiry on every call).
 */
export class AgentCredentials {
  private readonly keys = new Map<string, { principal?: Principal; until: number }>();
  private readonly grants = new Map<string, { principal?: Principal; until: number }>();
  private readonly stopRevocations: () => void;

  constructor(
    private readonly deps: {
      accounts: Accounts;
      memberships: Memberships;
      grants: OAuthGrants;
      tokens: AccessTokens;
      /** `{mcp_url}`: the audience access tokens must carry. */
      resource: string;
      now?: () => number;
    },
  ) {
    this.stopRevocations = deps.accounts.onRevoked((keyId) => {
      for (const [key, hit] of this.keys) if (hit.principal?.keyId === keyId) this.keys.delete(key);
    });
  }

  close(): void {
    this.stopRevocations();
  }

  async check(request: FastifyRequest): Promise<CredentialCheck> {
    const header = request.headers['x-api-key'];
    const auth = request.headers.authorization;
    let credential: string | undefined;
    let location = 'header.authorization';
    if (typeof header === 'string' && header.trim()) {
      credential = header.trim();
      location = 'header.x-api-key';
    } else if (typeof auth === 'string' && auth.trim()) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      if (!m)
        return {
          ok: false,
          code: 'invalid_token',
          reason: 'Send the credential as "Authorization: Bearer <token>".',
          location,
        };
      credential = m[1]!;
    }
    if (!credential)
      return {
        ok: false,
        code: 'authentication_required',
        reason:
          'No credential: authorize with OAuth (see the resource metadata) or send an API key as a Bearer token.',
        location,
      };
    if (credential.length > 4096)
      return { ok: false, code: 'invalid_token', reason: 'The credential is too long.', location };
    if (looksLikeJwt(credential)) return this.accessToken(credential, location);
    return this.apiKey(credential, location);
  }

  private now() {
    return (this.deps.now ?? Date.now)();
  }

  private async accessToken(token: string, location: string): Promise<CredentialCheck> {
    let claims: Awaited<ReturnType<AccessTokens['verify']>>;
    try {
      claims = await this.deps.tokens.verify(token, this.deps.resource);
    } catch (err) {
      if (err instanceof AccessTokenError)
        return { ok: false, code: 'invalid_token', reason: err.message, location };
      throw err;
    }
    const key = `${claims.grant_id} ${claims.sub} ${claims.project_id}`;
    let hit = this.grants.get(key);
    if (!hit || hit.until <= this.now()) {
      const [grant, member] = await Promise.all([
        this.deps.grants.grant(claims.grant_id),
        this.deps.memberships.projectOf(claims.sub, claims.project_id),
      ]);
      const principal =
        grant && !grant.revoked_at && member
          ? {
              keyId: grant.id,
              grantId: grant.id,
              project: member.project,
              plan: member.plan,
              entitlements: member.entitlements,
              expiresAt: null,
            }
          : undefined;
      hit = { principal, until: this.now() + CACHE_MS };
      if (this.grants.size > 10_000) this.grants.clear();
      this.grants.set(key, hit);
    }
    if (!hit.principal)
      return {
        ok: false,
        code: 'invalid_token',
        reason:
          'The grant of this access token has been revoked, or its person no longer belongs to the project.',
        location,
      };
    return { ok: true, caller: { principal: hit.principal, credential: 'oauth' } };
  }

  private async apiKey(key: string, location: string): Promise<CredentialCheck> {
    let hit = this.keys.get(key);
    if (!hit || hit.until <= this.now()) {
      hit = { principal: await this.deps.accounts.authenticate(key), until: this.now() + CACHE_MS };
      if (this.keys.size > 10_000) this.keys.clear();
      this.keys.set(key, hit);
    }
    if (!hit.principal)
      return {
        ok: false,
        code: 'invalid_api_key',
        reason: 'The API key is unknown or has been revoked.',
        location,
      };
    if (isExpired(hit.principal, this.now()))
      return {
        ok: false,
        code: 'api_key_expired',
        reason: `The API key expired at ${hit.principal.expiresAt!.toISOString()}.`,
        location,
      };
    return { ok: true, caller: { principal: hit.principal, credential: 'api_key' } };
  }
}
