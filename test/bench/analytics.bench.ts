import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../infra/config.ts';
import { silentLogger } from '../../infra/logger.ts';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { EventProducer } from '../../ingest/event-producer.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import { ConsumerRunner, type ProcessorDefinition } from '../../processors/consumer-runner.ts';
import {
  analyticsProjectors,
  HEAVY_PROJECTOR_MEMBERS,
} from '../../projections/analytics/analytics-projectors.ts';
import {
  type AnalyticsStore,
  COMPACTED_TABLES,
  compactAnalytics,
  migrateAnalytics,
} from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { ClickHouseAnalyticsStore } from '../../projections/analytics/clickhouse-analytics-store.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { allTopicSpecs, TOPICS, type TopicSpec } from '../../schemas/topics.ts';
import { testApi } from '../support/api.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { rng, type SynthOptions, synthCatalog, synthEpisodes, synthRatings } from './analytics-synth.ts';
import { type Bench, type BenchResult, percentile } from './bench.ts';

/**
 * The analytics benchmark: a year of synthetic mentions (10,000,000 mention lines by default,
 * `EARSHOT_BENCH_MENTION_ROWS` to change) produced as events, projected through the real
 * projectors and consumer runner, then read through the API over HTTP, warm. Runs on the
 * embedded engine, and also on a ClickHouse server when `CLICKHOUSE_URL` is set.
 */
const DAY = 86_400_000;
const SAMPLES = 200;

export async function produceAll(
  producer: EventProducer,
  o: SynthOptions,
  progress: (msg: string) => void,
): Promise<{
  episodes: number;
  mentions: number;
  entityEpisodes: number;
  speakers: number;
  ads: number;
  segments: number;
  ratings: number;
}> {
  const c = synthCatalog(o);
  const send = (topic: TopicSpec, values: { key: string; value: unknown }[]) => producer.send(topic, values);
  await send(
    TOPICS.publishers,
    c.publishers.map((p) => ({ key: p.id, value: p })),
  );
  await send(
    TOPICS.podcasts,
    c.podcasts.map((p) => ({ key: p.id, value: p })),
  );
  for (let i = 0; i < c.entities.length; i += 5000) {
    await send(
      TOPICS.entities,
      c.entities.slice(i, i + 5000).map((e) => ({ key: e.id, value: e })),
    );
  }
  const totals = {
    episodes: 0,
    mentions: 0,
    entityEpisodes: 0,
    speakers: 0,
    ads: 0,
    segments: 0,
    ratings: 0,
  };
  for (let p = 0; p < c.podcasts.length; p += 200) {
    const ratings = Array.from({ length: Math.min(200, c.podcasts.length - p) }, (_, i) =>
      synthRatings(o, c, p + i),
    ).flat();
    totals.ratings += ratings.length;
    await send(
      TOPICS.ratings,
      ratings.map((x) => ({ key: x.podcast_id, value: x })),
    );
  }
  let batch: ReturnType<typeof synthEpisodes> extends Generator<infer T> ? T[] : never = [];
  const inFlight = new Set<Promise<unknown>>();
  const flush = async () => {
    const b = batch;
    batch = [];
    const p = Promise.all([
      send(
        TOPICS.episodes,
        b.map((e) => ({ key: e.episode.id, value: e.episode })),
      ),
      send(
        TOPICS.mentions,
        b.map((e) => ({ key: e.episode.id, value: e.mentions })),
      ),
      send(
        TOPICS.speakers,
        b.map((e) => ({ key: e.episode.id, value: e.speakers })),
      ),
      send(
        TOPICS.adReads,
        b.map((e) => ({ key: e.episode.id, value: e.adReads })),
      ),
      send(
        TOPICS.segments,
        b.map((e) => ({ key: e.episode.id, value: e.segments })),
      ),
    ]).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= 3) await Promise.race(inFlight);
  };
  for (let p = 0; p < c.podcasts.length; p++) {
    for (const e of synthEpisodes(o, c, p)) {
      batch.push(e);
      totals.episodes++;
      totals.mentions += new Set(e.mentions.mentions.map((m) => `${m.entity_id}/${m.line_number}`)).size;
      totals.entityEpisodes += e.mentions.entities.length;
      totals.speakers += e.speakers.speakers.length;
      totals.ads += e.adReads.ad_reads.length;
      totals.segments += e.segments.segments.length;
      if (batch.length >= 1000) await flush();
    }
    if (p % 500 === 0)
      progress(
        `produced ${totals.episodes.toLocaleString()} episodes, ${totals.mentions.toLocaleString()} mention lines`,
      );
  }
  if (batch.length > 0) await flush();
  await Promise.all(inFlight);
  return totals;
}

