import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEADER_BYTES } from '../../api/app.ts';
import { Cursors } from '../../api/pagination.ts';
import { SecretBox } from '../../processors/alerts/delivery/secrets.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { authenticationOnTheMatchedRoute } from './scenarios/matched-route-auth.ts';

/**
 * The demo service, started as a user would, against inputs a fuzzer or an attacker sends:
 * non-finite numbers on every numeric parameter of the document, and forged cursors of every
 * endpoint's position shape. Never a 500. Then, on the same service, authentication on the matched
 * route and credentials kept out of its log (`scenarios/matched-route-auth.ts`).
 */
const KEY = 'esk_e2e_hardening_key_0123456789abcdef';
const SECRETS_KEY = randomBytes(32);

/** Sends raw bytes and reads the whole answer (the server closes the connection). */
function rawRequest(port: number, head: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headers, body] = [
        text.slice(0, text.indexOf('\r\n\r\n')),
        text.slice(text.indexOf('\r\n\r\n') + 4),
      ];
      resolve({ status: Number(headers.split(' ')[1]), headers, body });
    });
    socket.end(head);
  });
}

type Schema = {
  type?: string;
  maxLength?: number;
  enum?: unknown[];
  default?: unknown;
  pattern?: string;
  properties?: Record<string, Schema>;
};
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: Schema;
  content?: Record<string, { schema: Schema & { allOf?: unknown[]; required?: string[] } }>;
}
interface Doc {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        responses: Record<string, { description?: string; content?: Record<string, unknown> }>;
      }
    >
  >;
}

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
      // Every request logged: the credential checks read the log.
      LOG_LEVEL: 'info',
    });
    await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
      timeoutMs: 150_000,
      stepMs: 250,
      what: '/readyz 200 with the demo corpus',
    });
  }, 180_000);
  afterAll(async () => {
    const exit = await svc?.stop('SIGTERM');
    tmp.remove();
    expect(exit?.code, svc?.output()).toBe(0);
  });

  it('documents what the server does: problem media types, defaults, rules relating parameters, tokens', async () => {
    const doc = (await get('/openapi.json')).body as Doc;
    expect(doc.openapi).toBe('3.2.0');
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['4XX', '5XX']));
        for (const [status, response] of Object.entries(op.responses)) {
          const problemish = /^[45]/.test(status) && !(path === '/readyz' && status === '503');
          if (problemish)
            expect(Object.keys(response.content ?? {}), `${where} ${status}`).toEqual([
              'application/problem+json',
            ]);
        }
        for (const p of op.parameters ?? []) {
          if (p.in === 'query' && p.schema?.default !== undefined)
            expect(p.required, `${where} ${p.name}`).toBe(false);
        }
      }
    }
    for (const path of [
      '/v1/podcasts/mentions',
      '/v1/podcasts/mentions/timeseries',
      '/v1/podcasts/mentions/by-podcast',
    ]) {
      const [query] = doc.paths[path]!.get!.parameters!.filter((p) => p.in === 'querystring');
      const schema = query!.content!['application/x-www-form-urlencoded']!.schema;
      expect(query!.required).toBe(true);
      expect(schema.allOf).toEqual([
        {
          description: 'exactly one of entity_id, company_id is required',
          oneOf: [{ required: ['entity_id'] }, { required: ['company_id'] }],
        },
      ]);
      expect(Object.keys(schema.properties!)).toEqual(
        expect.arrayContaining(['entity_id', 'company_id', 'since']),
      );
    }
    for (const [path, method] of [
      ['/v1/alerts/disable', 'get'],
      ['/v1/notification-emails/verify', 'get'],
    ] as const) {
      const token = doc.paths[path]![method]!.parameters!.find((p) => p.name === 'token')!;
      expect(token.required, path).toBe(true);
      expect(token.schema!.pattern, path).toBeDefined();
      expect(doc.paths[path]![method]!.responses['401']!.description, path).toMatch(/invalid_link_token/);
    }
  });

  it('answers parser-level refusals with problem documents: 431, unknown methods, QUERY', async () => {
    const port = Number(new URL(svc.url).port);
    const big = await rawRequest(
      port,
      `GET /v1/podcasts HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(MAX_HEADER_BYTES + 1)}\r\n\r\n`,
    );
    expect(big.status).toBe(431);
    expect(big.headers).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(big.body)).toMatchObject({
      status: 431,
      error_code: 'request_header_fields_too_large',
    });
    for (const method of ['FOO', 'QUERY']) {
      const res = await rawRequest(
        port,
        `${method} /v1/podcasts HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status, method).toBe(405);
      expect(res.headers, method).toMatch(/allow: GET, HEAD/i);
      expect(JSON.parse(res.body), method).toMatchObject({ error_code: 'method_not_allowed' });
    }
  });

  it('reads every request the document allows: the longest fits the header limit', async () => {
    const doc = (await get('/openapi.json')).body as Doc;
    // A UTF-16 unit percent-encodes to at most 9 bytes (3-byte UTF-8); 4 KiB for the rest.
    const widest = (s: Schema | undefined): number => {
      if (!s) return 0;
      if (s.enum) return Math.max(...s.enum.map((v) => String(v).length)) * 3;
      if (s.type === 'integer' || s.type === 'number' || s.type === 'boolean') return 30;
      return (s.maxLength ?? Number.POSITIVE_INFINITY) * 9;
    };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        let bytes = path.length + 4096;
        for (const p of op.parameters ?? []) {
          if (p.in === 'querystring') {
            const props = Object.entries(
              p.content!['application/x-www-form-urlencoded']!.schema.properties ?? {},
            );
            for (const [name, s] of props) bytes += name.length * 9 + 2 + widest(s);
          } else if (p.in === 'query' || p.in === 'path') bytes += p.name.length * 9 + 2 + widest(p.schema);
        }
        expect(bytes, `${method.toUpperCase()} ${path}`).toBeLessThan(MAX_HEADER_BYTES);
      }
    }
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

  authenticationOnTheMatchedRoute(() => ({ svc, key: KEY }));
});
