import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EpisodeRecord } from '../../api/views/episodes.ts';
import { testApi } from '../support/api.ts';
import { archiveParts, episodeEvents, podcastSummaryPart } from '../support/archive.ts';
import { sseClient } from '../support/sse-client.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const HOUR = 3_600_000;
// A full collection on demand, to compare heaps without garbage in them.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set(
    'date-time',
    (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v) && !Number.isNaN(Date.parse(v)),
  );
const NOV = Date.UTC(2025, 10, 1);
/** API processes that read each other's positions share the secrets key (EARSHOT_SECRETS_KEY). */
const SECRETS = { settings: { secretsKey: randomBytes(32) } };

describe('episode streams: live stream, archive replay, bulk download', () => {
  const tmp = tempDir('earshot-streams-');
  let api: Awaited<ReturnType<typeof testApi>>;
  let url: string;
  let n = 0;

  /** Writes a complete episode to the archive as the projector would, and wakes the live feed. */
  async function publish(o: Partial<Parameters<typeof episodeEvents>[0]> & { publishedAt: number }) {
    const id = o.id ?? `ep_live_${++n}`;
    const e = episodeEvents({ podcastId: 'pod_a', entityId: 'ent_acme', personId: 'ent_dana', ...o, id });
    await api.archive!.write(archiveParts(e, Date.now()));
    api.feed!.nudge();
    return id;
  }

  beforeAll(async () => {
    api = await testApi(
      {
        streams: { perKey: 150, heartbeatMs: 300, stallMs: 1500, bufferBytes: 256 * 1024, closeGraceMs: 500 },
        archiveBuildsDir: tmp.dir,
      },
      undefined,
      { archive: { pollMs: 50 }, delivery: SECRETS },
    );
    await api.state.exec(`
      INSERT INTO catalog_publishers (id, slug, name, updated_at) VALUES ('pub_b', 'pub-b', 'Pub B', now());
      INSERT INTO catalog_podcasts (id, slug, title, language, publisher_id, updated_at) VALUES
        ('pod_a', 'pod-a', 'Pod A', 'en-US', NULL, now()), ('pod_b', 'pod-b', 'Pod B', 'fr-FR', 'pub_b', now());
      INSERT INTO catalog_entities (id, slug, kind, name, category_slug, category_name, company_domain, updated_at) VALUES
        ('ent_acme', 'acme', 'COMPANY', 'Acme', 'technology', 'Technology', 'acme.example', now());
      INSERT INTO catalog_entities (id, slug, kind, name, category_slug, category_name, person, updated_at) VALUES
        ('ent_dana', 'dana-whitfield', 'PERSON', 'Dana Whitfield', 'media', 'Media', '{"title":"Host"}', now());
    `);
    await api.archive!.write([
      podcastSummaryPart('pod_a'),
      podcastSummaryPart('pod_b', 1, { publisherId: 'pub_b', language: 'fr-FR' }),
    ]);
    await api.accounts.grantEntitlement(api.projects.enterprise!, 'archive');
    url = await api.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const get = (path: string, key = api.keys.enterprise!, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { headers: { 'x-api-key': key, ...headers } });

  describe('live stream', () => {
    it('delivers an episode once it is complete, as the shared record, and resumes after Last-Event-ID with no gap and no duplicate', async () => {
      const client = sseClient(`${url}/v1/podcasts/episodes/stream`, api.keys.enterprise!);
      try {
        await client.waitForEvents('position', 1);
        const first = await publish({ publishedAt: NOV + HOUR });
        await client.waitForEvents('episode', 1);
        const [record] = client.episodes();
        expect(
          Value.Check(EpisodeRecord, record),
          JSON.stringify([...Value.Errors(EpisodeRecord, record)][0]),
        ).toBe(true);
        expect(record).toMatchObject({
          id: first,
          language: 'en-US',
          podcast: { id: 'pod_a', slug: 'pod_a-slug' },
          entities: [{ entity: { id: 'ent_acme', name: 'Acme' }, line_count: 1, relevance: 'on_target' }],
          speakers: [
            {
              label: 'SPEAKER_1',
              name: 'Dana Whitfield',
              person: { id: 'ent_dana', slug: 'dana-whitfield' },
            },
            { label: 'SPEAKER_2', person: null },
          ],
          segments: [{ id: `${first}-seg-1` }],
          clips: [{ id: `${first}-clip-1` }],
        });
        const lines = (
          record as unknown as { transcript: { lines: { speaker_name: string | null; role: string }[] } }
        ).transcript.lines;
        expect(lines[0]).toMatchObject({ speaker_name: 'Dana Whitfield', role: 'HOST' });
        const lastId = client.of('episode')[0]!.id;
        client.close();
        const more = [
          await publish({ publishedAt: NOV + 2 * HOUR }),
          await publish({ publishedAt: NOV + 3 * HOUR }),
        ];
        const resumed = sseClient(`${url}/v1/podcasts/episodes/stream`, api.keys.enterprise!, {
          lastEventId: lastId,
        });
        try {
          await resumed.waitForEvents('episode', 2);
          await new Promise((r) => setTimeout(r, 200));
          expect(resumed.episodes().map((e) => e.id)).toEqual(more);
        } finally {
          resumed.close();
        }
      } finally {
        client.close();
      }
    });

    it('reads the same positions on another API process sharing the store', async () => {
      const other = await testApi({}, undefined, {
        state: api.state,
        archive: { pollMs: 50 },
        delivery: SECRETS,
      });
      const otherUrl = await other.app.listen({ port: 0, host: '127.0.0.1' });
      const here = sseClient(`${url}/v1/podcasts/episodes/stream`, api.keys.enterprise!);
      try {
        await here.waitForEvents('position', 1);
        const ids = [
          await publish({ publishedAt: NOV + 4 * HOUR }),
          await publish({ publishedAt: NOV + 5 * HOUR }),
        ];
        await here.waitForEvents('episode', 2);
        // The first event's id, handed out here, read there: the second episode and nothing else.
        const there = sseClient(`${otherUrl}/v1/podcasts/episodes/stream`, api.keys.enterprise!, {
          lastEventId: here.of('episode')[0]!.id,
        });
        try {
          await there.waitForEvents('episode', 1);
          await new Promise((r) => setTimeout(r, 200));
          expect(there.episodes().map((e) => e.id)).toEqual([ids[1]]);
        } finally {
          there.close();
        }
      } finally {
        here.close();
        await other.app.close();
        other.feed?.stop();
      }
    });

    it('filters by podcast, publisher and language, include keeps only what it names, and positions move past what was skipped', async () => {
      const french = sseClient(
        `${url}/v1/podcasts/episodes/stream?language=fr&include=segments`,
        api.keys.enterprise!,
      );
      const byPublisher = sseClient(
        `${url}/v1/podcasts/episodes/stream?publisher_id=pub-b`,
        api.keys.enterprise!,
      );
      const byPodcast = sseClient(
        `${url}/v1/podcasts/episodes/stream?podcast_id=pod-a&include=`,
        api.keys.enterprise!,
      );
      try {
        await Promise.all([french, byPublisher, byPodcast].map((c) => c.waitForEvents('position', 1)));
        const a = await publish({ publishedAt: NOV + 6 * HOUR });
        const b = await publish({ publishedAt: NOV + 7 * HOUR, podcastId: 'pod_b' });
        await Promise.all([french, byPublisher, byPodcast].map((c) => c.waitForEvents('episode', 1)));
        await new Promise((r) => setTimeout(r, 200));
        expect(french.episodes().map((e) => e.id)).toEqual([b]);
        expect(Object.keys(french.episodes()[0]!)).toEqual(expect.arrayContaining(['segments']));
        expect(Object.keys(french.episodes()[0]!)).not.toEqual(expect.arrayContaining(['transcript']));
        expect(french.episodes()[0]!.language).toBe('fr-FR');
        expect(byPublisher.episodes().map((e) => e.id)).toEqual([b]);
        expect(byPodcast.episodes().map((e) => e.id)).toEqual([a]);
        expect(byPodcast.episodes()[0]).not.toHaveProperty('transcript');
        expect(byPodcast.episodes()[0]).not.toHaveProperty('clips');
        // b was skipped on the podcast stream: its position moved past it all the same.
        await byPodcast.waitForEvents('position', 2);
        expect(byPodcast.source.url).toContain('podcast_id');
      } finally {
        for (const c of [french, byPublisher, byPodcast]) c.close();
      }
    });

    it('answers a cursor older than the stream keeps with an error event and goes on from the oldest kept; a future one with an error and the end', async () => {
      const old = await publish({ publishedAt: NOV + 8 * HOUR });
      const kept = await publish({ publishedAt: NOV + 9 * HOUR });
      const [row] = await api.state.query<{ seq: number }>(
        'SELECT seq FROM archive_live WHERE episode_id = $1',
        [old],
      );
      const seq = Number(row?.seq);
      await api.state.query(`UPDATE archive_live SET ready_at = now() - interval '30 days' WHERE seq <= $1`, [
        seq,
      ]);
      const expired = api.app.cursors.encode('episode-stream', { s: seq - 1 });
      const client = sseClient(`${url}/v1/podcasts/episodes/stream`, api.keys.enterprise!, {
        lastEventId: expired,
      });
      try {
        await client.waitForEvents('episode', 1);
        expect(JSON.parse(client.of('error')[0]!.data)).toMatchObject({ error_code: 'cursor_expired' });
        expect(client.episodes()[0]!.id).toBe(kept);
      } finally {
        client.close();
      }
      const future = api.app.cursors.encode('episode-stream', { s: seq + 1_000_000 });
      const res = await get(`/v1/podcasts/episodes/stream?cursor=${future}`);
      expect(res.status).toBe(200);
      const text = await res.text(); // the server ends the stream
      expect(text).toContain('event: error');
      expect(text).toContain('"error_code":"cursor_ahead"');
    });

    it('refuses bad input with problems naming the parameter, and plans without premium endpoints', async () => {
      const cases: [string, Record<string, string>, number, string][] = [
        ['/v1/podcasts/episodes/stream?cursor=garbage', {}, 422, 'query.cursor'],
        ['/v1/podcasts/episodes/stream', { 'last-event-id': 'not-a-position' }, 422, 'header.last-event-id'],
        ['/v1/podcasts/episodes/stream?include=words', {}, 422, 'query.include'],
        ['/v1/podcasts/episodes/stream?language=english!', {}, 422, 'query.language'],
        ['/v1/podcasts/episodes/stream?podcast_id=nope', {}, 404, 'query.podcast_id'],
        ['/v1/podcasts/episodes/stream?publisher_id=nope', {}, 404, 'query.publisher_id'],
      ];
      for (const [path, headers, status, location] of cases) {
        const res = await get(path, api.keys.enterprise!, headers);
        expect(res.status, path).toBe(status);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        const body = (await res.json()) as { errors: { location: string }[] };
        expect(
          body.errors.map((e) => e.location),
          path,
        ).toContain(location);
      }
      const archiveCursor = api.app.cursors.encode('archive-stream', {
        p: '2025-11',
        g: '0'.repeat(16),
        n: 0,
      });
      const other = await get(`/v1/podcasts/episodes/stream?cursor=${archiveCursor}`);
      expect(other.status).toBe(422);
      const starter = await get('/v1/podcasts/episodes/stream', api.keys.starter!);
      expect(starter.status).toBe(403);
      expect(((await starter.json()) as { error_code: string }).error_code).toBe('premium_required');
    });

    it('serves 100 clients at once, each every episode once', async () => {
      const clients = Array.from({ length: 100 }, () =>
        sseClient(`${url}/v1/podcasts/episodes/stream?include=transcript`, api.keys.enterprise!),
      );
      try {
        await Promise.all(clients.map((c) => c.waitForEvents('position', 1, 30_000)));
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) ids.push(await publish({ publishedAt: NOV + (10 + i) * HOUR }));
        await Promise.all(clients.map((c) => c.waitForEvents('episode', 5, 30_000)));
        await new Promise((r) => setTimeout(r, 200));
        for (const c of clients) expect(c.episodes().map((e) => e.id)).toEqual(ids);
      } finally {
        for (const c of clients) c.close();
      }
    }, 60_000);

    it('holds at most the key’s stream limit and answers 429 with Retry-After beyond', async () => {
      const limited = await testApi({ streams: { perKey: 2 } }, undefined, { state: api.state, archive: {} });
      const limitedUrl = await limited.app.listen({ port: 0, host: '127.0.0.1' });
      const open = [0, 1].map(() =>
        sseClient(`${limitedUrl}/v1/podcasts/episodes/stream`, api.keys.enterprise!),
      );
      try {
        await Promise.all(open.map((c) => c.waitForEvents('position', 1)));
        const res = await fetch(`${limitedUrl}/v1/podcasts/episodes/stream`, {
          headers: { 'x-api-key': api.keys.enterprise! },
        });
        expect(res.status).toBe(429);
        expect(res.headers.get('retry-after')).toBe('5');
        expect(((await res.json()) as { error_code: string }).error_code).toBe('rate_limited');
        open[0]!.close();
        await waitFor(async () => {
          const again = await fetch(`${limitedUrl}/v1/podcasts/episodes/stream`, {
            headers: { 'x-api-key': api.keys.enterprise! },
          });
          const ok = again.status === 200;
          await again.body?.cancel();
          return ok;
        });
      } finally {
        for (const c of open) c.close();
        await limited.app.close();
        limited.feed?.stop();
      }
    });

    it('closes a client that stops reading once its buffer passes the bound, and the server’s memory stays flat', async () => {
      // A raw connection that sends the request and then reads nothing.
      const { port } = new URL(url);
      const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
      socket.setNoDelay(true);
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        `GET /v1/podcasts/episodes/stream?include=transcript HTTP/1.1\r\nHost: x\r\nX-API-Key: ${api.keys.enterprise}\r\n\r\n`,
      );
      await new Promise((r) => setTimeout(r, 200));
      socket.pause();
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => undefined);
      const slowBefore = api.app.streams!.stats.slowClosed;
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      // Large transcripts: 40 episodes of about 400 KB each (16 MB), far more than the 256 KB bound.
      const lines = Array.from(
        { length: 2000 },
        (_, i) => `Line ${i} of a long transcript: ${'words '.repeat(30)}`,
      );
      let largest = 0;
      for (let i = 0; i < 40; i++) {
        await publish({ publishedAt: NOV + 2 * 24 * HOUR + i * 60_000, lines });
        largest = Math.max(largest, lines.join('').length);
      }
      await waitFor(() => api.app.streams!.stats.slowClosed > slowBefore, {
        timeoutMs: 15_000,
        what: 'slow client closed',
      });
      socket.destroy();
      await closed;
      // What waited for the stalled client never passed the bound by more than one event…
      expect(api.app.streams!.stats.slowMaxWaiting).toBeLessThan(256 * 1024 + largest * 1.2);
      // …and the heap holds no more than the shared record cache (32 MB) after a collection.
      gc();
      expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(40 * 1024 * 1024);
    }, 60_000);
  });

  describe('archive replay and bulk download', () => {
    const DEC = Date.UTC(2025, 11, 1);
    const decIds: string[] = [];

    beforeAll(async () => {
      // December: 7 episodes over 3 days, written out of publication order.
      const times = [3, 1, 30, 2, 50, 27, 51].map((h) => DEC + h * HOUR);
      for (const [i, t] of times.entries()) {
        await publish({ id: `ep_dec_${i}`, publishedAt: t, podcastId: i % 2 ? 'pod_a' : 'pod_b' });
      }
      decIds.push(
        ...times
          .map((t, i) => ({ t, id: `ep_dec_${i}` }))
          .sort((a, b) => a.t - b.t)
          .map((x) => x.id),
      );
    });

    const replay = (query: string, lastEventId?: string) =>
      sseClient(`${url}/v1/podcasts/episodes/archive/stream?${query}`, api.keys.enterprise!, { lastEventId });

    it('needs the archive entitlement, with a resolve that says how to get it', async () => {
      for (const path of [
        '/v1/podcasts/episodes/archive/stream?period=2025-12',
        '/v1/podcasts/episodes/archive/download?period=2025-12',
      ]) {
        const res = await get(path, api.keys.business!);
        expect(res.status).toBe(403);
        const body = (await res.json()) as {
          error_code: string;
          resolve: { message: string; action: string };
        };
        expect(body.error_code).toBe('entitlement_required');
        expect(body.resolve.action).toBe('request_entitlement');
        expect(body.resolve.message).toContain(
          `earshot projects grant archive --project ${api.projects.business}`,
        );
      }
    });

    it('refuses a malformed period, a day that does not exist, an unknown include and an unreadable cursor', async () => {
      const cases: [string, string][] = [
        ['period=2025-1', 'query.period'],
        ['period=2025-13', 'query.period'],
        ['period=2025-02-30', 'query.period'],
        ['period=1800-01', 'query.period'],
        ['period=2025-12&include=words', 'query.include'],
        ['period=2025-12&cursor=garbage', 'query.cursor'],
        ['include=all', 'query.period'],
      ];
      for (const endpoint of ['stream', 'download']) {
        for (const [query, location] of cases) {
          if (endpoint === 'download' && location === 'query.cursor') continue;
          const res = await get(`/v1/podcasts/episodes/archive/${endpoint}?${query}`);
          expect(res.status, `${endpoint}?${query}`).toBe(422);
          const body = (await res.json()) as { errors: { location: string }[] };
          expect(
            body.errors.map((e) => e.location),
            `${endpoint}?${query}`,
          ).toContain(location);
        }
      }
      const otherPeriod = api.app.cursors.encode('archive-stream', { p: '2025-11', g: '0'.repeat(16), n: 0 });
      const res = await get(`/v1/podcasts/episodes/archive/stream?period=2025-12&cursor=${otherPeriod}`);
      expect(res.status).toBe(422);
    });

    it('replays a period in publication order, closes with complete, and resumes from the third event with no gap and no duplicate', async () => {
      const whole = replay('period=2025-12');
      try {
        await whole.waitForEvents('complete', 1);
        whole.close();
        expect(whole.episodes().map((e) => e.id)).toEqual(decIds);
        const complete = whole.of('complete')[0]!;
        expect(JSON.parse(complete.data)).toEqual({ episodes: 7, period: '2025-12' });
        expect(complete.id).toBe(whole.of('episode')[6]!.id);
      } finally {
        whole.close();
      }
      const third = whole.of('episode')[2]!.id;
      const resumed = replay('period=2025-12', third);
      try {
        await resumed.waitForEvents('complete', 1);
        resumed.close();
        expect(resumed.episodes().map((e) => e.id)).toEqual(decIds.slice(3));
        expect(JSON.parse(resumed.of('complete')[0]!.data)).toEqual({ episodes: 7, period: '2025-12' });
      } finally {
        resumed.close();
      }
      // A cursor belongs to its period.
      const elsewhere = await get(`/v1/podcasts/episodes/archive/stream?period=2025-12-02&cursor=${third}`);
      expect(elsewhere.status).toBe(422);
      // The cursor parameter does what Last-Event-ID does.
      const byCursor = replay(`period=2025-12&cursor=${third}`);
      try {
        await byCursor.waitForEvents('complete', 1);
        byCursor.close();
        expect(byCursor.episodes().map((e) => e.id)).toEqual(decIds.slice(3));
      } finally {
        byCursor.close();
      }
    });

    it('answers a cursor with an error event once a late episode landed before it, and not for one landing after it', async () => {
      const first = replay('period=2025-12');
      await first.waitForEvents('complete', 1);
      first.close();
      const third = first.of('episode')[2]!.id; // on Dec 1
      const fifth = first.of('episode')[4]!.id; // on Dec 2
      // Late on Dec 3 (after both positions' days): both cursors still resume.
      await publish({ id: 'ep_dec_late_3', publishedAt: DEC + 49 * HOUR, podcastId: 'pod_a' });
      const ok = replay('period=2025-12', fifth);
      await ok.waitForEvents('complete', 1);
      ok.close();
      expect(ok.of('error')).toEqual([]);
      expect(ok.episodes().map((e) => e.id)).toContain('ep_dec_late_3');
      // Late on Dec 2, before the fifth event: that cursor is stale, the third's (Dec 1) is not.
      await publish({ id: 'ep_dec_late_2', publishedAt: DEC + 26 * HOUR, podcastId: 'pod_a' });
      const stale = replay('period=2025-12', fifth);
      await stale.waitForEvents('error', 1);
      stale.close();
      expect(JSON.parse(stale.of('error')[0]!.data)).toMatchObject({ error_code: 'cursor_stale' });
      expect(stale.of('episode')).toEqual([]);
      const fine = replay('period=2025-12', third);
      await fine.waitForEvents('complete', 1);
      fine.close();
      expect(fine.of('error')).toEqual([]);
      expect(JSON.parse(fine.of('complete')[0]!.data)).toEqual({ episodes: 9, period: '2025-12' });
    });

    it('downloads the same records as the replay, gzip when accepted, with an ETag, conditional requests and byte ranges', async () => {
      const sse = replay('period=2025-12');
      await sse.waitForEvents('complete', 1);
      sse.close();
      const expected = sse.of('episode').map((e) => e.data);
      const plain = await get('/v1/podcasts/episodes/archive/download?period=2025-12', api.keys.enterprise!, {
        'accept-encoding': 'identity',
      });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toContain('application/x-ndjson');
      expect(plain.headers.get('content-encoding')).toBeNull();
      const text = await plain.text();
      expect(text.trimEnd().split('\n')).toEqual(expected);
      expect(Number(plain.headers.get('content-length'))).toBe(Buffer.byteLength(text));
      const etag = plain.headers.get('etag')!;

      // gzip: the raw bytes (undici would decode them), one gzip member for the whole period.
      const gz = await rawGet('/v1/podcasts/episodes/archive/download?period=2025-12', {
        'accept-encoding': 'gzip',
      });
      expect(gz.status).toBe(200);
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.headers.vary).toContain('accept-encoding');
      const gzEtag = gz.headers.etag as string;
      expect(gzEtag).not.toBe(etag);
      expect(gunzipSync(gz.body).toString()).toBe(text);
      // One member: its trailer holds the size of the whole period's NDJSON.
      expect(gz.body.readUInt32LE(gz.body.length - 4)).toBe(Buffer.byteLength(text));
      expect(gz.body.length).toBeLessThan(Buffer.byteLength(text));

      // Resume a cut download with Range + If-Range.
      const cut = Math.floor(gz.body.length / 3);
      const rest = await rawGet('/v1/podcasts/episodes/archive/download?period=2025-12', {
        'accept-encoding': 'gzip',
        range: `bytes=${cut}-`,
        'if-range': gzEtag,
      });
      expect(rest.status).toBe(206);
      expect(rest.headers['content-range']).toBe(`bytes ${cut}-${gz.body.length - 1}/${gz.body.length}`);
      expect(Buffer.concat([gz.body.subarray(0, cut), rest.body]).equals(gz.body)).toBe(true);
      const middle = await rawGet('/v1/podcasts/episodes/archive/download?period=2025-12', {
        'accept-encoding': 'identity',
        range: 'bytes=100-199',
      });
      expect(middle.status).toBe(206);
      expect(middle.body.toString()).toBe(Buffer.from(text).subarray(100, 200).toString());
      // A stale If-Range gets the whole thing; If-None-Match the current ETag gets 304.
      const whole = await rawGet('/v1/podcasts/episodes/archive/download?period=2025-12', {
        'accept-encoding': 'gzip',
        range: 'bytes=10-',
        'if-range': '"stale"',
      });
      expect(whole.status).toBe(200);
      expect(whole.body.equals(gz.body)).toBe(true);
      const unchanged = await rawGet('/v1/podcasts/episodes/archive/download?period=2025-12', {
        'accept-encoding': 'gzip',
        'if-none-match': gzEtag,
      });
      expect(unchanged.status).toBe(304);
      const beyond = await rawGet('/v1/podcasts/episodes/archive/download?period=2025-12', {
        'accept-encoding': 'gzip',
        range: `bytes=${gz.body.length}-`,
      });
      expect(beyond.status).toBe(416);
      expect(beyond.headers['content-range']).toBe(`bytes */${gz.body.length}`);
      expect(beyond.headers['content-type']).toContain('application/problem+json');
      // A day with nothing in it: empty.
      const empty = await get('/v1/podcasts/episodes/archive/download?period=2025-12-20');
      expect(empty.status).toBe(200);
      expect(await empty.text()).toBe('');
      // Another episode in the period: a new build, a new ETag.
      await publish({ id: 'ep_dec_new', publishedAt: DEC + 60 * HOUR, podcastId: 'pod_a' });
      const after = await rawGet('/v1/podcasts/episodes/archive/download?period=2025-12', {
        'accept-encoding': 'gzip',
      });
      expect(after.headers.etag).not.toBe(gzEtag);
      expect(gunzipSync(after.body).toString().trimEnd().split('\n')).toHaveLength(expected.length + 1);
    });

    it('ends open streams on shutdown with a reconnection hint', async () => {
      const closing = await testApi({}, undefined, { state: api.state, archive: {} });
      const closingUrl = await closing.app.listen({ port: 0, host: '127.0.0.1' });
      const res = await fetch(`${closingUrl}/v1/podcasts/episodes/stream`, {
        headers: { 'x-api-key': api.keys.enterprise! },
      });
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toContain('retry: 3000');
      const done = closing.app.close();
      let rest = '';
      for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        rest += new TextDecoder().decode(value);
      }
      await done;
      closing.feed?.stop();
      expect(rest).toContain('retry: 1000');
    });

    async function rawGet(path: string, headers: Record<string, string>) {
      return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
        (resolve, reject) => {
          const req = http.get(
            `${url}${path}`,
            { headers: { 'x-api-key': api.keys.enterprise!, ...headers } },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () =>
                resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
              );
              res.on('error', reject);
            },
          );
          req.on('error', reject);
        },
      );
    }
  });
});
