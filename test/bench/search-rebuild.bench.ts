import { createHash, randomUUID } from 'node:crypto';
import type { EpisodePartsValue } from '../../projections/search/episode-documents.ts';
import { buildEpisodeDocs } from '../../projections/search/episode-documents.ts';
import {
  clearKeepingVectors,
  LanceDbSearchIndex,
} from '../../projections/search/lancedb/lancedb-search-index.ts';
import { OpenSearchSearchIndex } from '../../projections/search/opensearch/opensearch-search-index.ts';
import { passageVectorKey } from '../../projections/search/passages.ts';
import type { EpisodeDocs, SearchIndex } from '../../projections/search/search-index.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';

/**
 * What a rebuild of the search index costs in vectors (`earshot projections rebuild search`): the
 * rebuild keeps the index's vectors aside (lancedb/carried-vectors.ts) and the vector filler takes
 * them by key instead of embedding again. Builds a LanceDB index of synthetic episodes whose
 * passages carry vectors (a quarter of the lines are shared by many episodes, as intros and ad
 * reads are), clears it as the rebuild does, and looks the keys of a filler pass (16 episodes) up
 * in what was kept, on LanceDB and (with `OPENSEARCH_URL`) OpenSearch. No model is involved: the vectors are random; what is measured is the store.
 */

const EPISODES = Number(process.env.EARSHOT_BENCH_REBUILD_EPISODES ?? 400);
const LINES = 300;
const DIMENSIONS = 384;
const PASS = 16;

const WORDS =
  'market rate growth policy season coach vaccine trial battery storage startup founder election vote mortgage inflation striker transfer league budget'.split(
    ' ',
  );

/** A deterministic line: shared (the same in many episodes) or the episode's own. */
function lineText(episode: number, n: number): string {
  const shared = n % 4 === 0;
  const seed = shared ? n % 40 : episode * LINES + n;
  const words = Array.from({ length: 24 }, (_, i) => WORDS[(seed * 7 + i * 13) % WORDS.length]);
  return `${shared ? 'Shared' : `Episode ${episode} line ${n}`}: ${words.join(' ')} (${seed}).`;
}

/** A unit vector drawn from the text (the same text, the same vector). */
function vectorOf(text: string): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  let h = createHash('sha256').update(text).digest();
  for (let i = 0; i < DIMENSIONS; i++) {
    if (i % 32 === 0 && i > 0) h = createHash('sha256').update(h).digest();
    v[i] = (h[i % 32]! - 127.5) / 127.5;
  }
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function episodeDocs(e: number): EpisodeDocs {
  const id = `ep_rebuild_${e}`;
  const lines = Array.from({ length: LINES }, (_, i) => ({
    number: i + 1,
    speaker: `SPEAKER_${i % 2}`,
    role: null,
    start_seconds: i * 10,
    end_seconds: i * 10 + 9,
    text: lineText(e, i + 1),
  }));
  const parts: EpisodePartsValue = {
    episode: {
      id,
      podcast_id: `pod_${e % 20}`,
      published_at: Date.UTC(2026, 0, 1) + e * 3_600_000,
      language: 'en',
    },
    transcript: { language: 'en', lines },
    segments: [
      {
        id: `${id}_s1`,
        number: 1,
        title: 'Segment 1',
        type: 'TOPIC_DISCUSSION',
        start_seconds: 0,
        end_seconds: LINES * 10,
        first_line: 1,
        last_line: LINES,
        description: null,
        summary: null,
        audio_url: null,
        read_type: null,
        topics: [],
      } as never,
    ],
  };
  const docs = buildEpisodeDocs(id, parts)!;
  for (const p of docs.passages) {
    p.vector_key = passageVectorKey(p.text);
    p.vector = vectorOf(p.text);
  }
  return docs;
}

interface Engine {
  label: string;
  create(): SearchIndex & { close(): Promise<void> };
  /** What the rebuild does to this engine's index (the index given is closed after). */
  clear(index: SearchIndex): Promise<string>;
}

