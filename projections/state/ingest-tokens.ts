import { AccountError, KEY_ALPHABET, newId, randomString, sha256 } from './accounts.ts';
import type { Queryable } from './state-store.ts';

/** Credentials of the HTTP batch ingest: never API keys, never manageable through the API. */
export const INGEST_TOKEN_PREFIX = 'eit_';

export interface IngestTokenRecord {
  id: string;
  name: string;
  display_prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, display_prefix, created_at, last_used_at, revoked_at';

export class IngestTokens {
  constructor(private readonly db: Queryable) {}

  /** Mints a token (or registers a given one). The returned `token` is the only time it exists in full. */
  async create(input: { name?: string; token?: string } = {}): Promise<{
    token: string;
    record: IngestTokenRecord;
  }> {
    const token = input.token ?? INGEST_TOKEN_PREFIX + randomString(KEY_ALPHABET, 40);
    if (!token.startsWith(INGEST_TOKEN_PREFIX) || token.length < INGEST_TOKEN_PREFIX.length + 24) {
      throw new AccountError(
        'invalid',
        `an ingest token starts with ${INGEST_TOKEN_PREFIX} and has at least 24 more characters`,
      );
    }
    const [record] = await this.db.query<IngestTokenRecord>(
      `INSERT INTO ingest_tokens (id, name, display_prefix, token_sha256) VALUES ($1, $2, $3, $4)
       ON CONFLICT (token_sha256) DO UPDATE SET name = ingest_tokens.name
       RETURNING ${COLUMNS}`,
      [newId('itk'), input.name ?? 'default', token.slice(0, INGEST_TOKEN_PREFIX.length + 6), sha256(token)],
    );
    return { token, record: record! };
  }

  async list(): Promise<IngestTokenRecord[]> {
    return this.db.query<IngestTokenRecord>(`SELECT ${COLUMNS} FROM ingest_tokens ORDER BY created_at, id`);
  }

  /** Revokes a token by id; revoking twice is harmless. */
  async revoke(id: string): Promise<IngestTokenRecord> {
    const [record] = await this.db.query<IngestTokenRecord>(
      `UPDATE ingest_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    if (!record) throw new AccountError('not_found', `no ingest token ${id}`);
    return record;
  }

  /** The record of a live token, or undefined for an unknown or revoked one (or an API key). */
  async authenticate(token: string): Promise<IngestTokenRecord | undefined> {
    if (!token.startsWith(INGEST_TOKEN_PREFIX)) return undefined;
    const [record] = await this.db.query<IngestTokenRecord>(
      `UPDATE ingest_tokens SET last_used_at = now()
       WHERE token_sha256 = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
      [sha256(token)],
    );
    return record;
  }
}
