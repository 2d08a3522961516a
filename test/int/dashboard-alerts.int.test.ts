import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpMailer } from '../../processors/alerts/index.ts';
import { deliveriesProjector } from '../../processors/alerts/projectors/deliveries-projector.ts';
import { matchesProjector } from '../../processors/alerts/projectors/matches-projector.ts';
import type { AlertMatched, DeliveryRequested } from '../../schemas/generated/index.ts';
import { CATALOG, seedCatalog } from '../support/alerts.ts';
import { testApi } from '../support/api.ts';
import { linkIn, nextMail, type PageClient, pathOf, signedInMember, textOf } from '../support/dashboard.ts';
import { startSmtp } from '../support/smtp.ts';

type Api = Awaited<ReturnType<typeof testApi>>;
const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schemas/avro/examples');
const example = <T>(name: string) =>
  JSON.parse(fs.readFileSync(path.join(examples, `${name}.json`), 'utf8')) as T;

/**
 * Alerts in the dashboard: the form creates, edits, pauses, resumes and deletes alerts under
 * the API's own rules (the API reads back exactly what the form made), refusals land on the
 * form's fields, an alert's page lists its matches and deliveries, the delivery page shows what a
 * notification carried; notification emails are added, confirmed and refused removal while an
 * alert lists them; outsiders get 404 everywhere.
 */
