import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnalyticsStore, migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { testApi } from '../support/api.ts';
import { pathVariants, rawGet, refusedOrUnrouted } from '../support/path-variants.ts';
import { tempDir } from '../support/temp-dir.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

/** `/v1/alerts/{id}` → `/v1/alerts/x1` */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');

describe('authentication is decided on the matched route, never on the raw URL', () => {
  let api: Api;
  let baseUrl: string;
  let analytics: AnalyticsStore;
  const tmp = tempDir();

  beforeAll(async () => {
    // With the analytics store, the catalog, episode and analytics reads are served too (empty).
    analytics = new ChdbAnalyticsStore(tmp.dir);
    await migrateAnalytics(analytics);
    api = await testApi({ rateLimitPerMinute: 1_000_000 }, undefined, { analytics });
    baseUrl = await api.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await api?.close();
    await analytics?.close();
    tmp.remove();
  });

  it('answers every GET /v1 operation of /openapi.json, under every spelling of its path and without a credential, with 401 or "no route"', async () => {
    const doc = JSON.parse((await rawGet(baseUrl, '/openapi.json')).body) as {
      paths: Record<string, Record<string, { security?: unknown }>>;
    };
    const operations = Object.entries(doc.paths)
      .filter(([path, ops]) => path.startsWith('/v1/') && ops.get?.security)
      .map(([path]) => path);
    expect(operations.length).toBeGreaterThan(30);
    const readable: string[] = [];
    const leaks: string[] = [];
    let requests = 0;
    for (const path of operations) {
      for (const variant of pathVariants(concrete(path))) {
        const answer = await rawGet(baseUrl, variant);
        requests++;
        if (answer.status === 200) readable.push(variant);
        if (!refusedOrUnrouted(answer))
          leaks.push(`${variant} → ${answer.status} ${answer.body.slice(0, 80)}`);
      }
    }
    expect(readable).toEqual([]);
    expect(leaks).toEqual([]);
    expect(requests).toBeGreaterThan(operations.length * 25);
  });

  it('refuses every route that needs a key, for every method and spelling, before anything else runs', async () => {
    const doc = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { security?: unknown }>>;
    };
    const leaks: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.security) continue;
        for (const url of pathVariants(concrete(path))) {
          const res = await api.app.inject({
            method: method.toUpperCase() as 'GET',
            url,
            ...(method === 'get' || method === 'delete' ? {} : { payload: {} }),
          });
          if (!refusedOrUnrouted({ status: res.statusCode, body: res.body })) {
            leaks.push(`${method.toUpperCase()} ${url} → ${res.statusCode}`);
          }
        }
      }
    }
    expect(leaks).toEqual([]);
  });

  it('still serves what needs no key, and a matched route with an encoded character still authenticates', async () => {
    expect((await rawGet(baseUrl, '/healthz')).status).toBe(200);
    expect((await rawGet(baseUrl, '/openapi.json')).status).toBe(200);
    const projects = `/v1/organizations/${api.org.id}/projects`;
    const encoded = projects.replace('/organizations/', '/%6Frganizations/');
    expect((await rawGet(baseUrl, encoded)).status).toBe(401);
    expect((await rawGet(baseUrl, encoded, { 'x-api-key': api.keys.business! })).status).toBe(200);
    // Public /v1 routes stay public under any spelling (and validate their token).
    const verify = await rawGet(baseUrl, '/%761/notification-emails/verify?token=nope');
    expect(verify.status).toBe(422);
  });
});
