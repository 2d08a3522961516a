import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../support/alerts.ts';
import { testApi } from '../support/api.ts';
import { startReceiver } from '../support/receiver.ts';

/**
 * Webhook URLs are read once, by the WHATWG URL parser, and stored in its canonical form; text
 * that another parser could read as a different host (userinfo in any form, a backslash before
 * an `@`) and port 0 are refused. Every consumer of a stored URL — create, rotate, the test send
 * and the sender — checks and uses that one canonical form. The only destination is a loopback
 * receiver (allowlisted); public IP literals appear only as URLs that are refused.
 */
type Api = Awaited<ReturnType<typeof testApi>>;

interface Connection {
  id: string;
  url: string;
  name: string;
  secret?: string;
}

describe('webhook URLs', () => {
  let api: Api;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const key = () => ({ 'x-api-key': api.keys.business! });
  const connections = () => `/v1/projects/${api.projects.business}/webhooks/connections`;
  const create = (url: string) =>
    api.app.inject({ method: 'POST', url: connections(), headers: key(), payload: { url } });

  beforeAll(async () => {
    rx = await startReceiver(() => ({ status: 204 }));
    api = await testApi({}, undefined, { delivery: { settings: { outboundAllowlist: '127.0.0.1/32' } } });
    await seedCatalog(api.state);
  });
  afterAll(async () => {
    await api?.close();
    await rx?.close();
  });

  /** A connection row as an older release stored it: the URL exactly as given. */
  async function legacyConnection(url: string): Promise<Connection> {
    const res = await create(`${rx.url}/placeholder`);
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json() as Connection;
    await api.state.query('UPDATE webhook_connections SET url = $2 WHERE id = $1', [c.id, url]);
    return { ...c, url };
  }

  async function alertFor(connectionId: string): Promise<string> {
    const res = await api.app.inject({
      method: 'POST',
      url: `/v1/projects/${api.projects.business}/alerts`,
      headers: key(),
      payload: {
        title: 'Apple on air',
        entities: [{ entity_type: 'COMPANY', entity_id: 'apple' }],
        notifications: [{ type: 'WEBHOOK', webhook_connection_id: connectionId }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: string }).id;
  }

  it.each([
    // WHATWG reads host 93.184.216.34 (a backslash is a slash); other parsers read userinfo
    // "93.184.216.34\" and host 127.0.0.1.
    ['https://93.184.216.34\\@127.0.0.1/', /userinfo/],
    ['https://93.184.216.34\\x@127.0.0.1:8443/hook', /userinfo/],
    // Empty userinfo: the WHATWG serialisation drops it, so it must be seen in the text.
    ['https://:@93.184.216.34/hook', /userinfo/],
    ['https://@93.184.216.34/hook', /userinfo/],
    ['https://ops@93.184.216.34/hook', /userinfo/],
    ['http://:@127.0.0.1:9/hook', /userinfo/],
    ['https://93.184.216.34:0/hook', /port 0/],
    ['http://127.0.0.1:0/hook', /port 0/],
    ['http://127.0.0.1:000/hook', /port 0/],
  ])('refuses %s at create', async (url, why) => {
    const before = await api.state.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_connections');
    const res = await create(url);
    expect(res.statusCode, res.body).toBe(422);
    const body = res.json() as { error_code: string; errors: { location: string; message: string }[] };
    expect(body.error_code).toBe('validation_error');
    expect(body.errors[0]).toMatchObject({ location: 'body.url', value: url });
    expect(body.errors[0]!.message).toMatch(why);
    const after = await api.state.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_connections');
    expect(after).toEqual(before);
  });

  it('stores, returns and delivers to the canonical form of the URL', async () => {
    const given = `  HTTP://127.0.0.1:${rx.port}\\a\\..\\canon/./hook?x=1#frag `;
    const canonical = `http://127.0.0.1:${rx.port}/canon/hook?x=1#frag`;
    const res = await create(given);
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json() as Connection;
    expect(c.url).toBe(canonical);
    expect(c.name).toBe(`127.0.0.1:${rx.port}`);
    const [row] = await api.state.query<{ url: string }>(
      'SELECT url FROM webhook_connections WHERE id = $1',
      [c.id],
    );
    expect(row!.url).toBe(canonical);
    const one = await api.app.inject({ method: 'GET', url: `${connections()}/${c.id}`, headers: key() });
    expect((one.json() as Connection).url).toBe(canonical);

    const alert = await alertFor(c.id);
    const sent = await api.app.inject({
      method: 'POST',
      url: `/v1/alerts/${alert}/test-webhook`,
      headers: key(),
    });
    expect(sent.statusCode, sent.body).toBe(200);
    expect((sent.json() as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ webhook_connection_id: c.id, url: canonical, delivered: true }),
    ]);
    expect(rx.received.filter((r) => r.url === '/canon/hook?x=1')).toHaveLength(1);
  });

  it('refuses to send to a stored URL with userinfo (test send), and delivers nothing', async () => {
    const c = await legacyConnection(`http://:@127.0.0.1:${rx.port}/legacy-userinfo`);
    const alert = await alertFor(c.id);
    const res = await api.app.inject({
      method: 'POST',
      url: `/v1/alerts/${alert}/test-webhook`,
      headers: key(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const [d] = (res.json() as { deliveries: { delivered: boolean; error: string | null }[] }).deliveries;
    expect(d).toMatchObject({ delivered: false });
    expect(d!.error).toMatch(/^refused: .*userinfo/);
    expect(rx.received.filter((r) => r.url.startsWith('/legacy-userinfo'))).toHaveLength(0);
  });

  it('rotation canonicalises a stored URL, and refuses one with userinfo or port 0', async () => {
    const messy = await legacyConnection(`HTTP://127.0.0.1:${rx.port}\\rotated`);
    const res = await api.app.inject({
      method: 'POST',
      url: `${connections()}/${messy.id}/rotate-secret`,
      headers: key(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as Connection).url).toBe(`http://127.0.0.1:${rx.port}/rotated`);
    const [row] = await api.state.query<{ url: string }>(
      'SELECT url FROM webhook_connections WHERE id = $1',
      [messy.id],
    );
    expect(row!.url).toBe(`http://127.0.0.1:${rx.port}/rotated`);

    for (const bad of [`http://93.184.216.34\\@127.0.0.1:${rx.port}/`, `http://127.0.0.1:0/rotate`]) {
      const legacy = await legacyConnection(bad);
      const refused = await api.app.inject({
        method: 'POST',
        url: `${connections()}/${legacy.id}/rotate-secret`,
        headers: key(),
      });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json()).toMatchObject({
        error_code: 'validation_error',
        errors: [{ location: 'path.id', message: expect.stringMatching(/userinfo|port 0/) }],
      });
    }
  });
});
