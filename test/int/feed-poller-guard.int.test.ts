import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { podcastIdForFeed } from '../../ingest/feeds/feed-mapping.ts';
import { FeedPoller } from '../../ingest/feeds/feed-poller.ts';
import { FeedStore, parseInterval } from '../../ingest/feeds/feed-store.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { OutboundGuard } from '../../processors/alerts/delivery/outbound/outbound-guard.ts';
import { OutboundHttp } from '../../processors/alerts/delivery/outbound/outbound-http.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { countTopic } from '../support/topics.ts';

/**
 * Feed fetches go through the outbound guard: the feed URL and every redirect target are
 * checked (and connected to at the checked address), at most five redirects are followed. The
 * only server is on 127.0.0.1; `0.0.0.0` stands for an internal address (on Linux a connection
 * to it reaches the loopback server, which is what made it a way around naive checks).
 */
const feed = (title: string) => `<?xml version="1.0"?>
<rss version="2.0"><channel><title>${title}</title><link>https://feeds.example/</link>
<description>d</description>
<item><guid>${title}-1</guid><title>One</title><pubDate>Mon, 17 Nov 2025 06:00:00 GMT</pubDate></item>
<item><guid>${title}-2</guid><title>Two</title><pubDate>Tue, 18 Nov 2025 06:00:00 GMT</pubDate></item>
</channel></rss>`;

describe('feed poller through the outbound guard', () => {
  let server: http.Server;
  let port: number;
  let base: string;
  const seen: string[] = [];
  let bb: Awaited<ReturnType<typeof embeddedBackbone>>;
  let store: FeedStore;
  let state: IngestState;
  const clients: OutboundHttp[] = [];

  /** A guarded client as the service builds it for feeds: plain http allowed, loopback only if allowlisted. */
  function guarded(allowlist: string): OutboundHttp {
    const client = new OutboundHttp(new OutboundGuard({ allowlist, plainHttp: true }));
    clients.push(client);
    return client;
  }

  async function poll(url: string, client: OutboundHttp) {
    await store.add(url, parseInterval('15m'), podcastIdForFeed(url), Date.now());
    const poller = new FeedPoller({
      store,
      producer: bb.producer,
      logger: silentLogger(),
      state,
      http: client,
    });
    try {
      return await poller.pollOnce(url);
    } finally {
      await poller.stop();
    }
  }

  const published = () => countTopic(bb.log, TOPICS.episodes) + countTopic(bb.log, TOPICS.podcasts);

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = req.url ?? '';
      seen.push(url);
      const hop = /^\/hop\/(\d+)$/.exec(url);
      if (hop && Number(hop[1]) > 0) {
        res.writeHead(302, { location: `/hop/${Number(hop[1]) - 1}` }).end();
      } else if (url === '/to-internal') {
        res.writeHead(302, { location: `http://0.0.0.0:${port}/internal.xml` }).end();
      } else if (url === '/to-userinfo') {
        res.writeHead(307, { location: `http://ops:pw@127.0.0.1:${port}/feed.xml` }).end();
      } else if (url === '/to-port-zero') {
        res.writeHead(301, { location: 'http://127.0.0.1:0/feed.xml' }).end();
      } else if (url === '/internal.xml') {
        res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(feed('Internal'));
      } else {
        res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(feed('Public'));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(async () => {
    bb = await embeddedBackbone();
    store = new FeedStore(path.join(bb.dir, 'feeds'));
    state = new IngestState(path.join(bb.dir, 'ingest-state'));
    seen.length = 0;
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await state.close();
    await store.close();
    await bb.close();
  });

  it('fetches nothing from a loopback feed when loopback is not allowlisted', async () => {
    const result = await poll(`${base}/feed.xml`, guarded(''));
    expect(result).toMatchObject({ status: 0, published: 0 });
    expect(result.error).toMatch(/^refused: .*loopback/);
    expect(seen).toEqual([]);
    expect(published()).toBe(0);
    expect(store.get(`${base}/feed.xml`)?.lastError).toMatch(/refused/);
  });

  it.each([
    ['/to-internal', /refused: .*0\.0\.0\.0 is a unspecified/],
    ['/to-userinfo', /refused: .*userinfo/],
    ['/to-port-zero', /refused: .*port 0/],
  ])('does not follow a redirect the guard refuses (%s)', async (start, why) => {
    const result = await poll(`${base}${start}`, guarded('127.0.0.1/32'));
    expect(result.published).toBe(0);
    expect(result.error).toMatch(why);
    // The first hop was fetched; the refused target never was.
    expect(seen).toEqual([start]);
    expect(published()).toBe(0);
  });

  it('follows up to five redirects, each checked, and no more', async () => {
    const ok = await poll(`${base}/hop/5`, guarded('127.0.0.1/32'));
    expect(ok).toMatchObject({ status: 200, published: 2, podcastPublished: true });
    expect(seen).toEqual(['/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1', '/hop/0']);

    seen.length = 0;
    const before = published();
    const tooMany = await poll(`${base}/hop/6`, guarded('127.0.0.1/32'));
    expect(tooMany.published).toBe(0);
    expect(tooMany.error).toMatch(/more than 5 redirects/);
    expect(seen).toEqual(['/hop/6', '/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1']);
    expect(published()).toBe(before);
  });
});
