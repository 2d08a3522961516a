import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { type SecretBox, TokenSigner } from '../../processors/delivery/secrets.ts';
import { People } from '../../projections/state/people.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import type { CapturedMail } from './smtp.ts';

export interface Page {
  status: number;
  body: string;
  headers: OutgoingHttpHeaders;
  /** `location` of a redirect. */
  location?: string;
}

/**
 * A browser-like client of the dashboard over `inject`: keeps the cookies it is given, sends the
 * CSRF token of the last page it read with each form (unless told otherwise), and follows
 * redirects when asked.
 */
export class PageClient {
  readonly cookies = new Map<string, string>();
  last?: Page;
  /** The form token of the last page that had a form. */
  csrf?: string;

  constructor(
    private readonly app: FastifyInstance,
    readonly base = '/dashboard',
  ) {}

  private cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(headers: OutgoingHttpHeaders): void {
    const set = headers['set-cookie'];
    for (const c of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair] = String(c).split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private url(path: string): string {
    return path.startsWith(this.base) ? path : `${this.base}${path}`;
  }

  async get(path: string, opts: { follow?: boolean } = {}): Promise<Page> {
    const res = await this.app.inject({
      method: 'GET',
      url: this.url(path),
      headers: this.cookieHeader() ? { cookie: this.cookieHeader()! } : {},
    });
    this.keep(res.headers);
    const page: Page = {
      status: res.statusCode,
      body: res.body,
      headers: res.headers,
      location: res.headers.location as string | undefined,
    };
    if (opts.follow && page.location && res.statusCode >= 300 && res.statusCode < 400)
      return this.get(page.location, opts);
    this.read(page);
    return page;
  }

  private read(page: Page): void {
    this.last = page;
    this.csrf = csrfOf(page.body) ?? this.csrf;
  }

  /** Posts a form; `_csrf` is the token of the last form read unless `csrf` says otherwise (`null`: none). */
  async post(
    path: string,
    fields: Record<string, string | string[]>,
    opts: { csrf?: string | null; follow?: boolean } = {},
  ): Promise<Page> {
    const body = new URLSearchParams();
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf !== null && csrf !== undefined) body.append('_csrf', csrf);
    for (const [k, v] of Object.entries(fields))
      for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    const res = await this.app.inject({
      method: 'POST',
      url: this.url(path),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(this.cookieHeader() ? { cookie: this.cookieHeader()! } : {}),
      },
      payload: body.toString(),
    });
    this.keep(res.headers);
    const page: Page = {
      status: res.statusCode,
      body: res.body,
      headers: res.headers,
      location: res.headers.location as string | undefined,
    };
    if (opts.follow && page.location && res.statusCode >= 300 && res.statusCode < 400)
      return this.get(page.location, opts);
    this.read(page);
    return page;
  }
}

export function csrfOf(body: string): string | undefined {
  return /name="_csrf" value="([^"]*)"/.exec(body)?.[1];
}

/** The first link in a mail's text that starts with `prefix`. */
export function linkIn(mail: CapturedMail, prefix: string): string {
  const found = mail.text.match(/https?:\/\/\S+/g)?.find((l) => l.includes(prefix));
  expect(found, `a ${prefix} link in: ${mail.text}`).toBeDefined();
  return found!;
}

/** The path and query of an absolute link. */
export const pathOf = (link: string) => {
  const u = new URL(link);
  return `${u.pathname}${u.search}`;
};

/** Waits until `mails` holds one more to `to` than `seen` and returns it. */
export async function nextMail(mails: CapturedMail[], to: string, seen = 0): Promise<CapturedMail> {
  for (let i = 0; i < 200; i++) {
    const mine = mails.filter((m) => m.to.includes(to));
    if (mine.length > seen) return mine[seen]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no mail to ${to}`);
}

/** The text of a page without tags, whitespace collapsed (for messages). */
export function textOf(body: string): string {
  return body
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim();
}

export const TEST_PASSWORD = 'correct horse battery staple';

/**
 * A person with a verified account, an organization they own and a signed-in browser. Made
 * through the services (faster than the sign-up forms, which the accounts test walks); signed
 * in through the form.
 */
export async function signedInMember(
  api: { app: FastifyInstance; state: StateStore; delivery: { box: SecretBox } },
  email: string,
  organizationName = `${email.split('@')[0]} org`,
) {
  const people = new People(api.state, new TokenSigner(api.delivery.box, 'account-verification'));
  const result = await people.signUp({ email, password: TEST_PASSWORD, organizationName });
  if (!result.created) throw new Error(`${email} exists`);
  await people.verify(people.verificationToken(result.user));
  const browser = new PageClient(api.app);
  await browser.get('/sign-in');
  const res = await browser.post('/sign-in', { email, password: TEST_PASSWORD });
  expect(res.status).toBe(303);
  return { browser, user: result.user, organization: result.organization };
}
