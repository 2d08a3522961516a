import { describe, expect, it } from 'vitest';
import {
  canonicalUrl,
  OutboundGuard,
  OutboundRefusedError,
  OutboundResolveError,
  parseAllowlist,
} from '../../processors/alerts/delivery/outbound/outbound-guard.ts';
import { OutboundHttp } from '../../processors/alerts/delivery/outbound/outbound-http.ts';
import { startReceiver } from '../support/receiver.ts';

/** A guard whose DNS answers come from a table (no network). */
function guardWith(table: Record<string, string[]>, allowlist = '') {
  return new OutboundGuard({
    allowlist,
    resolver: async (host) => {
      const answers = table[host];
      if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  });
}

describe('outbound guard', () => {
  const dns = {
    'hooks.example.com': ['93.184.216.34'],
    'v6.example.com': ['2606:4700::1111'],
    'loopback.example.com': ['127.0.0.1'],
    'ten.example.com': ['10.1.2.3'],
    'metadata.example.com': ['169.254.169.254'],
    'v6-loopback.example.com': ['::1'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
    'mixed.example.com': ['93.184.216.34', '192.168.1.10'],
    'cgnat.example.com': ['100.64.0.1'],
    'ula.example.com': ['fd00::1'],
    'linklocal6.example.com': ['fe80::1'],
  };

  it('accepts https URLs resolving to public addresses', async () => {
    const guard = guardWith(dns);
    await expect(guard.check('https://hooks.example.com/earshot')).resolves.toMatchObject({
      addresses: ['93.184.216.34'],
    });
    await expect(guard.check('https://v6.example.com/x')).resolves.toBeTruthy();
    await expect(guard.check('https://93.184.216.34/x')).resolves.toBeTruthy();
  });

  it.each([
    ['https://loopback.example.com/', /loopback/],
    ['https://ten.example.com/', /private/],
    ['https://metadata.example.com/', /link-local/],
    ['https://v6-loopback.example.com/', /loopback/],
    ['https://mapped.example.com/', /loopback/],
    ['https://mixed.example.com/', /private/],
    ['https://cgnat.example.com/', /carrier-grade/],
    ['https://ula.example.com/', /unique-local/],
    ['https://linklocal6.example.com/', /link-local/],
    ['https://127.0.0.1/', /loopback/],
    ['https://10.0.0.8:8443/', /private/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://[::1]/', /loopback/],
    ['https://[::ffff:10.0.0.1]/', /private/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://0x7f.1/', /loopback/],
    ['https://2130706433/', /loopback/],
    ['https://224.0.0.1/', /multicast/],
  ])('refuses %s', async (url, why) => {
    const err = await guardWith(dns)
      .check(url)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefusedError);
    expect((err as Error).message).toMatch(why);
  });

  it('refuses plain http, other schemes and credentials', async () => {
    const guard = guardWith(dns);
    await expect(guard.check('http://hooks.example.com/')).rejects.toThrow(/https/);
    await expect(guard.check('ftp://hooks.example.com/')).rejects.toThrow(/https/);
    await expect(guard.check('https://user:pw@hooks.example.com/')).rejects.toThrow(/userinfo/);
    await expect(guard.check('not a url')).rejects.toThrow(OutboundRefusedError);
  });

  it.each([
    ['https://93.184.216.34\\@127.0.0.1/', /userinfo/],
    ['https://hooks.example.com\\x@127.0.0.1/', /userinfo/],
    ['https://:@hooks.example.com/', /userinfo/],
    ['https://@hooks.example.com/', /userinfo/],
    ['https://ops@hooks.example.com/', /userinfo/],
    ['https:\\\\:@hooks.example.com/', /userinfo/],
    ['https://hooks.example.com:0/', /port 0/],
    ['https://hooks.example.com:00/', /port 0/],
  ])('refuses userinfo of any form and port 0: %s', async (url, why) => {
    const err = await guardWith(dns)
      .check(url)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefusedError);
    expect((err as Error).message).toMatch(why);
    expect(() => canonicalUrl(url)).toThrow(why);
  });

  it.each([
    ['HTTPS://Hooks.Example.COM:443/a/./b/../c?x=1#f', 'https://hooks.example.com/a/c?x=1#f'],
    ['https://93.184.216.34\\hook', 'https://93.184.216.34/hook'],
    ['  https://0x5d.184.216.34/h\tok ', 'https://93.184.216.34/hok'],
    ['https://hooks.example.com/path@x?q=a@b', 'https://hooks.example.com/path@x?q=a@b'],
    ['https://hooks.example.com:8443', 'https://hooks.example.com:8443/'],
  ])('checks and returns the canonical form of %s', async (given, canonical) => {
    const checked = await guardWith(dns).check(given);
    expect(checked.url.href).toBe(canonical);
    expect(canonicalUrl(given).href).toBe(canonical);
    expect(canonicalUrl(canonical).href).toBe(canonical);
  });

  it('reports names that do not resolve separately from refusals', async () => {
    await expect(guardWith(dns).check('https://nowhere.example.com/')).rejects.toBeInstanceOf(
      OutboundResolveError,
    );
  });

  it('lets allowlisted CIDRs through, and only them over plain http', async () => {
    const guard = guardWith(dns, '127.0.0.1/32, 10.0.0.0/8 ::1/128');
    await expect(guard.check('http://127.0.0.1:8080/hook')).resolves.toBeTruthy();
    await expect(guard.check('http://loopback.example.com/')).resolves.toBeTruthy();
    await expect(guard.check('https://ten.example.com/')).resolves.toBeTruthy();
    await expect(guard.check('http://[::1]:9000/')).resolves.toBeTruthy();
    await expect(guard.check('https://mapped.example.com/')).resolves.toBeTruthy();
    await expect(guard.check('https://metadata.example.com/')).rejects.toThrow(/link-local/);
    // plain http to a public address is still refused
    await expect(guard.check('http://hooks.example.com/')).rejects.toThrow(/https/);
  });

  it('parses allowlists and rejects malformed ones', () => {
    expect(parseAllowlist('')).toEqual([]);
    expect(parseAllowlist('127.0.0.1/32,::1')).toHaveLength(2);
    expect(() => parseAllowlist('127.0.0.1/33')).toThrow();
    expect(() => parseAllowlist('nonsense')).toThrow();
  });

  it('re-checks at connect time: a lookup answering a private address fails the connection', async () => {
    let answer = '93.184.216.34';
    const guard = new OutboundGuard({
      resolver: async () => [{ address: answer, family: 4 }],
    });
    await expect(guard.check('https://rebind.example.com/')).resolves.toBeTruthy();
    answer = '127.0.0.1'; // the name now points somewhere else
    const lookup = guard.lookup(false);
    const err = await new Promise<unknown>((resolve) =>
      lookup('rebind.example.com', { all: true }, (e: unknown) => resolve(e)),
    );
    expect(err).toBeInstanceOf(OutboundRefusedError);
  });

  it('refuses a name that re-resolves to loopback between the check and the connection (DNS rebinding)', async () => {
    let calls = 0;
    const guard = new OutboundGuard({
      resolver: async () => [{ address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }],
    });
    const http = new OutboundHttp(guard);
    try {
      const res = await http.post({
        url: 'https://rebind.example.com/hook',
        body: '{}',
        headers: { 'content-type': 'application/json' },
        timeoutMs: 5000,
      });
      expect(calls).toBe(2);
      expect(res.refused).toBe(true);
      expect(res.error).toMatch(/^refused: .*loopback/);
    } finally {
      await http.close();
    }
  });

  it('with plainHttp (feeds), takes plain http to public addresses and still refuses private ones', async () => {
    const table = { 'feeds.example.com': ['93.184.216.34'], 'ten.example.com': ['10.1.2.3'] };
    const resolver = async (host: string) =>
      (table[host as keyof typeof table] ?? []).map((address) => ({ address, family: 4 }));
    const feeds = new OutboundGuard({ resolver, plainHttp: true });
    await expect(feeds.check('http://feeds.example.com/show.xml')).resolves.toMatchObject({
      addresses: ['93.184.216.34'],
    });
    await expect(feeds.check('http://ten.example.com/')).rejects.toThrow(/private/);
    await expect(feeds.check('http://:@feeds.example.com/')).rejects.toThrow(/userinfo/);
    await expect(new OutboundGuard({ resolver }).check('http://feeds.example.com/')).rejects.toThrow(/https/);
  });

  it('GET re-checks every connection: a name that re-resolves to loopback is refused, nothing is fetched', async () => {
    let calls = 0;
    const guard = new OutboundGuard({
      plainHttp: true,
      resolver: async () => [{ address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }],
    });
    const http = new OutboundHttp(guard);
    try {
      const res = await http.get({
        url: 'http://rebind.example.com/feed.xml',
        headers: {},
        timeoutMs: 5000,
        maxRedirects: 5,
        maxBodyBytes: 1024,
      });
      expect(calls).toBe(2);
      expect(res).toMatchObject({ refused: true, redirects: 0, url: 'http://rebind.example.com/feed.xml' });
      expect(res.status).toBeUndefined();
      expect(res.error).toMatch(/^refused: .*loopback/);
    } finally {
      await http.close();
    }
  });
  it('lets a leased loopback address and port through while the lease lasts, and nothing else', async () => {
    let now = 1_000_000;
    const guard = new OutboundGuard({
      now: () => now,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const rx = await startReceiver();
    const http = new OutboundHttp(guard);
    const post = (url: string) =>
      http.post({ url, body: '{}', headers: { 'content-type': 'application/json' }, timeoutMs: 5000 });
    try {
      await expect(guard.check(`${rx.url}/hook`)).rejects.toThrow(/loopback/);
      const lease = guard.lease('127.0.0.1', rx.port, 30_000);
      // The leased address and port, over plain http, checked and connected to.
      await expect(guard.check(`${rx.url}/hook`)).resolves.toMatchObject({ addresses: ['127.0.0.1'] });
      expect((await post(`${rx.url}/hook`)).status).toBe(200);
      expect(rx.received).toHaveLength(1);
      // Not another port, not another loopback address, not a name that resolves to it.
      await expect(guard.check(`http://127.0.0.1:${rx.port + 1}/`)).rejects.toThrow(/loopback/);
      await expect(guard.check(`http://127.0.0.2:${rx.port}/`)).rejects.toThrow(/loopback/);
      await expect(guard.check(`http://localhost:${rx.port}/`)).rejects.toThrow(/loopback/);
      // Renewed, it lasts; not renewed, it lapses; released, it ends at once.
      now += 20_000;
      expect(guard.renew(lease.id, 30_000)?.until).toBe(now + 30_000);
      now += 29_000;
      await expect(guard.check(`${rx.url}/hook`)).resolves.toBeTruthy();
      now += 2_000;
      await expect(guard.check(`${rx.url}/hook`)).rejects.toThrow(/loopback/);
      expect(guard.renew(lease.id, 30_000)).toBeUndefined();
      const again = guard.lease('127.0.0.1', rx.port, 30_000);
      expect((await post(`${rx.url}/hook`)).status).toBe(200);
      expect(guard.release(again.id)).toBe(true);
      const refused = await post(`${rx.url}/hook`);
      expect(refused.refused).toBe(true);
      expect(rx.received).toHaveLength(2);
      // Only loopback addresses can be leased.
      expect(() => guard.lease('10.1.2.3', 80, 1000)).toThrow(/loopback/);
      expect(() => guard.lease('93.184.216.34', 80, 1000)).toThrow(/loopback/);
      expect(() => guard.lease('localhost', 80, 1000)).toThrow(/loopback/);
    } finally {
      await http.close();
      await rx.close();
    }
  });
});
