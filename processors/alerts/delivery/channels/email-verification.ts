import { randomBytes } from 'node:crypto';
import { sha256 } from '../../../../projections/state/accounts.ts';
import type { Queryable } from '../../../../projections/state/state-store.ts';
import type { Mailer } from './mailer.ts';
import { escapeHtml } from './render.ts';

/**
 * Notification-email verification: a random single-use token (only its SHA-256 is stored) sent
 * by mail as a link; following the link, or POSTing the token, marks the address verified.
 * A token is valid for 7 days from the last verification mail; sending again replaces it.
 */
export const VERIFICATION_TTL_DAYS = 7;

export interface VerifiedEmail {
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
export async function verifyToken(db: Queryable, token: string): Promise<VerifiedEmail | undefined> {
  const [row] = await db.query<VerifiedEmail>(
    `UPDATE notification_emails SET verified_at = COALESCE(verified_at, now()), verification_token_sha256 = NULL
     WHERE verification_token_sha256 = $1 AND deleted_at IS NULL
       AND verification_sent_at > now() - make_interval(days => $2)
     RETURNING id, organization_id, email, verified_at, created_at`,
    [sha256(token), VERIFICATION_TTL_DAYS],
  );
  return row;
}
