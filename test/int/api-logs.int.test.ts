import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../infra/logger.ts';
import { testApi } from '../support/api.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

/** The lines a logger wrote, as the service would write them to stdout. */
function captured() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

describe('request and error logs never hold a credential', () => {
  let api: Api;
  const log = captured();
  const ingestToken = 'eit_IngestTokenIngestTokenIngestToken01';
  const paymentSignature = 'eip3009-signature-0xdeadbeefcafef00d5ca1ab1e';
  const cookie = 'session=CookieValueCookieValue42';
  const dbSecret = 'ParameterValueThatMustNotBeLogged';

  beforeAll(async () => {
    api = await testApi(
      { rateLimitPerMinute: 1_000_000 },
      (app) => {
        // A failing statement with parameters, as a store adapter would throw it.
        app.get('/v1/test/failing-query', async () =>
          api.state.query('SELECT * FROM no_such_table WHERE id = $1', [dbSecret]),
        );
        // Code that logs a request's headers, or a reply setting a cookie.
        app.get('/v1/test/log-headers', async (request, reply) => {
          request.log.warn({ headers: request.headers, req: { headers: request.headers } }, 'headers');
          reply.header('set-cookie', cookie);
          request.log.warn({ reply: { headers: reply.getHeaders() } }, 'reply headers');
          return { ok: true };
        });
      },
      { logger: createLogger('info', 'earshot', log.stream) },
    );
  });
  afterAll(async () => api?.close());

  const secrets = () => [
    ...Object.values(api.keys),
    'esk_GuessedGuessedGuessedGuessed0123456',
    ingestToken,
    paymentSignature,
    'CookieValueCookieValue42',
    'nev_VerificationTokenNotReal0123456789',
    'c2lnbmF0dXJlc2lnbmF0dXJl',
    dbSecret,
  ];
  const credentialHeaders = (bearer = true) => ({
    ...(bearer ? { authorization: `Bearer ${api.keys.business}` } : {}),
    'x-ingest-token': ingestToken,
    'payment-signature': paymentSignature,
    cookie,
  });

  it('redacts credentials on 200, 401, 422 and 500, in request, completion and error lines', async () => {
    const key = api.keys.business!;
    const projects = `/v1/organizations/${api.org.id}/projects`;
    const requests = [
      { url: `${projects}?api-key=${key}&limit=2`, status: 200 },
      { url: `${projects}?limit=2&API%2Dkey=${encodeURIComponent(key)}`, status: 200 },
      { url: `${projects}?api-key=esk_GuessedGuessedGuessedGuessed0123456`, status: 401 },
      { url: '/v1/notification-emails/verify?token=nev_VerificationTokenNotReal0123456789', status: 422 },
      { url: '/v1/alerts/disable?token=eyJhIjoiYSJ9.c2lnbmF0dXJlc2lnbmF0dXJl', status: 422 },
      { url: `/v1/test/failing-query?api-key=${key}&token=${ingestToken}`, status: 500 },
    ];
    for (const r of requests) {
      const headers = credentialHeaders(r.status !== 401);
      const res = await api.app.inject({ method: 'GET', url: r.url, headers });
      expect(res.statusCode, r.url).toBe(r.status);
    }
    const x = await api.app.inject({
      method: 'GET',
      url: projects,
      headers: { 'x-api-key': 'esk_GuessedGuessedGuessedGuessed0123456' },
    });
    expect(x.statusCode).toBe(401);
    const logged = await api.app.inject({
      method: 'GET',
      url: '/v1/test/log-headers',
      headers: { 'x-api-key': key, ...credentialHeaders() },
    });
    expect(logged.statusCode).toBe(200);

    const lines = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const text = log.lines.join('\n');
    for (const secret of secrets()) expect(text, secret).not.toContain(secret);

    // The lines are still useful: each request is there with its path and redacted query.
    const urls = lines.flatMap((l) => {
      const req = l.req as { url?: string } | undefined;
      return req?.url ? [req.url] : [];
    });
    expect(urls).toContain(`${projects}?api-key=[REDACTED]&limit=2`);
    expect(urls).toContain(`${projects}?limit=2&API%2Dkey=[REDACTED]`);
    expect(urls).toContain('/v1/test/failing-query?api-key=[REDACTED]&token=[REDACTED]');
    const failed = lines.find((l) => l.msg === 'request failed') as { err?: Record<string, unknown> };
    expect(failed?.err?.message).toMatch(/no_such_table/);
    expect(failed.err).not.toHaveProperty('params');
    const headers = lines.find((l) => l.msg === 'headers') as { headers: Record<string, string> };
    expect(headers.headers.authorization).toBe('[REDACTED]');
    expect(headers.headers['x-api-key']).toBe('[REDACTED]');
    expect(headers.headers['user-agent']).toBeDefined();
    const replied = lines.find((l) => l.msg === 'reply headers') as {
      reply: { headers: Record<string, string> };
    };
    expect(replied.reply.headers['set-cookie']).toBe('[REDACTED]');
    const statuses = lines.flatMap((l) => {
      const res = l.res as { statusCode?: number } | undefined;
      return res?.statusCode ? [res.statusCode] : [];
    });
    expect(statuses).toEqual(expect.arrayContaining([200, 401, 422, 500]));
  });
});
