import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../infra/logger.ts';
import { SmtpMailer } from '../../processors/alerts/index.ts';
import { testApi } from '../support/api.ts';
import { linkIn, nextMail, PageClient, pathOf, textOf } from '../support/dashboard.ts';
import { startSmtp } from '../support/smtp.ts';

type Api = Awaited<ReturnType<typeof testApi>>;
const PASSWORD = 'correct horse battery staple';

/**
 * Accounts in the dashboard, through its pages as a browser uses them (forms, cookies, mails
 * captured by a local SMTP server): sign-up, verification, sign-in and out, reset, password
 * change; and what must hold for security — CSRF, session rotation, cookie flags, no password
 * in logs or in the store, single-use expiring reset links, enumeration-safe answers, limits.
 */
describe('dashboard accounts', () => {
  let api: Api;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const log = new PassThrough();
  const lines: string[] = [];
  log.on('data', (d: Buffer) => lines.push(d.toString()));

  beforeAll(async () => {
    smtp = await startSmtp();
    api = await testApi(
      {
        attemptLimits: {
          signIn: { perClient: 1000, perAccount: 6, windowMs: 60_000 },
          reset: { perClient: 1000, perAccount: 1000, windowMs: 60_000 },
          signUp: { perClient: 1000, windowMs: 60_000 },
        },
      },
      undefined,
      {
        delivery: { mailer: new SmtpMailer(smtp.url, 'Earshot <accounts@earshot.test>') },
        logger: createLogger('debug', 'earshot', log),
      },
    );
  });
  afterAll(async () => {
    await api?.close();
    await smtp?.close();
  });

  async function signUp(email: string, org = 'Acme Research') {
    const browser = new PageClient(api.app);
    const form = await browser.get('/sign-up');
    expect(form.status).toBe(200);
    const seen = smtp.mails.filter((m) => m.to.includes(email)).length;
    const done = await browser.post('/sign-up', { email, password: PASSWORD, organization: org });
    expect(done.status).toBe(200);
    return { browser, mail: await nextMail(smtp.mails, email, seen), page: done };
  }

  async function signedIn(email: string) {
    const { browser, mail } = await signUp(email);
    expect((await browser.get(pathOf(linkIn(mail, '/dashboard/verify')))).status).toBe(200);
    await browser.get('/sign-in');
    const res = await browser.post('/sign-in', { email, password: PASSWORD });
    expect(res.status).toBe(303);
    return browser;
  }

  it('signs up, mails a signed verification link, verifies, signs in and shows the organization', async () => {
    const { browser, mail, page } = await signUp('ada@example.test', 'Ada Labs');
    expect(textOf(page.body)).toContain('We sent a mail to ada@example.test');
    expect(mail.subject).toContain('Confirm your email address');
    const link = linkIn(mail, '/dashboard/verify?token=');
    expect(link.startsWith('http://127.0.0.1:8080/dashboard/verify?token=')).toBe(true);

    // Not verified yet: signing in is refused, and a new link is sent.
    await browser.get('/sign-in');
    const early = await browser.post('/sign-in', { email: 'ada@example.test', password: PASSWORD });
    expect(early.status).toBe(403);
    expect(textOf(early.body)).toContain('Confirm your address first');
    await nextMail(smtp.mails, 'ada@example.test', 1);

    const verified = await browser.get(pathOf(link));
    expect(verified.status).toBe(200);
    expect(textOf(verified.body)).toContain('ada@example.test is confirmed');

    await browser.get('/sign-in');
    const wrong = await browser.post('/sign-in', { email: 'ada@example.test', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(textOf(wrong.body)).toContain('The email address or the password is not right');
    const ok = await browser.post('/sign-in', { email: 'ada@example.test', password: PASSWORD });
    expect(ok.status).toBe(303);
    const home = await browser.get(ok.location!);
    expect(home.status).toBe(200);
    expect(textOf(home.body)).toContain('Ada Labs');
    expect(textOf(home.body)).toContain('owner');
  });

  it('refuses a verification token that was edited, is expired or comes from another signer', async () => {
    const { mail } = await signUp('bob@example.test');
    const token = new URL(linkIn(mail, '/dashboard/verify')).searchParams.get('token')!;
    const browser = new PageClient(api.app);
    const [body, mac] = token.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString()) as { x: number };
    const expired = Buffer.from(JSON.stringify({ ...payload, x: Date.now() - 1000 })).toString('base64url');
    for (const bad of [`${body}.${mac!.slice(0, -2)}AA`, `${expired}.${mac}`, 'nonsense']) {
      const res = await browser.get(`/verify?token=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(textOf(res.body)).toContain('invalid or has expired');
    }
  });

  it('answers sign-up with a taken address as with a new one, and mails the owner instead', async () => {
    await signUp('carol@example.test');
    const again = await signUp('carol@example.test', 'Another Org');
    expect(textOf(again.page.body)).toBe(
      textOf((await signUp('dave@example.test', 'Another Org')).page.body).replace('dave@', 'carol@'),
    );
    expect(again.mail.subject).toBe('You already have an Earshot account');
    expect(again.mail.text).not.toMatch(/verify\?token=/);
  });

  it('refuses a form post without its CSRF token, or with another session’s', async () => {
    const browser = await signedIn('erin@example.test');
    const home = await browser.get('/');
    const orgLink = /href="(\/dashboard\/orgs\/[^"]+)"/.exec(home.body)![1]!;
    await browser.get(orgLink);
    const missing = await browser.post(`${orgLink}/projects`, { name: 'No token' }, { csrf: null });
    expect(missing.status).toBe(403);
    expect(textOf(missing.body)).toContain('This form has expired');
    const other = new PageClient(api.app);
    await other.get('/sign-in');
    const foreign = await browser.post(
      `${orgLink}/projects`,
      { name: 'Foreign token' },
      { csrf: /name="_csrf" value="([^"]*)"/.exec(other.last!.body)![1]! },
    );
    expect(foreign.status).toBe(403);
    const page = await browser.get(orgLink);
    expect(page.body).not.toContain('No token');
    expect(page.body).not.toContain('Foreign token');
    // With the token the same post works.
    expect((await browser.post(`${orgLink}/projects`, { name: 'With token' })).status).toBe(303);
  });

  it('replaces the session at sign-in: the cookie from before is not signed in afterwards', async () => {
    await signUp('fay@example.test').then(async ({ browser, mail }) => {
      await browser.get(pathOf(linkIn(mail, '/dashboard/verify')));
    });
    const browser = new PageClient(api.app);
    await browser.get('/sign-in');
    const before = browser.cookies.get('earshot_session')!;
    expect(before).toBeDefined();
    const res = await browser.post('/sign-in', { email: 'fay@example.test', password: PASSWORD });
    expect(res.status).toBe(303);
    const after = browser.cookies.get('earshot_session')!;
    expect(after).not.toBe(before);
    expect((await browser.get('/')).status).toBe(200);

    const planted = new PageClient(api.app);
    planted.cookies.set('earshot_session', before);
    const home = await planted.get('/');
    expect(home.status).toBe(303);
    expect(home.location).toMatch(/^\/dashboard\/sign-in\?next=/);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, on the dashboard path, signed; Secure over https', async () => {
    const browser = new PageClient(api.app);
    const page = await browser.get('/sign-in');
    const cookie = String(page.headers['set-cookie']);
    expect(cookie).toMatch(/^earshot_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9%_-]+;/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/dashboard');
    expect(cookie).not.toContain('Secure');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');

    const https = await testApi({ dashboardUrl: 'https://dashboard.example.test/dashboard' });
    try {
      const res = await new PageClient(https.app).get('/sign-in');
      expect(String(res.headers['set-cookie'])).toMatch(/; Secure/);
    } finally {
      await https.close();
    }
    // An edited cookie is not looked up: it counts as no session.
    const edited = new PageClient(api.app);
    edited.cookies.set('earshot_session', `${browser.cookies.get('earshot_session')!.slice(0, -3)}abc`);
    expect((await edited.get('/')).status).toBe(303);
  });

  it('resets a password with a link that works once and expires; other sessions end', async () => {
    const first = await signedIn('gus@example.test');
    const browser = new PageClient(api.app);
    await browser.get('/reset');
    const before = smtp.mails.filter((m) => m.to.includes('gus@example.test')).length;
    const asked = await browser.post('/reset', { email: 'gus@example.test' });
    expect(textOf(asked.body)).toContain('If gus@example.test has an account');
    const unknown = await browser.post('/reset', { email: 'nobody@example.test' });
    expect(textOf(unknown.body)).toBe(textOf(asked.body).replace('gus@', 'nobody@'));
    const mail = await nextMail(smtp.mails, 'gus@example.test', before);
    const link = pathOf(linkIn(mail, '/dashboard/reset/new?token='));
    const token = new URL(`http://x${link}`).searchParams.get('token')!;

    const form = await browser.get(link);
    expect(form.status).toBe(200);
    const done = await browser.post('/reset/new', {
      token,
      password: 'a brand new password',
      confirm: 'a brand new password',
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/dashboard/sign-in?done=password-reset');
    // Used up: neither the link nor the form works again.
    expect((await browser.get(link)).status).toBe(400);
    await browser.get('/sign-in');
    const again = await browser.post('/reset/new', {
      token,
      password: 'another new password',
      confirm: 'another new password',
    });
    expect(again.status).toBe(400);
    // The session signed in before the reset has ended; the new password signs in.
    expect((await first.get('/')).status).toBe(303);
    await browser.get('/sign-in');
    expect(
      (await browser.post('/sign-in', { email: 'gus@example.test', password: 'a brand new password' }))
        .status,
    ).toBe(303);

    // An expired link does not work either.
    const visitor = new PageClient(api.app);
    await visitor.get('/reset');
    await visitor.post('/reset', { email: 'gus@example.test' });
    const later = await nextMail(smtp.mails, 'gus@example.test', before + 1);
    const expiring = new URL(linkIn(later, '/dashboard/reset/new?token=')).searchParams.get('token')!;
    await api.state.query(
      `UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`,
    );
    expect((await visitor.get(`/reset/new?token=${encodeURIComponent(expiring)}`)).status).toBe(400);
    await visitor.get('/sign-in');
    expect(
      (
        await visitor.post('/reset/new', {
          token: expiring,
          password: 'yet another password',
          confirm: 'yet another password',
        })
      ).status,
    ).toBe(400);
  });

  it('changes the password with the current one and signs the other sessions out', async () => {
    const a = await signedIn('hal@example.test');
    const b = new PageClient(api.app);
    await b.get('/sign-in');
    await b.post('/sign-in', { email: 'hal@example.test', password: PASSWORD });
    await a.get('/account');
    const wrong = await a.post('/account/password', {
      current: 'nope nope nope',
      password: 'the next password',
      confirm: 'the next password',
    });
    expect(wrong.status).toBe(422);
    expect(textOf(wrong.body)).toContain('is not right');
    const ok = await a.post('/account/password', {
      current: PASSWORD,
      password: 'the next password',
      confirm: 'the next password',
    });
    expect(ok.status).toBe(200);
    expect(textOf(ok.body)).toContain('Your password was changed');
    expect((await a.get('/')).status).toBe(200);
    expect((await b.get('/')).status).toBe(303);
  });

  it('never logs a password and stores only scrypt hashes', async () => {
    await signedIn('ivy@example.test');
    const log = lines.join('');
    expect(log).toContain('signed in');
    for (const secret of [PASSWORD, 'a brand new password', 'the next password', 'not the password']) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(encodeURIComponent(secret).replace(/%20/g, '+'));
    }
    const [dump] = await api.state.query<{ dump: string }>(
      `SELECT string_agg(t::text, ' ') AS dump FROM (SELECT row_to_json(u)::text AS t FROM users u
         UNION ALL SELECT row_to_json(s)::text FROM user_sessions s
         UNION ALL SELECT row_to_json(r)::text FROM password_resets r) x`,
    );
    expect(dump!.dump).toContain('scrypt$32768$8$1$');
    for (const secret of [PASSWORD, 'a brand new password', 'the next password'])
      expect(dump!.dump).not.toContain(secret);
  });

  it('limits sign-in attempts per account with 429 and Retry-After', async () => {
    const browser = new PageClient(api.app);
    await browser.get('/sign-in');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push(
        (await browser.post('/sign-in', { email: 'target@example.test', password: `guess number ${i}` }))
          .status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
    const last = await browser.post('/sign-in', { email: 'target@example.test', password: 'guess' });
    expect(last.status).toBe(429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(textOf(last.body)).toContain('Too many attempts');
  });

  it('sends a signed-out visitor to sign in, and back to the page afterwards', async () => {
    const browser = new PageClient(api.app);
    const res = await browser.get('/account');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Faccount');
    // `next` never leaves the dashboard.
    await signUp('jo@example.test').then(({ browser: b, mail }) =>
      b.get(pathOf(linkIn(mail, '/dashboard/verify'))),
    );
    const visitor = new PageClient(api.app);
    await visitor.get('/sign-in?next=https://evil.example/');
    const signed = await visitor.post('/sign-in', {
      email: 'jo@example.test',
      password: PASSWORD,
      next: '//evil.example/',
    });
    expect(signed.location).toBe('/dashboard/');
  });
});
