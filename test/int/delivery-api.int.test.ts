import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorActions } from '../../infra/operator.ts';
import { SmtpMailer } from '../../processors/alerts/delivery/channels/mailer.ts';
import { verifyWebhook } from '../../processors/alerts/index.ts';
import { seedCatalog } from '../support/alerts.ts';
import { testApi } from '../support/api.ts';
import { startChatPlatform } from '../support/chat-platform.ts';
import { freePort } from '../support/free-port.ts';
import { startReceiver } from '../support/receiver.ts';
import { startSmtp } from '../support/smtp.ts';
import { waitFor } from '../support/wait-for.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

interface Res {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}

function problemOf(res: Res, status: number, code: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json() as {
    error_code: string;
    detail: string;
    errors: { location: string; message: string; value?: unknown }[];
    resolve?: { action: string; message: string; endpoint?: string; method?: string; url?: string };
  };
  expect(body.error_code).toBe(code);
  return body;
}

interface Connection {
  id: string;
  project_id: string;
  name: string;
  url: string;
  created_at: string;
  surface: string;
  secret_prefix: string;
  secret?: string;
}

describe('delivery API', () => {
  let api: Api;
  let app: FastifyInstance;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let chat: Awaited<ReturnType<typeof startChatPlatform>>;
  const biz = () => api.projects.business!;
  const key = (plan = 'business') => ({ 'x-api-key': api.keys[plan]! });
  const connections = (project = biz()) => `/v1/projects/${project}/webhooks/connections`;

  beforeAll(async () => {
    rx = await startReceiver((r) => (r.url === '/fail' ? { status: 500 } : { status: 204 }));
    smtp = await startSmtp();
    chat = await startChatPlatform();
    api = await testApi({}, undefined, {
      delivery: {
        mailer: new SmtpMailer(smtp.url, 'Earshot <alerts@earshot.test>'),
        settings: { chatApiUrl: chat.apiUrl, outboundAllowlist: '127.0.0.1/32' },
      },
    });
    app = api.app;
    await seedCatalog(api.state);
  });
  afterAll(async () => {
    await api?.close();
    await rx?.close();
    await smtp?.close();
    await chat?.close();
  });

  const createConnection = async (url: string, name?: string) => {
    const res = await app.inject({
      method: 'POST',
      url: connections(),
      headers: key(),
      payload: name ? { url, name } : { url },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Connection;
  };

  const createAlert = async (notifications: unknown[], title = 'Apple on air') => {
    const res = await app.inject({
      method: 'POST',
      url: `/v1/projects/${biz()}/alerts`,
      headers: key(),
      payload: { title, entities: [{ entity_type: 'COMPANY', entity_id: 'apple' }], notifications },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; is_active: boolean };
  };

  describe('webhook connections', () => {
    it('creates a connection and returns its secret once', async () => {
      const c = await createConnection(`${rx.url}/hook`, 'Local receiver');
      expect(c).toMatchObject({
        project_id: biz(),
        name: 'Local receiver',
        url: `${rx.url}/hook`,
        surface: 'PLATFORM',
      });
      expect(c.id).toMatch(/^whc_/);
      expect(c.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(c.secret_prefix).toBe(c.secret!.slice(0, 12));
      expect(Date.parse(c.created_at)).toBeGreaterThan(0);

      const one = await app.inject({ method: 'GET', url: `${connections()}/${c.id}`, headers: key() });
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual(omitSecret(c));
      const list = await app.inject({ method: 'GET', url: connections(), headers: key() });
      const body = list.json() as { data: Connection[]; has_more: boolean };
      expect(body.data.map((x) => x.id)).toContain(c.id);
      expect(body.data.every((x) => x.secret === undefined)).toBe(true);
      expect(JSON.stringify(body)).not.toContain(c.secret!);
      // stored sealed, never in clear
      const [row] = await api.state.query<Record<string, unknown>>(
        'SELECT * FROM webhook_connections WHERE id = $1',
        [c.id],
      );
      expect(JSON.stringify(row)).not.toContain(c.secret!.slice(6));
    });

    it('names a connection after its host when no name is given', async () => {
      const c = await createConnection(`${rx.url}/unnamed`);
      expect(c.name).toBe(`127.0.0.1:${rx.port}`);
    });

    it.each([
      ['https://10.1.2.3/hook', /private/],
      ['https://169.254.169.254/latest/meta-data', /link-local/],
      ['https://[::1]/hook', /loopback/],
      ['https://[::ffff:127.0.0.2]/hook', /loopback/],
      ['https://127.0.0.2/hook', /loopback/],
      ['https://192.168.0.10/hook', /private/],
      ['ftp://hooks.example.com/', /https/],
      ['https://user:secret@127.0.0.1/hook', /credentials/],
    ])('refuses %s at create', async (url, why) => {
      const res = await app.inject({ method: 'POST', url: connections(), headers: key(), payload: { url } });
      const body = problemOf(res, 422, 'validation_error');
      expect(body.errors[0]).toMatchObject({ location: 'body.url', value: url });
      expect(body.errors[0]!.message).toMatch(why);
    });

    it('requires url, and acts on its own project only', async () => {
      problemOf(
        await app.inject({ method: 'POST', url: connections(), headers: key(), payload: { name: 'x' } }),
        422,
        'validation_error',
      );
      problemOf(
        await app.inject({ method: 'GET', url: connections(api.projects.team!), headers: key() }),
        403,
        'forbidden',
      );
      const mine = await createConnection(`${rx.url}/mine`);
      problemOf(
        await app.inject({
          method: 'GET',
          url: `${connections(api.projects.team!)}/${mine.id}`,
          headers: key('team'),
        }),
        404,
        'not_found',
      );
    });

    it('rotates the secret: the new one is returned once, the old one stops signing at once', async () => {
      const c = await createConnection(`${rx.url}/rotate`);
      const res = await app.inject({
        method: 'POST',
        url: `${connections()}/${c.id}/rotate-secret`,
        headers: key(),
      });
      expect(res.statusCode).toBe(200);
      const rotated = res.json() as Connection;
      expect(rotated.id).toBe(c.id);
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(c.secret);
      expect(rotated.secret_prefix).toBe(rotated.secret!.slice(0, 12));
      const alert = await createAlert([{ type: 'WEBHOOK', webhook_connection_id: c.id }]);
      await app.inject({ method: 'POST', url: `/v1/alerts/${alert.id}/test-webhook`, headers: key() });
      const got = rx.received.filter((r) => r.url === '/rotate');
      expect(got).toHaveLength(1);
      const headers = {
        'webhook-id': String(got[0]!.headers['x-webhook-id']),
        'webhook-timestamp': String(got[0]!.headers['x-webhook-timestamp']),
        'webhook-signature': String(got[0]!.headers['x-webhook-signature']),
      };
      expect(() => new Webhook(c.secret!).verify(got[0]!.raw.toString(), headers)).toThrow();
      expect(new Webhook(rotated.secret!).verify(got[0]!.raw.toString(), headers)).toBeTruthy();
    });

    it('soft-deletes a connection', async () => {
      const c = await createConnection(`${rx.url}/gone`);
      const del = await app.inject({ method: 'DELETE', url: `${connections()}/${c.id}`, headers: key() });
      expect(del.statusCode).toBe(204);
      problemOf(
        await app.inject({ method: 'GET', url: `${connections()}/${c.id}`, headers: key() }),
        404,
        'not_found',
      );
      problemOf(
        await app.inject({ method: 'DELETE', url: `${connections()}/${c.id}`, headers: key() }),
        404,
        'not_found',
      );
      problemOf(
        await app.inject({ method: 'POST', url: `${connections()}/${c.id}/rotate-secret`, headers: key() }),
        404,
        'not_found',
      );
      const [row] = await api.state.query<{ deleted_at: Date | null }>(
        'SELECT deleted_at FROM webhook_connections WHERE id = $1',
        [c.id],
      );
      expect(row!.deleted_at).not.toBeNull();
    });
  });

  describe('test-webhook', () => {
    it('sends a signed test alert.match.created to every active connection and persists nothing', async () => {
      const ok = await createConnection(`${rx.url}/test-ok`);
      const failing = await createConnection(`${rx.url}/fail`);
      const down = await createConnection(`http://127.0.0.1:${await freePort()}/down`);
      const deleted = await createConnection(`${rx.url}/test-deleted`);
      const alert = await createAlert([
        { type: 'WEBHOOK', webhook_connection_id: ok.id },
        { type: 'WEBHOOK', webhook_connection_id: failing.id },
        { type: 'WEBHOOK', webhook_connection_id: down.id },
        { type: 'WEBHOOK', webhook_connection_id: deleted.id },
      ]);
      await app.inject({ method: 'DELETE', url: `${connections()}/${deleted.id}`, headers: key() });
      const res = await app.inject({
        method: 'POST',
        url: `/v1/alerts/${alert.id}/test-webhook`,
        headers: key(),
      });
      expect(res.statusCode, res.body).toBe(200);
      const { deliveries } = res.json() as {
        deliveries: {
          webhook_connection_id: string;
          url: string;
          delivered: boolean;
          status_code: number | null;
          duration_ms: number;
          error: string | null;
        }[];
      };
      const by = new Map(deliveries.map((d) => [d.webhook_connection_id, d]));
      expect([...by.keys()].sort()).toEqual([ok.id, failing.id, down.id].sort());
      expect(by.get(ok.id)).toMatchObject({ url: ok.url, delivered: true, status_code: 204, error: null });
      expect(by.get(failing.id)).toMatchObject({ delivered: false, status_code: 500, error: 'HTTP 500' });
      expect(by.get(down.id)).toMatchObject({ delivered: false, status_code: null });
      expect(by.get(down.id)!.error).toMatch(/ECONNREFUSED/);
      for (const d of deliveries) expect(d.duration_ms).toBeGreaterThanOrEqual(0);

      const sent = rx.received.filter((r) => r.url === '/test-ok');
      expect(sent).toHaveLength(1);
      expect(rx.received.filter((r) => r.url === '/test-deleted')).toHaveLength(0);
      const body = new Webhook(ok.secret!).verify(sent[0]!.raw.toString(), {
        'webhook-id': String(sent[0]!.headers['x-webhook-id']),
        'webhook-timestamp': String(sent[0]!.headers['x-webhook-timestamp']),
        'webhook-signature': String(sent[0]!.headers['x-webhook-signature']),
      }) as Record<string, unknown>;
      expect(body).toMatchObject({
        event_type: 'alert.match.created',
        test: true,
        delivery_id: sent[0]!.headers['x-webhook-id'],
        alert: { id: alert.id, title: 'Apple on air', kind: 'ENTITY_MENTION' },
        match: { alert_id: alert.id, entity_id: 'ent_c_apple', kind: 'ENTITY_MENTION' },
      });
      expect(typeof body.timestamp).toBe('number');
      const match = body.match as Record<string, unknown>;
      expect(match).not.toHaveProperty('deliveries');
      expect(match).not.toHaveProperty('monitor_id');
      expect(match.episode).not.toHaveProperty('podcast_popularity');
      for (const table of ['delivery_jobs', 'delivery_attempts', 'deliveries', 'alert_matches']) {
        const [n] = await api.state.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
        expect(n!.n, table).toBe(0);
      }
    });

    it('answers 422 when the alert has no active webhook connection, 404 for another project', async () => {
      const c = await createConnection(`${rx.url}/only`);
      const alert = await createAlert([{ type: 'WEBHOOK', webhook_connection_id: c.id }]);
      await app.inject({ method: 'DELETE', url: `${connections()}/${c.id}`, headers: key() });
      const body = problemOf(
        await app.inject({ method: 'POST', url: `/v1/alerts/${alert.id}/test-webhook`, headers: key() }),
        422,
        'unprocessable_entity',
      );
      expect(body.resolve?.action).toBe('add_webhook_channel');
      problemOf(
        await app.inject({
          method: 'POST',
          url: `/v1/alerts/${alert.id}/test-webhook`,
          headers: key('team'),
        }),
        404,
        'not_found',
      );
    });
  });

  describe('team-chat connections', () => {
    it('lists connections, pages channels through the platform API, and soft-deletes', async () => {
      // Operators register a workspace by bot token (`earshot chat connect`); a bad token is refused.
      const ops = operatorActions(api.accounts, api.delivery);
      await expect(ops.connectChat({ project: biz(), token: 'xoxb-wrong' })).rejects.toThrow(/invalid_auth/);
      const c = await ops.connectChat({ project: biz(), token: chat.token });
      expect(c).toMatchObject({ name: 'Acme Newsroom', team_id: 'T0ACME', bot_user_id: 'U0BOT' });
      const base = `/v1/projects/${biz()}/slack/connections`;
      const list = await app.inject({ method: 'GET', url: base, headers: key() });
      expect(list.statusCode).toBe(200);
      const listed = list.json() as { data: Record<string, unknown>[] };
      expect(listed.data).toEqual([
        {
          id: c.id,
          project_id: biz(),
          name: 'Acme Newsroom',
          team_id: 'T0ACME',
          team_name: 'Acme Newsroom',
          surface: 'PLATFORM',
          created_at: new Date(c.created_at).toISOString(),
        },
      ]);
      expect(JSON.stringify(listed)).not.toContain(chat.token);

      const first = await app.inject({
        method: 'GET',
        url: `${base}/${c.id}/channels?limit=2`,
        headers: key(),
      });
      expect(first.statusCode, first.body).toBe(200);
      const page1 = first.json() as {
        data: { id: string; name: string }[];
        has_more: boolean;
        cursor?: string;
      };
      expect(page1.data.map((x) => x.id)).toEqual(['C001', 'C002']);
      expect(page1.has_more).toBe(true);
      const second = await app.inject({
        method: 'GET',
        url: `${base}/${c.id}/channels?limit=2&cursor=${page1.cursor}`,
        headers: key(),
      });
      const page2 = second.json() as {
        data: { id: string; is_private: boolean }[];
        has_more: boolean;
        cursor?: string;
      };
      expect(page2).toEqual({
        data: [{ id: 'G003', name: 'execs', is_private: true, is_member: false }],
        has_more: false,
      });

      const bad = await api.delivery.chat.create({
        projectId: biz(),
        name: 'revoked',
        token: 'xoxb-revoked',
      });
      const refused = problemOf(
        await app.inject({ method: 'GET', url: `${base}/${bad.id}/channels`, headers: key() }),
        422,
        'unprocessable_entity',
      );
      expect(refused.resolve?.action).toBe('reconnect_chat_workspace');

      expect(
        (await app.inject({ method: 'DELETE', url: `${base}/${c.id}`, headers: key() })).statusCode,
      ).toBe(204);
      problemOf(
        await app.inject({ method: 'GET', url: `${base}/${c.id}/channels`, headers: key() }),
        404,
        'not_found',
      );
      const after = (await app.inject({ method: 'GET', url: base, headers: key() })).json() as {
        data: { id: string }[];
      };
      expect(after.data.map((x) => x.id)).toEqual([bad.id]);
      problemOf(
        await app.inject({
          method: 'GET',
          url: `/v1/projects/${api.projects.team}/slack/connections`,
          headers: key(),
        }),
        403,
        'forbidden',
      );
    });
  });

  describe('notification emails', () => {
    const emails = () => `/v1/organizations/${api.org.id}/notification-emails`;

    it('mails a verification link on create; following it verifies the address once', async () => {
      const res = await app.inject({
        method: 'POST',
        url: emails(),
        headers: key(),
        payload: { email: 'desk@acme.example' },
      });
      expect(res.statusCode).toBe(201);
      const created = res.json() as { id: string; verified: boolean };
      expect(created.verified).toBe(false);
      await waitFor(() => smtp.mails.some((m) => m.to.includes('desk@acme.example')));
      const mail = smtp.mails.find((m) => m.to.includes('desk@acme.example'))!;
      expect(mail.subject).toBe('Confirm this address for Earshot alerts');
      const link = /(http:\/\/\S+\/v1\/notification-emails\/verify\?token=\S+)/.exec(mail.text)![1]!;
      const path = link.replace(/^http:\/\/[^/]+/, '');
      const verified = await app.inject({ method: 'GET', url: path }); // public: no key
      expect(verified.statusCode, verified.body).toBe(200);
      expect(verified.json()).toMatchObject({ id: created.id, email: 'desk@acme.example', verified: true });
      // A used token is a credential that no longer works; a malformed one is invalid input.
      const again = problemOf(await app.inject({ method: 'GET', url: path }), 401, 'invalid_link_token');
      expect(again.errors[0]!.location).toBe('query.token');
      problemOf(
        await app.inject({
          method: 'POST',
          url: '/v1/notification-emails/verify',
          payload: { token: 'nev_nope' },
        }),
        422,
        'validation_error',
      );
      problemOf(
        await app.inject({
          method: 'POST',
          url: '/v1/notification-emails/verify',
          payload: { token: `nev_${'A'.repeat(32)}` },
        }),
        401,
        'invalid_link_token',
      );
    });

    it('sends the verification again on request (the old link stops working)', async () => {
      const res = await app.inject({
        method: 'POST',
        url: emails(),
        headers: key(),
        payload: { email: 'ops@acme.example' },
      });
      const { id } = res.json() as { id: string };
      await waitFor(() => smtp.mails.filter((m) => m.to.includes('ops@acme.example')).length === 1);
      const resend = await app.inject({
        method: 'POST',
        url: `/v1/notification-emails/${id}/resend-verification`,
        headers: key(),
      });
      expect(resend.statusCode).toBe(202);
      await waitFor(() => smtp.mails.filter((m) => m.to.includes('ops@acme.example')).length === 2);
      const [first, second] = smtp.mails
        .filter((m) => m.to.includes('ops@acme.example'))
        .map((m) => /token=(\S+)/.exec(m.text)![1]!);
      problemOf(
        await app.inject({
          method: 'POST',
          url: '/v1/notification-emails/verify',
          payload: { token: decodeURIComponent(first!) },
        }),
        401,
        'invalid_link_token',
      );
      const ok = await app.inject({
        method: 'POST',
        url: '/v1/notification-emails/verify',
        payload: { token: decodeURIComponent(second!) },
      });
      expect(ok.statusCode).toBe(200);
      problemOf(
        await app.inject({
          method: 'POST',
          url: `/v1/notification-emails/${id}/resend-verification`,
          headers: key(),
        }),
        409,
        'conflict',
      );
    });

    it('refuses to delete an address an alert lists (409 notification_email_in_use), then deletes it', async () => {
      await api.state.query(
        `INSERT INTO notification_emails (id, organization_id, email, verified_at) VALUES ('ne_used', $1, 'Used@Acme.example', now())`,
        [api.org.id],
      );
      const alert = await createAlert([{ type: 'EMAIL', email: 'used@acme.example' }], 'Uses the address');
      const body = problemOf(
        await app.inject({ method: 'DELETE', url: '/v1/notification-emails/ne_used', headers: key() }),
        409,
        'notification_email_in_use',
      );
      expect(body.resolve).toMatchObject({
        action: 'edit_monitor_notifications',
        endpoint: `/v1/alerts/${alert.id}`,
        method: 'PATCH',
      });
      expect(body.resolve!.message).toMatch(/Remove Used@Acme.example from the notifications of every alert/);
      expect(body.errors.map((e) => e.value)).toEqual([alert.id]);

      const c = await createConnection(`${rx.url}/x`);
      const patched = await app.inject({
        method: 'PATCH',
        url: `/v1/alerts/${alert.id}`,
        headers: key(),
        payload: { notifications: [{ type: 'WEBHOOK', webhook_connection_id: c.id }] },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(
        (await app.inject({ method: 'DELETE', url: '/v1/notification-emails/ne_used', headers: key() }))
          .statusCode,
      ).toBe(204);
      const list = (await app.inject({ method: 'GET', url: emails(), headers: key() })).json() as {
        data: { id: string }[];
      };
      expect(list.data.map((e) => e.id)).not.toContain('ne_used');
      problemOf(
        await app.inject({ method: 'DELETE', url: '/v1/notification-emails/ne_used', headers: key() }),
        404,
        'not_found',
      );
      problemOf(
        await app.inject({ method: 'DELETE', url: '/v1/notification-emails/ne_used', headers: key('other') }),
        404,
        'not_found',
      );
    });
  });

  describe('alert disable links', () => {
    it('GET describes, POST disables, without a credential; tampered tokens are refused', async () => {
      const c = await createConnection(`${rx.url}/d`);
      const alert = await createAlert([{ type: 'WEBHOOK', webhook_connection_id: c.id }], 'Disable me');
      const token = api.delivery.disableTokens.sign({ a: alert.id, e: 'ana@example.com' });
      const url = `/v1/alerts/disable?token=${encodeURIComponent(token)}`;
      const described = await app.inject({ method: 'GET', url });
      expect(described.statusCode, described.body).toBe(200);
      expect(described.json()).toEqual({
        alert: { id: alert.id, title: 'Disable me', is_active: true },
        email: 'ana@example.com',
        disable: { method: 'POST', url: 'http://127.0.0.1:8080/v1/alerts/disable' },
      });
      const disabled = await app.inject({ method: 'POST', url: '/v1/alerts/disable', payload: { token } });
      expect(disabled.statusCode, disabled.body).toBe(200);
      expect((disabled.json() as { alert: { is_active: boolean } }).alert.is_active).toBe(false);
      const read = await app.inject({ method: 'GET', url: `/v1/alerts/${alert.id}`, headers: key() });
      expect((read.json() as { is_active: boolean }).is_active).toBe(false);
      // one-click unsubscribe (RFC 8058): a form post to the link itself
      const oneClick = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      });
      expect(oneClick.statusCode, oneClick.body).toBe(200);

      // Malformed: invalid input (422). Well-formed but not signed by this service, or missing:
      // the link's credential does not verify (401).
      const truncated = `${token.split('.')[0]}.AAAA`;
      problemOf(
        await app.inject({ method: 'GET', url: `/v1/alerts/disable?token=${truncated}` }),
        422,
        'validation_error',
      );
      const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
      problemOf(
        await app.inject({ method: 'GET', url: `/v1/alerts/disable?token=${forged}` }),
        401,
        'invalid_link_token',
      );
      problemOf(
        await app.inject({ method: 'POST', url: '/v1/alerts/disable', payload: { token: forged } }),
        401,
        'invalid_link_token',
      );
      problemOf(
        await app.inject({ method: 'POST', url: '/v1/alerts/disable', payload: {} }),
        401,
        'invalid_link_token',
      );
    });
  });
});

describe('delivery API without an outbound allowlist', () => {
  it('refuses loopback, private, link-local and plain-http URLs at create', async () => {
    const api = await testApi({}, undefined, { delivery: { settings: { outboundAllowlist: '' } } });
    try {
      for (const [url, why] of [
        ['http://127.0.0.1:8080/hook', /loopback/],
        ['https://127.0.0.1/hook', /loopback/],
        ['https://localhost/hook', /loopback/],
        ['https://10.1.2.3/hook', /private/],
        ['https://169.254.169.254/latest/meta-data', /link-local/],
        ['https://[::1]/hook', /loopback/],
        ['http://93.184.216.34/hook', /https/],
      ] as const) {
        const res = await api.app.inject({
          method: 'POST',
          url: `/v1/projects/${api.projects.business}/webhooks/connections`,
          headers: { 'x-api-key': api.keys.business! },
          payload: { url },
        });
        const body = problemOf(res, 422, 'validation_error');
        expect(body.errors[0]!.message, url).toMatch(why);
        // A non-public address says how to reach one on purpose; a loopback one names the
        // command that receives webhooks on this machine.
        if (/https/.test(String(why))) expect(body.resolve).toBeUndefined();
        else {
          expect(body.resolve?.action).toBe('allow_outbound_destination');
          expect(body.resolve?.message).toContain('EARSHOT_OUTBOUND_ALLOWLIST');
          if (/loopback/.test(String(why)))
            expect(body.resolve?.message).toContain('earshot webhooks listen');
          else expect(body.resolve?.message).not.toContain('earshot webhooks listen');
        }
      }
    } finally {
      await api.close();
    }
  });

  it('lets a listen session’s receiver through while it lasts: created once, then reused with its secret', async () => {
    const api = await testApi({}, undefined, { delivery: { settings: { outboundAllowlist: '' } } });
    const rx = await startReceiver();
    const biz = api.projects.business!;
    const service = {
      host: '127.0.0.1',
      roles: new Set(['api', 'senders']),
      apiUrl: 'http://127.0.0.1:8080',
    };
    const ops = operatorActions(api.accounts, api.delivery, undefined, service);
    const send = (id: string) =>
      api.app.inject({
        method: 'POST',
        url: `/v1/alerts/${id}/test-webhook`,
        headers: { 'x-api-key': api.keys.business! },
      });
    try {
      await seedCatalog(api.state);
      // Refused without a running service, on a public interface, and without the senders role.
      const direct = operatorActions(api.accounts, api.delivery);
      await expect(direct.listenWebhooks({ project: biz, url: `${rx.url}/` })).rejects.toThrow(
        /running service/,
      );
      const exposed = operatorActions(api.accounts, api.delivery, undefined, { ...service, host: '0.0.0.0' });
      await expect(exposed.listenWebhooks({ project: biz, url: `${rx.url}/` })).rejects.toThrow(
        /binds 0\.0\.0\.0 .*loopback interface/,
      );
      const apiOnly = operatorActions(api.accounts, api.delivery, undefined, {
        ...service,
        roles: new Set(['api']),
      });
      await expect(apiOnly.listenWebhooks({ project: biz, url: `${rx.url}/` })).rejects.toThrow(
        /senders role/,
      );
      await expect(ops.listenWebhooks({ project: biz, url: 'http://10.1.2.3:9000/' })).rejects.toThrow(
        /loopback/,
      );
      expect(await api.state.query('SELECT id FROM webhook_connections')).toEqual([]);

      const first = await ops.listenWebhooks({ project: biz, url: `${rx.url}/` });
      expect(first).toMatchObject({ reused: false, project_id: biz, api_url: service.apiUrl });
      expect(first.connection).toMatchObject({ name: 'earshot webhooks listen', url: `${rx.url}/` });
      const alert = (
        await api.app.inject({
          method: 'POST',
          url: `/v1/projects/${biz}/alerts`,
          headers: { 'x-api-key': api.keys.business! },
          payload: {
            title: 'Apple on air',
            entities: [{ entity_type: 'COMPANY', entity_id: 'apple.com' }],
            notifications: [{ type: 'WEBHOOK', webhook_connection_id: first.connection.id }],
          },
        })
      ).json() as { id: string };
      const sent = (await send(alert.id)).json() as { deliveries: { delivered: boolean }[] };
      expect(sent.deliveries).toMatchObject([{ delivered: true }]);
      const got = rx.received[0]!;
      expect(verifyWebhook(first.secret, got.headers, got.raw.toString('utf8'))).toMatchObject({
        event_type: 'alert.match.created',
        test: true,
      });
      // Renewed while it runs; ended, the receiver is refused again.
      expect(await ops.renewWebhookListen({ leaseId: first.leaseId })).toEqual({ renewed: true });
      expect(await ops.closeWebhookListen({ leaseId: first.leaseId })).toEqual({ closed: true });
      expect(await ops.renewWebhookListen({ leaseId: first.leaseId })).toEqual({ renewed: false });
      const refused = (await send(alert.id)).json() as {
        deliveries: { delivered: boolean; error: string }[];
      };
      expect(refused.deliveries).toMatchObject([
        { delivered: false, error: expect.stringMatching(/loopback/) },
      ]);
      expect(rx.received).toHaveLength(1);

      // The next session reuses the connection and its secret, pointed at the new receiver.
      const rx2 = await startReceiver();
      try {
        const second = await ops.listenWebhooks({ project: biz, url: `${rx2.url}/` });
        expect(second).toMatchObject({ reused: true, secret: first.secret });
        expect(second.connection).toMatchObject({ id: first.connection.id, url: `${rx2.url}/` });
        expect(((await send(alert.id)).json() as { deliveries: unknown[] }).deliveries).toMatchObject([
          { delivered: true },
        ]);
        expect(rx2.received).toHaveLength(1);
        await ops.closeWebhookListen({ leaseId: second.leaseId });
      } finally {
        await rx2.close();
      }
    } finally {
      await rx.close();
      await api.close();
    }
  });
});

describe('delivery API with an outbound allowlist', () => {
  it('accepts a private destination only inside the allowlist, and plain http only there', async () => {
    const api = await testApi({}, undefined, { delivery: { settings: { outboundAllowlist: '10.0.0.0/8' } } });
    const create = (url: string) =>
      api.app.inject({
        method: 'POST',
        url: `/v1/projects/${api.projects.business}/webhooks/connections`,
        headers: { 'x-api-key': api.keys.business! },
        payload: { url },
      });
    try {
      expect((await create('https://10.1.2.3/hook')).statusCode).toBe(201);
      expect((await create('http://10.1.2.3:8080/hook')).statusCode).toBe(201);
      for (const [url, why] of [
        ['https://127.0.0.1/hook', /loopback/],
        ['https://169.254.169.254/latest', /link-local/],
        ['https://192.168.1.10/hook', /private/],
      ] as const) {
        const body = problemOf(await create(url), 422, 'validation_error');
        expect(body.errors[0]).toMatchObject({ location: 'body.url', value: url });
        expect(body.errors[0]!.message, url).toMatch(why);
      }
    } finally {
      await api.close();
    }
  });
});

function omitSecret(c: Connection) {
  const { secret: _s, ...rest } = c;
  return rest;
}
