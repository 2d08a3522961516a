import type { FastifyBaseLogger } from 'fastify';
import type { Mailer, OutgoingMail } from '../../processors/alerts/index.ts';
import { escapeHtml } from '../html.ts';

/**
 * The mails of accounts: address verification, "you already have an account" (what sign-up
 * with a taken address sends, so the page need not say it), password reset and invitations.
 * Sent in the background over `SMTP_URL`; without it, each link is written to the service log
 * (a warning) and the page says so, so a local deployment still works.
 */
export class AccountMail {
  constructor(
    private readonly mailer: Mailer | undefined,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Whether mail is sent (else links go to the log). */
  get configured(): boolean {
    return this.mailer !== undefined;
  }

  verification(to: string, link: string, hours: number): void {
    this.deliver('verification', link, {
      to,
      subject: 'Confirm your email address for Earshot',
      lines: [
        'Welcome to Earshot. Confirm this address to sign in:',
        link,
        `The link works for ${hours} hours. If you did not sign up, ignore this mail.`,
      ],
      button: { link, label: 'Confirm my address' },
    });
  }

  alreadyRegistered(to: string, signInLink: string, resetLink: string): void {
    this.deliver('already-registered', signInLink, {
      to,
      subject: 'You already have an Earshot account',
      lines: [
        'Someone (maybe you) tried to sign up for Earshot with this address, which already has an account.',
        `Sign in: ${signInLink}`,
        `Forgot your password? Reset it: ${resetLink}`,
        'If this was not you, ignore this mail: nothing was changed.',
      ],
    });
  }

  reset(to: string, link: string, minutes: number): void {
    this.deliver('password-reset', link, {
      to,
      subject: 'Reset your Earshot password',
      lines: [
        'Someone asked to reset the password of your Earshot account. Choose a new one here:',
        link,
        `The link works once, for ${minutes} minutes. If you did not ask, ignore this mail: your password stays as it is.`,
      ],
      button: { link, label: 'Choose a new password' },
    });
  }

  invitation(to: string, organization: string, inviter: string, link: string, days: number): void {
    this.deliver('invitation', link, {
      to,
      subject: `${inviter} invited you to ${organization} on Earshot`,
      lines: [
        `${inviter} invited you to join the organization "${organization}" on Earshot.`,
        `Accept within ${days} days (sign up or sign in with this address first):`,
        link,
      ],
      button: { link, label: `Join ${organization}` },
    });
  }

  private deliver(
    purpose: string,
    link: string,
    mail: { to: string; subject: string; lines: string[]; button?: { link: string; label: string } },
  ): void {
    if (!this.mailer) {
      this.log.warn(
        { purpose, to: mail.to, link },
        'SMTP_URL is not set: the link of this account mail is written here instead of being mailed',
      );
      return;
    }
    const body: OutgoingMail = {
      to: mail.to,
      subject: mail.subject,
      text: `${mail.lines.join('\n\n')}\n`,
      html:
        '<!doctype html><html><body style="font-family:system-ui,sans-serif;font-size:15px;color:#1a1d21">' +
        mail.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('') +
        (mail.button
          ? `<p><a href="${escapeHtml(mail.button.link)}" style="background:#1d4ed8;color:#fff;padding:8px 16px;border-radius:6px;text-decoration:none">${escapeHtml(mail.button.label)}</a></p>`
          : '') +
        '</body></html>',
    };
    this.mailer
      .send(body)
      .catch((err: unknown) => this.log.error({ err, purpose }, 'could not send an account mail'));
  }
}
