import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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
 * still waiting for vectors at that moment (it has to be, for the figure to mean anything). Each
 * time is reported on its own: a hit that has not come within EARSHOT_BENCH_FRESH_WAIT_S (default
 * 600 s) after the post is reported as missing (NaN, the wait in its note).
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
    const waitSeconds = Number(process.env['EARSHOT_BENCH_FRESH_WAIT_S'] ?? 600);
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

      // The text is indexed when the search projector has committed everything (its lag in
      // /metrics is 0) and the backlog's total has not grown for 5 s. A pause in the total alone
      // is no sign: on a large backfill the projector waits behind the other steps for minutes.
      const searchLag = async () => {
        const res = await fetch(`${svc.url}/metrics`).catch(() => undefined);
        const text = res?.ok ? await res.text() : '';
        const m = /^earshot_consumer_lag\{step="search-projector"\} (\d+)/m.exec(text);
        return m ? Number(m[1]) : undefined;
      };
      let last = -1;
      let since = Date.now();
      let lastReport = 0;
      let backlog: Backlog | undefined;
      await waitFor(
        async () => {
          backlog = (await readyz())?.search?.vector_backlog;
          const total = backlog?.total ?? 0;
          const lag = await searchLag();
          if (total !== last) {
            last = total;
            since = Date.now();
          }
          if (Date.now() - lastReport > 30_000) {
            lastReport = Date.now();
            progress(
              `indexed ${total} passages and clips, ${backlog?.embedded ?? 0} with vectors; search projector lag ${lag ?? 'unknown'}`,
            );
          }
          return total > 0 && lag === 0 && Date.now() - since > 5_000;
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
      const kw = `keyword_search=${encodeURIComponent(fresh.word)}&episode_id=${fresh.id}`;
      const sem = `semantic_search=${encodeURIComponent(fresh.text.slice(0, 400))}&episode_id=${fresh.id}`;
      // Each hit is reported when it comes; one that does not come within the wait is reported as
      // missing (NaN, with the wait in its note) instead of failing the run, so a slow semantic hit
      // still leaves the keyword figure.
      const seconds = () => (performance.now() - t0) / 1000;
      let keywordSeconds: number | undefined;
      let keywordBacklog: Backlog | undefined;
      let semanticSeconds: number | undefined;
      let atHit: Backlog | undefined;
      const deadline = t0 + waitSeconds * 1000;
      while (performance.now() < deadline) {
        if (keywordSeconds === undefined && (await search(kw))) {
          keywordSeconds = seconds();
          keywordBacklog = (await readyz())?.search?.vector_backlog;
          progress(
            `keyword hit after ${keywordSeconds.toFixed(1)} s (${keywordBacklog?.passages ?? '?'} passages waiting for vectors)`,
          );
        }
        if (semanticSeconds === undefined && (await search(sem))) {
          semanticSeconds = seconds();
          atHit = (await readyz())?.search?.vector_backlog;
          progress(
            `semantic hit after ${semanticSeconds.toFixed(1)} s (${atHit?.passages ?? '?'} backfill passages still waiting)`,
          );
        }
        if (keywordSeconds !== undefined && semanticSeconds !== undefined) break;
        await sleep(POLL_MS);
      }
      const lastBacklog = atHit ?? (await readyz())?.search?.vector_backlog;
      for (const [what, s] of [
        ['keyword', keywordSeconds],
        ['semantic', semanticSeconds],
      ] as const) {
        if (s === undefined) progress(`no ${what} hit within ${waitSeconds} s`);
      }
      const bench = 'search-fresh';
      const missing = (s: number | undefined) =>
        s === undefined ? `; no hit within the ${waitSeconds} s wait` : '';
      const conditions = `backfill ${manifest.transcript_lines.toLocaleString('en')} lines (${atPost.total.toLocaleString('en')} passages and clips; ${atPost.passages.toLocaleString('en')} passages waiting at the post); text indexed ${Math.round(indexSeconds)} s after the load began; load average ${os.loadavg()[0]!.toFixed(1)}`;
      const round = (s: number | undefined) => (s === undefined ? Number.NaN : Math.round(s * 10) / 10);
      results.push(
        {
          bench,
          metric: 'POST /v1/ingest/batches → first keyword hit, during a backfill',
          value: round(keywordSeconds),
          unit: 's',
          note: `${conditions}; ${(keywordBacklog?.passages ?? 0).toLocaleString('en')} passages waiting at the hit${missing(keywordSeconds)}`,
        },
        {
          bench,
          metric: 'POST /v1/ingest/batches → first semantic hit, during a backfill',
          value: round(semanticSeconds),
          unit: 's',
          target: { op: '<=', value: 60 },
          note: `${conditions}${missing(semanticSeconds)}`,
        },
        {
          bench,
          metric:
            semanticSeconds === undefined
              ? 'backfill passages still waiting at the end of the wait'
              : 'backfill passages still waiting at the semantic hit',
          value: lastBacklog?.passages ?? Number.NaN,
          unit: 'passages',
          note: 'must be > 0 at the hit: the episode went ahead of the backlog',
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
