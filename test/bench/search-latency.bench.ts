import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TurnLengths } from '../../ingest/corpus/episode-script.ts';
import { PRESETS } from '../../ingest/corpus/generate.ts';
import { QUERIES } from '../../ingest/corpus/vocabulary/queries.ts';
import { type LocalModelName, MODEL_NAME } from '../../projections/embeddings/local-models.ts';
import { LanceDbSearchIndex } from '../../projections/search/lancedb/lancedb-search-index.ts';
import { OpenSearchSearchIndex } from '../../projections/search/opensearch/opensearch-search-index.ts';
import type { SearchIndex } from '../../projections/search/search-index.ts';
import {
  emptySearchStats,
  type SearchProjectorStats,
  VectorCache,
} from '../../projections/search/search-projector.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { generateTestCorpus, loadCorpus, produceCorpus } from '../support/corpus.ts';
import {
  openTestEmbeddings,
  projectIntoSearch,
  type SearchEmbeddings,
  searchApi,
} from '../support/search.ts';
import { type Bench, type BenchResult, benchModel, percentile } from './bench.ts';

/**
 * Dialogue search latency at the API over the generator's bench corpus (≥ 1,000,000 lines),
 * warm, on LanceDB and — when OPENSEARCH_URL is set — on OpenSearch, side by side; plus the
 * indexing throughput of the search projector including embeddings.
 *
 * The corpus and the LanceDB index are built once under EARSHOT_BENCH_SEARCH_DIR (default: the OS
 * temp dir) and reused while their build record matches; the own embedding of every distinct text
 * is kept there too, so the OpenSearch build reuses the model's vectors instead of recomputing
 * them (its throughput is reported without embedding time).
 */
const SEED = 2026;
const AS_OF = Date.UTC(2026, 5, 1);
const REQUESTS_PER_MODE = Number(process.env['EARSHOT_BENCH_SEARCH_REQUESTS'] ?? 300);
/** `realistic`: long-tailed turn lengths (monologues of 1,000+ tokens), as real interviews have. */
const TURNS: TurnLengths = process.env['EARSHOT_BENCH_SEARCH_TURNS'] === 'realistic' ? 'realistic' : 'short';

interface BuildRecord {
  /** 5: vectors in their own tables (an index of an earlier version is rebuilt). */
  version: 5;
  preset: { podcasts: number; episodesPerPodcast: number };
  seed: number;
  /** Absent in records written before turn lengths were an option: `short`. */
  turns?: TurnLengths;
  model: string;
  lines: number;
  segments: number;
  episodes: number;
  seconds: number;
  vectorIndexSeconds: number;
  stats: SearchProjectorStats;
  /** Texts the test vector cache answered (embedded by an earlier, interrupted build). */
  textsFromVectorCache?: number;
  /** Resumed after a stop: `seconds` and `stats` cover the last run only. */
  resumed?: boolean;
}

function emptyStats(): SearchProjectorStats {
  return emptySearchStats();
}

// --- the own-vector cache on disk: [u32 text bytes][text][dims × f32] … -------------------------

function saveCache(cache: VectorCache, file: string, dims: number): void {
  const chunks: Buffer[] = [];
  for (const [text, v] of cache.map) {
    const t = Buffer.from(text, 'utf8');
    const head = Buffer.alloc(4);
    head.writeUInt32LE(t.length);
    chunks.push(head, t, Buffer.from(v.buffer, v.byteOffset, dims * 4));
  }
  fs.writeFileSync(file, Buffer.concat(chunks));
}

function loadCache(file: string, dims: number): VectorCache {
  const cache = new VectorCache(Number.POSITIVE_INFINITY);
  const buf = fs.readFileSync(file);
  let at = 0;
  while (at < buf.length) {
    const n = buf.readUInt32LE(at);
    const text = buf.toString('utf8', at + 4, at + 4 + n);
    at += 4 + n;
    const v = new Float32Array(dims);
    Buffer.from(v.buffer).set(buf.subarray(at, at + dims * 4));
    at += dims * 4;
    cache.set(text, v);
  }
  return cache;
}

// --- load ------------------------------------------------------------------------------------------

