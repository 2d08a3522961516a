import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A mail as a local SMTP server received it, with its parts decoded. */
export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
  headers: Record<string, string>;
  subject: string;
  text: string;
  html: string;
}

function unfold(head: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split(/\r\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

function decodeQP(text: string): string {
  const bytes: number[] = [];
  const soft = text.replace(/=\r\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(body: string, encoding: string | undefined): string {
  const e = (encoding ?? '').toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') return decodeQP(body);
  return body;
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`). */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset, enc: string, data: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQP(data.replace(/_/g, ' ')),
    );
}

function parts(raw: string): { headers: Record<string, string>; body: string }[] {
  const split = raw.indexOf('\r\n\r\n');
  const headers = unfold(raw.slice(0, split));
  const body = raw.slice(split + 4);
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (!boundary) return [{ headers, body }];
  return body
    .split(`--${boundary}`)
    .slice(1)
    .filter((p) => !p.startsWith('--'))
    .flatMap((p) => parts(p.replace(/^\r\n/, '')));
}

export function parseMail(raw: string, from = '', to: string[] = []): CapturedMail {
  const split = raw.indexOf('\r\n\r\n');
  const headers = unfold(raw.slice(0, split));
  let text = '';
  let html = '';
  for (const p of parts(raw)) {
    const type = (p.headers['content-type'] ?? 'text/plain').toLowerCase();
    const decoded = decodeBody(p.body, p.headers['content-transfer-encoding']);
    if (type.startsWith('text/plain')) text = decoded;
    else if (type.startsWith('text/html')) html = decoded;
  }
  return { from, to, raw, headers, subject: decodeWords(headers.subject ?? ''), text, html };
}

/**
 * A real SMTP server on 127.0.0.1 (smtp-server) that captures every mail. `reject` makes it
 * refuse recipients with an SMTP code (e.g. 550 permanent, 451 temporary).
 */
export async function startSmtp() {
  const mails: CapturedMail[] = [];
  let reject: ((rcpt: string) => { code: number; message: string } | undefined) | undefined;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const r = reject?.(address.address);
      if (r) return callback(Object.assign(new Error(r.message), { responseCode: r.code }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push(
          parseMail(
            Buffer.concat(chunks).toString('utf8'),
            from,
            session.envelope.rcptTo.map((r) => r.address),
          ),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    mails,
    reject(fn: typeof reject) {
      reject = fn;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
