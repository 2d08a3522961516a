import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateCorpus } from '../../ingest/corpus/generate.ts';
import { fetchModel } from '../../projections/embeddings/model-fetch.ts';
import { TEST_MODELS_DIR } from '../support/search.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import type { Bench, BenchResult } from './bench.ts';

/**
 * Fresh first: the time from `POST /v1/ingest/batches` of one new episode to its first keyword
 * and first semantic hit at the API while the vector filler works through a backfill.
 *
 * A real service process (`earshot start`, embedded engines, the local model from the test model
 * cache, no demo corpus) starts on an empty data dir, so semantic search is `ready` at once; a
 * generated backfill (EARSHOT_BENCH_FRESH_PODCASTS × EARSHOT_BENCH_FRESH_EPISODES, or the corpus
 * in EARSHOT_BENCH_FRESH_CORPUS) is loaded with `earshot ingest`; once its text is indexed (the
 * vector backlog's total stops growing) and while most of its passages still wait for vectors,
 * one episode of the corpus, re-keyed and published now, is posted with its transcript and
 * segments. The bench then asks every 250 ms for that episode by a word of it
 * (`keyword_search`, `episode_id`) and by the meaning of one of its lines (`semantic_search`,
 * `episode_id`) and reports when each first answers with a hit, and how much of the backfill was
 * still waiting for vectors at that moment (it has to be, for the figure to mean anything).
 */
const POLL_MS = 250;

interface Backlog {
  passages: number;
  clips: number;
  embedded: number;
  total: number;
}

type Rec = { type: string; data: Record<string, unknown> };

function readRecords(file: string): Rec[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
}

/** The first episode of `dir` with its transcript and segments, re-keyed and published `at`. */
function freshEpisode(dir: string, at: number): { id: string; records: Rec[]; text: string; word: string } {
  const first = fs.readFileSync(path.join(dir, 'episodes.ndjson'), 'utf8').split('\n')[0]!;
  const episode = JSON.parse(first) as Rec;
  const oldId = episode.data['id'] as string;
  const oldKey = oldId.replace(/^ep_/, '');
  const newKey = randomBytes(5).toString('hex');
  const id = `ep_${newKey}`;
  const rekey = (r: Rec): Rec => JSON.parse(JSON.stringify(r).replaceAll(oldKey, newKey)) as Rec;
  const of = (file: string) => readRecords(path.join(dir, file)).find((r) => r.data['episode_id'] === oldId);
  const transcript = of('transcripts.ndjson');
  const segments = of('segments.ndjson');
  if (!transcript || !segments) throw new Error(`episode ${oldId} has no transcript or segments in ${dir}`);
  const fresh = rekey(episode);
  // A slug of its own too: the catalog dead-letters an episode whose slug another id holds.
  Object.assign(fresh.data, {
    published_at: at,
    guid: `${fresh.data['guid']}-fresh-${newKey}`,
    slug: `${fresh.data['slug']}-fresh-${newKey}`,
  });
  const lines = (transcript.data['lines'] as { text: string }[]).map((l) => l.text);
  // The longest line is the semantic query; its longest word the keyword.
  const text = lines.reduce((a, b) => (b.length > a.length ? b : a), '');
  const word = text.split(/[^\p{L}]+/u).reduce((a, b) => (b.length > a.length ? b : a), '');
  return { id, records: [fresh, rekey(transcript), rekey(segments)], text, word };
}

