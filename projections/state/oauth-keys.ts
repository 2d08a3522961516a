import type { StateStore } from './state-store.ts';

export interface SigningKeyRow {
  kid: string;
  alg: string;
  public_jwk: Record<string, unknown>;
  /** The private JWK, sealed with the secrets key (bound to the kid). */
  private_sealed: string;
  created_at: Date;
  retired_at: Date | null;
}

/** How long a retired key stays published: longer than any access token it signed lives. */
export const RETIRED_KEY_PUBLISHED_MS = 3_600_000;

/** The rows of the access-token signing keys (sealing and signing are the caller's). */
export class OAuthSigningKeyRows {
  constructor(private readonly db: StateStore) {}

  /** Keys to publish: the current one and those retired within the last hour, newest first. */
  async published(now = new Date()): Promise<SigningKeyRow[]> {
    const rows = await this.db.query<SigningKeyRow>(
      `SELECT * FROM oauth_signing_keys WHERE retired_at IS NULL OR retired_at > $1
       ORDER BY created_at DESC, kid`,
      [new Date(now.getTime() - RETIRED_KEY_PUBLISHED_MS)],
    );
    return rows.map(parseJwk);
  }

  /** The key that signs new tokens (the newest not retired). */
  async current(): Promise<SigningKeyRow | undefined> {
    const [row] = await this.db.query<SigningKeyRow>(
      'SELECT * FROM oauth_signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid LIMIT 1',
    );
    return row ? parseJwk(row) : undefined;
  }

  /** Adds a key and retires every other one, in one transaction. */
  async rotate(row: Omit<SigningKeyRow, 'created_at' | 'retired_at'>, now = new Date()): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const retired = await tx.query<{ kid: string }>(
        'UPDATE oauth_signing_keys SET retired_at = $1 WHERE retired_at IS NULL RETURNING kid',
        [now],
      );
      await tx.query(
        'INSERT INTO oauth_signing_keys (kid, alg, public_jwk, private_sealed, created_at) VALUES ($1, $2, $3, $4, $5)',
        [row.kid, row.alg, JSON.stringify(row.public_jwk), row.private_sealed, now],
      );
      return retired.map((r) => r.kid);
    });
  }

  /** Adds the first key unless one exists (two processes starting at once keep one each: both published). */
  async addIfNone(row: Omit<SigningKeyRow, 'created_at' | 'retired_at'>): Promise<void> {
    await this.db.query(
      `INSERT INTO oauth_signing_keys (kid, alg, public_jwk, private_sealed)
       SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM oauth_signing_keys WHERE retired_at IS NULL)`,
      [row.kid, row.alg, JSON.stringify(row.public_jwk), row.private_sealed],
    );
  }
}

function parseJwk(row: SigningKeyRow): SigningKeyRow {
  return typeof row.public_jwk === 'string' ? { ...row, public_jwk: JSON.parse(row.public_jwk) } : row;
}
