import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';

/**
 * Outgoing mail. The SMTP adapter uses nodemailer with a pooled transport on `SMTP_URL`
 * (`smtp://user:pass@host:587`, `smtps://…:465`; query options such as `?ignoreTLS=true` are
 * passed to nodemailer). Without `SMTP_URL` the service has no mailer and the email channel is
 * unavailable: email deliveries fail (and are retried, then abandoned) and verification mails
 * are not sent.
 */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

export interface Mailer {
  readonly kind: string;
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): Promise<void>;
}

/** An SMTP rejection of the message or recipient (5xx): sending it again will not help. */
export function isPermanentMailError(err: unknown): boolean {
  const code = (err as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
    options: { timeoutMs?: number; maxConnections?: number } = {},
  ) {
    const timeout = options.timeoutMs ?? 30_000;
    this.transport = nodemailer.createTransport({
      url,
      pool: true,
      maxConnections: options.maxConnections ?? 5,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    } as SMTPPool.Options);
  }

  async send(mail: OutgoingMail): Promise<{ messageId: string }> {
    const info = await this.transport.sendMail({
      from: this.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      headers: mail.headers,
    });
    return { messageId: String(info.messageId ?? '') };
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
