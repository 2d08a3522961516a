import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requirePremiumEndpoint } from '../../api/premium.ts';
import type { ProblemError } from '../../api/problem.ts';
import { testApi } from '../support/api.ts';
import { type PageClient, signedInMember } from '../support/dashboard.ts';

type Api = Awaited<ReturnType<typeof testApi>>;
const DASHBOARD = 'http://127.0.0.1:8080/dashboard';

/** Every dashboard address in a text: absolute links under `DASHBOARD`. */
function dashboardLinks(text: string): string[] {
  return [...text.matchAll(/http:\/\/127\.0\.0\.1:8080\/dashboard[^\s)"'`<>,]*/g)].map((m) =>
    m[0].replace(/[.;]$/, ''),
  );
}

/**
 * The links that send people to the dashboard — in `/auth.md`, `/llms.txt`, the OpenAPI
 * document and the `resolve` of problem documents — lead to pages that exist: each answers 200
 * to a signed-in member of the project it names.
 */
describe('links to the dashboard', () => {
  let api: Api;
  let member: { browser: PageClient };
  let projectId: string;
  let key: string;

  beforeAll(async () => {
    api = await testApi();
    const m = await signedInMember(api, 'links@example.test');
    member = m;
    await m.browser.get(`/orgs/${m.organization.id}`);
    const created = await m.browser.post(`/orgs/${m.organization.id}/projects`, { name: 'Links' });
    projectId = /\/projects\/([^/?#]+)/.exec(created.location!)![1]!;
    key = (await api.accounts.createApiKey({ projectId })).key;
  });
  afterAll(async () => api?.close());

  async function expectPage(link: string) {
    const path = new URL(link.replaceAll('{projectId}', projectId).replaceAll('%7BprojectId%7D', projectId));
    expect(path.origin + path.pathname.slice(0, 10)).toBe(`${DASHBOARD.slice(0, -10)}/dashboard`);
    const res = await member.browser.get(`${path.pathname}${path.search}`, { follow: true });
    expect(res.status, link).toBe(200);
  }

  it('in /auth.md, /llms.txt, the OpenAPI document and the start page', async () => {
    const auth = (await api.app.inject({ method: 'GET', url: '/auth.md' })).body;
    const llms = (await api.app.inject({ method: 'GET', url: '/llms.txt' })).body;
    const openapi = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).body;
    const start = (await api.app.inject({ method: 'GET', url: '/' })).body;
    expect(dashboardLinks(start).length).toBeGreaterThanOrEqual(1);
    expect(auth).not.toContain('{dashboard_url}');
    const links = [
      ...dashboardLinks(auth),
      ...dashboardLinks(llms),
      ...dashboardLinks(openapi),
      ...dashboardLinks(start),
    ];
    expect(dashboardLinks(auth).length).toBeGreaterThanOrEqual(4);
    expect(dashboardLinks(llms).length).toBeGreaterThanOrEqual(5);
    expect(dashboardLinks(openapi).length).toBeGreaterThanOrEqual(3);
    // A delivery page needs a delivery; its path is the one the alert tests follow.
    for (const link of new Set(links.filter((l) => !l.includes('{deliveryId}')))) await expectPage(link);
    expect(llms).toContain(`${DASHBOARD}/deliveries/{deliveryId}`);
  });

  it('in the resolve of problem documents', async () => {
    const resolveOf = async (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}) => {
      const res = await api.app.inject({ method, url, headers });
      const url_ = (res.json() as { resolve?: { url?: string } }).resolve?.url;
      expect(url_, `${method} ${url} → ${res.body}`).toBeDefined();
      return url_!;
    };
    const links = [
      await resolveOf('GET', `/v1/organizations/x/projects`),
      await resolveOf('POST', `/v1/projects/${projectId}/api-keys`, { 'x-api-key': key }),
    ];
    const expired = await api.accounts.createApiKey({ projectId, expiresAt: new Date(Date.now() - 1000) });
    links.push(await resolveOf('GET', `/v1/organizations/x/projects`, { 'x-api-key': expired.key }));
    // The plan gate of alerts (the project is on the Starter plan).
    const alert = await api.app.inject({
      method: 'POST',
      url: `/v1/projects/${projectId}/alerts`,
      headers: { 'x-api-key': key },
      payload: {
        title: 't',
        entities: [{ entity_type: 'COMPANY', entity_id: 'x' }],
        notifications: [{ type: 'WEBHOOK', webhook_connection_id: 'whc_x' }],
      },
    });
    expect(alert.json()).toMatchObject({ error_code: 'plan_does_not_support_alerts' });
    links.push((alert.json() as { resolve: { url: string } }).resolve.url);
    // Premium gates (their routes need the analytics store): the same function the routes call.
    const principal = await api.accounts.authenticate(key);
    try {
      requirePremiumEndpoint({ principal, url: '/v1/premium' } as unknown as FastifyRequest, DASHBOARD);
      expect.unreachable();
    } catch (err) {
      links.push((err as ProblemError).options.resolve!.url!);
    }
    expect(links).toContain(`${DASHBOARD}/projects/${projectId}/keys`);
    expect(links).toContain(`${DASHBOARD}/projects/${projectId}/plan`);
    for (const link of links) await expectPage(link);
  });
});
