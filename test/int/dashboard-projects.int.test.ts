import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpMailer } from '../../processors/alerts/index.ts';
import { testApi } from '../support/api.ts';
import { linkIn, nextMail, PageClient, pathOf, signedInMember, textOf } from '../support/dashboard.ts';
import { startSmtp } from '../support/smtp.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

/** The first `href` of the page that matches. */
function linkTo(body: string, pattern: RegExp): string {
  const found = [...body.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!).find((h) => pattern.test(h));
  expect(found, `a link matching ${pattern}`).toBeDefined();
  return found!.replace(/&amp;/g, '&');
}

/**
 * Organizations, projects, keys and usage in the dashboard, and who may see them: a project is
 * created and renamed, a key minted (shown once) works on the API and stops working the moment it
 * is revoked, usage counts what the API answered, invitations add members, and a person outside
 * an organization gets 404 for every page and form of it.
 */
describe('dashboard projects and keys', () => {
  let api: Api;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    api = await testApi({ rateLimitPerMinute: 5 }, undefined, {
      delivery: { mailer: new SmtpMailer(smtp.url, 'Earshot <accounts@earshot.test>') },
    });
  });
  afterAll(async () => {
    await api?.close();
    await smtp?.close();
  });

  async function newProject(browser: PageClient, orgId: string, name: string) {
    await browser.get(`/orgs/${orgId}`);
    const created = await browser.post(`/orgs/${orgId}/projects`, { name });
    expect(created.status).toBe(303);
    const page = await browser.get(created.location!);
    expect(page.status).toBe(200);
    return { page, projectId: /\/projects\/([^/?#]+)/.exec(created.location!)![1]! };
  }

  it('creates and renames a project on the Starter plan; the plan page says how to upgrade', async () => {
    const { browser, organization } = await signedInMember(api, 'owner1@example.test', 'Owner One Inc');
    const { page, projectId } = await newProject(browser, organization.id, 'Newsroom');
    expect(textOf(page.body)).toContain('The project was created');
    expect(textOf(page.body)).toContain('Starter');
    const renamed = await browser.post(
      `/projects/${projectId}/rename`,
      { name: 'Newsroom Desk' },
      { follow: true },
    );
    expect(textOf(renamed.body)).toContain('The project was renamed');
    expect(renamed.body).toContain('<h1>Newsroom Desk</h1>');
    const empty = await browser.post(`/projects/${projectId}/rename`, { name: '' });
    expect(empty.status).toBe(422);
    const plan = await browser.get(`/projects/${projectId}/plan`);
    expect(textOf(plan.body)).toContain(`earshot projects set-plan --project ${projectId} --plan team`);
    expect(plan.body).toContain('id="add-ons"');
    // A second project with the same name gets its own slug.
    const again = await newProject(browser, organization.id, 'Newsroom');
    expect(again.projectId).not.toBe(projectId);
  });

  it('mints a key shown once that the API accepts, and refuses it the moment it is revoked', async () => {
    const { browser, organization } = await signedInMember(api, 'owner2@example.test');
    const { projectId } = await newProject(browser, organization.id, 'Keys');
    await browser.get(`/projects/${projectId}/keys`);
    const minted = await browser.post(`/projects/${projectId}/keys`, { name: 'backend', expires: 'never' });
    expect(minted.status).toBe(201);
    const key = /value="(esk_[A-Za-z0-9]{40})"/.exec(minted.body)![1]!;
    expect(minted.body).toContain('data-copy="new-key"');
    expect(textOf(minted.body)).toContain('It is shown only now');
    // Listed by prefix only, never in full.
    const list = await browser.get(`/projects/${projectId}/keys`);
    expect(list.body).not.toContain(key);
    expect(list.body).toContain(`${key.slice(0, 10)}…`);

    const call = () =>
      api.app.inject({
        method: 'GET',
        url: `/v1/organizations/${organization.id}/projects`,
        headers: { 'x-api-key': key },
      });
    expect((await call()).statusCode).toBe(200); // cached as valid from here on
    const keyId = /\/keys\/(key_[a-z0-9]+)\/revoke/.exec(list.body)![1]!;
    const revoked = await browser.post(`/projects/${projectId}/keys/${keyId}/revoke`, {});
    expect(revoked.status).toBe(303);
    const res = await call();
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error_code: 'invalid_api_key' });
    const after = await browser.get(revoked.location!);
    expect(textOf(after.body)).toContain('The key was revoked');
    expect(after.body).toContain('revoked');

    const expiring = await browser.post(`/projects/${projectId}/keys`, { name: 'short', expires: '30d' });
    expect(expiring.status).toBe(201);
    const [row] = await api.state.query<{ expires_at: Date }>(
      `SELECT expires_at FROM api_keys WHERE name = 'short'`,
    );
    expect(new Date(row!.expires_at).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });

  it('shows requests per key and day as the API counted them, 429s included, and the rate-limit state', async () => {
    const { browser, organization } = await signedInMember(api, 'owner3@example.test');
    const { projectId } = await newProject(browser, organization.id, 'Usage');
    await browser.get(`/projects/${projectId}/keys`);
    const minted = await browser.post(`/projects/${projectId}/keys`, { name: 'counter', expires: 'never' });
    const key = /value="(esk_[A-Za-z0-9]{40})"/.exec(minted.body)![1]!;
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (
          await api.app.inject({
            method: 'GET',
            url: `/v1/organizations/${organization.id}/projects`,
            headers: { 'x-api-key': key },
          })
        ).statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const usage = await browser.get(`/projects/${projectId}/usage`);
    expect(usage.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const row = new RegExp(
      `<time datetime="${today}">${today}</time></th><td><span class="num">7</span> <span class="badge bad">2 × 429</span>`,
    );
    expect(usage.body).toMatch(row);
    expect(textOf(usage.body)).toMatch(/counter esk_\w{6}… [0-7] 5 2/);
    const [stored] = await api.state.query<{ requests: number; rate_limited: number }>(
      'SELECT requests, rate_limited FROM api_key_usage u JOIN api_keys k ON k.id = u.key_id WHERE k.project_id = $1',
      [projectId],
    );
    expect(stored).toEqual({ requests: 7, rate_limited: 2 });
  });

  it('answers 404 to a person outside the organization, for every page and form of its projects and keys', async () => {
    const a = await signedInMember(api, 'alice@example.test', 'Alice Org');
    const b = await signedInMember(api, 'bob@example.test', 'Bob Org');
    const { projectId } = await newProject(a.browser, a.organization.id, 'Private');
    await a.browser.get(`/projects/${projectId}/keys`);
    const minted = await a.browser.post(`/projects/${projectId}/keys`, { name: 'secret', expires: 'never' });
    const keyId = /\/keys\/(key_[a-z0-9]+)\/revoke/.exec(minted.body)![1]!;
    await b.browser.get('/'); // B's own form token
    for (const path of [
      `/orgs/${a.organization.id}`,
      `/projects/${projectId}`,
      `/projects/${projectId}/keys`,
      `/projects/${projectId}/usage`,
      `/projects/${projectId}/plan`,
    ]) {
      const res = await b.browser.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body).not.toContain('Private');
    }
    for (const [path, fields] of [
      [`/orgs/${a.organization.id}/projects`, { name: 'Intruder' }],
      [`/orgs/${a.organization.id}/invitations`, { email: 'x@example.test', role: 'owner' }],
      [`/projects/${projectId}/rename`, { name: 'Taken over' }],
      [`/projects/${projectId}/keys`, { name: 'mine now', expires: 'never' }],
      [`/projects/${projectId}/keys/${keyId}/revoke`, {}],
    ] as const) {
      const res = await b.browser.post(path, fields);
      expect(res.status, path).toBe(404);
    }
    // Nothing changed: the key is live, the name and key count as they were.
    const keys = await api.state.query<{ revoked_at: Date | null }>(
      'SELECT revoked_at FROM api_keys WHERE project_id = $1',
      [projectId],
    );
    expect(keys).toEqual([{ revoked_at: null }]);
    const [project] = await api.state.query<{ name: string }>('SELECT name FROM projects WHERE id = $1', [
      projectId,
    ]);
    expect(project!.name).toBe('Private');
    // Revoking a key of another project through one's own project is 404 too.
    const own = await newProject(b.browser, b.organization.id, 'Own');
    expect((await b.browser.post(`/projects/${own.projectId}/keys/${keyId}/revoke`, {})).status).toBe(404);
  });

  it('invites by email: the invited person joins as a member; members cannot invite; an organization keeps an owner', async () => {
    const owner = await signedInMember(api, 'olga@example.test', 'Olga Org');
    const orgPath = `/orgs/${owner.organization.id}`;
    await owner.browser.get(orgPath);
    const invited = await owner.browser.post(
      `${orgPath}/invitations`,
      { email: 'pete@example.test', role: 'member' },
      { follow: true },
    );
    expect(textOf(invited.body)).toContain('The invitation is on its way');
    expect(textOf(invited.body)).toContain('pete@example.test');
    const mail = await nextMail(smtp.mails, 'pete@example.test');
    expect(mail.subject).toBe('olga@example.test invited you to Olga Org on Earshot');
    const link = pathOf(linkIn(mail, '/dashboard/invitations/accept?token='));

    // Signed out: the page says who is invited and leads to sign in and back.
    const visitor = new PageClient(api.app);
    const seen = await visitor.get(link);
    expect(textOf(seen.body)).toContain('Sign in, or create an account, with pete@example.test');
    // Someone else signed in cannot accept it.
    const other = await signedInMember(api, 'quinn@example.test');
    const wrong = await other.browser.get(link);
    expect(textOf(wrong.body)).toContain('This invitation is for pete@example.test');
    const token = new URL(`http://x${link}`).searchParams.get('token')!;
    expect((await other.browser.post('/invitations/accept', { token })).status).toBe(403);

    const pete = await signedInMember(api, 'pete@example.test');
    const accept = await pete.browser.get(link);
    expect(accept.body).toContain('Join Olga Org');
    const joined = await pete.browser.post('/invitations/accept', { token }, { follow: true });
    expect(textOf(joined.body)).toContain('you are now a member');
    expect(textOf(joined.body)).toContain('Your role: member');
    expect((await pete.browser.post('/invitations/accept', { token })).status).toBe(400); // used
    // A member creates projects but cannot invite.
    expect(
      (await pete.browser.post(`${orgPath}/invitations`, { email: 'r@example.test', role: 'member' })).status,
    ).toBe(403);
    expect((await pete.browser.post(`${orgPath}/projects`, { name: 'Pete project' })).status).toBe(303);

    // The only owner cannot leave; after making Pete an owner, they can.
    const ownerId = owner.user.id;
    const leave = await owner.browser.post(`${orgPath}/members/${ownerId}/remove`, {});
    expect(leave.status).toBe(409);
    expect(textOf(leave.body)).toContain('An organization needs an owner');
    await owner.browser.get(orgPath);
    expect(
      (await owner.browser.post(`${orgPath}/members/${pete.user.id}/role`, { role: 'owner' })).status,
    ).toBe(303);
    expect((await owner.browser.post(`${orgPath}/members/${ownerId}/remove`, {})).status).toBe(303);
    expect((await owner.browser.get(orgPath)).status).toBe(404);
    expect(linkTo((await pete.browser.get('/')).body, /\/orgs\//)).toContain(owner.organization.id);
  });
});
