import { randomBytes } from 'node:crypto';
import { newId, type Organization, randomString, sha256, slugify } from './accounts.ts';
import { hashPassword, needsRehash, verifyDecoy, verifyPassword } from './passwords.ts';
import { type StateStore, sqlState, UNIQUE_VIOLATION } from './state-store.ts';

/**
 * People who sign in to the dashboard: sign-up (a person, their organization and their
 * ownership of it, in one transaction), address verification by a signed expiring link,
 * password checks, changes and single-use reset links. Passwords exist only as scrypt hashes
 * (passwords.ts); reset tokens only as SHA-256 digests.
 */
export interface User {
  id: string;
  email: string;
  email_verified_at: Date | null;
  password_changed_at: Date;
  created_at: Date;
}

const USER_COLUMNS = 'id, email, email_verified_at, password_changed_at, created_at';

/** Signs and reads the payload of a link token (TokenSigner's shape). */
export interface LinkSigner {
  sign(payload: Record<string, unknown>): string;
  verify<T extends Record<string, unknown>>(token: string): T | undefined;
}

export const VERIFICATION_TTL_MS = 48 * 3_600_000;
export const RESET_TTL_MS = 3_600_000;

type VerificationPayload = { u: string; e: string; x: number };

export type SignUpResult =
  | { created: true; user: User; organization: Organization }
  /** The address already has an account: nothing was created (the caller mails its owner). */
  | { created: false; user: User };

/** Why signing in did not succeed. */
export type SignInResult =
  | { ok: true; user: User }
  | { ok: false; reason: 'invalid' }
  /** The password is right, but the address has not been verified yet. */
  | { ok: false; reason: 'unverified'; user: User };

export class People {
  constructor(
    private readonly db: StateStore,
    private readonly verificationLinks: LinkSigner,
  ) {}

  async signUp(input: { email: string; password: string; organizationName: string }): Promise<SignUpResult> {
    const email = input.email.trim();
    // Hashed first, whether or not the address is taken: both answers take as long.
    const passwordHash = await hashPassword(input.password);
    const existing = await this.byEmail(email);
    if (existing) return { created: false, user: existing };
    try {
      return await this.db.transaction(async (tx) => {
        const [user] = await tx.query<User>(
          `INSERT INTO users (id, email, password_hash) VALUES ($1, $2, $3) RETURNING ${USER_COLUMNS}`,
          [newId('usr'), email, passwordHash],
        );
        // A slug taken by another organization gets a random suffix.
        const base = slugify(input.organizationName);
        const taken = await tx.query('SELECT 1 FROM organizations WHERE slug = $1', [base]);
        const slug =
          taken.length === 0 ? base : `${base.slice(0, 50)}-${randomString('0123456789abcdef', 6)}`;
        const [organization] = await tx.query<Organization>(
          'INSERT INTO organizations (id, slug, name) VALUES ($1, $2, $3) RETURNING *',
          [newId('org'), slug, input.organizationName.trim()],
        );
        await tx.query(
          `INSERT INTO organization_members (organization_id, user_id, role) VALUES ($1, $2, 'owner')`,
          [organization!.id, user!.id],
        );
        return { created: true as const, user: user!, organization: organization! };
      });
    } catch (err) {
      // Two sign-ups with one address at once: the second finds the first's account.
      if (sqlState(err) === UNIQUE_VIOLATION) {
        const user = await this.byEmail(email);
        if (user) return { created: false, user };
      }
      throw err;
    }
  }

  async byId(id: string): Promise<User | undefined> {
    const [user] = await this.db.query<User>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
    return user;
  }

  async byEmail(email: string): Promise<User | undefined> {
    const [user] = await this.db.query<User>(
      `SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`,
      [email.trim()],
    );
    return user;
  }

  /** The token of a verification link for the person's current address. */
  verificationToken(user: User, now = Date.now()): string {
    return this.verificationLinks.sign({
      u: user.id,
      e: user.email.toLowerCase(),
      x: now + VERIFICATION_TTL_MS,
    });
  }

