import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../../projections/state/accounts.ts';
import type { Queryable } from '../../projections/state/state-store.ts';
import {
  issueVerificationToken,
  mailVerification,
  sendVerification,
  verifyToken,
} from './email-verification.ts';
import type { Mailer } from './mailer.ts';

/** A notification email as stored (`notification_emails`). */
export interface NotificationEmailRow {
  id: string;
  organization_id: string;
  email: string;
  verified_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, email, verified_at, created_at';

/**
 * Notification emails: the addresses of an organization that EMAIL channels may name, once
 * verified by the mailed link (email-verification.ts). What the API's routes and the dashboard's
 * pages both use: add (a unique violation when the organization has the address), list, read,
 * soft delete, verification, and the verification mail. Deleting an address an alert still
 * lists is refused by the callers (alert management knows which alerts list it).
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
      `INSERT INTO notification_emails (id, organization_id, email) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
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
      `SELECT ${COLUMNS} FROM notification_emails
       WHERE organization_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT $3`,
      [organizationId, after ?? null, limit],
    );
  }

  /** A live address of the organization. */
  async get(id: string, organizationId: string): Promise<NotificationEmailRow | undefined> {
    const [row] = await this.db.query<NotificationEmailRow>(
      `SELECT ${COLUMNS} FROM notification_emails WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
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
   * Issues the verification token of a newly added address and mails the link in the background
   * (the caller answers without waiting for the SMTP server); failures are logged, never raised.
   */
  verificationSender(log: Pick<FastifyBaseLogger, 'warn' | 'error'>) {
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
