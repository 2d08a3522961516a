import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG, seedCatalog, verifiedEmail } from '../support/alerts.ts';
import { testApi } from '../support/api.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

interface Res {
  statusCode: number;
  json(): unknown;
}

function problemOf(res: Res, status: number, code: string) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  const body = res.json() as {
    error_code: string;
    errors: { location: string; message: string }[];
    resolve?: { action: string; url?: string };
  };
  expect(body.error_code).toBe(code);
  return body;
}

describe('alerts API', () => {
  let api: Api;
  let app: FastifyInstance;
  let hook: string;
  const biz = () => api.projects.business!;
  const key = (plan = 'business') => ({ 'x-api-key': api.keys[plan]! });

  const base = () => ({
    title: 'Apple on air',
    entities: [{ entity_type: 'COMPANY', entity_id: 'apple' }],
    notifications: [{ type: 'WEBHOOK', webhook_connection_id: hook }],
  });

  const create = (body: unknown, plan = 'business', project = api.projects[plan]!) =>
    app.inject({
      method: 'POST',
      url: `/v1/projects/${project}/alerts`,
      headers: key(plan),
      payload: body as object,
    });
  const patch = (id: string, body: unknown, plan = 'business') =>
    app.inject({ method: 'PATCH', url: `/v1/alerts/${id}`, headers: key(plan), payload: body as object });

  beforeAll(async () => {
    api = await testApi();
    app = api.app;
    await seedCatalog(api.state);
    await verifiedEmail(api.state, api.org.id, 'News@Acme.example');
    hook = (
      await api.delivery.webhooks.create({ projectId: biz(), url: 'https://hooks.acme.example/earshot' })
    ).connection.id;
  });
  afterAll(async () => api?.close());

  it('creates an alert with defaults, resolving entity slugs, and reads it back', async () => {
    const res = await create({
      ...base(),
      description: 'watch Apple',
      filters: { languages: ['en', 'en'], relevance: 'RELEVANT' },
      notifications: [
        { type: 'WEBHOOK', webhook_connection_id: hook },
        { type: 'EMAIL', email: 'news@acme.example' },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const alert = res.json() as Record<string, unknown>;
    expect(alert).toMatchObject({
      project_id: biz(),
      title: 'Apple on air',
      description: 'watch Apple',
      kind: 'ENTITY_MENTION',
      delivery_cadence: 'REALTIME',
      is_active: true,
      surface: 'PLATFORM',
      entities: [{ entity_type: 'COMPANY', entity_id: CATALOG.apple.id, name: 'Apple Inc.', slug: 'apple' }],
      notifications: [
        { type: 'WEBHOOK', webhook_connection_id: hook },
        { type: 'EMAIL', email: 'news@acme.example' },
      ],
      filters: { languages: ['en'], relevance: 'RELEVANT' },
    });
    expect(String(alert.id)).toMatch(/^alrt_/);
    expect(res.headers.location).toBe(`/v1/alerts/${alert.id}`);
    const got = await app.inject({ method: 'GET', url: `/v1/alerts/${alert.id}`, headers: key() });
    expect(got.json()).toEqual(alert);
    // Another organization's key does not see it.
    const theirs = await app.inject({ method: 'GET', url: `/v1/alerts/${alert.id}`, headers: key('other') });
    problemOf(theirs, 404, 'not_found');
  });

  it('accepts a company by domain, as every read does, and stores its canonical id', async () => {
    const res = await create({ ...base(), entities: [{ entity_type: 'COMPANY', entity_id: 'apple.com' }] });
    expect(res.statusCode, res.body).toBe(201);
    const alert = res.json() as { id: string; entities: unknown };
    expect(alert.entities).toEqual([
      { entity_type: 'COMPANY', entity_id: CATALOG.apple.id, name: 'Apple Inc.', slug: 'apple' },
    ]);
    const [stored] = await api.state.query<{ entities: unknown }>(
      'SELECT entities FROM alerts WHERE id = $1',
      [alert.id],
    );
    expect(stored!.entities).toEqual([{ entity_type: 'COMPANY', entity_id: CATALOG.apple.id }]);
    // PATCH too, with the forms a read accepts: https://, www., a path.
    const patched = await patch(alert.id, {
      entities: [
        { entity_type: 'COMPANY', entity_id: 'https://www.apple.com/' },
        { entity_type: 'PERSON', entity_id: 'dana-whitfield' },
      ],
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(
      (patched.json() as { entities: { entity_id: string }[] }).entities.map((e) => e.entity_id),
    ).toEqual([CATALOG.apple.id, CATALOG.dana.id]);
    // A domain and a slug of one company are a duplicate; a domain is a company, not a person;
    // an unknown domain is named.
    const bad = problemOf(
      await create({
        ...base(),
        entities: [
          { entity_type: 'COMPANY', entity_id: 'apple' },
          { entity_type: 'COMPANY', entity_id: 'APPLE.COM' },
          { entity_type: 'PERSON', entity_id: 'apple.com' },
          { entity_type: 'COMPANY', entity_id: 'no-such-company.example' },
        ],
      }),
      422,
      'validation_error',
    );
    expect(bad.errors.map((e) => [e.location, e.message])).toEqual([
      ['body.entities[1].entity_id', 'is listed more than once'],
      ['body.entities[2].entity_type', 'does not match the entity, which is a COMPANY'],
      ['body.entities[3].entity_id', 'is not a known company (slug, domain or ID)'],
    ]);
  });

  it('enforces the bounds: 1-100 entities, 1-20 channels', async () => {
    problemOf(await create({ ...base(), entities: [] }), 422, 'validation_error');
    problemOf(await create({ ...base(), notifications: [] }), 422, 'validation_error');
    const many = Array.from({ length: 101 }, () => ({ entity_type: 'COMPANY', entity_id: 'apple' }));
    const tooMany = problemOf(await create({ ...base(), entities: many }), 422, 'validation_error');
    expect(tooMany.errors[0]!.location).toBe('body.entities');
    const channels = Array.from({ length: 21 }, () => ({ type: 'WEBHOOK', webhook_connection_id: hook }));
    problemOf(await create({ ...base(), notifications: channels }), 422, 'validation_error');
  });

  it('names every bad reference: unknown entity, wrong type, duplicates, unverified email, unknown connection', async () => {
    const body = problemOf(
      await create({
        ...base(),
        entities: [
          { entity_type: 'COMPANY', entity_id: 'no-such-entity' },
          { entity_type: 'COMPANY', entity_id: 'dana-whitfield' },
          { entity_type: 'COMPANY', entity_id: 'apple' },
          { entity_type: 'COMPANY', entity_id: CATALOG.apple.id },
        ],
        notifications: [
          { type: 'EMAIL', email: 'stranger@acme.example' },
          { type: 'WEBHOOK', webhook_connection_id: 'whc_unknown' },
          { type: 'WEBHOOK' },
          { type: 'CHAT', chat_connection_id: 'chc_unknown', chat_channel_id: 'C1' },
        ],
      }),
      422,
      'validation_error',
    );
    expect(body.errors.map((e) => e.location)).toEqual([
      'body.entities[0].entity_id',
      'body.entities[1].entity_type',
      'body.entities[3].entity_id',
      'body.notifications[0].email',
      'body.notifications[1].webhook_connection_id',
      'body.notifications[2].webhook_connection_id',
      'body.notifications[3].chat_connection_id',
    ]);
  });

  it('refuses a webhook connection of another project, a deleted one, and another surface', async () => {
    const other = await api.delivery.webhooks.create({
      projectId: api.projects.team!,
      url: 'https://x.example/h',
    });
    const gone = await api.delivery.webhooks.create({ projectId: biz(), url: 'https://y.example/h' });
    await api.delivery.webhooks.delete(biz(), gone.connection.id);
    const dashboard = await api.delivery.webhooks.create({
      projectId: biz(),
      url: 'https://z.example/h',
      surface: 'DASHBOARD',
    });
    for (const id of [other.connection.id, gone.connection.id, dashboard.connection.id]) {
      const res = await create({
        ...base(),
        notifications: [{ type: 'WEBHOOK', webhook_connection_id: id }],
      });
      const p = problemOf(res, 422, 'validation_error');
      expect(p.errors[0]!.location).toBe('body.notifications[0].webhook_connection_id');
    }
  });

  it('allows speaker_roles only on PODCAST_SPEAKER alerts (422 unprocessable_entity)', async () => {
    const mention = problemOf(
      await create({ ...base(), filters: { speaker_roles: ['GUEST'] } }),
      422,
      'unprocessable_entity',
    );
    expect(mention.errors[0]!.location).toBe('body.filters.speaker_roles');
    const speaker = await create({
      ...base(),
      kind: 'PODCAST_SPEAKER',
      entities: [{ entity_type: 'PERSON', entity_id: 'marcus-oyelaran' }],
      filters: { speaker_roles: ['GUEST', 'HOST'] },
    });
    expect(speaker.statusCode).toBe(201);
    expect((speaker.json() as { filters: unknown }).filters).toEqual({ speaker_roles: ['HOST', 'GUEST'] });
    const plain = (await create(base())).json() as { id: string };
    problemOf(await patch(plain.id, { filters: { speaker_roles: ['GUEST'] } }), 422, 'unprocessable_entity');
    problemOf(await patch(plain.id, { kind: 'PODCAST_SPEAKER' }), 422, 'unprocessable_entity');
    expect((await patch(plain.id, { kind: 'ENTITY_MENTION' })).statusCode).toBe(200);
  });

  it('replaces entities, notifications and filters wholesale; {} clears filters; absent leaves them', async () => {
    const alert = (
      await create({
        ...base(),
        filters: { languages: ['fr'], source_popularity: 'POPULAR', relevance: 'RELEVANT' },
      })
    ).json() as { id: string };
    let res = await patch(alert.id, { filters: { relevance: 'EVERYTHING' } });
    expect((res.json() as { filters: unknown }).filters).toEqual({ relevance: 'EVERYTHING' });
    res = await patch(alert.id, { title: 'Renamed', delivery_cadence: 'DAILY' });
    expect(res.json()).toMatchObject({
      title: 'Renamed',
      delivery_cadence: 'DAILY',
      filters: { relevance: 'EVERYTHING' },
    });
    res = await patch(alert.id, { filters: {} });
    expect((res.json() as { filters: unknown }).filters).toEqual({});
    res = await patch(alert.id, {
      entities: [
        { entity_type: 'KNOWLEDGE_GRAPH_ENTITY', entity_id: 'federal-reserve' },
        { entity_type: 'PERSON', entity_id: CATALOG.dana.id },
      ],
      notifications: [{ type: 'EMAIL', email: 'NEWS@acme.example' }],
    });
    expect(res.json()).toMatchObject({
      entities: [{ entity_id: CATALOG.fed.id }, { entity_id: CATALOG.dana.id }],
      notifications: [{ type: 'EMAIL', email: 'news@acme.example' }],
    });
    res = await patch(alert.id, { description: null });
    expect((res.json() as { description: unknown }).description).toBeNull();
  });

  it('gates alerts by plan: Starter and Growth refuse with plan_does_not_support_alerts', async () => {
    for (const plan of ['starter', 'growth']) {
      const body = problemOf(await create(base(), plan), 403, 'plan_does_not_support_alerts');
      expect(body.resolve?.action).toBe('upgrade_plan');
    }
  });

  it('counts active alerts against the allowance; paused ones do not; packs add room', async () => {
    const team = api.projects.team!;
    const teamHook = (await api.delivery.webhooks.create({ projectId: team, url: 'https://t.example/h' }))
      .connection.id;
    const body = { ...base(), notifications: [{ type: 'WEBHOOK', webhook_connection_id: teamHook }] };
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await create(body, 'team');
      expect(res.statusCode, res.body).toBe(201);
      ids.push((res.json() as { id: string }).id);
    }
    const refused = problemOf(await create(body, 'team'), 403, 'add_on_required');
    expect(refused.resolve?.action).toBe('buy_alerts_pack');
    // A paused alert can be created at the limit, and pausing one frees a slot.
    expect((await create({ ...body, is_active: false }, 'team')).statusCode).toBe(201);
    expect((await patch(ids[0]!, { is_active: false }, 'team')).statusCode).toBe(200);
    const again = await create(body, 'team');
    expect(again.statusCode).toBe(201);
    problemOf(await patch(ids[0]!, { is_active: true }, 'team'), 403, 'add_on_required');
    // Deleting frees a slot too; an Alerts Pack adds 25.
    const del = await app.inject({ method: 'DELETE', url: `/v1/alerts/${ids[1]}`, headers: key('team') });
    expect(del.statusCode).toBe(204);
    expect((await patch(ids[0]!, { is_active: true }, 'team')).statusCode).toBe(200);
    await api.accounts.setPlan(team, 'team', 1);
    // The key cache holds the plan for a few seconds; a fresh key sees the pack at once.
    const fresh = (await api.accounts.createApiKey({ projectId: team })).key;
    const res = await app.inject({
      method: 'POST',
      url: `/v1/projects/${team}/alerts`,
      headers: { 'x-api-key': fresh },
      payload: body,
    });
    expect(res.statusCode).toBe(201);
  });

  it('soft-deletes: gone from reads and lists, deleting twice is 404', async () => {
    const alert = (await create(base())).json() as { id: string };
    expect(
      (await app.inject({ method: 'DELETE', url: `/v1/alerts/${alert.id}`, headers: key() })).statusCode,
    ).toBe(204);
    problemOf(
      await app.inject({ method: 'GET', url: `/v1/alerts/${alert.id}`, headers: key() }),
      404,
      'not_found',
    );
    problemOf(
      await app.inject({ method: 'DELETE', url: `/v1/alerts/${alert.id}`, headers: key() }),
      404,
      'not_found',
    );
    const [row] = await api.state.query<{ deleted_at: Date | null }>(
      'SELECT deleted_at FROM alerts WHERE id = $1',
      [alert.id],
    );
    expect(row!.deleted_at).not.toBeNull();
  });

  it('lists a project’s alerts with cursor pagination, and refuses another project', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await app.inject({
        method: 'GET',
        url: `/v1/projects/${biz()}/alerts?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        headers: key(),
      });
      expect(res.statusCode).toBe(200);
      const page = res.json() as { data: { id: string }[]; has_more: boolean; cursor?: string };
      seen.push(...page.data.map((a) => a.id));
      cursor = page.has_more ? page.cursor : undefined;
    } while (cursor);
    const [{ n }] = (await api.state.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM alerts WHERE project_id = $1 AND deleted_at IS NULL',
      [biz()],
    )) as [{ n: number }];
    expect(seen).toHaveLength(n);
    expect(new Set(seen).size).toBe(n);
    problemOf(
      await app.inject({ method: 'GET', url: `/v1/projects/${api.projects.team}/alerts`, headers: key() }),
      403,
      'forbidden',
    );
  });

  it('serves the legacy monitor paths with the deprecated monitor_id', async () => {
    const alert = (await create(base())).json() as { id: string };
    const list = await app.inject({
      method: 'GET',
      url: `/v1/projects/${biz()}/monitors?limit=100`,
      headers: key(),
    });
    expect(list.statusCode).toBe(200);
    const item = (list.json() as { data: { id: string; monitor_id: string }[] }).data.find(
      (m) => m.id === alert.id,
    );
    expect(item?.monitor_id).toBe(alert.id);
    const res = await app.inject({
      method: 'PATCH',
      url: `/v1/monitors/${alert.id}`,
      headers: key(),
      payload: { is_active: false },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: alert.id, monitor_id: alert.id, is_active: false });
    const orgProjects = await app.inject({
      method: 'GET',
      url: `/v1/organizations/${api.org.id}/projects`,
      headers: key(),
    });
    expect(orgProjects.statusCode).toBe(200);
  });

  it('answers 503 for previews without an analytics store, after the same checks as create', async () => {
    const url = `/v1/projects/${biz()}/alerts/preview`;
    const mention = await app.inject({
      method: 'POST',
      url,
      headers: key(),
      payload: { entities: base().entities, filters: { speaker_roles: ['GUEST'] } },
    });
    problemOf(mention, 422, 'unprocessable_entity');
    const res = await app.inject({
      method: 'POST',
      url,
      headers: key(),
      payload: { entities: base().entities },
    });
    problemOf(res, 503, 'service_unavailable');
  });
});
