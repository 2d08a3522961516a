import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cursors } from '../../api/pagination.ts';
import { SecretBox } from '../../processors/delivery/secrets.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

/**
 * The demo service, started as a user would, against inputs a fuzzer or an attacker sends:
 * non-finite numbers on every numeric parameter of the document, and forged cursors of every
 * endpoint's position shape. Never a 500.
 */
const KEY = 'esk_e2e_hardening_key_0123456789abcdef';
const SECRETS_KEY = randomBytes(32);

interface Problem {
  status: number;
  error_code: string;
  errors: { location: string; message: string }[];
}

describe('the API against hostile input', () => {
  const tmp = tempDir();
  let svc: Awaited<ReturnType<typeof spawnEarshot>>;
  const get = async (path: string) => {
    const res = await fetch(`${svc.url}${path}`, { headers: { 'x-api-key': KEY } });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: JSON.parse(text) };
  };
  const send = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    svc = await spawnEarshot(['start'], {
      EARSHOT_DATA_DIR: tmp.dir,
      EARSHOT_DEMO: 'on',
      EARSHOT_BOOTSTRAP_API_KEY: KEY,
      EARSHOT_SECRETS_KEY: SECRETS_KEY.toString('base64'),
      EARSHOT_OUTBOUND_ALLOWLIST: '127.0.0.1/32',
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
    });
    await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
      timeoutMs: 120_000,
      stepMs: 250,
      what: '/readyz 200 with the demo corpus',
    });
  }, 150_000);
  afterAll(async () => {
    const exit = await svc?.stop('SIGTERM');
    tmp.remove();
    expect(exit?.code, svc?.output()).toBe(0);
  });

  it('refuses a non-finite value of every numeric query parameter with a 422 naming it', async () => {
    const doc = (await get('/openapi.json')).body as {
      paths: Record<
        string,
        Record<string, { parameters?: { in: string; name: string; schema?: { type?: string } }[] }>
      >;
    };
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (method !== 'get') continue;
        const numeric = (op.parameters ?? []).filter(
          (p) => p.in === 'query' && (p.schema?.type === 'integer' || p.schema?.type === 'number'),
        );
        // Path parameters need not exist: query validation runs before any lookup.
        const url = path.replace(/\{[^}]+\}/g, 'x');
        for (const p of numeric) {
          for (const value of ['Infinity', '-Infinity', '1e400']) {
            const res = await get(`${url}?${p.name}=${value}`);
            expect(res.status, `${url}?${p.name}=${value}`).toBe(422);
            const body = res.body as Problem;
            expect(body.errors.map((e) => e.location)).toContain(`query.${p.name}`);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3 * 30);
  });

  it('reads no forged or out-of-range cursor: the first page, or 422 on the episode feed; never a 500', async () => {
    const signed = new Cursors(new SecretBox(SECRETS_KEY));
    const unsigned = (e: string, p: unknown) => Buffer.from(JSON.stringify({ e, p })).toString('base64url');
    const first = <T>(r: { body: { data?: T; entities?: T; words?: T } }) =>
      r.body.data ?? r.body.entities ?? r.body.words;

    const episode = (await get('/v1/podcasts/episodes?limit=1')).body.data[0] as { id: string };
    const podcast = (await get('/v1/podcasts?limit=1')).body.data[0] as { id: string };
    const company = (await get('/v1/companies?limit=1')).body.data[0] as { id: string };
    const entity = (await get('/v1/entities?limit=1&window_days=365')).body.data[0] as { id: string };
    const hook = await send('POST', '/v1/projects/proj_demo/webhooks/connections', {
      url: 'http://127.0.0.1:9/hook',
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const alert = await send('POST', '/v1/projects/proj_demo/alerts', {
      title: 'forged cursors',
      entities: [{ entity_type: 'COMPANY', entity_id: company.id }],
      notifications: [{ type: 'WEBHOOK', webhook_connection_id: hook.body.id }],
    });
    expect(alert.status, JSON.stringify(alert.body)).toBe(201);

    const big = 2 ** 64;
    const ids = ['', 'x'.repeat(201), 7, null, ['a']];
    const offsets = [-1, 1.5, big, '3', null];
    const instants = ['not a date', '2026-13-45T00:00:00.000Z', '2026-01-01', '2026-02-30T00:00:00.000Z', 17];
    const cases: { path: string; endpoint: string; positions: unknown[]; strict?: boolean }[] = [
      { path: '/v1/organizations/org_demo/projects', endpoint: 'organization-projects', positions: ids },
      {
        path: '/v1/organizations/org_demo/notification-emails',
        endpoint: 'notification-emails',
        positions: ids,
      },
      {
        path: '/v1/projects/proj_demo/webhooks/connections',
        endpoint: 'webhook-connections',
        positions: ids,
      },
      { path: '/v1/projects/proj_demo/slack/connections', endpoint: 'chat-connections', positions: ids },
      {
        path: '/v1/projects/proj_demo/alerts',
        endpoint: 'project-alerts',
        positions: [...instants.map((c) => ({ c, i: 'al_x' })), { c: '2026-01-01T00:00:00.000Z', i: 5 }],
      },
      {
        path: `/v1/alerts/${alert.body.id}/matches`,
        endpoint: `alert-matches:${alert.body.id}`,
        positions: [...instants.map((d) => ({ d, i: 'm_x' })), { d: '2026-01-01T00:00:00.000Z' }],
      },
      {
        path: `/v1/alerts/${alert.body.id}/deliveries`,
        endpoint: `alert-deliveries:${alert.body.id}`,
        positions: instants.map((d) => ({ d, i: 'd_x' })),
      },
      {
        path: '/v1/podcasts',
        endpoint: 'podcasts',
        positions: [{ p: '1', id: 'x' }, { p: null, id: 'x' }, { p: 1, id: '' }, { p: 1 }],
      },
      {
        path: '/v1/podcasts/publishers',
        endpoint: 'publishers',
        positions: [{ n: 5, id: 'x' }, { n: 'a', id: 'x'.repeat(201) }, { n: 'a' }],
      },
      {
        path: '/v1/companies',
        endpoint: 'companies',
        positions: [
          { n: null, id: 'x' },
          { n: 'a', id: 9 },
        ],
      },
      { path: '/v1/people', endpoint: 'people', positions: [{ n: 'a', id: '' }, 'x'] },
      {
        path: '/v1/entities?window_days=365',
        endpoint: 'entities',
        positions: [
          { m: -1, id: 'x' },
          { m: big, id: 'x' },
          { m: 1.5, id: 'x' },
          { m: 3, id: '' },
        ],
      },
      { path: '/v1/entities/types', endpoint: 'entity-types', positions: ids },
      {
        path: '/v1/podcasts/episodes',
        endpoint: 'episode-feed',
        strict: true,
        positions: [
          { t: 2 ** 63, id: 'x' },
          { t: -1e20, id: 'x' },
          { t: 1.5, id: 'x' },
          { t: 5, id: 7 },
          { t: 5 },
        ],
      },
      {
        path: `/v1/podcasts/episodes/${episode.id}/transcript/mentions`,
        endpoint: `transcript-mentions:${episode.id}`,
        positions: offsets,
      },
      {
        path: `/v1/podcasts/episodes/${episode.id}/transcript/words?limit=10`,
        endpoint: `transcript-words:${episode.id}`,
        positions: [{ l: -1, w: 0 }, { l: 0, w: 2 ** 32 }, { l: 0.5, w: 0 }, { l: 0 }],
      },
      ...(['mentions', 'rising', 'falling', 'popularity'] as const).map((sort) => ({
        path: `/v1/podcasts/mentions/by-podcast?entity_id=${entity.id}&sort=${sort}&window_days=90`,
        endpoint: `mentions-by-podcast:${sort}`,
        positions: [
          { k: [1], id: 'x' },
          { k: [1, 2, 3, 4], id: 'x' },
          { k: sort === 'popularity' ? [1, 2] : [1, 2, 3], id: 'x' },
          { k: ['a', 'b'], id: 'x' },
          { k: [1, 2], id: '' },
        ],
      })),
      {
        path: `/v1/podcasts/mentions?entity_id=${entity.id}`,
        endpoint: 'mentions',
        positions: [
          { p: big, e: 'ep_x', l: 0 },
          { p: 5, e: 'ep_x', l: -1 },
          { p: 5, e: '', l: 0 },
          { p: 5, e: 'ep_x', l: 2 ** 32 },
        ],
      },
      {
        path: '/v1/podcasts/advertising/sponsors/trends',
        endpoint: 'sponsor-trends:7:3',
        positions: offsets,
      },
      { path: `/v1/podcasts/${podcast.id}/rankings`, endpoint: `rankings:${podcast.id}`, positions: offsets },
      { path: '/v1/podcasts/rankings/sources', endpoint: 'ranking-sources', positions: offsets },
      {
        path: '/v1/podcasts/bias/publishers/leaderboard',
        endpoint: 'bias-leaderboard:most_political',
        positions: offsets,
      },
      {
        path: '/v1/podcasts/episodes/search?keyword_search=the',
        endpoint: 'dialogue-search',
        positions: [...offsets, 1001],
      },
      {
        path: `/v1/podcasts/clips/search?company_id=${company.id}`,
        endpoint: 'clip-search',
        positions: offsets,
      },
      { path: '/v1/podcasts/clips', endpoint: 'clips', positions: offsets },
      {
        path: `/v1/podcasts/episodes/${episode.id}/clips`,
        endpoint: `episode-clips:${episode.id}`,
        positions: offsets,
      },
      { path: '/v1/entities/search?q=a', endpoint: 'entity-search', positions: offsets },
      { path: '/v1/podcasts/search?q=a', endpoint: 'podcast-search', positions: offsets },
      { path: '/v1/podcasts?q=a', endpoint: 'podcast-search', positions: offsets },
    ];

    let forged = 0;
    for (const c of cases) {
      const plain = await get(c.path);
      expect(plain.status, `${c.path}: ${JSON.stringify(plain.body)}`).toBe(200);
      const sep = c.path.includes('?') ? '&' : '?';
      const cursors = [
        'garbage!!',
        ...c.positions.flatMap((p) => [signed.encode(c.endpoint, p), unsigned(c.endpoint, p)]),
      ];
      for (const cursor of cursors) {
        const res = await get(`${c.path}${sep}cursor=${encodeURIComponent(cursor)}`);
        const what = `${c.path} with ${Buffer.from(cursor.split('.')[0]!, 'base64url').toString()}`;
        if (c.strict) {
          expect(res.status, what).toBe(422);
          expect((res.body as Problem).errors[0]!.location).toBe('query.cursor');
        } else {
          expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
          expect(first(res), what).toEqual(first(plain));
        }
        forged++;
      }
    }
    expect(forged).toBeGreaterThan(200);
  }, 300_000);
});
