import { Validator } from '@seriousme/openapi-schema-validator';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cursors } from '../../api/pagination.ts';
import { loadPriceTable } from '../../api/payments/prices.ts';
import { SecretBox } from '../../processors/alerts/delivery/secrets.ts';
import { testApi } from '../support/api.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body).toMatchObject({ status, error_code: code, type: `https://docs.earshot.dev/errors/${code}` });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(typeof body.instance).toBe('string');
  expect(Array.isArray(body.errors)).toBe(true);
  return body as {
    detail: string;
    errors: { location: string; message: string; value?: unknown }[];
    resolve?: unknown;
    instance: string;
  };
}

describe('API platform', () => {
  let api: Api;
  let app: FastifyInstance;
  const projectsUrl = () => `/v1/organizations/${api.org.id}/projects`;

  beforeAll(async () => {
    const prices = loadPriceTable();
    const payments = {
      prices: { ...prices, operations: { ...prices.operations, 'GET /v1/test/priced': 3 } },
    };
    api = await testApi({ bodyLimitBytes: 2048, payments }, (a) => {
      a.get('/v1/test/explode', async () => {
        throw new Error('secret connection string postgres://admin:hunter2@db');
      });
      a.get('/v1/test/priced', async () => ({ ok: true }));
    });
    app = api.app;
  });
  afterAll(async () => api?.close());

  describe('authentication', () => {
    it('accepts the key as X-API-Key, as a bearer token and as the api-key query parameter', async () => {
      const key = api.keys.business!;
      for (const req of [
        { headers: { 'x-api-key': key }, url: projectsUrl() },
        { headers: { authorization: `Bearer ${key}` }, url: projectsUrl() },
        { headers: {}, url: `${projectsUrl()}?api-key=${key}` },
      ]) {
        const res = await app.inject({ method: 'GET', ...req });
        expect(res.statusCode, JSON.stringify(req)).toBe(200);
      }
    });

    it('answers 401 authentication_required without a credential, with a way to resolve it', async () => {
      const res = await app.inject({ method: 'GET', url: projectsUrl() });
      const body = expectProblem(res, 401, 'authentication_required');
      expect(body.errors[0]!.location).toBe('header.x-api-key');
      expect(body.resolve).toMatchObject({ action: 'provide_api_key' });
      expect(res.headers['www-authenticate']).toMatch(/Bearer/);
    });

    it('answers 401 invalid_api_key for an unknown key, naming where it was sent', async () => {
      const res = await app.inject({
        method: 'GET',
        url: projectsUrl(),
        headers: { authorization: 'Bearer esk_notarealkeynotarealkeynotarealkey' },
      });
      const body = expectProblem(res, 401, 'invalid_api_key');
      expect(body.errors[0]!.location).toBe('header.authorization');
    });

    it('refuses a key revoked in this process from the next request on, cached or not', async () => {
      const { key, record } = await api.accounts.createApiKey({
        projectId: api.projects.team!,
        name: 'to revoke',
      });
      expect(
        (await app.inject({ method: 'GET', url: projectsUrl(), headers: { 'x-api-key': key } })).statusCode,
      ).toBe(200);
      // The key is now in the verified-key cache; a revocation here drops it at once, without
      // waiting out the cache's few seconds.
      await api.accounts.revokeApiKey(record.id);
      expectProblem(
        await app.inject({ method: 'GET', url: projectsUrl(), headers: { 'x-api-key': key } }),
        401,
        'invalid_api_key',
      );
    });

    it('never lets a key mint, roll or revoke keys', async () => {
      const key = api.keys.enterprise!;
      for (const [method, url] of [
        ['POST', `/v1/projects/${api.projects.enterprise}/api-keys`],
        ['POST', '/v1/api-keys/key_anything/roll'],
        ['DELETE', '/v1/api-keys/key_anything'],
      ] as const) {
        const res = await app.inject({
          method,
          url,
          headers: { 'x-api-key': key },
          payload: method === 'POST' ? {} : undefined,
        });
        const body = expectProblem(res, 403, 'credential_management_forbidden');
        expect(body.resolve).toMatchObject({ action: 'use_dashboard' });
      }
      expect((await api.accounts.apiKeys(api.projects.enterprise!)).length).toBe(1);
    });

    it('stores keys only as digests, with a display prefix', async () => {
      const rows = await api.state.query<Record<string, unknown>>('SELECT * FROM api_keys');
      const raw = JSON.stringify(rows);
      for (const key of Object.values(api.keys)) expect(raw).not.toContain(key);
      expect(rows.every((r) => String(r.display_prefix).startsWith('esk_'))).toBe(true);
    });
  });

  describe('errors are problem documents', () => {
    const key = () => ({ 'x-api-key': api.keys.business! });

    it('403 for another organization', async () => {
      const res = await app.inject({
        method: 'GET',
        url: `/v1/organizations/${api.other.id}/projects`,
        headers: key(),
      });
      const body = expectProblem(res, 403, 'forbidden');
      expect(body.errors[0]).toMatchObject({ location: 'path.orgId', value: api.other.id });
    });

    it('404 route_not_found for an unknown route, naming the path', async () => {
      const body = expectProblem(
        await app.inject({ method: 'GET', url: '/v1/no/such/thing', headers: key() }),
        404,
        'route_not_found',
      );
      expect(body.errors[0]).toMatchObject({ location: 'path', value: '/v1/no/such/thing' });
      expectProblem(await app.inject({ method: 'GET', url: '/nowhere' }), 404, 'route_not_found');
      // without a credential too: an unknown path is no operation, so nothing to authenticate
      expectProblem(await app.inject({ method: 'GET', url: '/v1/no/such/thing' }), 404, 'route_not_found');
    });

    it('404 route_not_found when an id parameter takes another route’s path word', async () => {
      // /v1/alerts/:id matches, but "matches" is the word of /v1/alerts/matches/:id
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const res = await app.inject({ method, url: '/v1/alerts/matches', headers: key() });
        expectProblem(res, 404, 'route_not_found');
      }
      // /v1/alerts/disable is its own resource: DELETE is 405 with its methods, not an alert lookup
      const del = await app.inject({ method: 'DELETE', url: '/v1/alerts/disable', headers: key() });
      expectProblem(del, 405, 'method_not_allowed');
      expect(del.headers.allow).toBe('GET, HEAD, POST');
      // a real id still reaches the route (an unknown alert is not_found, not route_not_found)
      expectProblem(
        await app.inject({ method: 'GET', url: '/v1/alerts/alr_nonesuch', headers: key() }),
        404,
        'not_found',
      );
    });

    it('405 with Allow for a known route and another method', async () => {
      const res = await app.inject({ method: 'PUT', url: projectsUrl(), headers: key() });
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe('GET, HEAD');
    });

    it('409 for a duplicate notification email, and nothing changes', async () => {
      const url = `/v1/organizations/${api.org.id}/notification-emails`;
      const first = await app.inject({
        method: 'POST',
        url,
        headers: key(),
        payload: { email: 'alerts@acme.example' },
      });
      expect(first.statusCode).toBe(201);
      expect(first.json()).toMatchObject({ email: 'alerts@acme.example', verified: false });
      const again = await app.inject({
        method: 'POST',
        url,
        headers: key(),
        payload: { email: 'Alerts@ACME.example' },
      });
      const body = expectProblem(again, 409, 'notification_email_exists');
      expect(body.errors[0]!.location).toBe('body.email');
      const list = await app.inject({ method: 'GET', url, headers: key() });
      expect((list.json() as { data: unknown[] }).data).toHaveLength(1);
    });

    it('413 for a body over the limit', async () => {
      const res = await app.inject({
        method: 'POST',
        url: `/v1/organizations/${api.org.id}/notification-emails`,
        headers: { ...key(), 'content-type': 'application/json' },
        payload: JSON.stringify({ email: `${'a'.repeat(5000)}@example.com` }),
      });
      expectProblem(res, 413, 'payload_too_large');
    });

    it('415 for a body that is not JSON', async () => {
      const res = await app.inject({
        method: 'POST',
        url: `/v1/organizations/${api.org.id}/notification-emails`,
        headers: { ...key(), 'content-type': 'text/csv' },
        payload: 'email\nx@example.com',
      });
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('400 for malformed JSON', async () => {
      const res = await app.inject({
        method: 'POST',
        url: `/v1/organizations/${api.org.id}/notification-emails`,
        headers: { ...key(), 'content-type': 'application/json' },
        payload: '{"email": ',
      });
      expectProblem(res, 400, 'invalid_json');
    });

    it('422 naming every offending parameter, with the value sent', async () => {
      const res = await app.inject({ method: 'GET', url: `${projectsUrl()}?limit=0`, headers: key() });
      const body = expectProblem(res, 422, 'validation_error');
      expect(body.errors).toEqual([{ location: 'query.limit', message: 'must be >= 1', value: '0' }]);
      const tooBig = expectProblem(
        await app.inject({ method: 'GET', url: `${projectsUrl()}?limit=101`, headers: key() }),
        422,
        'validation_error',
      );
      expect(tooBig.errors[0]).toMatchObject({ location: 'query.limit', message: 'must be <= 100' });
      const wrongType = expectProblem(
        await app.inject({ method: 'GET', url: `${projectsUrl()}?limit=many`, headers: key() }),
        422,
        'validation_error',
      );
      expect(wrongType.errors[0]).toMatchObject({ location: 'query.limit', value: 'many' });
      const badBody = await app.inject({
        method: 'POST',
        url: `/v1/organizations/${api.org.id}/notification-emails`,
        headers: key(),
        payload: { email: 'not-an-email' },
      });
      expect(expectProblem(badBody, 422, 'validation_error').errors[0]).toMatchObject({
        location: 'body.email',
        value: 'not-an-email',
      });
      const missing = await app.inject({
        method: 'POST',
        url: `/v1/organizations/${api.org.id}/notification-emails`,
        headers: key(),
        payload: {},
      });
      expect(expectProblem(missing, 422, 'validation_error').errors[0]).toMatchObject({
        location: 'body.email',
        message: 'is required',
      });
    });

    it('422 for numbers that are not finite, before they reach a query', async () => {
      const lists = [
        projectsUrl(),
        `/v1/organizations/${api.org.id}/notification-emails`,
        `/v1/projects/${api.projects.business}/webhooks/connections`,
        `/v1/projects/${api.projects.business}/alerts`,
      ];
      for (const url of lists) {
        for (const value of ['Infinity', '-Infinity', '%2BInfinity', '1e400', '-1e999']) {
          const res = await app.inject({ method: 'GET', url: `${url}?limit=${value}`, headers: key() });
          const body = expectProblem(res, 422, 'validation_error');
          expect(
            body.errors.map((e) => e.location),
            `${url} ${value}`,
          ).toEqual(['query.limit']);
        }
      }
    });

    it('405 with Allow for QUERY and other methods no route has, naming the most specific resource', async () => {
      for (const method of ['QUERY', 'PROPFIND', 'OPTIONS'] as const) {
        const res = await app.inject({ method, url: projectsUrl(), headers: key() });
        const body = expectProblem(res, 405, 'method_not_allowed');
        expect(res.headers.allow, method).toBe('GET, HEAD');
        expect(body.errors[0]).toMatchObject({ location: 'method', value: method });
      }
      // /v1/alerts/disable is its own resource, not /v1/alerts/{id}
      const disable = await app.inject({ method: 'OPTIONS', url: '/v1/alerts/disable', headers: key() });
      expect(disable.statusCode).toBe(405);
      expect(disable.headers.allow).toBe('GET, HEAD, POST');
      const unknown = await app.inject({ method: 'QUERY', url: '/v1/no/such/thing', headers: key() });
      expectProblem(unknown, 404, 'route_not_found');
    });

    it('414 problem for a path segment past the router limit; 422 for one past its schema', async () => {
      const long = await app.inject({
        method: 'GET',
        url: `/v1/organizations/${'o'.repeat(3000)}/projects`,
        headers: key(),
      });
      expectProblem(long, 414, 'uri_too_long');
      const overSchema = await app.inject({
        method: 'GET',
        url: `/v1/alerts/${'a'.repeat(201)}`,
        headers: key(),
      });
      expect(expectProblem(overSchema, 422, 'validation_error').errors[0]!.location).toBe('path.id');
    });

    it('does not coerce JSON bodies, and drops __proto__ keys instead of refusing the body', async () => {
      const wrongType = await app.inject({
        method: 'POST',
        url: `/v1/organizations/${api.org.id}/notification-emails`,
        headers: key(),
        payload: { email: 12345 },
      });
      expect(expectProblem(wrongType, 422, 'validation_error').errors[0]!.location).toBe('body.email');
      const proto = await app.inject({
        method: 'POST',
        url: `/v1/organizations/${api.org.id}/notification-emails`,
        headers: { ...key(), 'content-type': 'application/json' },
        payload: '{"email":"proto@acme.example","__proto__":{"admin":true}}',
      });
      expect(proto.statusCode, proto.body).toBe(201);
    });

    it('ignores unknown query parameters', async () => {
      const res = await app.inject({
        method: 'GET',
        url: `${projectsUrl()}?color=blue&limit=2`,
        headers: key(),
      });
      expect(res.statusCode).toBe(200);
      expect((res.json() as { data: unknown[] }).data).toHaveLength(2);
    });

    it('500 without leaking internals', async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/test/explode', headers: key() });
      const body = expectProblem(res, 500, 'internal_error');
      expect(res.body).not.toContain('hunter2');
      expect(res.body).not.toContain('postgres://');
      expect(body.detail).not.toContain('secret');
    });
  });

  describe('pagination', () => {
    it('pages with has_more and a cursor that is absent on the last page', async () => {
      for (let i = 0; i < 30; i++)
        await api.accounts.createProject({ organizationId: api.org.id, name: `bulk ${i}`, plan: 'starter' });
      const total = (await api.accounts.projectsOf(api.org.id, undefined, 1000)).length;
      const headers = { 'x-api-key': api.keys.business! };
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await app.inject({
          method: 'GET',
          url: `${projectsUrl()}${cursor ? `?cursor=${cursor}` : ''}`,
          headers,
        });
        const body = res.json() as { data: { id: string }[]; has_more: boolean; cursor?: string };
        pages++;
        seen.push(...body.data.map((p) => p.id));
        if (body.has_more) {
          expect(body.data).toHaveLength(25);
          expect(typeof body.cursor).toBe('string');
        } else {
          expect('cursor' in body).toBe(false);
        }
        cursor = body.cursor;
      } while (cursor);
      expect(pages).toBe(Math.ceil(total / 25));
      expect(new Set(seen).size).toBe(total);
    });

    it('treats an unreadable or foreign cursor as the first page on ordinary lists', async () => {
      const headers = { 'x-api-key': api.keys.business! };
      const first = (
        await app.inject({ method: 'GET', url: `${projectsUrl()}?limit=3`, headers })
      ).json() as { data: unknown[] };
      const unsigned = (e: string, p: unknown) => Buffer.from(JSON.stringify({ e, p })).toString('base64url');
      const page2 = (
        await app.inject({ method: 'GET', url: `${projectsUrl()}?limit=3`, headers })
      ).json() as { cursor: string };
      for (const cursor of [
        'garbage!!',
        app.cursors.encode('notification-emails', 'ne_x'),
        // an unsigned position (the format cursors had before they were signed)
        unsigned('organization-projects', 'proj_zzz'),
        // a real cursor with its position edited, or its signature cut off
        `${unsigned('organization-projects', '')}.${page2.cursor.split('.')[1]}`,
        page2.cursor.split('.')[0]!,
        // signed, but out of range
        app.cursors.encode('organization-projects', 'x'.repeat(201)),
        app.cursors.encode('organization-projects', ''),
        app.cursors.encode('organization-projects', 7),
      ]) {
        const res = await app.inject({
          method: 'GET',
          url: `${projectsUrl()}?limit=3&cursor=${encodeURIComponent(cursor)}`,
          headers,
        });
        expect(res.statusCode).toBe(200);
        expect((res.json() as { data: unknown[] }).data).toEqual(first.data);
      }
    });

    it('binds cursors to their endpoint and rejects unreadable ones where strict', () => {
      const { cursors } = app;
      const cursor = cursors.encode('episode-feed', { t: 5 });
      expect(cursors.decode('episode-feed', cursor, Type.Object({ t: Type.Number() }), true)).toEqual({
        t: 5,
      });
      expect(cursors.decode('other', cursor, Type.Object({ t: Type.Number() }))).toBeUndefined();
      expect(() => cursors.decode('other', cursor, Type.Object({ t: Type.Number() }), true)).toThrow(
        /query.cursor/,
      );
      expect(() =>
        cursors.decode(
          'episode-feed',
          cursors.encode('episode-feed', { t: 'x' }),
          Type.Object({ t: Type.Number() }),
          true,
        ),
      ).toThrow();
    });

    it('signs cursors with a key derived from the secrets key, so every API process reads them', () => {
      const cursor = app.cursors.encode('organization-projects', 'proj_a');
      // Another process with the same secrets key reads it; one with another key does not.
      const same = new Cursors(new SecretBox(api.delivery.settings.secretsKey));
      const other = new Cursors(new SecretBox(Buffer.alloc(32, 7)));
      expect(same.decode('organization-projects', cursor, Type.String())).toBe('proj_a');
      expect(other.decode('organization-projects', cursor, Type.String())).toBeUndefined();
    });
  });

  describe('documents', () => {
    it('serves a valid OpenAPI 3.2 document listing every route, with x-payment-info on billable operations', async () => {
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      expect(res.statusCode).toBe(200);
      const doc = res.json() as {
        openapi: string;
        info: { version: string };
        paths: Record<string, Record<string, Record<string, unknown>>>;
      };
      expect(doc.openapi).toBe('3.2.0');
      expect(doc.info.version).toBe('0.1.0');
      const result = await new Validator().validate(doc as never);
      expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
      expect(result.valid).toBe(true);
      // Documents, not operations: the reference, the guides, the metrics read and payment discovery.
      const hidden = new Set(['/openapi.json', '/auth.md', '/llms.txt', '/metrics', '/.well-known/x402']);
      for (const route of app.knownRoutes) {
        // The dashboard's HTML pages are not API operations; nor is the OAuth authorization
        // server (its metadata and endpoints answer in OAuth's own terms, docs/agents.md).
        if (
          route.url.startsWith('/docs') ||
          route.url.startsWith('/dashboard') ||
          route.url.startsWith('/oauth/') ||
          route.url.startsWith('/.well-known/oauth-') ||
          hidden.has(route.url)
        )
          continue;
        const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        for (const method of route.methods.filter((m) => m !== 'HEAD')) {
          expect(doc.paths[path]?.[method.toLowerCase()], `${method} ${path}`).toBeDefined();
        }
      }
      expect(doc.paths['/v1/test/priced']!.get!['x-payment-info']).toMatchObject({ price: { cents: 3 } });
      expect(doc.paths[`/v1/organizations/{orgId}/projects`]!.get!.security).toBeDefined();
    });

    it('serves the reference page, /auth.md and /llms.txt without a credential', async () => {
      const docs = await app.inject({ method: 'GET', url: '/docs/' });
      expect(docs.statusCode).toBe(200);
      expect(docs.body).toMatch(/swagger/i);
      const auth = await app.inject({ method: 'GET', url: '/auth.md' });
      expect(auth.headers['content-type']).toMatch(/text\/markdown/);
      expect(auth.body).toContain('X-API-Key');
      const llms = await app.inject({ method: 'GET', url: '/llms.txt' });
      expect(llms.body).toContain('GET /v1/organizations/{orgId}/projects');
    });
  });
});

