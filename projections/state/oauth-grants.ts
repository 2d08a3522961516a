import { randomBytes } from 'node:crypto';
import { newId, sha256 } from './accounts.ts';
import type { StateStore, Transaction } from './state-store.ts';

/** Metadata of a registered client (RFC 7591), as stored and answered. */
export interface ClientMetadata {
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  client_uri?: string;
  logo_uri?: string;
  software_id?: string;
  software_version?: string;
}

export interface OAuthGrant {
  id: string;
  client_id: string;
  client_name: string;
  user_id: string;
  project_id: string;
  resource: string;
  created_at: Date;
  activated_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

/** Why a code or refresh token was not accepted. */
export type Refusal = 'unknown' | 'expired' | 'reused' | 'revoked';

export type Redeemed<T> = { ok: true; grant: OAuthGrant } & T;
export type NotRedeemed = { ok: false; why: Refusal };

const token = () => randomBytes(32).toString('base64url');

/**
 * OAuth grants and their credentials in the state store: registered clients, the grants people
 * approve, single-use authorization codes and rotating refresh tokens (both kept as SHA-256).
 * Reusing a code or an already-rotated refresh token revokes the grant (RFC 9700 §4.14):
 * whoever replays it, the thief or the client, the chain ends. Times are compared with the
 * caller's clock, so lifetimes are testable.
 */
export class OAuthGrants {
  constructor(private readonly db: StateStore) {}

  async registerClient(metadata: ClientMetadata): Promise<{ id: string; created_at: Date }> {
    const id = newId('cli');
    const [row] = await this.db.query<{ created_at: Date }>(
      'INSERT INTO oauth_clients (id, metadata) VALUES ($1, $2) RETURNING created_at',
      [id, JSON.stringify(metadata)],
    );
    return { id, created_at: new Date(row!.created_at) };
  }

  async client(id: string): Promise<ClientMetadata | undefined> {
    const [row] = await this.db.query<{ metadata: ClientMetadata | string }>(
      'SELECT metadata FROM oauth_clients WHERE id = $1',
      [id],
    );
    if (!row) return undefined;
    return typeof row.metadata === 'string' ? (JSON.parse(row.metadata) as ClientMetadata) : row.metadata;
  }

