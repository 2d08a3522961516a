import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { BatchIngest } from '../../ingest/loader/batch-ingest.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { type AnalyticsStore, migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { IngestTokens } from '../../projections/state/ingest-tokens.ts';
import { catalogSlugHolders, testApi } from '../support/api.ts';
import { embeddedBackbone } from '../support/backbone.ts';
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

describe('failed authentications are rate limited per address and per key prefix', () => {
  let api: Api;
  let lookups = 0;
  const url = () => `/v1/organizations/${api.org.id}/projects`;
  const guess = (prefix = 'esk_') =>
    prefix + Math.random().toString(36).slice(2).padEnd(12, '0') + 'x'.repeat(30 - prefix.length);

  beforeAll(async () => {
    api = await testApi({ rateLimitPerMinute: 3 });
    const authenticate = api.accounts.authenticate.bind(api.accounts);
    api.accounts.authenticate = async (key: string) => {
      lookups++;
      return authenticate(key);
    };
  });
  afterAll(async () => api?.close());

  it('answers 150 guessed keys in a row from one address with 429 and Retry-After long before 150 lookups', async () => {
    lookups = 0;
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i < 150; i++) {
      const res = await api.app.inject({
        method: 'GET',
        url: url(),
        headers: { 'x-api-key': guess() },
        remoteAddress: '198.51.100.7',
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        retryAfter = res.headers['retry-after'] as string;
        expect(res.json()).toMatchObject({ error_code: 'rate_limited', status: 429 });
        expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      }
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(-100).every((s) => s === 429)).toBe(true);
    expect(lookups).toBeLessThanOrEqual(30);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);

    // The address is refused whatever it sends for the rest of the window; other addresses are not.
    const blocked = await api.app.inject({
      method: 'GET',
      url: url(),
      headers: { 'x-api-key': api.keys.business! },
      remoteAddress: '198.51.100.7',
    });
    expect(blocked.statusCode).toBe(429);
    const other = await api.app.inject({
      method: 'GET',
      url: url(),
      headers: { 'x-api-key': api.keys.business! },
      remoteAddress: '198.51.100.8',
    });
    expect(other.statusCode).toBe(200);
  });

  it('answers guesses that share a key prefix with 429 even when every one comes from another address', async () => {
    lookups = 0;
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await api.app.inject({
        method: 'GET',
        url: url(),
        headers: { authorization: `Bearer ${guess('esk_Zq9Wv2')}` },
        remoteAddress: `203.0.113.${i + 1}`,
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(statuses.slice(-15).every((s) => s === 429)).toBe(true);
    expect(lookups).toBeLessThanOrEqual(15);
  });

  it('counts requests that fail validation (422) against the key', async () => {
    const headers = { 'x-api-key': api.keys.growth! };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await api.app.inject({ method: 'GET', url: `${url()}?limit=0`, headers })).statusCode);
    }
    const next = await api.app.inject({ method: 'GET', url: url(), headers });
    statuses.push(next.statusCode);
    expect(statuses).toEqual([422, 422, 422, 429]);
    expect(Number(next.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('counts requests to public routes that fail validation against the address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api.app.inject({
        method: 'GET',
        url: '/v1/notification-emails/verify?token=',
        remoteAddress: '192.0.2.44',
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([422, 422, 422, 429]);
  });
});

describe('the failed-authentication limit is configurable', () => {
  it('takes RATE_LIMIT_FAILED_AUTH_PER_MINUTE per address (and half of it per key prefix)', async () => {
    const api = await testApi({ failedAuthPerMinute: 6 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 9; i++) {
        const res = await api.app.inject({
          method: 'GET',
          url: `/v1/organizations/${api.org.id}/projects`,
          headers: { 'x-api-key': `esk_${String(i).padStart(6, '0')}${'y'.repeat(24)}` },
          remoteAddress: '198.51.100.9',
        });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429, 429]);
      // Three guesses with one prefix from three addresses: the prefix's limit is 3.
      const prefixed: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await api.app.inject({
          method: 'GET',
          url: `/v1/organizations/${api.org.id}/projects`,
          headers: { 'x-api-key': `esk_Qq7Rr1${String(i).padStart(24, 'z')}` },
          remoteAddress: `198.51.100.${20 + i}`,
        });
        prefixed.push(res.statusCode);
      }
      expect(prefixed).toEqual([401, 401, 401, 429]);
    } finally {
      await api.close();
    }
  });
});

