import { randomBytes } from 'node:crypto';
import { sha256 } from './accounts.ts';
import type { User } from './people.ts';
import type { StateStore } from './state-store.ts';

/**
 * Server-side dashboard sessions. The session id (32 random bytes) lives only in the visitor's
 * cookie; the store keeps its SHA-256, so a copy of the table opens no session. A session
 * without a user is a visitor's who has a form open (sign-in, sign-up, reset): it carries the
 * form's CSRF token and is replaced, never upgraded, when the visitor signs in.
 *
 * Lifetimes: a visitor's session 2 hours; a signed-in session 7 days from its last use (renewed
 * at most once an hour), and never more than 30 days from sign-in.
 */
export const SESSION_TTL = {
  visitorMs: 2 * 3_600_000,
  idleMs: 7 * 86_400_000,
  absoluteMs: 30 * 86_400_000,
  renewAfterMs: 3_600_000,
} as const;

export interface Session {
  /** The raw id (from the cookie); never stored. */
  id: string;
  user: User | undefined;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

interface SessionRow {
  user_id: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  email: string | null;
  email_verified_at: Date | null;
  password_changed_at: Date | null;
  user_created_at: Date | null;
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export class Sessions {
  constructor(private readonly db: StateStore) {}

  /** A new session, for a person who just signed in or for a visitor (`userId` null). */
  async start(userId: string | null): Promise<Session> {
    const id = randomBytes(32).toString('base64url');
    const ttl = userId ? SESSION_TTL.idleMs : SESSION_TTL.visitorMs;
    const [row] = await this.db.query<{ created_at: Date; last_seen_at: Date; expires_at: Date }>(
      `INSERT INTO user_sessions (id_sha256, user_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
       RETURNING created_at, last_seen_at, expires_at`,
      [sha256(id), userId, ttl / 1000],
    );
    return { id, user: undefined, ...row! };
  }

  /** The live session of a cookie's id, with its person; undefined when unknown or expired. */
  async find(id: string): Promise<Session | undefined> {
    if (!SESSION_ID.test(id)) return undefined;
    const [row] = await this.db.query<SessionRow>(
      `SELECT s.user_id, s.created_at, s.last_seen_at, s.expires_at,
              u.email, u.email_verified_at, u.password_changed_at, u.created_at AS user_created_at
       FROM user_sessions s LEFT JOIN users u ON u.id = s.user_id
       WHERE s.id_sha256 = $1 AND s.expires_at > now()`,
      [sha256(id)],
    );
    if (!row) return undefined;
    const user: User | undefined = row.user_id
      ? {
          id: row.user_id,
          email: row.email!,
          email_verified_at: row.email_verified_at,
          password_changed_at: row.password_changed_at!,
          created_at: row.user_created_at!,
        }
      : undefined;
    const session = {
      id,
      user,
      created_at: row.created_at,
      last_seen_at: row.last_seen_at,
      expires_at: row.expires_at,
    };
    if (user && Date.now() - new Date(row.last_seen_at).getTime() > SESSION_TTL.renewAfterMs)
      await this.renew(session);
    return session;
  }

  /** Moves a signed-in session's expiry on, up to its absolute limit. */
  private async renew(session: Session): Promise<void> {
    await this.db.query(
      `UPDATE user_sessions SET last_seen_at = now(),
         expires_at = LEAST(now() + make_interval(secs => $2), created_at + make_interval(secs => $3))
       WHERE id_sha256 = $1`,
      [sha256(session.id), SESSION_TTL.idleMs / 1000, SESSION_TTL.absoluteMs / 1000],
    );
  }

  async end(id: string): Promise<void> {
    await this.db.query('DELETE FROM user_sessions WHERE id_sha256 = $1', [sha256(id)]);
  }

  /** Ends every session of a person but `keep` (after a password change or reset). */
  async endAllOf(userId: string, keep?: string): Promise<number> {
    const rows = await this.db.query(
      'DELETE FROM user_sessions WHERE user_id = $1 AND id_sha256 <> $2 RETURNING 1',
      [userId, keep ? sha256(keep) : ''],
    );
    return rows.length;
  }

  /** Deletes expired sessions; returns how many. */
  async sweep(): Promise<number> {
    const rows = await this.db.query('DELETE FROM user_sessions WHERE expires_at <= now() RETURNING 1');
    return rows.length;
  }
}