interface Request {
  mode: 'keyword' | 'semantic' | 'hybrid';
  url: string;
}

function requests(): Request[] {
  const out: Request[] = [];
  const en = QUERIES.filter((q) => q.lang === 'en');
  const words = [
    'inflation',
    'striker',
    'vaccine',
    'election',
    'startup',
    'mortgage rates',
    'battery storage',
  ];
  for (const q of en.filter((q) => q.kind === 'keyword'))
    out.push({ mode: 'keyword', url: `keyword_search=${encodeURIComponent(q.text)}` });
  for (const q of en.filter((q) => q.kind === 'mixed'))
    out.push({ mode: 'keyword', url: `keyword_search=${encodeURIComponent(q.text)}` });
  for (const w of words) out.push({ mode: 'keyword', url: `keyword_search=${encodeURIComponent(w)}` });
  for (const q of en.filter((q) => q.kind !== 'keyword')) {
    out.push({ mode: 'semantic', url: `semantic_search=${encodeURIComponent(q.text)}` });
    out.push({
      mode: 'hybrid',
      url: `semantic_search=${encodeURIComponent(q.text)}&keyword_search=${encodeURIComponent(q.text)}`,
    });
  }
  return out;
}

async function measure(
  base: string,
  key: string,
  list: Request[],
  progress: (m: string) => void,
  label: string,
): Promise<Latencies> {
  const bytes: Record<Request['mode'], number[]> = { keyword: [], semantic: [], hybrid: [] };
  const call = async (r: Request, i: number) => {
    // A different page size per call keeps repeated texts from being answered identically.
    const url = `${base}/v1/podcasts/episodes/search?${r.url}&limit=${10 + (i % 16)}`;
    const t = performance.now();
    const res = await fetch(url, { headers: { 'x-api-key': key } });
    const body = await res.arrayBuffer();
    const ms = performance.now() - t;
    if (res.status !== 200)
      throw new Error(`${url}: HTTP ${res.status} ${Buffer.from(body).toString().slice(0, 300)}`);
    bytes[r.mode].push(body.byteLength);
    return ms;
  };
  progress(`${label}: warm-up (${list.length} requests)`);
  for (const [i, r] of list.entries()) await call(r, i);
  for (const mode of ['keyword', 'semantic', 'hybrid'] as const) bytes[mode].length = 0;
  const out: Record<Request['mode'], number[]> = { keyword: [], semantic: [], hybrid: [] };
  for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
    const ofMode = list.filter((r) => r.mode === mode);
    for (let i = 0; i < REQUESTS_PER_MODE; i++) out[mode].push(await call(ofMode[i % ofMode.length]!, i));
    out[mode].sort((a, b) => a - b);
    progress(
      `${label} ${mode}: p50 ${percentile(out[mode], 50).toFixed(1)} ms, p95 ${percentile(out[mode], 95).toFixed(1)} ms`,
    );
  }
  return { ms: out, bytes };
}

/** Sorted request times and response sizes of the measured (not warm-up) requests, per mode. */
interface Latencies {
  ms: Record<Request['mode'], number[]>;
  bytes: Record<Request['mode'], number[]>;
}

function latencyResults(engine: string, { ms: lat, bytes }: Latencies, lines: number): BenchResult[] {
  const targets = { keyword: 50, semantic: 100, hybrid: 150 };
  const out: BenchResult[] = [];
  for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
    out.push({
      bench: 'search-latency',
      metric: `${engine}: ${mode} search p95 (${(lines / 1e6).toFixed(2)}M lines, ${TURNS} turns, warm, one client)`,
      value: Number(percentile(lat[mode], 95).toFixed(1)),
      unit: 'ms',
      target: { op: '<=', value: targets[mode] },
      note: `p50 ${percentile(lat[mode], 50).toFixed(1)} ms, p99 ${percentile(lat[mode], 99).toFixed(1)} ms, ${lat[mode].length} requests, mean response ${(bytes[mode].reduce((a, b) => a + b, 0) / Math.max(1, bytes[mode].length) / 1024).toFixed(1)} KiB`,
    });
  }
  return out;
}

