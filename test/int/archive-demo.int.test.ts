import http from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SEED } from '../../ingest/corpus/demo.ts';
import { generateCorpus, PRESETS } from '../../ingest/corpus/generate.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { loadNdjson } from '../../ingest/loader/loader.ts';
import type { ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { understandingSteps } from '../../processors/context/steps.ts';
import { analyticsProjectors } from '../../projections/analytics/analytics-projectors.ts';
import { type AnalyticsStore, migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { ArchiveStore, archiveProjector } from '../../projections/archive/index.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { migrate } from '../../projections/state/migrations.ts';
import type { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { runUntilCaughtUp } from '../support/analytics.ts';
import { testApi } from '../support/api.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { sseClient } from '../support/sse-client.ts';
import { memoryStateStore } from '../support/state.ts';

type Feed = {
  data: { id: string; published_at: string; title: string; podcast: { id: string } }[];
  has_more: boolean;
  cursor: string;
};

/**
 * The demo corpus through the real pipeline (NDJSON loader, mention detection and speaker
 * identification, catalog, analytics and archive projectors), then the API over what they wrote:
 * a month of the archive replayed with a real SSE client against the episode feed.
 */
describe('archive replay of the demo corpus', () => {
  let bb: Awaited<ReturnType<typeof embeddedBackbone>>;
  let state: PgliteStateStore;
  let analytics: AnalyticsStore;
  let api: Awaited<ReturnType<typeof testApi>>;
  let url: string;
  let month: string;
  let projectors: ProcessorDefinition<unknown, unknown>[];
  const asOf = Date.UTC(2025, 10, 21);

  beforeAll(async () => {
    bb = await embeddedBackbone();
    const dir = path.join(bb.dir, 'demo-corpus');
    await generateCorpus({ ...PRESETS.demo, seed: DEMO_SEED, out: dir, asOf });
    const ingest = new IngestState(path.join(bb.dir, 'ingest-state'));
    await loadNdjson(dir, { producer: bb.producer, state: ingest });
    await ingest.close();
    state = memoryStateStore();
    await migrate(state);
    analytics = new ChdbAnalyticsStore(path.join(bb.dir, 'analytics'));
    await migrateAnalytics(analytics);
    const catalog = new CatalogReader(state);
    const understanding = understandingSteps({ eventLog: bb.log, producer: bb.producer, dataDir: bb.dir });
    projectors = [
      catalogProjector(state, () => catalog.invalidate()),
      ...analyticsProjectors(analytics).filter((d) => d.name === 'analytics-catalog'),
      archiveProjector(new ArchiveStore(state)),
    ] as ProcessorDefinition<unknown, unknown>[];
    await runUntilCaughtUp(
      bb,
      [understanding.context, understanding.mentions, understanding.speakers] as never,
      {
        maxBatchItems: 200,
      },
    );
    await runUntilCaughtUp(bb, projectors, { maxBatchItems: 200 });
    api = await testApi({ archiveBuildsDir: path.join(bb.dir, 'builds') }, undefined, {
      state,
      analytics,
      archive: {},
    });
    await api.accounts.grantEntitlement(api.projects.enterprise!, 'archive');
    url = await api.app.listen({ port: 0, host: '127.0.0.1' });
    // The month with the most demo episodes.
    const [busiest] = await state.query<{ month: string }>(
      `SELECT to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month FROM catalog_episodes
       GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
    );
    month = busiest!.month;
  }, 180_000);

  afterAll(async () => {
    await api?.close();
    await analytics?.close();
    await state?.close();
    await bb?.close();
  });

  const key = () => api.keys.enterprise!;
  const replay = async (lastEventId?: string) => {
    const client = sseClient(`${url}/v1/podcasts/episodes/archive/stream?period=${month}`, key(), {
      lastEventId,
    });
    await Promise.race([
      client.waitForEvents('complete', 1, 60_000),
      client.waitForEvents('error', 1, 60_000),
    ]);
    client.close();
    return client;
  };

  it('replays a month whole: the feed’s episodes of that month, in publication order, complete.episodes equal', async () => {
    const feed: Feed['data'] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await fetch(`${url}/v1/podcasts/episodes?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: { 'x-api-key': key() },
      });
      const page = (await res.json()) as Feed;
      feed.push(...page.data);
      cursor = page.cursor;
      if (!page.has_more) break;
    }
    expect(feed.length).toBe(PRESETS.demo.podcasts * PRESETS.demo.episodesPerPodcast);
    const expected = feed
      .filter((e) => e.published_at.startsWith(month))
      .sort((a, b) => a.published_at.localeCompare(b.published_at) || (a.id < b.id ? -1 : 1));
    expect(expected.length).toBeGreaterThan(10);

    const client = await replay();
    const records = client.episodes();
    expect(records.map((r) => r.id)).toEqual(expected.map((e) => e.id));
    expect(JSON.parse(client.of('complete')[0]!.data)).toEqual({ episodes: expected.length, period: month });
    // The records carry what the feed shows, and the heavy relations.
    for (const [i, r] of records.entries()) {
      expect(r).toMatchObject({ ...expected[i], people: expect.any(Array) });
      expect((r as unknown as { transcript: { lines: unknown[] } }).transcript.lines.length).toBeGreaterThan(
        20,
      );
      expect((r as unknown as { speakers: unknown[] }).speakers.length).toBeGreaterThan(0);
    }
    expect(records.some((r) => (r as unknown as { entities: unknown[] }).entities.length > 0)).toBe(true);
  });

  it('resumes from the third event’s id with no gap and no duplicate', async () => {
    const whole = await replay();
    const resumed = await replay(whole.of('episode')[2]!.id);
    expect(resumed.episodes().map((e) => e.id)).toEqual(
      whole
        .episodes()
        .slice(3)
        .map((e) => e.id),
    );
    expect(resumed.of('complete')[0]!.data).toBe(whole.of('complete')[0]!.data);
  });

  it('serves the same records as the bulk download, gzip and ranges alike', async () => {
    const sse = await replay();
    const gz = await rawGet(`/v1/podcasts/episodes/archive/download?period=${month}`, {
      'accept-encoding': 'gzip',
    });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    const lines = gunzipSync(gz.body).toString().trimEnd().split('\n');
    expect(lines).toEqual(sse.of('episode').map((e) => e.data));
    const half = Math.floor(gz.body.length / 2);
    const rest = await rawGet(`/v1/podcasts/episodes/archive/download?period=${month}`, {
      'accept-encoding': 'gzip',
      range: `bytes=${half}-`,
      'if-range': gz.headers.etag as string,
    });
    expect(rest.status).toBe(206);
    expect(Buffer.concat([gz.body.subarray(0, half), rest.body]).equals(gz.body)).toBe(true);
  });

  it('makes an old cursor stale once a late episode lands in the month before it', async () => {
    const whole = await replay();
    const third = whole.episodes()[2]!;
    const podcast = (third as unknown as { podcast: { id: string } }).podcast.id;
    // Published a minute before the second episode, processed now: it lands before the cursor.
    const at = Date.parse(whole.episodes()[1]!.published_at) - 60_000;
    const id = 'ep_late_demo';
    await bb.producer.send(TOPICS.episodes, [
      {
        key: id,
        value: {
          id,
          slug: 'late-demo-episode',
          podcast_id: podcast,
          guid: id,
          title: 'A late episode',
          description: null,
          published_at: at,
          duration_seconds: 60,
          audio_url: null,
          image_url: null,
          language: null,
          people: [],
          source: 'ingest',
        },
      },
    ]);
    await bb.producer.send(TOPICS.transcripts, [
      {
        key: id,
        value: {
          episode_id: id,
          language: 'en-US',
          lines: [
            {
              number: 1,
              speaker: 'SPEAKER_1',
              role: null,
              start_seconds: 0,
              end_seconds: 4,
              text: 'Welcome back.',
              words: null,
            },
          ],
          transcribed_at: Date.now(),
        },
      },
    ]);
    // The understanding steps of a new process (their table reopens from its directory).
    const understanding = understandingSteps({ eventLog: bb.log, producer: bb.producer, dataDir: bb.dir });
    await runUntilCaughtUp(
      bb,
      [understanding.context, understanding.mentions, understanding.speakers] as never,
      {
        maxBatchItems: 200,
      },
    );
    await runUntilCaughtUp(bb, projectors, { maxBatchItems: 200 });
    const stale = await replay(whole.of('episode')[2]!.id);
    expect(stale.of('episode')).toEqual([]);
    expect(JSON.parse(stale.of('error')[0]!.data)).toMatchObject({ error_code: 'cursor_stale' });
    const again = await replay();
    expect(again.episodes().map((e) => e.id)).toContain(id);
    expect(JSON.parse(again.of('complete')[0]!.data).episodes).toBe(whole.episodes().length + 1);
  }, 120_000);

  async function rawGet(p: string, headers: Record<string, string>) {
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
      (resolve, reject) => {
        http
          .get(`${url}${p}`, { headers: { 'x-api-key': key(), ...headers } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
            );
          })
          .on('error', reject);
      },
    );
  }
});
