import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { type SecretBox, TokenSigner } from '../../processors/alerts/index.ts';
import { People } from '../../projections/state/people.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { PageClient } from './page-client.ts';
import type { CapturedMail } from './smtp.ts';

export { csrfOf, type Page, PageClient } from './page-client.ts';

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