describe('failed ingest-token authentications are rate limited too', () => {
  let api: Api;
  let bb: Awaited<ReturnType<typeof embeddedBackbone>>;
  let state: IngestState;
  let tokens: IngestTokens;
  let lookups = 0;

  beforeAll(async () => {
    bb = await embeddedBackbone();
    state = new IngestState(path.join(bb.dir, 'ingest-state'));
    api = await testApi({}, undefined, {
      ingest: (s) => {
        tokens = new IngestTokens(s);
        const authenticate = tokens.authenticate.bind(tokens);
        tokens.authenticate = async (token: string) => {
          lookups++;
          return authenticate(token);
        };
        const batches = new BatchIngest({
          producer: bb.producer,
          log: bb.log,
          state,
          logger: silentLogger(),
        });
        return { batches, state, tokens, slugHolders: catalogSlugHolders(s) };
      },
    });
  });
  afterAll(async () => {
    await api?.close();
    await state?.close();
    await bb?.close();
  });

  it('answers guessed ingest tokens with 429 long before each costs a lookup', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await api.app.inject({
        method: 'POST',
        url: '/v1/ingest/batches',
        headers: { 'x-ingest-token': `eit_${Math.random().toString(36).slice(2).padEnd(40, 'q')}` },
        payload: { records: [] },
        remoteAddress: '198.51.100.99',
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(-30).every((s) => s === 429)).toBe(true);
    expect(lookups).toBeLessThanOrEqual(25);
  });
});

describe('API keys with an expiry', () => {
  let api: Api;
  const url = () => `/v1/organizations/${api.org.id}/projects`;

  beforeAll(async () => {
    api = await testApi({ rateLimitPerMinute: 1_000_000 });
  });
  afterAll(async () => api?.close());

  it('answers an expired key with 401 api_key_expired', async () => {
    const { key, record } = await api.accounts.createApiKey({
      projectId: api.projects.team!,
      name: 'expired',
      expiresAt: new Date(Date.now() - 1000),
    });
    expect(record.expires_at).toBeInstanceOf(Date);
    const res = await api.app.inject({ method: 'GET', url: url(), headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(401);
    expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    const body = res.json() as { error_code: string; errors: { location: string }[]; type: string };
    expect(body.error_code).toBe('api_key_expired');
    expect(body.type).toBe('https://docs.earshot.dev/errors/api_key_expired');
    expect(body.errors[0]!.location).toBe('header.x-api-key');
  });

  it('stops serving a cached key the moment it expires', async () => {
    const { key } = await api.accounts.createApiKey({
      projectId: api.projects.team!,
      name: 'short-lived',
      expiresAt: new Date(Date.now() + 1500),
    });
    const before = await api.app.inject({ method: 'GET', url: url(), headers: { 'x-api-key': key } });
    expect(before.statusCode).toBe(200);
    // 1.7 s later on the clock every request reads: well inside the 5 s the verified key stays cached.
    vi.setSystemTime(Date.now() + 1700);
    try {
      const after = await api.app.inject({ method: 'GET', url: url(), headers: { 'x-api-key': key } });
      expect(after.statusCode).toBe(401);
      expect((after.json() as { error_code: string }).error_code).toBe('api_key_expired');
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps keys without an expiry valid and lists every key with its expiry', async () => {
    const expiresAt = new Date(Date.now() + 90 * 86_400_000);
    await api.accounts.createApiKey({ projectId: api.projects.starter!, name: 'ninety days', expiresAt });
    const listed = await api.accounts.apiKeys(api.projects.starter!);
    expect(listed.map((k) => [k.name, k.expires_at?.getTime() ?? null])).toEqual([
      ['default', null],
      ['ninety days', expiresAt.getTime()],
    ]);
    const res = await api.app.inject({
      method: 'GET',
      url: url(),
      headers: { 'x-api-key': api.keys.starter! },
    });
    expect(res.statusCode).toBe(200);
  });

  it("does not count an expired key as the demo project's key", async () => {
    const first = await api.accounts.ensureDemoAccount();
    expect(first.mintedKey).toBeDefined();
    const bootstrap = 'esk_expired_bootstrap_key_0123456789ab';
    await api.accounts.createApiKey({
      projectId: first.project.id,
      key: bootstrap,
      expiresAt: new Date(Date.now() - 1000),
    });
    await expect(api.accounts.ensureDemoAccount(bootstrap)).rejects.toThrow(/has expired/);
    await api.state.query('UPDATE api_keys SET expires_at = now() WHERE project_id = $1', [first.project.id]);
    expect((await api.accounts.ensureDemoAccount()).mintedKey).toMatch(/^esk_/);
  });
});
