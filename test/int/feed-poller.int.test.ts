import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../infra/logger.ts';
import { episodeIdFor, podcastIdForFeed } from '../../ingest/feeds/feed-mapping.ts';
import { FeedPoller } from '../../ingest/feeds/feed-poller.ts';
import { FeedStore, parseInterval } from '../../ingest/feeds/feed-store.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { OutboundGuard } from '../../processors/alerts/delivery/outbound/outbound-guard.ts';
import { OutboundHttp } from '../../processors/alerts/delivery/outbound/outbound-http.ts';
import type { EpisodePublished, Podcast } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { readTopic } from '../support/topics.ts';

type Backbone = Awaited<ReturnType<typeof embeddedBackbone>>;

interface Item {
  guid: string;
  title: string;
  date: string;
  guest?: string;
}

function rss(items: Item[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">
  <channel>
    <title>The Local Ledger</title>
    <link>https://ledger.example</link>
    <description>Money, &lt;b&gt;markets&lt;/b&gt; and the people behind them.</description>
    <language>en-us</language>
    <itunes:explicit>no</itunes:explicit>
    <itunes:category text="Business"/>
    <podcast:person role="host">Dana Whitfield</podcast:person>
    ${items
      .map(
        (i) => `<item>
      <guid isPermaLink="false">${i.guid}</guid>
      <title>${i.title}</title>
      <pubDate>${i.date}</pubDate>
      <description>All about ${i.title}.</description>
      <enclosure url="https://cdn.ledger.example/${i.guid}.mp3" type="audio/mpeg" length="1"/>
      <itunes:duration>00:42:30</itunes:duration>
      ${i.guest ? `<podcast:person role="guest" href="https://example.org">${i.guest}</podcast:person>` : ''}
    </item>`,
      )
      .join('\n    ')}
  </channel>
</rss>`;
}

const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Atom Notes</title>
  <link href="https://atom.example/"/>
  <updated>2025-11-20T10:00:00Z</updated>
  <id>urn:uuid:feed</id>
  <entry>
    <title>First note</title>
    <link href="https://atom.example/1"/>
    <id>urn:uuid:entry-1</id>
    <updated>2025-11-19T10:00:00Z</updated>
    <summary>The first one.</summary>
  </entry>
  <entry>
    <title>Second note</title>
    <link href="https://atom.example/2"/>
    <id>urn:uuid:entry-2</id>
    <updated>2025-11-20T10:00:00Z</updated>
    <summary>The second one.</summary>
  </entry>
</feed>`;

describe('feed poller', () => {
  let server: http.Server;
  let base: string;
  let items: Item[];
  let etag: string;
  const lastModified = 'Wed, 19 Nov 2025 10:00:00 GMT';
  const requests: { path: string; ifNoneMatch?: string; ifModifiedSince?: string; status: number }[] = [];
  let bb: Backbone;
  let store: FeedStore;
  let state: IngestState;
  let now: number;
  let poller: FeedPoller;
  // The local feed server is on loopback: allowlisted, as EARSHOT_OUTBOUND_ALLOWLIST would.
  const client = new OutboundHttp(new OutboundGuard({ allowlist: '127.0.0.1/32', plainHttp: true }));

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const ifNoneMatch = req.headers['if-none-match'];
      const ifModifiedSince = req.headers['if-modified-since'];
      const log = (status: number) => requests.push({ path: req.url!, ifNoneMatch, ifModifiedSince, status });
      if (req.url === '/moved.xml') {
        log(301);
        res.writeHead(301, { location: '/feed.xml' }).end();
      } else if (req.url === '/feed.xml') {
        if (ifNoneMatch === etag) {
          log(304);
          res.writeHead(304, { etag }).end();
          return;
        }
        log(200);
        res
          .writeHead(200, { 'content-type': 'application/rss+xml', etag, 'last-modified': lastModified })
          .end(rss(items));
      } else if (req.url === '/atom.xml') {
        log(200);
        res.writeHead(200, { 'content-type': 'application/atom+xml' }).end(atom);
      } else {
        log(404);
        res.writeHead(404).end('no such feed');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await client.close();
    await new Promise((r) => server.close(r));
  });
  beforeEach(async () => {
    bb = await embeddedBackbone();
    store = new FeedStore(path.join(bb.dir, 'feeds'));
    state = new IngestState(path.join(bb.dir, 'ingest-state'));
    now = Date.UTC(2025, 10, 21, 12);
    poller = new FeedPoller({
      store,
      producer: bb.producer,
      logger: silentLogger(),
      state,
      http: client,
      now: () => now,
    });
    requests.length = 0;
    etag = '"v1"';
    items = [
      {
        guid: 'ledger-1',
        title: 'Rates and you',
        date: 'Mon, 17 Nov 2025 06:00:00 GMT',
        guest: 'Marcus Oyelaran',
      },
      { guid: 'ledger-2', title: 'Chips and tariffs', date: 'Tue, 18 Nov 2025 06:00:00 GMT' },
    ];
  });
  afterEach(async () => {
    await poller.stop();
    await state.close();
    await store.close();
    await bb.close();
  });

  it('turns new items into episodes with a conditional GET: 200, then 304 with the validators, then only what is new', async () => {
    const url = `${base}/feed.xml`;
    await store.add(url, parseInterval('15m'), podcastIdForFeed(url), now);

    const first = await poller.pollOnce(url);
    expect(first).toEqual({ url, status: 200, published: 2, podcastPublished: true });
    const podcasts = await readTopic<Podcast>(bb.log, bb.codec, TOPICS.podcasts);
    expect(podcasts.map((p) => p.value)).toMatchObject([
      {
        id: podcastIdForFeed(url),
        title: 'The Local Ledger',
        description: 'Money, markets and the people behind them.',
        language: 'en-us',
        feed_url: url,
        content_advisory_rating: 'clean',
        categories: [{ slug: 'business', name: 'Business', parent_slug: null }],
      },
    ]);
    let episodes = (await readTopic<EpisodePublished>(bb.log, bb.codec, TOPICS.episodes)).map((e) => e.value);
    expect(episodes.map((e) => [e.id, e.guid, e.title])).toEqual(
      expect.arrayContaining([
        [episodeIdFor(url, 'ledger-1'), 'ledger-1', 'Rates and you'],
        [episodeIdFor(url, 'ledger-2'), 'ledger-2', 'Chips and tariffs'],
      ]),
    );
    const ep1 = episodes.find((e) => e.guid === 'ledger-1')!;
    expect(ep1).toMatchObject({
      podcast_id: podcastIdForFeed(url),
      published_at: Date.UTC(2025, 10, 17, 6),
      duration_seconds: 2550,
      audio_url: 'https://cdn.ledger.example/ledger-1.mp3',
      source: 'feed',
      people: [
        { name: 'Dana Whitfield', role: 'host' },
        { name: 'Marcus Oyelaran', role: 'guest' },
      ],
    });
    expect(state.knownEpisode(ep1.id)).toBe(true);
    expect(state.knownPodcast(podcastIdForFeed(url))).toBe(true);

    // Unchanged: the server sees both validators and answers 304; nothing new is produced.
    now += 16 * 60_000;
    expect(await poller.pollOnce(url)).toEqual({ url, status: 304, published: 0, podcastPublished: false });
    expect(requests.at(-1)).toEqual({
      path: '/feed.xml',
      ifNoneMatch: '"v1"',
      ifModifiedSince: lastModified,
      status: 304,
    });

    // A new item: only it becomes an episode; the channel did not change, so no new podcast record.
    items.push({ guid: 'ledger-3', title: 'The jobs report', date: 'Thu, 20 Nov 2025 06:00:00 GMT' });
    etag = '"v2"';
    now += 16 * 60_000;
    expect(await poller.pollOnce(url)).toEqual({ url, status: 200, published: 1, podcastPublished: false });
    episodes = (await readTopic<EpisodePublished>(bb.log, bb.codec, TOPICS.episodes)).map((e) => e.value);
    expect(episodes).toHaveLength(3);
    expect(await readTopic(bb.log, bb.codec, TOPICS.podcasts)).toHaveLength(1);
    expect(store.get(url)).toMatchObject({ etag: '"v2"', lastModified, lastStatus: 200, episodes: 3 });
  });

  it('polls only feeds that are due, follows redirects, reads Atom, and records failures', async () => {
    await store.add(`${base}/moved.xml`, parseInterval('15m'), 'pod_moved', now);
    await store.add(`${base}/atom.xml`, parseInterval('1h'), podcastIdForFeed(`${base}/atom.xml`), now + 1);
    await store.add(`${base}/gone.xml`, parseInterval('30s'), 'pod_gone', now + 2);
    now += 10;
    const results = await poller.pollDue();
    expect(results.map((r) => [r.url.replace(base, ''), r.status, r.published])).toEqual([
      ['/moved.xml', 200, 2],
      ['/atom.xml', 200, 2],
      ['/gone.xml', 404, 0],
    ]);
    expect(store.get(`${base}/gone.xml`)).toMatchObject({ lastStatus: 404, lastError: 'HTTP 404' });
    const atomEpisodes = (await readTopic<EpisodePublished>(bb.log, bb.codec, TOPICS.episodes))
      .map((e) => e.value)
      .filter((e) => e.podcast_id === podcastIdForFeed(`${base}/atom.xml`));
    // Episodes are keyed by id, so they spread over partitions: compare in guid order.
    const byGuid = atomEpisodes.sort((a, b) => String(a.guid).localeCompare(String(b.guid)));
    expect(byGuid.map((e) => [e.guid, e.title, e.description])).toEqual([
      ['urn:uuid:entry-1', 'First note', 'The first one.'],
      ['urn:uuid:entry-2', 'Second note', 'The second one.'],
    ]);

    now += 60_000;
    expect((await poller.pollDue()).map((r) => r.url.replace(base, ''))).toEqual(['/gone.xml']);
    now += 15 * 60_000;
    expect((await poller.pollDue()).map((r) => r.url.replace(base, ''))).toEqual(['/moved.xml', '/gone.xml']);
  });

  it('refuses items holding text no store accepts, naming the field, and publishes the rest', async () => {
    const url = `${base}/feed.xml`;
    await store.add(url, parseInterval('15m'), podcastIdForFeed(url), now);
    items = [
      { guid: 'ledger-nul', title: 'Rates \u0000 and you', date: 'Mon, 17 Nov 2025 06:00:00 GMT' },
      { guid: 'g'.repeat(300), title: 'A guid too long to be a key', date: 'Mon, 17 Nov 2025 07:00:00 GMT' },
      { guid: 'ledger-2', title: 'Chips and tariffs', date: 'Tue, 18 Nov 2025 06:00:00 GMT' },
    ];
    const result = await poller.pollOnce(url);
    expect(result).toMatchObject({ status: 200, published: 1, podcastPublished: true });
    expect(result.rejected).toEqual([
      {
        guid: 'ledger-nul',
        errors: [
          { field: 'data.title', reason: 'must not contain the NUL character (U+0000)' },
          { field: 'data.description', reason: 'must not contain the NUL character (U+0000)' },
        ],
      },
      { guid: 'g'.repeat(300), errors: [{ field: 'data.guid', reason: 'must be at most 256 characters' }] },
    ]);
    const episodes = (await readTopic<EpisodePublished>(bb.log, bb.codec, TOPICS.episodes)).map(
      (e) => e.value,
    );
    expect(episodes.map((e) => e.guid)).toEqual(['ledger-2']);
  });
});