describe('rate limits', () => {
  let api: Api;
  beforeAll(async () => {
    api = await testApi({ rateLimitPerMinute: 3 });
  });
  afterAll(async () => api?.close());

  it('answers 429 with Retry-After past the per-key limit, per key', async () => {
    const url = `/v1/organizations/${api.org.id}/projects`;
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await api.app.inject({ method: 'GET', url, headers: { 'x-api-key': api.keys.team! } })).statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await api.app.inject({ method: 'GET', url, headers: { 'x-api-key': api.keys.team! } });
    const body = expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(body.resolve).toBeDefined();
    const otherKey = await api.app.inject({
      method: 'GET',
      url,
      headers: { 'x-api-key': api.keys.business! },
    });
    expect(otherKey.statusCode).toBe(200);
    expect((await api.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('rate limits on two API instances (RATE_LIMIT_INSTANCES)', () => {
  let first: Api;
  let second: Api;
  beforeAll(async () => {
    first = await testApi({ rateLimitPerMinute: 4, rateLimitInstances: 2 });
    second = await testApi({ rateLimitPerMinute: 4, rateLimitInstances: 2 }, undefined, {
      state: first.state,
    });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('allows a key ⌈limit ÷ instances⌉ a minute on each, the limit across both', async () => {
    const url = `/v1/organizations/${first.org.id}/projects`;
    const headers = { 'x-api-key': first.keys.team! };
    const statuses: Record<string, number[]> = { first: [], second: [] };
    for (let i = 0; i < 3; i++) {
      for (const [name, api] of [
        ['first', first],
        ['second', second],
      ] as const) {
        const res = await api.app.inject({ method: 'GET', url, headers });
        statuses[name]!.push(res.statusCode);
        if (i === 0) expect(res.headers['x-ratelimit-limit']).toBe('2');
      }
    }
    // Four requests answered in all (the limit), spread evenly; the fifth and sixth refused.
    expect(statuses).toEqual({ first: [200, 200, 429], second: [200, 200, 429] });
  });
});

describe('failed-authentication lockouts on two API instances (one state store)', () => {
  let first: Api;
  let second: Api;
  beforeAll(async () => {
    first = await testApi({ failedAuthPerMinute: 6 });
    second = await testApi({ failedAuthPerMinute: 6 }, undefined, { state: first.state });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  const guess = (api: Api, i: number, remoteAddress: string, key?: string) =>
    api.app.inject({
      method: 'GET',
      url: `/v1/organizations/${api.org.id}/projects`,
      headers: { 'x-api-key': key ?? `esk_${String(i).padStart(6, '0')}${'w'.repeat(24)}` },
      remoteAddress,
    });

  it('locks an address out on both after the limit across both (at most L + N − 1 lookups)', async () => {
    const statuses: Record<string, number[]> = { first: [], second: [] };
    for (let i = 0; i < 16; i++) {
      const [name, api] = i % 2 === 0 ? (['first', first] as const) : (['second', second] as const);
      const res = await guess(api, i, '203.0.113.40');
      statuses[name]!.push(res.statusCode);
      if (res.statusCode === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Six failures counted in the store lock the address; the first instance had seen five of
    // them and lets one more guess through, whose count tells it. Per-instance counters would
    // have allowed six on each (all sixteen answered 401 but four).
    expect(statuses).toEqual({
      first: [401, 401, 401, 401, 429, 429, 429, 429],
      second: [401, 401, 401, 429, 429, 429, 429, 429],
    });
    // Another address is not locked out, on either.
    expect((await guess(first, 99, '203.0.113.41')).statusCode).toBe(401);
    expect((await guess(second, 98, '203.0.113.41')).statusCode).toBe(401);
  });

  it('locks a key prefix out across both, whatever the addresses', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const api = i % 2 === 0 ? first : second;
      const res = await guess(api, i, `203.0.113.${60 + i}`, `esk_Pp4Tt2${String(i).padStart(24, 'v')}`);
      statuses.push(res.statusCode);
    }
    // The prefix's limit is 3: the third failure (on the first instance) locks it; the second
    // instance learns it from its own next failure.
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });
});