export async function runToEnd(
  log: LmdbEventLog,
  producer: EventProducer,
  definitions: ProcessorDefinition<unknown, unknown>[],
): Promise<number> {
  const started = performance.now();
  const runners = definitions.map(
    (d) =>
      new ConsumerRunner(d, log, producer, silentLogger(), {
        maxBatchItems: Number(process.env.CONSUMER_BATCH_SIZE ?? 2000),
        maxBatchWaitMs: 1000,
      }),
  );
  for (const r of runners) await r.start();
  for (const r of runners) {
    await waitFor(async () => (await r.lag()).every((p) => p.lag === 0), {
      what: `${r.name} caught up`,
      timeoutMs: 3_600_000,
      stepMs: 200,
    });
  }
  const seconds = (performance.now() - started) / 1000;
  for (const r of runners) await r.stop();
  return seconds;
}

/** Waits until the engine has no merges running (up to a minute): "warm" means settled. */
export async function settle(store: AnalyticsStore): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const [r] = await store.query<{ n: number }>('SELECT count() AS n FROM system.merges');
    if (Number(r?.n ?? 0) === 0) return;
    await new Promise((res) => setTimeout(res, 1000));
  }
}

export async function latencies(urls: string[], key: string): Promise<number[]> {
  const out: number[] = [];
  for (const url of urls) {
    const t = performance.now();
    const res = await fetch(url, { headers: { 'x-api-key': key } });
    await res.arrayBuffer();
    out.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  }
  return out.sort((a, b) => a - b);
}