async function build(
  index: SearchIndex,
  state: PgliteStateStore,
  corpusDir: string,
  embeddings: SearchEmbeddings | undefined,
  cache: VectorCache,
  progress: (m: string) => void,
  label: string,
  model: string,
  /** Keep the backbone there, so a build stopped part way resumes (LanceDB build only). */
  backboneDir?: string,
) {
  const stats = emptyStats();
  const api = await searchApi({ index, state, ...(embeddings ? { embeddings: embeddings.query } : {}) });
  const corpus = loadCorpus(corpusDir);
  const started = Date.now();
  const timer = setInterval(() => {
    const s = (Date.now() - started) / 1000;
    progress(
      `${label}: ${stats.episodesIndexed} episode builds, ${stats.linesIndexed} lines, ${stats.textsEmbedded} texts embedded, ${stats.vectorsWritten} vectors written, ${s.toFixed(0)} s`,
    );
  }, 30_000);
  try {
    const projection = await projectIntoSearch({
      index,
      state,
      catalog: api.catalog,
      embeddings: embeddings?.indexing ?? cachedOnly(cache, model),
      produce: async (b) => {
        // A resumed build finds every event already on its kept log (duplicates would only cost
        // work: the projectors are idempotent).
        const produced = backboneDir && path.join(backboneDir, 'produced');
        if (produced && fs.existsSync(produced)) return;
        await produceCorpus(b.producer, corpus);
        if (produced) fs.writeFileSync(produced, new Date().toISOString());
      },
      ...(backboneDir ? { backboneDir } : {}),
      timeoutMs: 6 * 3_600_000,
      batchSize: 1000,
      episodesPerPass: 64,
      stats,
      cache,
    });
    await projection.close();
  } finally {
    clearInterval(timer);
    await api.close();
  }
  const seconds = (Date.now() - started) / 1000;
  const segments = corpus.segments.reduce((n, s) => n + s.segments.length, 0);
  const lines = corpus.segments.reduce(
    (n, s) => n + s.segments.reduce((m, seg) => m + seg.last_line - seg.first_line + 1, 0),
    0,
  );
  return { seconds, stats, segments, lines, episodes: corpus.episodes.length };
}

function corpusMatches(dir: string, preset: { podcasts: number; episodesPerPodcast: number }): boolean {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    return (
      m.seed === SEED &&
      (m.turns ?? 'short') === TURNS &&
      m.as_of === new Date(AS_OF).toISOString() &&
      m.sizes.podcasts === preset.podcasts &&
      m.sizes.episodes_per_podcast === preset.episodesPerPodcast
    );
  } catch {
    return false;
  }
}

/** An embeddings port answering only from vectors computed earlier by the model. */
function cachedOnly(cache: VectorCache, model: string) {
  return {
    model,
    dimensions: 384,
    async embed(texts: string[]) {
      return texts.map((t) => {
        const v = cache.map.get(t);
        if (!v) throw new Error(`no stored vector for ${JSON.stringify(t.slice(0, 60))}`);
        return v;
      });
    },
    async close() {},
  };
}

