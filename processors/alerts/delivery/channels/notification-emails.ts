import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { newId, sha256 } from '../../../../projections/state/accounts.ts';
import type { Queryable } from '../../../../projections/state/state-store.ts';
import type { Mailer } from './mailer.ts';
import { escapeHtml } from './render.ts';

/**
 * Notification emails: the addresses of an organization that EMAIL channels may name, once
 * verified. Verification is a random single-use token (only its SHA-256 is stored) sent by mail
 * as a link; following the link, or POSTing the token, marks the address verified. A token is
 * valid for 7 days from the last verification mail; sending again replaces it.
 */
export const VERIFICATION_TTL_DAYS = 7;

/** A notification email as stored (`notification_emails`). */
export interface NotificationEmailRow {
  id: string;
  organization_id: string;
  email: string;
  verified_at: Date | null;
  created_at: Date;
}

export function verificationUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/$/, '')}/v1/notification-emails/verify?token=${encodeURIComponent(token)}`;
}

/** Issues a fresh verification token for an unverified address (the previous one stops working). */
export async function issueVerificationToken(db: Queryable, addressId: string): Promise<string> {
  const token = `nev_${randomBytes(24).toString('base64url')}`;
  await db.query(
    `UPDATE notification_emails SET verification_token_sha256 = $2, verification_sent_at = now()
     WHERE id = $1 AND deleted_at IS NULL AND verified_at IS NULL`,
    [addressId, sha256(token)],
  );
  return token;
}

/** Mails the verification link of `token` to the address. */
export async function mailVerification(
  mailer: Mailer,
  publicUrl: string,
  address: { email: string },
  token: string,
): Promise<void> {
  const link = verificationUrl(publicUrl, token);
  await mailer.send({
    to: address.email,
    subject: 'Confirm this address for Earshot alerts',
    text: [
      `Someone added ${address.email} as a notification address for Earshot alerts.`,
      '',
      `Confirm it within ${VERIFICATION_TTL_DAYS} days by opening:`,
      link,
      '',
      'If this was not you, ignore this mail: unconfirmed addresses receive no alerts.',
    ].join('\n'),
    html:
      `<!doctype html><html><body style="font-family:system-ui,sans-serif;font-size:14px;color:#222">` +
      `<p>Someone added <b>${escapeHtml(address.email)}</b> as a notification address for Earshot alerts.</p>` +
      `<p><a href="${escapeHtml(link)}">Confirm this address</a> within ${VERIFICATION_TTL_DAYS} days.</p>` +
      `<p style="color:#666;font-size:12px">If this was not you, ignore this mail: unconfirmed addresses receive no alerts.</p>` +
      `</body></html>`,
  });
}

/** Issues a fresh token and mails the link. False when there is no mailer (nothing sent). */
export async function sendVerification(
  db: Queryable,
  mailer: Mailer | undefined,
  publicUrl: string,
  address: { id: string; email: string },
): Promise<boolean> {
  const token = await issueVerificationToken(db, address.id);
  if (!mailer) return false;
  await mailVerification(mailer, publicUrl, address, token);
  return true;
}

/** Marks the address of a live token verified; undefined for an unknown, used or expired token. */
export async function verifyToken(db: Queryable, token: string): Promise<NotificationEmailRow | undefined> {
  const [row] = await db.query<NotificationEmailRow>(
    `UPDATE notification_emails SET verified_at = COALESCE(verified_at, now()), verification_token_sha256 = NULL
     WHERE verification_token_sha256 = $1 AND deleted_at IS NULL
       AND verification_sent_at > now() - make_interval(days => $2)
     RETURNING id, organization_id, email, verified_at, created_at`,
    [sha256(token), VERIFICATION_TTL_DAYS],
  );
  return row;
}

/**
 * The notification emails of organizations, for the API and the dashboard alike: adding,
 * listing, reading and deleting an address, verification by token, and the verification mail (sent again on request, or in the
 * background when an address is added).
 */
export class NotificationEmails {
  constructor(
    private readonly db: Queryable,
    private readonly mail: { mailer?: Mailer; publicUrl: string },
  ) {}

  /** Whether mail can be sent here (`SMTP_URL` is set). */
  get canMail(): boolean {
    return this.mail.mailer !== undefined;
  }

  /** Adds an address (unverified); throws the store's unique violation when it exists. */
  async add(organizationId: string, email: string): Promise<NotificationEmailRow> {
    const [row] = await this.db.query<NotificationEmailRow>(
      `INSERT INTO notification_emails (id, organization_id, email) VALUES ($1, $2, $3)
       RETURNING id, organization_id, email, verified_at, created_at`,
      [newId('ne'), organizationId, email],
    );
    return row!;
  }

  /** Live addresses of an organization in id order, after `after`. */
  async list(
    organizationId: string,
    after: string | undefined,
    limit: number,
  ): Promise<NotificationEmailRow[]> {
    return this.db.query<NotificationEmailRow>(
      `SELECT id, organization_id, email, verified_at, created_at FROM notification_emails
       WHERE organization_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT $3`,
      [organizationId, after ?? null, limit],
    );
  }

  /** A live address of the organization. */
  async get(id: string, organizationId: string): Promise<NotificationEmailRow | undefined> {
    const [row] = await this.db.query<NotificationEmailRow>(
      `SELECT id, organization_id, email, verified_at, created_at FROM notification_emails
       WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
      [id, organizationId],
    );
    return row;
  }

  /** Soft delete. */
  async softDelete(id: string): Promise<void> {
    await this.db.query(
      'UPDATE notification_emails SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL',
      [id],
    );
  }

  /** Marks the address of a live token verified; undefined for an unknown, used or expired token. */
  verify(token: string): Promise<NotificationEmailRow | undefined> {
    return verifyToken(this.db, token);
  }

  /** Issues a fresh token and mails the link (the previous link stops working). False without a mailer. */
  resendVerification(address: { id: string; email: string }): Promise<boolean> {
    return sendVerification(this.db, this.mail.mailer, this.mail.publicUrl, address);
  }

  /**
   * Issues the verification token of a newly added address and mails the link in the
   * background (the API answers without waiting for the SMTP server); failures are logged,
   * never raised.
   */
  verificationSender(log: Pick<Logger, 'warn' | 'error'>) {
    return async (row: { id: string; email: string }): Promise<void> => {
      try {
        const token = await issueVerificationToken(this.db, row.id);
        const { mailer, publicUrl } = this.mail;
        if (!mailer) {
          log.warn({ id: row.id }, 'no verification mail sent: SMTP_URL is not set');
          return;
        }
        mailVerification(mailer, publicUrl, row, token).catch((err: unknown) =>
          log.error({ err, id: row.id }, 'could not send the verification mail'),
        );
      } catch (err) {
        log.error({ err, id: row.id }, 'could not issue a verification token');
      }
    };
  }
}