async function runOn(
  engine: string,
  openStore: () => Promise<AnalyticsStore>,
  progress: (msg: string) => void,
): Promise<BenchResult[]> {
  const bench = `analytics (${engine})`;
  const tmp = tempDir('earshot-bench-analytics-');
  const log = new LmdbEventLog(path.join(tmp.dir, 'log'));
  const registry = new LmdbSchemaRegistry(path.join(tmp.dir, 'registry'));
  const codec = new AvroCodec(registry);
  const specs = allTopicSpecs();
  await log.createTopics(specs);
  for (const s of specs) await codec.registerTopic(s.name, s.valueSchema);
  const producer = new EventProducer(log, codec);
  const store = await openStore();
  const state = new PgliteStateStore(path.join(tmp.dir, 'state'));
  try {
    await migrateAnalytics(store);
    await migrate(state);
    const now = Date.now();
    const o: SynthOptions = {
      mentionRows: Number(process.env.EARSHOT_BENCH_MENTION_ROWS ?? 10_000_000),
      podcasts: 3000,
      publishers: 150,
      entities: 30_000,
      days: 365,
      seed: 7,
      now,
    };
    const produced = await produceAll(producer, o, progress);
    progress(`produced ${JSON.stringify(produced)}`);
    const catalog = new CatalogReader(state);
    // Compaction is run explicitly below, so reads are measured both before and after it.
    const projectors = analyticsProjectors(store, {
      compact: false,
      batchItems: loadConfig().env.EARSHOT_ANALYTICS_BATCH_SIZE,
    }) as ProcessorDefinition<unknown, unknown>[];
    const named = (name: string) => projectors.filter((d) => d.name === name);
    const stateCatalog = {
      ...catalogProjector(state, () => catalog.invalidate()),
      inputs: [TOPICS.publishers, TOPICS.podcasts, TOPICS.entities],
    } as ProcessorDefinition<unknown, unknown>;
    progress('projecting the catalog, episodes and ad reads');
    await runToEnd(log, producer, [
      stateCatalog,
      ...named('analytics-catalog'),
      ...named('analytics-episode-parts'),
      ...named('analytics-charts'),
    ]);
    progress('projecting mentions and speakers (measured)');
    const loadBefore = os.loadavg()[0]!;
    const cpuBefore = process.cpuUsage();
    const seconds = await runToEnd(log, producer, named('analytics-mentions'));
    const cpu = process.cpuUsage(cpuBefore);
    // CPU time of this process (the projectors and the embedded engine's threads).
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const ingestLoad = `machine load (1-min average) ${loadBefore.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`;
    const [written] = await store.query<{ lines: number; rollup: number; speakers: number }>(
      `SELECT (SELECT count() FROM mention_lines) AS lines, (SELECT count() FROM entity_episodes) AS rollup,
         (SELECT count() FROM episode_speakers) AS speakers`,
    );
    const rows = Number(written!.lines) + Number(written!.rollup) + Number(written!.speakers);
    progress(`projected ${rows.toLocaleString()} rows in ${seconds.toFixed(1)} s; letting merges settle`);
    await settle(store);

    const api = await testApi({ rateLimitPerMinute: 100_000_000 }, undefined, { state, analytics: store });
    const base = await api.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const key = api.keys.business!;
      // Entities as queries arrive: weighted by how often they are mentioned.
      const r = rng(99);
      const topEntities = await store.query<{ entity_id: string; n: number }>(
        'SELECT entity_id, count() AS n FROM entity_episodes GROUP BY entity_id ORDER BY n DESC LIMIT 2000',
      );
      const total = topEntities.reduce((s, e) => s + Number(e.n), 0);
      const pickEntity = () => {
        let x = r.next() * total;
        for (const e of topEntities) {
          x -= Number(e.n);
          if (x <= 0) return e.entity_id;
        }
        return topEntities[0]!.entity_id;
      };
      const until = new Date(now).toISOString();
      const since = new Date(now - 90 * DAY).toISOString();
      const sample = (make: () => string) => Array.from({ length: SAMPLES }, make);
      const timeseries = sample(
        () =>
          `${base}/v1/podcasts/mentions/timeseries?entity_id=${pickEntity()}&since=${since}&until=${until}&interval=day`,
      );
      const byPodcast = sample(
        () =>
          `${base}/v1/podcasts/mentions/by-podcast?entity_id=${pickEntity()}&since=${since}&until=${until}&limit=25`,
      );
      const top = topEntities[0]!.entity_id;
      const topOnly = Array.from(
        { length: 50 },
        () =>
          `${base}/v1/podcasts/mentions/by-podcast?entity_id=${top}&since=${since}&until=${until}&limit=25`,
      );
      const trends = sample(() => `${base}/v1/podcasts/advertising/sponsors/trends`);
      const trendsCold = Array.from(
        { length: 90 },
        (_, i) => `${base}/v1/podcasts/advertising/sponsors/trends?window_days=${i + 1}&min_podcast_reach=3`,
      );
      const partsOf = async () =>
        (
          await store.query<{ table: string; parts: number }>(
            `SELECT table, count() AS parts FROM system.parts WHERE active AND database = currentDatabase()
               AND table IN {tables:Array(String)} GROUP BY table ORDER BY table`,
            { tables: [...COMPACTED_TABLES] },
          )
        )
          .map((p) => `${p.table} ${p.parts}`)
          .join(', ');
      progress('warming up');
      await latencies([...timeseries.slice(0, 40), ...byPodcast.slice(0, 40), trends[0]!], key);
      // As the engine's merges left the tables after the bulk load: several overlapping parts.
      const mergedParts = await partsOf();
      progress(`measuring as merged by the engine (active parts: ${mergedParts})`);
      const mergedLoad = os.loadavg()[0]!;
      const tsMerged = await latencies(timeseries.slice(0, 100), key);
      const bpMerged = await latencies(byPodcast.slice(0, 100), key);
      const mergedNote = `before compaction (active parts: ${mergedParts}); load ${mergedLoad.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}; 100 requests`;
      progress('compacting (OPTIMIZE … FINAL, what the projectors do after a bulk load)');
      const compactStarted = performance.now();
      await compactAnalytics(store);
      const compactSeconds = (performance.now() - compactStarted) / 1000;
      await settle(store);
      await latencies([...timeseries.slice(0, 40), ...byPodcast.slice(0, 40)], key);
      progress(
        `measuring after compaction (${compactSeconds.toFixed(1)} s; active parts: ${await partsOf()})`,
      );
      const readLoad = os.loadavg()[0]!;
      const ts = await latencies(timeseries, key);
      const bp = await latencies(byPodcast, key);
      const bpTop = await latencies(topOnly, key);
      const tr = await latencies(trends, key);
      const trCold = await latencies(trendsCold, key);
      const ms = (v: number) => Math.round(v * 10) / 10;
      // The catalog-surface list reads, warm (each URL set warmed once, then measured).
      const companies = await store.query<{ company_id: string }>(
        "SELECT company_id FROM ad_reads WHERE company_id != '' GROUP BY company_id ORDER BY count() DESC LIMIT 200",
      );
      const podcastIds = await store.query<{ podcast_id: string }>(
        'SELECT podcast_id FROM episodes GROUP BY podcast_id ORDER BY podcast_id LIMIT 500',
      );
      const pick = <T>(list: T[]) => list[Math.floor(r.next() * list.length)]!;
      const surface: [string, string[]][] = [
        [
          'ad placements, newest first (no filter)',
          sample(() => `${base}/v1/podcasts/advertising/placements?limit=25`),
        ],
        [
          'ad placements of one company',
          sample(
            () =>
              `${base}/v1/podcasts/advertising/placements?company_id=${pick(companies).company_id}&limit=25`,
          ),
        ],
        ['sponsors, all time, by ads', sample(() => `${base}/v1/sponsors?limit=25`)],
        [
          'sponsors, 90 days, by reach',
          sample(() => `${base}/v1/sponsors?sort=reach&since=${since}&limit=25`),
        ],
        ['guests, all time', sample(() => `${base}/v1/guests?limit=25`)],
        [
          'guests of one podcast',
          sample(() => `${base}/v1/podcasts/${pick(podcastIds).podcast_id}/guests?limit=25`),
        ],
        [
          'episode timeseries, 90 days by day',
          sample(() => `${base}/v1/podcasts/episodes/timeseries?since=${since}&until=${until}&interval=day`),
        ],
        [
          'episode timeseries of one entity, 90 days by day',
          sample(
            () =>
              `${base}/v1/podcasts/episodes/timeseries?entity_id=${pickEntity()}&since=${since}&until=${until}`,
          ),
        ],
        ['topics, 30 days', sample(() => `${base}/v1/topics`)],
      ];
      const surfaceResults: BenchResult[] = [];
      for (const [label, urls] of surface) {
        progress(`measuring ${label}`);
        await latencies(urls.slice(0, 20), key);
        const lat = await latencies(urls, key);
        surfaceResults.push({
          bench,
          metric: `${label}: p95`,
          value: ms(percentile(lat, 95)),
          unit: 'ms',
          target: { op: '<=', value: 50 },
          note: `p50 ${ms(percentile(lat, 50))} ms; load ${os.loadavg()[0]!.toFixed(1)}`,
        });
      }
      progress(`ingest: ${ingestLoad}; reads: load ${readLoad.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}`);
      const note = `load ${readLoad.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores; ${Number(written!.lines).toLocaleString()} mention lines, ${produced.episodes.toLocaleString()} episodes, ${o.podcasts} podcasts, 365 days; sequential HTTP requests, ${SAMPLES} per figure, entities weighted by mentions`;
      return [
        {
          bench,
          metric: 'projection ingest (mention lines + rollup + speakers)',
          value: Math.round(rows / seconds),
          unit: 'rows/s',
          target: { op: '>=', value: 200_000 },
          note: `${rows.toLocaleString()} rows (${Number(written!.lines).toLocaleString()} mention lines) in ${seconds.toFixed(1)} s through the consumer runner (decode, handle, insert, commit), ${HEAVY_PROJECTOR_MEMBERS} group members; ${ingestLoad}; ${cpuSeconds.toFixed(1)} CPU-seconds (${((cpuSeconds / seconds) * 100).toFixed(0)}% of one core on average)`,
        },
        {
          bench,
          metric: 'projection ingest per CPU-second (both cores would give twice this)',
          value: Math.round(rows / cpuSeconds),
          unit: 'rows/CPU-s',
          note: 'the cost of the projection itself, independent of what else the machine runs',
        },
        {
          bench,
          metric: 'mentions timeseries, 90 days by day: p95',
          value: ms(percentile(ts, 95)),
          unit: 'ms',
          target: { op: '<=', value: 50 },
          note,
        },
        {
          bench,
          metric: 'mentions timeseries, 90 days by day: p50',
          value: ms(percentile(ts, 50)),
          unit: 'ms',
        },
        {
          bench,
          metric: 'mentions by-podcast, 90 + 90 days: p95',
          value: ms(percentile(bp, 95)),
          unit: 'ms',
          target: { op: '<=', value: 100 },
        },
        {
          bench,
          metric: 'mentions by-podcast, 90 + 90 days: p50',
          value: ms(percentile(bp, 50)),
          unit: 'ms',
        },
        {
          bench,
          metric: 'mentions timeseries, 90 days by day, before compaction: p95',
          value: ms(percentile(tsMerged, 95)),
          unit: 'ms',
          note: mergedNote,
        },
        {
          bench,
          metric: 'mentions by-podcast, 90 + 90 days, before compaction: p95',
          value: ms(percentile(bpMerged, 95)),
          unit: 'ms',
          note: `compaction of ${COMPACTED_TABLES.join(', ')} took ${compactSeconds.toFixed(1)} s`,
        },
        {
          bench,
          metric: 'mentions by-podcast, most-mentioned entity: p95',
          value: ms(percentile(bpTop, 95)),
          unit: 'ms',
          note: `${topEntities[0]!.n} entity-episodes`,
        },
        {
          bench,
          metric: 'sponsor trends (as served: ranking cached, refreshed in the background): p95',
          value: ms(percentile(tr, 95)),
          unit: 'ms',
          target: { op: '<=', value: 100 },
        },
        {
          bench,
          metric: 'sponsor trends, cache miss (window_days 1-90): p95',
          value: ms(percentile(trCold, 95)),
          unit: 'ms',
          target: { op: '<=', value: 100 },
        },
        ...surfaceResults,
      ];
    } finally {
      await api.close();
    }
  } finally {
    await state.close();
    await store.close();
    await log.close();
    await registry.close();
    tmp.remove();
  }
}

export const analyticsBench: Bench = {
  name: 'analytics',
  description:
    'a year of synthetic mentions (10M mention lines) through the analytics projectors, then mention and sponsor reads over HTTP',
  async run(progress) {
    const results = await runOn(
      'embedded chdb',
      async () => {
        const dir = tempDir('earshot-bench-chdb-');
        const store = new ChdbAnalyticsStore(dir.dir);
        const close = store.close.bind(store);
        store.close = async () => {
          await close();
          dir.remove();
        };
        return store;
      },
      progress,
    );
    const url = process.env.CLICKHOUSE_URL;
    if (url) {
      const database = `earshot_bench_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
      const target = new URL(url);
      target.pathname = `/${database}`;
      results.push(
        ...(await runOn(
          'ClickHouse server',
          async () => {
            const store = await ClickHouseAnalyticsStore.connect(target.toString());
            const close = store.close.bind(store);
            store.close = async () => {
              await store.command(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
              await close();
            };
            return store;
          },
          progress,
        )),
      );
    } else {
      progress('CLICKHOUSE_URL is unset: the ClickHouse server run is skipped');
    }
    return results;
  },
};