  /**
   * Marks the address of a verification token verified; undefined when the token was not made
   * here, has expired, or names an address the person no longer has.
   */
  async verify(token: string, now = Date.now()): Promise<User | undefined> {
    const payload = this.verificationLinks.verify<VerificationPayload>(token);
    if (!payload || typeof payload.u !== 'string' || typeof payload.e !== 'string') return undefined;
    if (typeof payload.x !== 'number' || payload.x <= now) return undefined;
    const [user] = await this.db.query<User>(
      `UPDATE users SET email_verified_at = COALESCE(email_verified_at, now())
       WHERE id = $1 AND lower(email) = $2 RETURNING ${USER_COLUMNS}`,
      [payload.u, payload.e],
    );
    return user;
  }

  /**
   * Checks an address and password. An unknown address costs as much time as a wrong password,
   * and both answer `invalid`. A hash made with older cost parameters is replaced.
   */
  async signIn(email: string, password: string): Promise<SignInResult> {
    const [row] = await this.db.query<User & { password_hash: string }>(
      `SELECT ${USER_COLUMNS}, password_hash FROM users WHERE lower(email) = lower($1)`,
      [email.trim()],
    );
    if (!row) {
      await verifyDecoy(password);
      return { ok: false, reason: 'invalid' };
    }
    const { password_hash, ...user } = row;
    if (!(await verifyPassword(password, password_hash))) return { ok: false, reason: 'invalid' };
    if (needsRehash(password_hash)) {
      await this.db.query('UPDATE users SET password_hash = $2 WHERE id = $1 AND password_hash = $3', [
        user.id,
        await hashPassword(password),
        password_hash,
      ]);
    }
    if (!user.email_verified_at) return { ok: false, reason: 'unverified', user };
    return { ok: true, user };
  }

  /** Replaces the password when `current` is right; false otherwise. */
  async changePassword(userId: string, current: string, next: string): Promise<boolean> {
    const [row] = await this.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM users WHERE id = $1',
      [userId],
    );
    if (!row || !(await verifyPassword(current, row.password_hash))) return false;
    await this.setPassword(userId, next);
    return true;
  }

  private async setPassword(userId: string, password: string): Promise<void> {
    await this.db.query('UPDATE users SET password_hash = $2, password_changed_at = now() WHERE id = $1', [
      userId,
      await hashPassword(password),
    ]);
  }

  /**
   * A reset token for the account of `email` (valid for an hour, once), or undefined when there
   * is no such account. The caller answers both cases alike.
   */
  async startReset(email: string): Promise<{ user: User; token: string } | undefined> {
    const user = await this.byEmail(email);
    if (!user) return undefined;
    const token = randomBytes(32).toString('base64url');
    await this.db.query(
      `INSERT INTO password_resets (token_sha256, user_id, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))`,
      [sha256(token), user.id, RESET_TTL_MS / 1000],
    );
    return { user, token };
  }

  /** Whether a reset token can still be used (the form is shown only then). */
  async resetUsable(token: string): Promise<boolean> {
    const rows = await this.db.query(
      'SELECT 1 FROM password_resets WHERE token_sha256 = $1 AND used_at IS NULL AND expires_at > now()',
      [sha256(token)],
    );
    return rows.length > 0;
  }

  /**
   * Sets a new password with a reset token, which is used up by it (also when two requests race:
   * one wins). Every other reset token of the person stops working too. Following the link also
   * proves the address, so an unverified one becomes verified. Undefined: unknown, used or expired.
   */
  async completeReset(token: string, password: string): Promise<User | undefined> {
    const hash = await hashPassword(password);
    return this.db.transaction(async (tx) => {
      const [used] = await tx.query<{ user_id: string }>(
        `UPDATE password_resets SET used_at = now()
         WHERE token_sha256 = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
        [sha256(token)],
      );
      if (!used) return undefined;
      await tx.query('UPDATE password_resets SET used_at = now() WHERE user_id = $1 AND used_at IS NULL', [
        used.user_id,
      ]);
      const [user] = await tx.query<User>(
        `UPDATE users SET password_hash = $2, password_changed_at = now(),
           email_verified_at = COALESCE(email_verified_at, now())
         WHERE id = $1 RETURNING ${USER_COLUMNS}`,
        [used.user_id, hash],
      );
      return user;
    });
  }
}
