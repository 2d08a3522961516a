import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApi } from '../support/api.ts';
import { type PageClient, signedInMember, textOf } from '../support/dashboard.ts';
import { type ReceivedRequest, startReceiver } from '../support/receiver.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

function verify(secret: string, r: ReceivedRequest) {
  return new Webhook(secret).verify(r.raw.toString('utf8'), {
    'webhook-id': String(r.headers['x-webhook-id']),
    'webhook-timestamp': String(r.headers['x-webhook-timestamp']),
    'webhook-signature': String(r.headers['x-webhook-signature']),
  }) as Record<string, unknown>;
}

const secretOf = (body: string) => /id="webhook-secret"[^>]*value="(whsec_[^"]+)"/.exec(body)?.[1];

/**
 * Webhook connections in the dashboard: made through the outbound guard like the API's, the
 * secret shown once and able to verify a signed test send, rotated (the old secret verifies
 * nothing sent afterwards), deleted; the API sees the same connections; outsiders get 404.
 */
describe('dashboard webhook connections', () => {
  let api: Api;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let owner: { browser: PageClient; organization: { id: string } };
  let projectId: string;
  let key: string;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 204 }));
    api = await testApi();
    owner = await signedInMember(api, 'hooks@example.test');
    await owner.browser.get(`/orgs/${owner.organization.id}`);
    const created = await owner.browser.post(`/orgs/${owner.organization.id}/projects`, { name: 'Hooks' });
    projectId = /\/projects\/([^/?#]+)/.exec(created.location!)![1]!;
    key = (await api.accounts.createApiKey({ projectId })).key;
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.close();
  });

  it('creates a connection with its secret shown once, tests, rotates and deletes it', async () => {
    const { browser } = owner;
    const base = `/projects/${projectId}/webhooks`;
    await browser.get(base);
    const created = await browser.post(base, { url: `${receiver.url}/hook`, name: 'newsroom' });
    expect(created.status).toBe(201);
    const secret = secretOf(created.body)!;
    expect(secret).toMatch(/^whsec_/);
    const listed = await browser.get(base);
    expect(listed.body).not.toContain(secret);
    expect(textOf(listed.body)).toContain(`${receiver.url}/hook`);
    const id = /webhooks\/(whc_[a-z0-9]+)\/test/.exec(listed.body)![1]!;

    // The API sees it.
    const viaApi = await api.app.inject({
      method: 'GET',
      url: `/v1/projects/${projectId}/webhooks/connections`,
      headers: { 'x-api-key': key },
    });
    expect(viaApi.json().data).toMatchObject([{ id, name: 'newsroom', url: `${receiver.url}/hook` }]);

    // A signed test send that the secret verifies.
    const tested = await browser.post(`${base}/${id}/test`, {});
    expect(textOf(tested.body)).toContain('The test reached');
    expect(textOf(tested.body)).toContain('it answered 204');
    const first = receiver.received.at(-1)!;
    expect(verify(secret, first)).toMatchObject({
      event_type: 'alert.match.created',
      test: true,
      url: `http://127.0.0.1:8080/dashboard${base}`,
    });

    // Rotation: a new secret, shown once; the old one verifies nothing sent afterwards.
    const rotated = await browser.post(`${base}/${id}/rotate`, {});
    expect(rotated.status).toBe(200);
    const next = secretOf(rotated.body)!;
    expect(next).not.toBe(secret);
    await browser.post(`${base}/${id}/test`, {});
    const second = receiver.received.at(-1)!;
    expect(() => verify(secret, second)).toThrow();
    expect(verify(next, second)).toMatchObject({ test: true });

    const deleted = await browser.post(`${base}/${id}/delete`, {}, { follow: true });
    expect(textOf(deleted.body)).toContain('The connection was deleted');
    expect(textOf(deleted.body)).toContain('No webhook connections yet');
    const gone = await api.app.inject({
      method: 'GET',
      url: `/v1/projects/${projectId}/webhooks/connections/${id}`,
      headers: { 'x-api-key': key },
    });
    expect(gone.statusCode).toBe(404);
  });

  it('refuses a URL the outbound guard refuses, naming why, and creates nothing', async () => {
    const { browser } = owner;
    const base = `/projects/${projectId}/webhooks`;
    await browser.get(base);
    for (const [url, why] of [
      ['https://10.1.2.3/hook', /not a public address|private|not allowed|refused/i],
      ['ftp://example.com/hook', /https/i],
      ['', /enter the https URL/],
    ] as const) {
      const res = await browser.post(base, { url });
      expect(res.status, url).toBe(422);
      expect(textOf(res.body), url).toMatch(why);
    }
    const rows = await api.state.query(
      'SELECT 1 FROM webhook_connections WHERE project_id = $1 AND deleted_at IS NULL',
      [projectId],
    );
    expect(rows).toEqual([]);
  });

  it('answers 404 to a person outside the organization', async () => {
    const { browser } = owner;
    await browser.get(`/projects/${projectId}/webhooks`);
    const created = await browser.post(`/projects/${projectId}/webhooks`, { url: `${receiver.url}/private` });
    expect(created.status).toBe(201);
    const id = /webhooks\/(whc_[a-z0-9]+)\/test/.exec(
      (await browser.get(`/projects/${projectId}/webhooks`)).body,
    )![1]!;
    const outsider = await signedInMember(api, 'outsider-hooks@example.test');
    await outsider.browser.get('/');
    expect((await outsider.browser.get(`/projects/${projectId}/webhooks`)).status).toBe(404);
    const sent = receiver.received.length;
    for (const action of ['test', 'rotate', 'delete']) {
      expect(
        (await outsider.browser.post(`/projects/${projectId}/webhooks/${id}/${action}`, {})).status,
        action,
      ).toBe(404);
    }
    expect(
      (await outsider.browser.post(`/projects/${projectId}/webhooks`, { url: `${receiver.url}/x` })).status,
    ).toBe(404);
    expect(receiver.received.length).toBe(sent);
    const [row] = await api.state.query<{ deleted_at: Date | null; secret_rotated_at: Date | null }>(
      'SELECT deleted_at, secret_rotated_at FROM webhook_connections WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ deleted_at: null, secret_rotated_at: null });
  });
});
