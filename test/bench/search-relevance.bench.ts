import fs from 'node:fs';
import path from 'node:path';
import { rankLines } from '../../api/search/dialogue-search.ts';
import { QueryEmbedder } from '../../api/search/search-services.ts';
import { GROUND_TRUTH_FILES } from '../../ingest/corpus/generate.ts';
import type { QueryDef } from '../../ingest/corpus/vocabulary/types.ts';
import { MODEL_NAME } from '../../projections/embeddings/local-models.ts';
import { LanceDbSearchIndex } from '../../projections/search/lancedb/lancedb-search-index.ts';
import type { SearchIndex } from '../../projections/search/search-index.ts';
import { parseKeywordQuery } from '../../projections/search/text-analysis.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { type Corpus, generateTestCorpus, loadCorpus, produceCorpus } from '../support/corpus.ts';
import { openTestEmbeddings, projectIntoSearch, searchApi } from '../support/search.ts';
import { tempDir } from '../support/temp-dir.ts';
import { type Bench, type BenchResult, benchModel } from './bench.ts';

type Mode = 'keyword' | 'semantic' | 'hybrid';

/** Graded judgements of one query: `episode:line` → grade (1 or 2). */
type Judgements = Map<string, number>;

export function ndcgAt(k: number, ranked: string[], judged: Judgements): number {
  const gain = (g: number) => 2 ** g - 1;
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    dcg += gain(judged.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...judged.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((s, g, i) => s + gain(g) / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Share of the first k that are relevant, out of what could be (min(k, relevant)). */
export function recallAt(k: number, ranked: string[], judged: Judgements): number {
  const relevant = [...judged.values()].filter((g) => g > 0).length;
  if (relevant === 0) return 0;
  const hits = ranked.slice(0, k).filter((id) => (judged.get(id) ?? 0) > 0).length;
  return hits / Math.min(k, relevant);
}

function readNdjson<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

export interface RelevanceReport {
  queries: number;
  skipped: string[];
  perQuery: {
    id: string;
    kind: string;
    lang: string;
    mode: Mode;
    ndcg: number;
    recall: number;
    segNdcg: number;
  }[];
}

/**
 * Runs every evaluation query of a generated corpus against an index built from it through the
 * pipeline: line-level metrics on the line ranking dialogue search groups into segments, and
 * segment-level nDCG on the first page of `GET /v1/podcasts/episodes/search` (a segment's gain is
 * its best line's).
 */
export async function evaluateRelevance(options: {
  corpus: Corpus;
  index: SearchIndex;
  api: Awaited<ReturnType<typeof searchApi>>;
}): Promise<RelevanceReport> {
  const { corpus, api } = options;
  const queries = readNdjson<QueryDef>(path.join(corpus.dir, GROUND_TRUTH_FILES.queries));
  const judgements = new Map<string, Judgements>();
  for (const r of readNdjson<{ query_id: string; episode_id: string; line_number: number; grade: number }>(
    path.join(corpus.dir, GROUND_TRUTH_FILES.relevance),
  )) {
    const j = judgements.get(r.query_id) ?? new Map();
    j.set(`${r.episode_id}:${r.line_number}`, r.grade);
    judgements.set(r.query_id, j);
  }
  // Condensed lists: a line a query's judgements leave out (unjudged) is dropped from its rankings.
  const unjudged = new Map<string, Set<string>>();
  const unjudgedFile = path.join(corpus.dir, GROUND_TRUTH_FILES.unjudged);
  if (fs.existsSync(unjudgedFile)) {
    for (const r of readNdjson<{ query_id: string; episode_id: string; line_number: number }>(unjudgedFile)) {
      const set = unjudged.get(r.query_id) ?? new Set();
      set.add(`${r.episode_id}:${r.line_number}`);
      unjudged.set(r.query_id, set);
    }
  }
  const segmentLines = new Map<string, { episode: string; first: number; last: number }>();
  for (const s of corpus.segments) {
    for (const seg of s.segments)
      segmentLines.set(seg.id, { episode: s.episode_id, first: seg.first_line, last: seg.last_line });
  }
  const embedder = new QueryEmbedder(api.services);
  const report: RelevanceReport = { queries: queries.length, skipped: [], perQuery: [] };
  for (const q of queries) {
    const judged = judgements.get(q.id);
    if (!judged || judged.size === 0) {
      report.skipped.push(q.id);
      continue;
    }
    // Every kind in every mode: hybrid is held to the better of the other two on each.
    const modes: Mode[] = ['keyword', 'semantic', 'hybrid'];
    for (const mode of modes) {
      const keyword = mode !== 'semantic' ? parseKeywordQuery(q.text) : undefined;
      const vector = mode !== 'keyword' ? await embedder.embed(q.text, 'query') : undefined;
      const { ranked } = await rankLines(api.services, { keyword, vector, filter: {}, depth: 100 });
      const skip = unjudged.get(q.id) ?? new Set<string>();
      const lineIds = ranked.map((r) => r.hit.id).filter((id) => !skip.has(id));

      const params = new URLSearchParams({ limit: '10' });
      if (mode !== 'semantic') params.set('keyword_search', q.text);
      if (mode !== 'keyword') params.set('semantic_search', q.text);
      const res = await api.app.inject({
        method: 'GET',
        url: `/v1/podcasts/episodes/search?${params}`,
        headers: { 'x-api-key': api.key },
      });
      if (res.statusCode !== 200) throw new Error(`${q.id} ${mode}: HTTP ${res.statusCode} ${res.body}`);
      const segJudged: Judgements = new Map();
      const segUnjudged = new Set<string>();
      for (const [id, range] of segmentLines) {
        let best = 0;
        for (let n = range.first; n <= range.last; n++) {
          best = Math.max(best, judged.get(`${range.episode}:${n}`) ?? 0);
          if (skip.has(`${range.episode}:${n}`)) segUnjudged.add(id);
        }
        if (best > 0) segJudged.set(id, best);
      }
      // A segment whose only lines about the query are unjudged ones is dropped like those lines.
      const segIds = (res.json() as { data: { segment: { id: string } }[] }).data
        .map((d) => d.segment.id)
        .filter((id) => segJudged.has(id) || !segUnjudged.has(id));
      report.perQuery.push({
        id: q.id,
        kind: q.kind,
        lang: q.lang,
        mode,
        ndcg: ndcgAt(10, lineIds, judged),
        recall: recallAt(10, lineIds, judged),
        segNdcg: ndcgAt(10, segIds, segJudged),
      });
    }
  }
  return report;
}

function mean(xs: number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export function summarize(report: RelevanceReport, bench: string): BenchResult[] {
  const pick = (kind: string, mode: Mode, field: 'ndcg' | 'recall' | 'segNdcg', lang?: string) =>
    mean(
      report.perQuery
        .filter((p) => p.kind === kind && p.mode === mode && (!lang || p.lang === lang))
        .map((p) => p[field]),
    );
  const kwPhrase = pick('keyword', 'keyword', 'ndcg');
  const mixedKw = pick('mixed', 'keyword', 'ndcg');
  const mixedSem = pick('mixed', 'semantic', 'ndcg');
  const mixedHybrid = pick('mixed', 'hybrid', 'ndcg');
  const n = (kind: string) => new Set(report.perQuery.filter((p) => p.kind === kind).map((p) => p.id)).size;
  const note = `${n('keyword')} keyword, ${n('paraphrase')} paraphrase, ${n('mixed')} mixed queries; no relevant line in the corpus: ${report.skipped.join(', ') || 'none'}`;
  return [
    {
      bench,
      metric: 'exact-phrase keyword queries: nDCG@10 (lines)',
      value: r3(kwPhrase),
      unit: '',
      target: { op: '>=', value: 0.9 },
      note,
    },
    {
      bench,
      metric: 'paraphrase queries: semantic recall@10 (lines)',
      value: r3(pick('paraphrase', 'semantic', 'recall')),
      unit: '',
      target: { op: '>=', value: 0.8 },
    },
    {
      bench,
      metric: 'paraphrase queries (en): semantic recall@10 (lines)',
      value: r3(pick('paraphrase', 'semantic', 'recall', 'en')),
      unit: '',
    },
    {
      bench,
      metric: 'paraphrase queries: keyword recall@10 (lines)',
      value: r3(pick('paraphrase', 'keyword', 'recall')),
      unit: '',
      target: { op: '<=', value: 0.3 },
    },
    { bench, metric: 'mixed queries: keyword nDCG@10 (lines)', value: r3(mixedKw), unit: '' },
    { bench, metric: 'mixed queries: semantic nDCG@10 (lines)', value: r3(mixedSem), unit: '' },
    { bench, metric: 'mixed queries: hybrid nDCG@10 (lines)', value: r3(mixedHybrid), unit: '' },
    {
      bench,
      metric: 'mixed queries: hybrid minus the better of keyword and semantic, nDCG@10',
      value: r3(mixedHybrid - Math.max(mixedKw, mixedSem)),
      unit: '',
      target: { op: '>=', value: 0 },
    },
    {
      bench,
      metric: 'exact-phrase keyword queries: hybrid minus the better of keyword and semantic, nDCG@10',
      value: r3(pick('keyword', 'hybrid', 'ndcg') - Math.max(kwPhrase, pick('keyword', 'semantic', 'ndcg'))),
      unit: '',
      target: { op: '>=', value: 0 },
      note: `hybrid ${r3(pick('keyword', 'hybrid', 'ndcg'))}, semantic ${r3(pick('keyword', 'semantic', 'ndcg'))}`,
    },
    {
      bench,
      metric: 'paraphrase queries (en): hybrid recall@10 (lines)',
      value: r3(pick('paraphrase', 'hybrid', 'recall', 'en')),
      unit: '',
    },
    {
      bench,
      metric: 'paraphrase queries (en): hybrid minus the better of keyword and semantic, recall@10',
      value: r3(
        pick('paraphrase', 'hybrid', 'recall', 'en') -
          Math.max(
            pick('paraphrase', 'keyword', 'recall', 'en'),
            pick('paraphrase', 'semantic', 'recall', 'en'),
          ),
      ),
      unit: '',
      target: { op: '>=', value: 0 },
    },
    {
      bench,
      metric: 'exact-phrase keyword queries: nDCG@10 (segments, API)',
      value: r3(pick('keyword', 'keyword', 'segNdcg')),
      unit: '',
    },
    {
      bench,
      metric: 'paraphrase queries: semantic nDCG@10 (segments, API)',
      value: r3(pick('paraphrase', 'semantic', 'segNdcg')),
      unit: '',
    },
    {
      bench,
      metric: 'mixed queries: hybrid nDCG@10 (segments, API)',
      value: r3(pick('mixed', 'hybrid', 'segNdcg')),
      unit: '',
    },
  ];
}

/** Builds a LanceDB index from a generated corpus through the pipeline and evaluates it. */
export const searchRelevanceBench: Bench = {
  name: 'search-relevance',
  description: "dialogue search relevance on the generator's evaluation queries (ground truth per line)",
  async run(progress) {
    const podcasts = Number(process.env['EARSHOT_BENCH_EVAL_PODCASTS'] ?? 36);
    const episodes = Number(process.env['EARSHOT_BENCH_EVAL_EPISODES'] ?? 4);
    const seed = Number(process.env['EARSHOT_BENCH_EVAL_SEED'] ?? 42);
    // EARSHOT_BENCH_EVAL_TURNS=realistic: long-tailed turn lengths, monologues of 1,000+ tokens.
    const turns = process.env['EARSHOT_BENCH_EVAL_TURNS'] === 'realistic' ? 'realistic' : 'short';
    // EARSHOT_BENCH_EVAL_INDEX keeps the corpus and the built index there and reuses them while
    // the sizes, seed and model match (ranking changes can then be compared on the same index).
    const keep = process.env['EARSHOT_BENCH_EVAL_INDEX'];
    // EARSHOT_BENCH_EVAL_MODEL: another local model than the default (EARSHOT_EMBEDDINGS_LOCAL_MODEL's names).
    const model = benchModel('EARSHOT_BENCH_EVAL_MODEL') ?? MODEL_NAME;
    const tmp = keep ? { dir: keep, remove: () => {} } : tempDir('earshot-bench-relevance-');
    fs.mkdirSync(tmp.dir, { recursive: true });
    const embeddings = await openTestEmbeddings(2, model);
    try {
      const record = path.join(tmp.dir, 'build.json');
      const wanted = JSON.stringify({
        podcasts,
        episodes,
        seed,
        model: embeddings.query.model,
        ...(turns === 'realistic' ? { turns } : {}),
      });
      const built = fs.existsSync(record) && fs.readFileSync(record, 'utf8') === wanted;
      if (!built) {
        fs.rmSync(path.join(tmp.dir, 'corpus'), { recursive: true, force: true });
        fs.rmSync(path.join(tmp.dir, 'search'), { recursive: true, force: true });
        progress(`generating ${podcasts} podcasts × ${episodes} episodes, seed ${seed}, ${turns} turns`);
      } else progress(`reusing the corpus and index in ${tmp.dir}`);
      const corpus = built
        ? loadCorpus(path.join(tmp.dir, 'corpus'))
        : await generateTestCorpus({
            dir: path.join(tmp.dir, 'corpus'),
            podcasts,
            episodesPerPodcast: episodes,
            seed,
            asOf: Date.UTC(2026, 5, 1),
            turns,
          });
      const index = new LanceDbSearchIndex(path.join(tmp.dir, 'search'), {
        dimensions: embeddings.query.dimensions,
        model: embeddings.query.model,
      });
      await index.open();
      // Kept beside the index, so a reused index has the catalog the API reads.
      if (!built) fs.rmSync(path.join(tmp.dir, 'state'), { recursive: true, force: true });
      const state = new PgliteStateStore(keep ? path.join(tmp.dir, 'state') : undefined);
      const api = await searchApi({ index, state, embeddings: embeddings.query });
      const lines = corpus.transcripts.reduce((n, t) => n + t.lines.length, 0);
      if (!built) {
        progress(`indexing ${lines} lines through the projectors`);
        const projection = await projectIntoSearch({
          index,
          state,
          catalog: api.catalog,
          embeddings: embeddings.indexing,
          produce: (b) => produceCorpus(b.producer, corpus),
          timeoutMs: 3_600_000,
        });
        await projection.close();
        if (keep) fs.writeFileSync(record, wanted);
      }
      progress('evaluating');
      const report = await evaluateRelevance({ corpus, index, api });
      for (const p of report.perQuery) {
        progress(
          `${p.id} ${p.mode}: nDCG@10 ${p.ndcg.toFixed(2)} recall@10 ${p.recall.toFixed(2)} segments ${p.segNdcg.toFixed(2)}`,
        );
      }
      await api.close();
      await state.close();
      await index.close();
      return summarize(report, 'search-relevance');
    } finally {
      await embeddings.close();
      tmp.remove();
    }
  },
};
