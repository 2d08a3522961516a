import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODE_GUIDES } from '../../api/docs/error-codes.ts';
import { ERROR_CODES, problem } from '../../api/problem.ts';
import { createLogger } from '../../infra/logger.ts';
import { testApi } from '../support/api.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

describe('the service explains itself: landing page, error pages, request logs', () => {
  let api: Api;
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });

  beforeAll(async () => {
    // No docs host: problem types point at this service, as `npm start` configures it.
    api = await testApi(
      { docsUrl: 'http://127.0.0.1:8080' },
      (app) => {
        app.get('/v1/test/warming-up', async () => {
          throw problem('semantic_search_unavailable', 'Semantic search is unavailable: still embedding.');
        });
      },
      {
        logger: createLogger('info', 'earshot', stream),
      },
    );
  });
  afterAll(async () => api?.close());

  it('GET / is a small landing page linking the reference, the OpenAPI document, llms.txt and auth.md', async () => {
    const res = await api.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const href of ['/docs', '/openapi.json', '/llms.txt', '/auth.md', '/errors'])
      expect(res.body).toContain(`href="${href}"`);
    // Each link it names is served.
    for (const href of ['/openapi.json', '/llms.txt', '/auth.md', '/errors']) {
      const linked = await api.app.inject({ method: 'GET', url: href });
      expect(linked.statusCode, href).toBe(200);
    }
  });

  it('serves a page for every error code, and a problem type URL resolves to its page', async () => {
    for (const code of Object.keys(ERROR_CODES)) {
      const res = await api.app.inject({ method: 'GET', url: `/errors/${code}` });
      expect(res.statusCode, code).toBe(200);
      expect(res.body).toContain(`<code>${code}</code>`);
      expect(ERROR_CODE_GUIDES[code as keyof typeof ERROR_CODES].meaning.length).toBeGreaterThan(10);
    }
    const index = await api.app.inject({ method: 'GET', url: '/errors' });
    for (const code of Object.keys(ERROR_CODES)) expect(index.body).toContain(`href="/errors/${code}"`);

    const refused = await api.app.inject({
      method: 'GET',
      url: `/v1/organizations/${api.org.id}/projects?limit=5000`,
      headers: { 'x-api-key': api.keys.business! },
    });
    expect(refused.statusCode).toBe(422);
    const type = new URL(refused.json<{ type: string }>().type);
    expect(type.origin).toBe('http://127.0.0.1:8080');
    const page = await api.app.inject({ method: 'GET', url: type.pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<code>validation_error</code>');

    const unauthenticated = await api.app.inject({
      method: 'GET',
      url: `/v1/organizations/${api.org.id}/projects`,
    });
    expect(unauthenticated.statusCode).toBe(401);
    const resolveUrl = unauthenticated.json<{ resolve?: { url?: string } }>().resolve?.url;
    if (resolveUrl) {
      const linked = await api.app.inject({ method: 'GET', url: new URL(resolveUrl).pathname });
      expect([200, 302]).toContain(linked.statusCode);
    }
  });

  it('answers an unknown error code with a 404 problem and escapes what it echoes', async () => {
    const res = await api.app.inject({ method: 'GET', url: '/errors/%3Cscript%3E' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json<{ error_code: string }>().error_code).toBe('not_found');
  });

  it('logs one line per request, probes at debug, and an expected 503 without a stack', async () => {
    lines.length = 0;
    await api.app.inject({ method: 'GET', url: '/readyz' });
    await api.app.inject({ method: 'GET', url: '/healthz' });
    expect(lines).toEqual([]);
    const res = await api.app.inject({
      method: 'GET',
      url: `/v1/organizations/${api.org.id}/projects?limit=1`,
      headers: { 'x-api-key': api.keys.business! },
    });
    expect(res.statusCode).toBe(200);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { req: { url: string }; res: { statusCode: number }; msg: string };
    expect(line.req.url).toBe(`/v1/organizations/${api.org.id}/projects?limit=1`);
    expect(line.res.statusCode).toBe(200);
    expect(line.msg).toBe('GET /v1/organizations/:orgId/projects 200');

    lines.length = 0;
    const warming = await api.app.inject({
      method: 'GET',
      url: '/v1/test/warming-up',
      headers: { 'x-api-key': api.keys.business! },
    });
    expect(warming.statusCode).toBe(503);
    const logged = lines.map((l) => JSON.parse(l) as { level: number; err?: unknown });
    expect(logged).toHaveLength(1);
    expect(logged[0]!.level).toBe(30);
    expect(logged[0]!.err).toBeUndefined();
  });
});