async function measure(engine: Engine, progress: (m: string) => void): Promise<BenchResult[]> {
  const model = 'bench-random';
  let index = engine.create();
  await index.open();
  const keysByEpisode: string[][] = [];
  const writeStarted = performance.now();
  for (let e = 0; e < EPISODES; e += 20) {
    const batch = Array.from({ length: Math.min(20, EPISODES - e) }, (_, k) => episodeDocs(e + k));
    for (const b of batch) keysByEpisode.push(b.passages.map((p) => p.vector_key!));
    await index.replaceEpisodes(batch);
    if ((e / 20) % 10 === 9) progress(`${engine.label}: indexed ${e + 20} of ${EPISODES} episodes`);
  }
  await index.refresh();
  const stats = await index.stats();
  progress(
    `${engine.label}: ${stats.lines} lines, ${stats.passages} passages with vectors, written in ${((performance.now() - writeStarted) / 1000).toFixed(0)} s`,
  );
  const clearStarted = performance.now();
  const said = await engine.clear(index);
  await index.close();
  const clearS = (performance.now() - clearStarted) / 1000;
  progress(`${engine.label}: ${said} (${clearS.toFixed(1)} s)`);
  index = engine.create();
  await index.open();
  const rates: number[] = [];
  let found = 0;
  let asked = 0;
  for (let pass = 0; pass < 20; pass++) {
    const keys = [
      ...new Set(
        Array.from({ length: PASS }, (_, k) => keysByEpisode[(pass * PASS + k * 7) % EPISODES]!).flat(),
      ),
    ];
    const started = performance.now();
    const got = await index.carriedVectors(model, DIMENSIONS, keys);
    rates.push(keys.length / ((performance.now() - started) / 1000));
    found += got.size;
    asked += keys.length;
  }
  await index.close();
  rates.sort((a, b) => a - b);
  const median = rates[Math.floor(rates.length / 2)]!;
  const kept = /keeping (\d+) vectors/.exec(said)?.[1] ?? '0';
  return [
    {
      bench: 'search-rebuild',
      metric: `${engine.label}: clear keeping the vectors (${stats.passages} passages)`,
      value: Number(clearS.toFixed(1)),
      unit: 's',
      note: `${kept} vectors kept`,
    },
    {
      bench: 'search-rebuild',
      metric: `${engine.label}: vectors taken by key, a filler pass of ${PASS} episodes (median of 20)`,
      value: Math.round(median),
      unit: 'vectors/s',
      note: `${found} of ${asked} keys found; slowest pass ${Math.round(rates[0]!)} vectors/s`,
    },
  ];
}

export const searchRebuildBench: Bench = {
  name: 'search-rebuild',
  description:
    'vectors kept aside by a search index rebuild: the clear, and lookups of a filler pass (LanceDB, and OpenSearch when up)',
  async run(progress) {
    const results: BenchResult[] = [];
    const tmp = tempDir('earshot-bench-rebuild-');
    const dir = `${tmp.dir}/search`;
    try {
      results.push(
        ...(await measure(
          {
            label: 'LanceDB',
            create: () => new LanceDbSearchIndex(dir, { dimensions: DIMENSIONS, model: 'bench-random' }),
            async clear(index) {
              await index.close();
              return clearKeepingVectors(dir);
            },
          },
          progress,
        )),
      );
    } finally {
      tmp.remove();
    }
    const url = process.env.OPENSEARCH_URL;
    if (!url) {
      progress('OPENSEARCH_URL is unset: OpenSearch skipped (npm run engines:up)');
      return results;
    }
    const prefix = `bench-rebuild-${randomUUID().slice(0, 8)}-`;
    const create = () =>
      new OpenSearchSearchIndex(url, { prefix, dimensions: DIMENSIONS, model: 'bench-random' });
    try {
      results.push(
        ...(await measure(
          {
            label: 'OpenSearch',
            create,
            clear: (index) => (index as OpenSearchSearchIndex).clearKeepingVectors(),
          },
          progress,
        )),
      );
    } finally {
      const index = create();
      await index.drop();
      await index.close();
    }
    return results;
  },
};