describe('dashboard alerts', () => {
  let api: Api;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let owner: { browser: PageClient; organization: { id: string } };
  let projectId: string;
  let key: string;
  let hook: string;

  const form = (over: Record<string, string | string[]> = {}) => ({
    title: 'Apple on air',
    kind: 'ENTITY_MENTION',
    entity: `COMPANY:${CATALOG.apple.id}`,
    cadence: 'REALTIME',
    webhook: hook,
    languages: '',
    relevance: 'EVERYTHING',
    popularity: 'ANY',
    active: 'on',
    intent: 'save',
    ...over,
  });
  const apiGet = (url: string) => api.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  beforeAll(async () => {
    smtp = await startSmtp();
    api = await testApi({}, undefined, {
      delivery: { mailer: new SmtpMailer(smtp.url, 'Earshot <alerts@earshot.test>') },
    });
    await seedCatalog(api.state);
    owner = await signedInMember(api, 'alerts@example.test');
    await owner.browser.get(`/orgs/${owner.organization.id}`);
    const created = await owner.browser.post(`/orgs/${owner.organization.id}/projects`, { name: 'Watch' });
    projectId = /\/projects\/([^/?#]+)/.exec(created.location!)![1]!;
    await api.accounts.setPlan(projectId, 'business');
    key = (await api.accounts.createApiKey({ projectId })).key;
    hook = (
      await api.delivery.webhooks.create({
        projectId,
        url: 'https://hooks.acme.example/earshot',
        name: 'desk',
      })
    ).connection.id;
  });
  afterAll(async () => {
    await api?.close();
    await smtp?.close();
  });

  it('creates an alert in the form that the API reads back as made, then edits, pauses, resumes and deletes it', async () => {
    const { browser } = owner;
    const blank = await browser.get(`/projects/${projectId}/alerts/new`);
    expect(blank.status).toBe(200);
    expect(blank.body).toContain('Webhook desk');
    const created = await browser.post(
      `/projects/${projectId}/alerts/new`,
      form({ languages: 'en, de', relevance: 'RELEVANT' }),
    );
    expect(created.status, textOf(created.body)).toBe(303);
    const alertId = /\/alerts\/(alrt_[a-z0-9]+)/.exec(created.location!)![1]!;
    const page = await browser.get(created.location!);
    expect(textOf(page.body)).toContain('The alert was created');
    expect(textOf(page.body)).toContain('Apple Inc. (company)');
    expect(textOf(page.body)).toContain('webhook desk');

    const read = (await apiGet(`/v1/alerts/${alertId}`)).json() as Record<string, unknown>;
    expect(read).toMatchObject({
      title: 'Apple on air',
      kind: 'ENTITY_MENTION',
      delivery_cadence: 'REALTIME',
      is_active: true,
      entities: [{ entity_type: 'COMPANY', entity_id: CATALOG.apple.id }],
      notifications: [{ type: 'WEBHOOK', webhook_connection_id: hook }],
      filters: { languages: ['en', 'de'], relevance: 'RELEVANT' },
    });

    // Edit: the form holds every axis, so clearing one clears it; the kind stays.
    const edit = await browser.get(`/alerts/${alertId}/edit`);
    expect(edit.body).toContain('fixed when the alert was made');
    const saved = await browser.post(
      `/alerts/${alertId}/edit`,
      form({ title: 'Apple, daily', cadence: 'DAILY', kind: 'PODCAST_SPEAKER' }),
    );
    expect(saved.status, textOf(saved.body)).toBe(303);
    expect((await apiGet(`/v1/alerts/${alertId}`)).json()).toMatchObject({
      title: 'Apple, daily',
      delivery_cadence: 'DAILY',
      kind: 'ENTITY_MENTION',
      filters: {},
    });

    await browser.get(`/alerts/${alertId}`);
    expect((await browser.post(`/alerts/${alertId}/pause`, {})).status).toBe(303);
    expect((await apiGet(`/v1/alerts/${alertId}`)).json()).toMatchObject({ is_active: false });
    expect(textOf((await browser.get(`/projects/${projectId}/alerts`)).body)).toContain('paused');
    expect((await browser.post(`/alerts/${alertId}/resume`, {})).status).toBe(303);
    expect((await apiGet(`/v1/alerts/${alertId}`)).json()).toMatchObject({ is_active: true });
    const deleted = await browser.post(`/alerts/${alertId}/delete`, {}, { follow: true });
    expect(textOf(deleted.body)).toContain('The alert was deleted');
    expect((await apiGet(`/v1/alerts/${alertId}`)).statusCode).toBe(404);
    expect((await browser.get(`/alerts/${alertId}`)).status).toBe(404);
  });

  it("puts the rules' refusals on the form's fields and creates nothing", async () => {
    const { browser } = owner;
    await browser.get(`/projects/${projectId}/alerts/new`);
    const before = (await apiGet(`/v1/projects/${projectId}/alerts`)).json() as { data: unknown[] };
    const cases: [Record<string, string | string[]>, RegExp][] = [
      [{ entity: [] }, /Who or what: choose at least one/],
      [{ webhook: [] }, /Notify: choose at least one/],
      [{ title: '' }, /Title: enter a title/],
      [{ languages: 'english!' }, /Languages: use language tags/],
      [
        { entity: `PERSON:${CATALOG.apple.id}` },
        /Who or what: PERSON does not match the entity, which is a COMPANY/,
      ],
      [{ entity: 'COMPANY:ent_nobody' }, /Who or what: ent_nobody is not a known (entity|company)/],
      [{ webhook: 'whc_not_ours' }, /Notify: whc_not_ours is not a webhook connection of this project/],
      [{ kind: 'PODCAST_SPEAKER', role: [] }, /Speaker roles: choose at least one role/],
    ];
    for (const [over, message] of cases) {
      const res = await browser.post(`/projects/${projectId}/alerts/new`, form(over));
      expect(res.status, JSON.stringify(over)).toBe(422);
      expect(textOf(res.body), JSON.stringify(over)).toMatch(message);
    }
    const after = (await apiGet(`/v1/projects/${projectId}/alerts`)).json() as { data: unknown[] };
    expect(after.data.length).toBe(before.data.length);
  });

  it('refuses alerts on a plan without them, pointing at the plan page', async () => {
    const { browser } = owner;
    await browser.get(`/orgs/${owner.organization.id}`);
    const created = await browser.post(`/orgs/${owner.organization.id}/projects`, { name: 'Starter one' });
    const starter = /\/projects\/([^/?#]+)/.exec(created.location!)![1]!;
    const list = await browser.get(`/projects/${starter}/alerts`);
    expect(textOf(list.body)).toContain('The Starter plan does not include alerts');
    await browser.get(`/projects/${starter}/alerts/new`);
    const res = await browser.post(`/projects/${starter}/alerts/new`, form({ webhook: [], email: [] }));
    expect(res.status).toBe(422);
    const refused = await browser.post(
      `/projects/${starter}/alerts/new`,
      form({
        webhook: (
          await api.delivery.webhooks.create({ projectId: starter, url: 'https://hooks.acme.example/s' })
        ).connection.id,
      }),
    );
    expect(refused.status).toBe(422);
    expect(textOf(refused.body)).toContain('does not include alerts');
    expect(textOf(refused.body)).toContain(`/dashboard/projects/${starter}/plan`);
  });

  it("lists an alert's matches and deliveries and shows the delivery page a notification links to", async () => {
    const { browser } = owner;
    await browser.get(`/projects/${projectId}/alerts/new`);
    const created = await browser.post(`/projects/${projectId}/alerts/new`, form({ title: 'Delivered one' }));
    const alertId = /\/alerts\/(alrt_[a-z0-9]+)/.exec(created.location!)![1]!;
    // A match and its delivery, written by the real projectors.
    const match: AlertMatched = {
      ...example<AlertMatched>('AlertMatched'),
      id: 'match_dash_1',
      alert_id: alertId,
      project_id: projectId,
      entity_id: CATALOG.apple.id,
    };
    await matchesProjector(api.state).sink.write([match]);
    const requested: DeliveryRequested = {
      ...example<DeliveryRequested>('DeliveryRequested'),
      delivery_id: 'dlv_dash_1',
      alert_id: alertId,
      project_id: projectId,
      match_ids: [match.id],
      channel: {
        type: 'WEBHOOK',
        email: null,
        webhook_connection_id: hook,
        chat_connection_id: null,
        chat_channel_id: null,
      },
    };
    await deliveriesProjector(api.state).sink.write([{ kind: 'requested', value: requested }]);

    const page = await browser.get(`/alerts/${alertId}`);
    expect(textOf(page.body)).toMatch(
      /Found Episode Who or what Lines Relevance \S+ \S+ UTC ep_91d2c4 Apple Inc\. 1 incidental/,
    );
    expect(page.body).toContain('href="/dashboard/deliveries/dlv_dash_1"');
    // The delivery's `url` in the API is this page.
    const deliveries = (await apiGet(`/v1/alerts/${alertId}/deliveries`)).json() as {
      data: { url: string }[];
    };
    expect(deliveries.data[0]!.url).toBe('http://127.0.0.1:8080/dashboard/deliveries/dlv_dash_1');
    const landing = await browser.get('/deliveries/dlv_dash_1');
    expect(landing.status).toBe(200);
    const text = textOf(landing.body);
    expect(text).toContain('Delivery of Delivered one');
    expect(text).toContain('Joining me today is Marcus Oyelaran');
    expect(text).toContain('Apple Inc. (company)');

    const outsider = await signedInMember(api, 'alerts-outsider@example.test');
    expect((await outsider.browser.get('/deliveries/dlv_dash_1')).status).toBe(404);
    expect(
      (await new (owner.browser.constructor as typeof PageClient)(api.app).get('/deliveries/dlv_dash_1'))
        .status,
    ).toBe(303);
  });

  it('answers 404 to a person outside the organization for every alert page and form', async () => {
    const { browser } = owner;
    await browser.get(`/projects/${projectId}/alerts/new`);
    const created = await browser.post(`/projects/${projectId}/alerts/new`, form({ title: 'Private alert' }));
    const alertId = /\/alerts\/(alrt_[a-z0-9]+)/.exec(created.location!)![1]!;
    const outsider = await signedInMember(api, 'alerts-outsider2@example.test');
    await outsider.browser.get('/');
    for (const p of [
      `/alerts/${alertId}`,
      `/alerts/${alertId}/edit`,
      `/projects/${projectId}/alerts`,
      `/projects/${projectId}/alerts/new`,
    ]) {
      const res = await outsider.browser.get(p);
      expect(res.status, p).toBe(404);
      expect(res.body).not.toContain('Private alert');
    }
    for (const [p, fields] of [
      [`/alerts/${alertId}/edit`, form({ title: 'Taken' })],
      [`/alerts/${alertId}/pause`, {}],
      [`/alerts/${alertId}/delete`, {}],
      [`/alerts/${alertId}/test`, {}],
      [`/projects/${projectId}/alerts/new`, form({ title: 'Planted' })],
    ] as const) {
      expect((await outsider.browser.post(p, fields)).status, p).toBe(404);
    }
    expect((await apiGet(`/v1/alerts/${alertId}`)).json()).toMatchObject({
      title: 'Private alert',
      is_active: true,
    });
    const listed = (await apiGet(`/v1/projects/${projectId}/alerts`)).json() as { data: { title: string }[] };
    expect(listed.data.map((a) => a.title)).not.toContain('Planted');
  });

  it('adds and confirms a notification email, and refuses removing it while an alert lists it', async () => {
    const { browser, organization } = owner;
    const base = `/orgs/${organization.id}/notification-emails`;
    await browser.get(base);
    const added = await browser.post(base, { email: 'newsdesk@acme.example' }, { follow: true });
    expect(textOf(added.body)).toContain('a confirmation link is on its way');
    expect(textOf(added.body)).toMatch(/newsdesk@acme\.example not yet/);
    const mail = await nextMail(smtp.mails, 'newsdesk@acme.example');
    expect(
      (await api.app.inject({ method: 'GET', url: pathOf(linkIn(mail, '/v1/notification-emails/verify')) }))
        .statusCode,
    ).toBe(200);
    expect(textOf((await browser.get(base)).body)).not.toContain('not yet');
    expect((await browser.post(base, { email: 'NewsDesk@acme.example' })).status).toBe(409);

    // An alert mails it: removing is refused with the alert to edit.
    await browser.get(`/projects/${projectId}/alerts/new`);
    const created = await browser.post(
      `/projects/${projectId}/alerts/new`,
      form({ title: 'Mailing alert', webhook: [], email: 'newsdesk@acme.example' }),
    );
    expect(created.status, textOf(created.body)).toBe(303);
    const alertId = /\/alerts\/(alrt_[a-z0-9]+)/.exec(created.location!)![1]!;
    const page = await browser.get(base);
    const id = /notification-emails\/(ne_[a-z0-9]+)\/remove/.exec(page.body)![1]!;
    const refused = await browser.post(`${base}/${id}/remove`, {});
    expect(refused.status).toBe(409);
    expect(textOf(refused.body)).toContain('is still a notification channel of an alert');
    expect(refused.body).toContain(`href="/dashboard/alerts/${alertId}/edit"`);
    // Once the alert no longer lists it, it goes.
    await browser.get(`/alerts/${alertId}/edit`);
    expect(
      (
        await browser.post(
          `/alerts/${alertId}/edit`,
          form({ title: 'Mailing alert', webhook: hook, email: [] }),
        )
      ).status,
    ).toBe(303);
    const removed = await browser.post(`${base}/${id}/remove`, {}, { follow: true });
    expect(textOf(removed.body)).toContain('The address was removed');
    const outsider = await signedInMember(api, 'emails-outsider@example.test');
    expect((await outsider.browser.get(base)).status).toBe(404);
  });
});