  /** A grant a person approved (active once its code is exchanged) and its authorization code. */
  async approve(input: {
    clientId: string;
    clientName: string;
    userId: string;
    projectId: string;
    resource: string;
    redirectUri: string;
    codeChallenge: string;
    codeExpiresAt: Date;
  }): Promise<{ grant: string; code: string }> {
    const id = newId('grt');
    const code = token();
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO oauth_grants (id, client_id, client_name, user_id, project_id, resource)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, input.clientId, input.clientName, input.userId, input.projectId, input.resource],
      );
      await tx.query(
        `INSERT INTO oauth_codes (code_sha256, grant_id, redirect_uri, code_challenge, expires_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [sha256(code), id, input.redirectUri, input.codeChallenge, input.codeExpiresAt],
      );
    });
    return { grant: id, code };
  }

  /**
   * Uses an authorization code once. A second use revokes the grant (and so every token issued
   * from the code). The caller checks the client, redirect URI and verifier against what is returned.
   */
  async redeemCode(
    code: string,
    now: Date,
  ): Promise<Redeemed<{ redirectUri: string; codeChallenge: string }> | NotRedeemed> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<{
        grant_id: string;
        redirect_uri: string;
        code_challenge: string;
        expires_at: Date;
        used_at: Date | null;
      }>('SELECT * FROM oauth_codes WHERE code_sha256 = $1 FOR UPDATE', [sha256(code)]);
      if (!row) return { ok: false, why: 'unknown' } as const;
      if (row.used_at) {
        await revoke(tx, row.grant_id, 'authorization code reused', now);
        return { ok: false, why: 'reused' } as const;
      }
      await tx.query('UPDATE oauth_codes SET used_at = $2 WHERE code_sha256 = $1', [sha256(code), now]);
      if (new Date(row.expires_at).getTime() <= now.getTime()) return { ok: false, why: 'expired' } as const;
      const grant = await grantIn(tx, row.grant_id);
      if (!grant || grant.revoked_at) return { ok: false, why: 'revoked' } as const;
      await tx.query('UPDATE oauth_grants SET activated_at = $2, last_used_at = $2 WHERE id = $1', [
        grant.id,
        now,
      ]);
      return { ok: true, grant, redirectUri: row.redirect_uri, codeChallenge: row.code_challenge } as const;
    });
  }

  /** A new refresh token of a grant. */
  async issueRefreshToken(grantId: string, expiresAt: Date, db: Transaction = this.db): Promise<string> {
    const raw = token();
    await db.query(
      'INSERT INTO oauth_refresh_tokens (token_sha256, grant_id, expires_at) VALUES ($1, $2, $3)',
      [sha256(raw), grantId, expiresAt],
    );
    return raw;
  }

  /**
   * Uses a refresh token once and issues its successor (rotation). Presenting a token that was
   * already rotated revokes the grant: its successor stops working too.
   */
  async rotateRefreshToken(
    raw: string,
    clientId: string,
    now: Date,
    nextExpiresAt: Date,
  ): Promise<Redeemed<{ refreshToken: string }> | NotRedeemed> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<{ grant_id: string; expires_at: Date; used_at: Date | null }>(
        'SELECT grant_id, expires_at, used_at FROM oauth_refresh_tokens WHERE token_sha256 = $1 FOR UPDATE',
        [sha256(raw)],
      );
      if (!row) return { ok: false, why: 'unknown' } as const;
      const grant = await grantIn(tx, row.grant_id);
      // Another client's token is not this client's to use (nor to burn).
      if (!grant || grant.client_id !== clientId) return { ok: false, why: 'unknown' } as const;
      if (grant.revoked_at) return { ok: false, why: 'revoked' } as const;
      if (row.used_at) {
        await revoke(tx, row.grant_id, 'rotated refresh token reused', now);
        return { ok: false, why: 'reused' } as const;
      }
      if (new Date(row.expires_at).getTime() <= now.getTime()) return { ok: false, why: 'expired' } as const;
      await tx.query('UPDATE oauth_refresh_tokens SET used_at = $2 WHERE token_sha256 = $1', [
        sha256(raw),
        now,
      ]);
      await tx.query('UPDATE oauth_grants SET last_used_at = $2 WHERE id = $1', [grant.id, now]);
      const refreshToken = await this.issueRefreshToken(grant.id, nextExpiresAt, tx);
      return { ok: true, grant, refreshToken } as const;
    });
  }

  /** Revokes the grant of a refresh token (RFC 7009); false when the token is unknown. */
  async revokeByRefreshToken(raw: string, clientId: string | undefined, now: Date): Promise<boolean> {
    const [row] = await this.db.query<{ grant_id: string; client_id: string }>(
      `SELECT t.grant_id, g.client_id FROM oauth_refresh_tokens t JOIN oauth_grants g ON g.id = t.grant_id
       WHERE t.token_sha256 = $1`,
      [sha256(raw)],
    );
    if (!row || (clientId !== undefined && row.client_id !== clientId)) return false;
    await revoke(this.db, row.grant_id, 'revoked by the client', now);
    return true;
  }

  async revokeGrant(id: string, reason: string, now = new Date()): Promise<void> {
    await revoke(this.db, id, reason, now);
  }

  async grant(id: string): Promise<OAuthGrant | undefined> {
    return grantIn(this.db, id);
  }

  /** A project's grants that were used (their code exchanged), newest first. */
  async ofProject(projectId: string): Promise<OAuthGrant[]> {
    return this.db.query<OAuthGrant>(
      `SELECT * FROM oauth_grants WHERE project_id = $1 AND activated_at IS NOT NULL
       ORDER BY created_at DESC, id LIMIT 200`,
      [projectId],
    );
  }
}

async function grantIn(db: Transaction, id: string): Promise<OAuthGrant | undefined> {
  const [row] = await db.query<OAuthGrant>('SELECT * FROM oauth_grants WHERE id = $1', [id]);
  return row;
}

async function revoke(db: Transaction, id: string, reason: string, now: Date): Promise<void> {
  await db.query(
    'UPDATE oauth_grants SET revoked_at = $2, revoked_reason = $3 WHERE id = $1 AND revoked_at IS NULL',
    [id, now, reason],
  );
}