export const searchLatencyBench: Bench = {
  name: 'search-latency',
  description:
    'dialogue search p95 at the API over ≥1M indexed lines (LanceDB, and OpenSearch when up) and indexing throughput with embeddings',
  async run(progress) {
    const root = process.env['EARSHOT_BENCH_SEARCH_DIR'] || path.join(os.tmpdir(), 'earshot-bench-search');
    const preset = PRESETS.bench;
    const corpusDir = path.join(root, 'corpus');
    const recordFile = path.join(root, 'build.json');
    const cacheFile = path.join(root, 'own-vectors.bin');
    const results: BenchResult[] = [];
    fs.mkdirSync(root, { recursive: true });
    let record: BuildRecord | undefined;
    try {
      record = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as BuildRecord;
      if (
        record.version !== 5 ||
        record.seed !== SEED ||
        record.preset.podcasts !== preset.podcasts ||
        (record.turns ?? 'short') !== TURNS
      )
        record = undefined;
    } catch {
      record = undefined;
    }
    // EARSHOT_BENCH_SEARCH_MODEL: the local model to build with (default MODEL_NAME); a kept build
    // made with another one is built again.
    const wantedModel = benchModel('EARSHOT_BENCH_SEARCH_MODEL');
    if (record && wantedModel && record.model !== wantedModel) record = undefined;
    const embeddings = await openTestEmbeddings(
      2,
      (record?.model ?? wantedModel ?? MODEL_NAME) as LocalModelName,
    );
    try {
      const lancePath = path.join(root, 'lancedb');
      if (!record) {
        // A build stopped part way (hours of embedding on two cores) is resumed, not started over:
        // the index, the catalog state and the event log with its offsets are kept until it ends.
        const inProgressFile = path.join(root, 'build-in-progress.json');
        const backboneDir = path.join(root, 'backbone');
        const building = JSON.stringify({
          seed: SEED,
          turns: TURNS,
          podcasts: preset.podcasts,
          model: embeddings.query.model,
        });
        const resumed =
          fs.existsSync(inProgressFile) &&
          fs.readFileSync(inProgressFile, 'utf8') === building &&
          corpusMatches(corpusDir, preset);
        if (resumed) progress(`resuming the build stopped part way in ${root}`);
        else {
          fs.rmSync(lancePath, { recursive: true, force: true });
          fs.rmSync(path.join(root, 'state'), { recursive: true, force: true });
          fs.rmSync(backboneDir, { recursive: true, force: true });
        }
        if (!resumed && !corpusMatches(corpusDir, preset)) {
          fs.rmSync(corpusDir, { recursive: true, force: true });
          progress(
            `generating the bench corpus (${preset.podcasts} × ${preset.episodesPerPodcast} episodes, ${TURNS} turns)`,
          );
          await generateTestCorpus({ dir: corpusDir, ...preset, seed: SEED, asOf: AS_OF, turns: TURNS });
        }
        const index = new LanceDbSearchIndex(lancePath, {
          dimensions: embeddings.query.dimensions,
          model: embeddings.query.model,
        });
        await index.open();
        const state = new PgliteStateStore(path.join(root, 'state'));
        // Every own vector, for the file the OpenSearch build reads; a resumed build keeps no file,
        // so it keeps no vectors in memory either (2.5M of them would not fit beside the corpus).
        const cache = new VectorCache(resumed ? 0 : Number.POSITIVE_INFINITY);
        fs.mkdirSync(backboneDir, { recursive: true });
        fs.writeFileSync(inProgressFile, building);
        const built = await build(
          index,
          state,
          corpusDir,
          embeddings,
          cache,
          progress,
          'LanceDB build',
          embeddings.query.model,
          backboneDir,
        );
        const fromCache = (embeddings.indexing as { hits?: number }).hits ?? 0;
        // Whatever the last scheduled refresh left: fold it in, timed apart from the stream.
        const t = Date.now();
        await index.refresh();
        const vectorIndexSeconds = (Date.now() - t) / 1000;
        // A resumed build's cache lacks what the stopped run embedded: no file, no OpenSearch build.
        if (resumed) fs.rmSync(cacheFile, { force: true });
        else saveCache(cache, cacheFile, embeddings.query.dimensions);
        await index.close();
        await state.close();
        record = {
          version: 5,
          preset,
          seed: SEED,
          turns: TURNS,
          model: embeddings.query.model,
          ...built,
          vectorIndexSeconds,
          textsFromVectorCache: fromCache,
          ...(resumed ? { resumed } : {}),
        };
        fs.writeFileSync(recordFile, JSON.stringify(record, null, 2));
        fs.rmSync(backboneDir, { recursive: true, force: true });
        fs.rmSync(inProgressFile, { force: true });
      }
      progress(
        `corpus: ${record.episodes} episodes, ${record.segments} segments, ${record.lines} lines (${TURNS} turns)`,
      );
      if (process.env['EARSHOT_BENCH_SEARCH_BUILD_ONLY'] === '1') {
        // Build and measure apart, so that only the measurement needs a quiet machine.
        progress('EARSHOT_BENCH_SEARCH_BUILD_ONLY=1: index built, latency not measured');
        return [];
      }
      const s = record.stats;
      results.push({
        bench: 'search-latency',
        metric: 'LanceDB: indexing throughput incl. embeddings',
        value: Math.round(record.segments / record.seconds),
        unit: 'segments/s',
        note: `${record.lines} lines in ${record.seconds.toFixed(0)} s (${Math.round(record.lines / record.seconds)} lines/s); ${s.textsEmbedded} distinct texts embedded (${(s.embedMs / 1000).toFixed(0)} s in the model, ${Math.round(s.textsEmbedded / (s.embedMs / 1000))} texts/s), ${s.vectorsReused} vectors reused on rebuilds; final index refresh ${record.vectorIndexSeconds.toFixed(0)} s${record.textsFromVectorCache ? `; ${record.textsFromVectorCache} texts answered by the test vector cache (an earlier run embedded them), so this is not an embedding figure` : ''}${record.resumed ? '; resumed after a stop: the time and counts are the last run’s only' : ''}`,
      });

      // LanceDB, warm.
      const lance = new LanceDbSearchIndex(lancePath, {});
      await lance.open();
      const state = new PgliteStateStore(path.join(root, 'state'));
      const list = requests();
      {
        const api = await searchApi({ index: lance, state, embeddings: embeddings.query, queryCacheSize: 0 });
        const url = await api.app.listen({ port: 0, host: '127.0.0.1' });
        try {
          results.push(
            ...latencyResults(
              'LanceDB',
              await measure(url, api.key, list, progress, 'LanceDB'),
              record.lines,
            ),
          );
        } finally {
          await api.close();
        }
      }

      // OpenSearch, when configured: the same corpus through the same projector.
      const osUrl = process.env['OPENSEARCH_URL'];
      if (osUrl && !fs.existsSync(cacheFile)) {
        progress('OpenSearch skipped: the LanceDB build was resumed, so its own vectors were not all kept');
      } else if (osUrl) {
        const osIndex = new OpenSearchSearchIndex(osUrl, {
          prefix: 'bench-search-',
          dimensions: 384,
          model: record.model,
        });
        await osIndex.open().catch(async (err: Error) => {
          // Indexes kept (EARSHOT_BENCH_KEEP=1) by a version of another layout: built again below.
          if (!/earlier layout/.test(err.message)) throw err;
          await osIndex.drop();
          await osIndex.open();
        });
        const have = await osIndex.stats();
        if (have.lines !== record.lines) {
          progress('OpenSearch: building the index from the same events (vectors from the LanceDB build)');
          await osIndex.drop();
          await osIndex.open();
          const osState = new PgliteStateStore();
          const built = await build(
            osIndex,
            osState,
            corpusDir,
            undefined,
            loadCache(cacheFile, 384),
            progress,
            'OpenSearch build',
            record.model,
          );
          await osState.close();
          results.push({
            bench: 'search-latency',
            metric: 'OpenSearch: indexing throughput (vectors precomputed)',
            value: Math.round(built.segments / built.seconds),
            unit: 'segments/s',
            note: `${built.lines} lines in ${built.seconds.toFixed(0)} s (${Math.round(built.lines / built.seconds)} lines/s)`,
          });
        }
        const api = await searchApi({
          index: osIndex,
          state,
          embeddings: embeddings.query,
          queryCacheSize: 0,
        });
        const url = await api.app.listen({ port: 0, host: '127.0.0.1' });
        try {
          results.push(
            ...latencyResults(
              'OpenSearch',
              await measure(url, api.key, list, progress, 'OpenSearch'),
              record.lines,
            ),
          );
        } finally {
          await api.close();
          if (process.env['EARSHOT_BENCH_KEEP'] !== '1') {
            // Clean-up only: the figures above stand either way.
            await osIndex
              .drop()
              .catch((err) =>
                progress(`OpenSearch: could not drop the bench indexes: ${(err as Error).message}`),
              );
          }
          await osIndex.close();
        }
      } else {
        progress('OPENSEARCH_URL is unset: OpenSearch skipped (npm run engines:up)');
      }
      await lance.close();
      await state.close();
      results.push({
        bench: 'search-latency',
        metric: 'machine load (1-minute average) at the end',
        value: Number(os.loadavg()[0]!.toFixed(2)),
        unit: '',
      });
      return results;
    } finally {
      await embeddings.close();
    }
  },
};
