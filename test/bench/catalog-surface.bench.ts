import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../infra/config.ts';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { EventProducer } from '../../ingest/event-producer.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import type { ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { analyticsProjectors } from '../../projections/analytics/analytics-projectors.ts';
import { compactAnalytics, migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { catalogProjector } from '../../projections/catalog/catalog-projector.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { allTopicSpecs, TOPICS } from '../../schemas/topics.ts';
import { testApi } from '../support/api.ts';
import { tempDir } from '../support/temp-dir.ts';
import { latencies, produceAll, runToEnd, settle } from './analytics.bench.ts';
import { rng, type SynthOptions } from './analytics-synth.ts';
import { type Bench, type BenchResult, percentile } from './bench.ts';

/**
 * The catalog-surface list reads at the API, warm: the synthetic year of the analytics bench
 * (10,000,000 mention lines by default, `EARSHOT_BENCH_MENTION_ROWS` to change) with everything
 * those reads need — catalog, episodes, mentions and speakers (guests, the entity filter of the
 * episode timeseries), ad reads (sponsors, placements), topical segments (topics) and monthly
 * rating snapshots (ratings) — projected by the real projectors on the embedded engines, compacted
 * and settled, then each read requested 200 times over HTTP, one at a time, after 20 warm-up
 * requests. Only these reads: the analytics bench measures projection and the mention reads.
 *
 * `EARSHOT_BENCH_SURFACE_DIR` keeps the prepared corpus in that directory and, on the next run with
 * the same directory and size, measures the reads again without preparing it (a 10M corpus takes
 * most of an hour to prepare on two cores). The corpus is dated relative to the time it was
 * prepared, the reads' default windows to the time of the run; delete the directory after a
 * change to the projections or the synthetic corpus.
 */
const DAY = 86_400_000;
const SAMPLES = 200;
const WARMUP = 20;

export const catalogSurfaceBench: Bench = {
  name: 'catalog-surface',
  description:
    'catalog-surface list reads (topics, guests, ratings, sponsors, placements, episode timeseries)',
  async run(progress) {
    const bench = 'catalog-surface (chdb)';
    const mentionRows = Number(process.env.EARSHOT_BENCH_MENTION_ROWS ?? 10_000_000);
    const keptDir = process.env.EARSHOT_BENCH_SURFACE_DIR;
    const tmp = keptDir ? { dir: keptDir, remove: () => {} } : tempDir('earshot-bench-surface-');
    fs.mkdirSync(tmp.dir, { recursive: true });
    const marker = path.join(tmp.dir, 'prepared.json');
    const prepared = fs.existsSync(marker)
      ? (JSON.parse(fs.readFileSync(marker, 'utf8')) as { mentionRows: number; now: number; seconds: number })
      : undefined;
    if (prepared && prepared.mentionRows !== mentionRows) {
      throw new Error(
        `${tmp.dir} holds a corpus of ${prepared.mentionRows} mention lines, not ${mentionRows}: use another EARSHOT_BENCH_SURFACE_DIR`,
      );
    }
    const log = new LmdbEventLog(path.join(tmp.dir, 'log'));
    const registry = new LmdbSchemaRegistry(path.join(tmp.dir, 'registry'));
    const codec = new AvroCodec(registry);
    const specs = allTopicSpecs();
    await log.createTopics(specs);
    for (const s of specs) await codec.registerTopic(s.name, s.valueSchema);
    const producer = new EventProducer(log, codec);
    const store = new ChdbAnalyticsStore(path.join(tmp.dir, 'analytics'));
    const state = new PgliteStateStore(path.join(tmp.dir, 'state'));
    try {
      await migrateAnalytics(store);
      await migrate(state);
      const prepare = async (o: SynthOptions) => {
        const produced = await produceAll(producer, o, progress);
        progress(`produced ${JSON.stringify(produced)}`);
        const catalog = new CatalogReader(state);
        const projectors = analyticsProjectors(store, {
          compact: false,
          batchItems: loadConfig().env.EARSHOT_ANALYTICS_BATCH_SIZE,
        }) as ProcessorDefinition<unknown, unknown>[];
        const needed = new Set([
          'analytics-catalog',
          'analytics-episode-parts',
          'analytics-charts',
          'analytics-mentions',
        ]);
        const stateCatalog = {
          ...catalogProjector(state, () => catalog.invalidate()),
          inputs: [TOPICS.publishers, TOPICS.podcasts, TOPICS.entities, TOPICS.episodes],
        } as ProcessorDefinition<unknown, unknown>;
        progress('projecting the catalog, episodes, mentions, speakers, ad reads, segments and ratings');
        const projectSeconds = await runToEnd(log, producer, [
          stateCatalog,
          ...projectors.filter((d) => needed.has(d.name)),
        ]);
        progress(`projected in ${projectSeconds.toFixed(0)} s; compacting`);
        await compactAnalytics(store);
        await settle(store);
      };
      const now = prepared?.now ?? Date.now();
      const o: SynthOptions = {
        mentionRows,
        podcasts: 3000,
        publishers: 150,
        entities: 30_000,
        days: 365,
        seed: 7,
        now,
      };
      const started = performance.now();
      if (prepared) {
        // Tables a later migration added and filled: one part each, as after a preparation.
        await compactAnalytics(store);
        await settle(store);
        progress(
          `reusing the corpus prepared ${new Date(now).toISOString()} in ${prepared.seconds} s (${tmp.dir})`,
        );
      } else {
        await prepare(o);
        const seconds = Math.round((performance.now() - started) / 1000);
        if (keptDir) fs.writeFileSync(marker, JSON.stringify({ mentionRows, now, seconds }));
      }
      // Rows as the reads see them (FINAL): a completed ad read also leaves the deletion marker of
      // its factless first row, so a plain count() of ad_reads counts each ad twice.
      const tables = [
        'mention_lines',
        'episodes',
        'episode_speakers',
        'ad_reads',
        'segment_topics',
        'rating_snapshots',
        'topic_episode_entities',
        'guest_totals',
        'sponsor_totals',
      ];
      const [counts] = await store.query<Record<string, number>>(
        `SELECT ${tables.map((t) => `(SELECT count() FROM ${t} FINAL) AS ${t}`).join(', ')}`,
      );
      const corpus = Object.entries(counts!)
        .map(([k, v]) => `${Number(v).toLocaleString()} ${k.replaceAll('_', ' ')}`)
        .join(', ');
      progress(
        `corpus: ${corpus}; prepared in ${prepared?.seconds ?? ((performance.now() - started) / 1000).toFixed(0)} s`,
      );

      const api = await testApi({ rateLimitPerMinute: 100_000_000 }, undefined, { state, analytics: store });
      const base = await api.app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const key = api.keys.business!;
        const r = rng(99);
        const pick = <T>(list: T[]) => list[Math.floor(r.next() * list.length)]!;
        const companies = await store.query<{ company_id: string }>(
          "SELECT company_id FROM ad_reads WHERE company_id != '' GROUP BY company_id ORDER BY count() DESC LIMIT 200",
        );
        const podcastIds = (
          await store.query<{ podcast_id: string }>(
            'SELECT podcast_id FROM episodes GROUP BY podcast_id ORDER BY podcast_id LIMIT 500',
          )
        ).map((p) => p.podcast_id);
        const entities = (
          await store.query<{ entity_id: string }>(
            'SELECT entity_id FROM entity_episodes GROUP BY entity_id ORDER BY count() DESC LIMIT 2000',
          )
        ).map((e) => e.entity_id);
        const topics = (
          await store.query<{ topic: string }>('SELECT DISTINCT topic FROM segment_topics ORDER BY topic')
        ).map((t) => t.topic);
        const until = new Date(now).toISOString();
        const since = new Date(now - 90 * DAY).toISOString();
        const yearAgo = new Date(now - 365 * DAY).toISOString();
        const sample = (make: () => string) => Array.from({ length: SAMPLES }, make);
        const reads: [string, string[]][] = [
          [
            'ad placements, newest first',
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
          ['guests of one podcast', sample(() => `${base}/v1/podcasts/${pick(podcastIds)}/guests?limit=25`)],
          [
            'episode timeseries, 90 days by day',
            sample(
              () => `${base}/v1/podcasts/episodes/timeseries?since=${since}&until=${until}&interval=day`,
            ),
          ],
          [
            'episode timeseries of one entity, 90 days by day',
            sample(
              () =>
                `${base}/v1/podcasts/episodes/timeseries?entity_id=${pick(entities)}&since=${since}&until=${until}&interval=day`,
            ),
          ],
          ['topics, 30 days', sample(() => `${base}/v1/topics`)],
          ['topics, 365 days', sample(() => `${base}/v1/topics?since=${yearAgo}&until=${until}`)],
          [
            'topics of one podcast, 365 days',
            sample(() => `${base}/v1/topics?podcast_id=${pick(podcastIds)}&since=${yearAgo}&until=${until}`),
          ],
          ['one topic, 30 days', sample(() => `${base}/v1/topics/${pick(topics)}`)],
          [
            'ratings of one podcast, 90 days',
            sample(() => `${base}/v1/podcasts/${pick(podcastIds)}/ratings`),
          ],
        ];
        const ms = (v: number) => Math.round(v * 10) / 10;
        // Rows the engine selected from tables (its own count, process-wide: the API and this
        // bench share the engine, and nothing else runs meanwhile), per request.
        const selectedRows = async () => {
          const [row] = await store.query<{ n: number }>(
            "SELECT sum(value) AS n FROM system.events WHERE event = 'SelectedRows'",
          );
          return Number(row?.n ?? 0);
        };
        const results: BenchResult[] = [];
        for (const [label, urls] of reads) {
          progress(`measuring ${label}`);
          await latencies(urls.slice(0, WARMUP), key);
          const loadBefore = os.loadavg()[0]!;
          const rowsBefore = await selectedRows();
          const lat = await latencies(urls, key);
          const rowsPerRequest = Math.round(((await selectedRows()) - rowsBefore) / urls.length);
          const note = `p50 ${ms(percentile(lat, 50))} ms; ${rowsPerRequest.toLocaleString()} rows read per request; load ${loadBefore.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`;
          progress(`${label}: p95 ${ms(percentile(lat, 95))} ms, ${note}`);
          results.push({
            bench,
            metric: `${label}: p95`,
            value: ms(percentile(lat, 95)),
            unit: 'ms',
            target: { op: '<=', value: 50 },
            note,
          });
        }
        results.push({
          bench,
          metric: 'corpus',
          value: Number(counts!.mention_lines),
          unit: 'mention lines',
          note: `${corpus}; ${SAMPLES} sequential requests per read after ${WARMUP} warm-up`,
        });
        return results;
      } finally {
        await api.close();
      }
    } finally {
      await store.close();
      await state.close();
      await log.close();
      await registry.close();
      // EARSHOT_BENCH_KEEP=1 leaves the stores for inspection (EXPLAIN, rows read per query).
      if (process.env.EARSHOT_BENCH_KEEP === '1') progress(`kept ${tmp.dir}`);
      else tmp.remove();
    }
  },
};