export const searchFreshBench: Bench = {
  name: 'search-fresh',
  description:
    'a new episode posted while a vector backfill runs: seconds to its first keyword and semantic hit (service process, local model)',
  async run(progress) {
    const podcasts = Number(process.env['EARSHOT_BENCH_FRESH_PODCASTS'] ?? 20);
    const episodes = Number(process.env['EARSHOT_BENCH_FRESH_EPISODES'] ?? 10);
    const tmp = tempDir('earshot-bench-fresh-');
    const results: BenchResult[] = [];
    let corpusDir = process.env['EARSHOT_BENCH_FRESH_CORPUS'];
    if (!corpusDir) {
      corpusDir = path.join(tmp.dir, 'corpus');
      progress(`generating the backfill: ${podcasts} podcasts × ${episodes} episodes, realistic turns`);
      await generateCorpus({
        podcasts,
        episodesPerPodcast: episodes,
        seed: 2027,
        out: corpusDir,
        chartDays: 2,
      });
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(corpusDir, 'manifest.json'), 'utf8')) as {
      transcript_lines: number;
      counts: { episodes?: number };
    };
    // The local model, fetched into the test cache unless it is there (as the search tests do).
    await fetchModel({ modelsDir: TEST_MODELS_DIR });
    const key = `esk_${randomBytes(24).toString('base64url')}`;
    const token = `eit_${randomBytes(24).toString('base64url')}`;
    const svc = await spawnEarshot(['start'], {
      EARSHOT_DATA_DIR: path.join(tmp.dir, 'data'),
      EARSHOT_DEMO: 'off',
      EARSHOT_MODELS_DIR: TEST_MODELS_DIR,
      EARSHOT_EMBEDDINGS_FETCH: 'off',
      EARSHOT_BOOTSTRAP_API_KEY: key,
      EARSHOT_INGEST_TOKEN: token,
      EARSHOT_SECRETS_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
    });
    const readyz = async () => {
      const res = await fetch(`${svc.url}/readyz`).catch(() => undefined);
      if (!res) return undefined;
      const body = (await res.json()) as {
        info?: { search?: { semantic_state?: string; vector_backlog?: Backlog } };
      };
      return { status: res.status, search: body.info?.search };
    };
    const search = async (q: string) => {
      const res = await fetch(`${svc.url}/v1/podcasts/episodes/search?${q}&limit=1`, {
        headers: { 'x-api-key': key },
      });
      const body = (await res.json()) as { data?: unknown[] };
      return res.status === 200 && (body.data?.length ?? 0) > 0;
    };
    try {
      await waitFor(
        async () => {
          const search = (await readyz())?.search as { semantic_state?: string; reason?: string } | undefined;
          if (/not cached/.test(search?.reason ?? '')) throw new Error(`no model: ${search?.reason}`);
          return search?.semantic_state === 'ready';
        },
        {
          timeoutMs: 900_000,
          stepMs: 250,
          what: `semantic search ready\n${svc.output().slice(-2000)}`,
        },
      );
      progress(`service ready at ${svc.url}; loading ${manifest.transcript_lines} lines with earshot ingest`);
      const load0 = performance.now();
      const loader = await spawnEarshot(['ingest', corpusDir], {
        EARSHOT_DATA_DIR: path.join(tmp.dir, 'data'),
        LOG_LEVEL: 'warn',
      });
      const exit = await loader.exited;
      if (exit.code !== 0) throw new Error(`earshot ingest failed: ${loader.output().slice(-2000)}`);
      progress(
        `loaded in ${((performance.now() - load0) / 1000).toFixed(1)} s; waiting for the text to be indexed`,
      );

      // The text is indexed when the backlog's total has not grown for 15 s.
      let last = -1;
      let since = Date.now();
      let backlog: Backlog | undefined;
      await waitFor(
        async () => {
          backlog = (await readyz())?.search?.vector_backlog;
          const total = backlog?.total ?? 0;
          if (total !== last) {
            last = total;
            since = Date.now();
            progress(`indexed ${total} passages and clips, ${backlog?.embedded ?? 0} with vectors`);
          }
          return total > 0 && Date.now() - since > 15_000;
        },
        { timeoutMs: 3 * 3_600_000, stepMs: 1000, what: 'the backfill text indexed' },
      );
      const indexSeconds = (performance.now() - load0) / 1000;
      const atPost = backlog!;
      if (atPost.passages === 0) throw new Error('the backfill was embedded before the episode was posted');

      const fresh = freshEpisode(corpusDir, Date.now());
      progress(
        `posting ${fresh.id} with ${atPost.passages} passages waiting (${atPost.embedded} of ${atPost.total} embedded)`,
      );
      const t0 = performance.now();
      const res = await fetch(`${svc.url}/v1/ingest/batches`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ records: fresh.records }),
      });
      if (res.status !== 202) throw new Error(`ingest: HTTP ${res.status} ${await res.text()}`);
      let keywordSeconds: number | undefined;
      let semanticSeconds: number | undefined;
      let atHit: Backlog | undefined;
      const kw = `keyword_search=${encodeURIComponent(fresh.word)}&episode_id=${fresh.id}`;
      const sem = `semantic_search=${encodeURIComponent(fresh.text.slice(0, 400))}&episode_id=${fresh.id}`;
      await waitFor(
        async () => {
          const s = (performance.now() - t0) / 1000;
          if (keywordSeconds === undefined && (await search(kw))) keywordSeconds = s;
          if (semanticSeconds === undefined && (await search(sem))) {
            semanticSeconds = s;
            atHit = (await readyz())?.search?.vector_backlog;
          }
          return keywordSeconds !== undefined && semanticSeconds !== undefined;
        },
        { timeoutMs: 1_800_000, stepMs: POLL_MS, what: `hits for ${fresh.id}` },
      );
      progress(
        `keyword after ${keywordSeconds!.toFixed(1)} s, semantic after ${semanticSeconds!.toFixed(1)} s; ${atHit?.passages ?? 0} backfill passages still waiting`,
      );
      const bench = 'search-fresh';
      const conditions = `backfill ${manifest.transcript_lines.toLocaleString('en')} lines (${atPost.total.toLocaleString('en')} passages and clips; ${atPost.passages.toLocaleString('en')} passages waiting at the post, ${(atHit?.passages ?? 0).toLocaleString('en')} at the semantic hit); text indexed ${Math.round(indexSeconds)} s after the load began; load average ${os.loadavg()[0]!.toFixed(1)}`;
      results.push(
        {
          bench,
          metric: 'POST /v1/ingest/batches → first keyword hit',
          value: Math.round(keywordSeconds! * 10) / 10,
          unit: 's',
          note: conditions,
        },
        {
          bench,
          metric: 'POST /v1/ingest/batches → first semantic hit, during a backfill',
          value: Math.round(semanticSeconds! * 10) / 10,
          unit: 's',
          target: { op: '<=', value: 60 },
          note: conditions,
        },
        {
          bench,
          metric: 'backfill passages still waiting at the semantic hit',
          value: atHit?.passages ?? 0,
          unit: 'passages',
          note: 'must be > 0: the episode went ahead of the backlog',
        },
      );
      return results;
    } finally {
      const exit = await svc.stop('SIGTERM');
      if (exit.code !== 0)
        progress(`service exited ${exit.code ?? exit.signal}: ${svc.output().slice(-1000)}`);
      if (!process.env['EARSHOT_BENCH_FRESH_KEEP']) tmp.remove();
      else progress(`kept ${tmp.dir}`);
    }
  },
};
