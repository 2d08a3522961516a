import { beforeAll, describe, expect, it } from 'vitest';
import { pathVariants, rawGet, refusedOrUnrouted } from '../../support/path-variants.ts';
import type { spawnEarshot } from '../../support/service-process.ts';
import { waitFor } from '../../support/wait-for.ts';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { default?: unknown; enum?: unknown[] };
}
type OpenApi = { paths: Record<string, Record<string, { security?: unknown; parameters?: Parameter[] }>> };

/** A started demo service (logging at info) and its demo key. */
export interface DemoService {
  svc: Awaited<ReturnType<typeof spawnEarshot>>;
  key: string;
}

/**
 * The running service (`earshot start`, demo corpus) against what an attacker would send: every
 * GET /v1 operation of its live /openapi.json, with real ids, under every spelling of its path,
 * without a credential; and credentials in query strings, which must never reach its log.
 * Declared inside `api-hardening.e2e.test.ts`'s describe, on the demo service that file starts:
 * both only read the demo, so one start serves both.
 */
export function authenticationOnTheMatchedRoute(demo: () => DemoService): void {
  describe('authentication on the matched route, credentials kept out of the log', () => suite(demo));
}

function suite(demo: () => DemoService): void {
  let svc: DemoService['svc'];
  let key: string;
  const get = async (path: string) => {
    const res = await rawGet(svc.url, path, { 'x-api-key': key });
    expect(res.status, path).toBe(200);
    return JSON.parse(res.body) as { data: { id: string }[] };
  };
  beforeAll(() => {
    ({ svc, key } = demo());
  });

  it('answers no GET /v1 operation of /openapi.json, under any spelling of its path, without a credential', async () => {
    const ids: Record<string, string> = {
      orgId: 'org_demo',
      projectId: 'proj_demo',
      episode: (await get('/v1/podcasts/episodes?limit=1')).data[0]!.id,
      podcast: (await get('/v1/podcasts?limit=1')).data[0]!.id,
      publisher: (await get('/v1/podcasts/publishers?limit=1')).data[0]!.id,
      company: (await get('/v1/companies?limit=1')).data[0]!.id,
      person: (await get('/v1/people?limit=1')).data[0]!.id,
    };
    const idFor = (path: string) =>
      path.startsWith('/v1/podcasts/episodes/')
        ? ids.episode
        : path.startsWith('/v1/podcasts/publishers/')
          ? ids.publisher
          : path.startsWith('/v1/podcasts/')
            ? ids.podcast
            : path.startsWith('/v1/companies/')
              ? ids.company
              : path.startsWith('/v1/people/')
                ? ids.person
                : 'x1';
    const queryValue = (p: Parameter) =>
      p.schema?.default ?? p.schema?.enum?.[0] ?? (p.name === 'company_id' ? ids.company : 'a');

    const doc = JSON.parse((await rawGet(svc.url, '/openapi.json')).body) as OpenApi;
    const operations = Object.entries(doc.paths).filter(
      ([p, ops]) => p.startsWith('/v1/') && ops.get?.security,
    );
    expect(operations.length).toBeGreaterThanOrEqual(40);

    const readable: string[] = [];
    const leaks: string[] = [];
    let requests = 0;
    let servedWithKey = 0;
    for (const [template, ops] of operations) {
      const path = template.replace(/\{([^}]+)\}/g, (_m, name: string) => ids[name] ?? idFor(template)!);
      const query = (ops.get!.parameters ?? [])
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => `${p.name}=${encodeURIComponent(String(queryValue(p)))}`)
        .join('&');
      if ((await rawGet(svc.url, `${path}?${query}`, { 'x-api-key': key })).status === 200) servedWithKey++;
      for (const variant of pathVariants(path)) {
        const answer = await rawGet(svc.url, `${variant}${variant.includes('?') ? '&' : '?'}${query}`);
        requests++;
        if (answer.status === 200) readable.push(variant);
        if (!refusedOrUnrouted(answer)) leaks.push(`${variant} → ${answer.status}`);
      }
    }
    process.stderr.write(
      `${operations.length} GET /v1 operations (${servedWithKey} answer 200 with the key), ${requests} spellings without a credential: ${readable.length} answered 200, ${leaks.length} reached a handler\n`,
    );
    expect(servedWithKey).toBeGreaterThanOrEqual(20);
    expect(readable).toEqual([]);
    expect(leaks).toEqual([]);
  }, 300_000);

  it('writes no credential from a query string to its log, on success, 401 and 422', async () => {
    const wrongKey = 'esk_WrongWrongWrongWrongWrongWrong0123';
    const disableToken = 'eyJhIjoiYWxfeCIsImUiOiJ4QHkifQ.c2lnbmF0dXJlc2lnbmF0dXJl';
    const verifyToken = 'nev_VerificationTokenNotReal0123456789';
    const sent = [
      { path: `/v1/podcasts?limit=1&api-key=${key}`, status: 200 },
      { path: `/v1/podcasts?api%2Dkey=${key}&limit=1`, status: 200 },
      { path: `/v1/podcasts?limit=1&api-key=${wrongKey}`, status: 401 },
      { path: `/v1/alerts/disable?token=${disableToken}`, status: 422 },
      { path: `/v1/notification-emails/verify?token=${verifyToken}`, status: 422 },
    ];
    for (const { path, status } of sent) expect((await rawGet(svc.url, path)).status, path).toBe(status);
    const bearer = await rawGet(svc.url, '/v1/podcasts?limit=1&last=1', {
      authorization: `Bearer ${wrongKey}`,
    });
    expect(bearer.status).toBe(401);
    // Requests are logged in order as they come in; wait for the last one.
    await waitFor(() => svc.output().includes('/v1/podcasts?limit=1&last=1'), {
      timeoutMs: 10_000,
      what: 'the last request logged',
    });
    const log = svc.output();
    expect(log).toContain('/v1/podcasts?limit=1&api-key=[REDACTED]');
    expect(log).toContain('/v1/alerts/disable?token=[REDACTED]');
    for (const secret of [key, wrongKey, disableToken, verifyToken]) expect(log).not.toContain(secret);
  });
}
