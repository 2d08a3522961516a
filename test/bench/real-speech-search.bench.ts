import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rankLines } from '../../api/search/dialogue-search.ts';
import { QueryEmbedder } from '../../api/search/search-services.ts';
import { readRecords } from '../../ingest/corpus/read-corpus.ts';
import { MODEL_NAME } from '../../projections/embeddings/model-fetch.ts';
import { LanceDbSearchIndex } from '../../projections/search/lancedb/lancedb-search-index.ts';
import { parseKeywordQuery } from '../../projections/search/text-analysis.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { loadSchema, type SchemaName } from '../../schemas/avro-schemas.ts';
import type { Segments, Transcript } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { openTestEmbeddings, projectIntoSearch, searchApi } from '../support/search.ts';
import { type Bench, type BenchResult, benchModel } from './bench.ts';

/**
 * Dialogue search relevance on real speech: the hand-judged search questions of the real-speech
 * evaluation set (`real-speech/search-questions.ndjson`, or the evaluation dir's
 * `labels/questions.ndjson`; see docs/search.md → "Real speech") against a LanceDB
 * index built from its transcripts through the search projector and the vector filler, with the
 * default local model. Scores the line ranking dialogue search groups into segments:
 *
 * - precision@5 of keyword, semantic and hybrid search (the question text as `keyword_search`,
 *   `semantic_search`, or both): the share of the first five distinct lines judged relevant
 *   (grade ≥ 1; strict: grade 2), averaged over questions, English and Hindi apart;
 * - the tail test: the first relevant line of each `tail` question (its answer sits beyond 90 % of
 *   a turn of 1,100+ tokens) among the first ten semantic lines.
 *
 * The corpus has no segment records; the bench cuts each transcript into segments of about ten
 * minutes at line boundaries (passages never cross a segment). Embedding the whole corpus (about
 * 9.4 million model tokens) takes hours on a shared 2-core machine, so by default only the
 * episodes holding a judged line are indexed (`EARSHOT_BENCH_REAL_SPEECH_EPISODES=judged`; `all`
 * for every episode, or a number N for N episodes in all: the judged ones, then others in corpus
 * order as distractors). `EARSHOT_BENCH_REAL_SPEECH_INDEX` keeps the built index in that directory and
 * reuses it on the next run (same episode selection and model). `EARSHOT_BENCH_REAL_SPEECH_MODEL` picks
 * another local model than the default. `EARSHOT_BENCH_REAL_SPEECH_MODES=keyword`
 * builds no vectors and scores keyword search alone (minutes instead of hours, so it can run over
 * every episode).
 *
 * The dir holds the corpus converted to ingest records in `out/` (real-speech/convert-seenunseen.ts).
 * Run: `EARSHOT_REAL_SPEECH_DIR=<dir> npm run bench -- real-speech-search`, or
 * `node --import tsx test/bench/real-speech-search.bench.ts <dir> [--details]`.
 */

interface Judged {
  episode_id: string;
  line: number;
  grade: number;
}
export interface Question {
  id: string;
  query: string;
  lang: string;
  kind: 'tail' | 'passage' | 'cross_lingual';
  relevant: Judged[];
}

type Mode = 'keyword' | 'semantic' | 'hybrid';

/**
 * The question set judged on seenunseen-whisper (docs/search.md → Real speech): questions and line
 * references only, no transcript text. `<dir>/labels/questions.ndjson` replaces it when present.
 */
const COMMITTED_QUESTIONS = fileURLToPath(new URL('./real-speech/search-questions.ndjson', import.meta.url));
const MODES: Mode[] = ['keyword', 'semantic', 'hybrid'];
const SEGMENT_SECONDS = 600;

export interface QuestionResult {
  id: string;
  lang: string;
  kind: string;
  mode: Mode;
  /** First lines, distinct, best first. */
  top: string[];
  p5: number;
  p5strict: number;
  /** Of the first five, lines no judgement covers. */
  unjudged: number;
  /** Rank (1-based) of the question's first relevant line, or undefined beyond depth. */
  firstRelevantRank?: number;
}

function readNdjson<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as T);
}

function normalise<T>(schema: SchemaName, data: unknown): T {
  const type = loadSchema(schema).type;
  return type.fromBuffer(type.toBuffer(data)) as T;
}

/** Segments of about SEGMENT_SECONDS at line boundaries. */
export function cutSegments(t: Transcript): Segments {
  const segments: Segments['segments'] = [];
  let first = 0;
  for (let i = 0; i < t.lines.length; i++) {
    const line = t.lines[i]!;
    const next = t.lines[i + 1];
    const start = t.lines[first]!;
    if (!next || next.start_seconds - start.start_seconds >= SEGMENT_SECONDS) {
      segments.push({
        id: `${t.episode_id}_s${segments.length + 1}`,
        number: segments.length + 1,
        title: `Part ${segments.length + 1}`,
        type: 'INTERVIEW',
        start_seconds: start.start_seconds,
        end_seconds: line.end_seconds,
        first_line: start.number,
        last_line: line.number,
        description: null,
        summary: null,
        audio_url: null,
        read_type: null,
        topics: [],
      });
      first = i + 1;
    }
  }
  return { episode_id: t.episode_id, segments };
}

function selection(questions: Question[], episodeIds: string[]): Set<string> {
  const judged = new Set(questions.flatMap((q) => q.relevant.map((r) => r.episode_id)));
  const how = process.env['EARSHOT_BENCH_REAL_SPEECH_EPISODES'] ?? 'judged';
  if (how === 'all') return new Set(episodeIds);
  // A number: that many episodes in all, the judged ones and then others in corpus order. Judging
  // a line of an indexed distractor (a pool read from this index) leaves the selection as it was.
  const total = how === 'judged' ? judged.size : Number(how);
  if (!Number.isInteger(total) || total < 0)
    throw new Error(`EARSHOT_BENCH_REAL_SPEECH_EPISODES must be judged, all or a number, got ${how}`);
  const out = new Set(judged);
  for (const id of episodeIds) {
    if (out.size >= total) break;
    out.add(id);
  }
  return out;
}

export function scoreQuestion(q: Question, mode: Mode, ranked: string[]): QuestionResult {
  const grades = new Map(q.relevant.map((r) => [`${r.episode_id}:${r.line}`, r.grade]));
  const top = [...new Set(ranked)];
  const five = top.slice(0, 5);
  const first = q.relevant[0]!;
  const firstIdx = top.indexOf(`${first.episode_id}:${first.line}`);
  return {
    id: q.id,
    lang: q.lang,
    kind: q.kind,
    mode,
    top: top.slice(0, 10),
    p5: five.filter((id) => (grades.get(id) ?? 0) >= 1).length / 5,
    p5strict: five.filter((id) => grades.get(id) === 2).length / 5,
    unjudged: five.filter((id) => !grades.has(id)).length,
    ...(firstIdx >= 0 ? { firstRelevantRank: firstIdx + 1 } : {}),
  };
}

export interface RealSpeechSearchEvaluation {
  episodes: number;
  lines: number;
  buildSeconds?: number;
  results: QuestionResult[];
}

export async function evaluateRealSpeechSearch(
  dir: string,
  progress: (msg: string) => void = () => {},
): Promise<RealSpeechSearchEvaluation> {
  const out = (f: string) => path.join(dir, 'out', f);
  const own = path.join(dir, 'labels', 'questions.ndjson');
  const questions = readNdjson<Question>(fs.existsSync(own) ? own : COMMITTED_QUESTIONS);
  const episodeIds: string[] = [];
  for await (const e of readRecords<{ id: string }>(out('episodes.ndjson'))) episodeIds.push(e.id);
  const chosen = selection(questions, episodeIds);
  const modes: Mode[] = process.env['EARSHOT_BENCH_REAL_SPEECH_MODES'] === 'keyword' ? ['keyword'] : MODES;
  const withVectors = modes.length > 1;

  const keep = process.env['EARSHOT_BENCH_REAL_SPEECH_INDEX'];
  const indexDir = keep ?? fs.mkdtempSync(path.join(process.env['TMPDIR'] ?? '/tmp', 'earshot-rs-search-'));
  const record = path.join(indexDir, 'build.json');
  const wanted = [...chosen].sort().join(',');
  const previous = fs.existsSync(record)
    ? (JSON.parse(fs.readFileSync(record, 'utf8')) as { episodes: string; vectors: boolean; model?: string })
    : undefined;
  // EARSHOT_BENCH_REAL_SPEECH_MODEL: another local model than the default.
  const embeddings = await openTestEmbeddings(2, benchModel('EARSHOT_BENCH_REAL_SPEECH_MODEL') ?? MODEL_NAME);
  const built =
    previous?.episodes === wanted &&
    (previous.vectors || !withVectors) &&
    (!withVectors || previous.model === embeddings.query.model);

  const index = new LanceDbSearchIndex(path.join(indexDir, 'search'), {
    dimensions: embeddings.query.dimensions,
    model: embeddings.query.model,
  });
  try {
    if (!built) fs.rmSync(path.join(indexDir, 'search'), { recursive: true, force: true });
    await index.open();
    const state = new PgliteStateStore();
    const api = await searchApi({ index, state, embeddings: embeddings.query });
    let lines = 0;
    let buildSeconds: number | undefined;
    if (!built) {
      progress(`indexing ${chosen.size} of ${episodeIds.length} episodes (model ${embeddings.query.model})`);
      const t0 = performance.now();
      const projection = await projectIntoSearch({
        index,
        state,
        catalog: api.catalog,
        ...(withVectors ? { embeddings: embeddings.indexing } : {}),
        timeoutMs: 6 * 3_600_000,
        produce: async (b) => {
          const send = async (
            topic: (typeof TOPICS)[keyof typeof TOPICS],
            schema: SchemaName,
            file: string,
          ) => {
            let batch: { key: string; value: unknown }[] = [];
            for await (const raw of readRecords<Record<string, unknown>>(out(file))) {
              const id = (raw['episode_id'] ?? raw['id']) as string;
              if (schema === 'EpisodePublished' && !chosen.has(id)) continue;
              if (schema === 'Transcript') {
                if (!chosen.has(id)) continue;
                const t = normalise<Transcript>('Transcript', raw);
                lines += t.lines.length;
                batch.push({ key: id, value: t });
                await b.producer.send(TOPICS.segments, [{ key: id, value: cutSegments(t) }]);
              } else batch.push({ key: id, value: normalise(schema, raw) });
              if (batch.length >= 50) {
                await b.producer.send(topic, batch);
                batch = [];
              }
            }
            if (batch.length > 0) await b.producer.send(topic, batch);
          };
          await send(TOPICS.publishers, 'Publisher', 'publishers.ndjson');
          await send(TOPICS.podcasts, 'Podcast', 'podcasts.ndjson');
          await send(TOPICS.episodes, 'EpisodePublished', 'episodes.ndjson');
          await send(TOPICS.transcripts, 'Transcript', 'transcripts.ndjson');
          progress(`${lines} lines produced; projecting${withVectors ? ' and embedding' : ''}`);
        },
      });
      await projection.close();
      buildSeconds = (performance.now() - t0) / 1000;
      progress(`built in ${buildSeconds.toFixed(0)} s`);
      if (keep)
        fs.writeFileSync(
          record,
          JSON.stringify({
            episodes: wanted,
            vectors: withVectors,
            model: embeddings.query.model,
            lines,
            buildSeconds,
          }),
        );
    } else {
      lines = (JSON.parse(fs.readFileSync(record, 'utf8')) as { lines: number }).lines;
      progress(`reusing the index in ${indexDir}`);
    }

    const embedder = new QueryEmbedder(api.services);
    const results: QuestionResult[] = [];
    for (const q of questions) {
      for (const mode of modes) {
        const keyword = mode !== 'semantic' ? parseKeywordQuery(q.query) : undefined;
        const vector = mode !== 'keyword' ? await embedder.embed(q.query, 'query') : undefined;
        const { ranked } = await rankLines(api.services, { keyword, vector, filter: {}, depth: 100 });
        results.push(
          scoreQuestion(
            q,
            mode,
            ranked.map((r) => r.hit.id),
          ),
        );
      }
    }
    await api.close();
    return { episodes: chosen.size, lines, ...(buildSeconds ? { buildSeconds } : {}), results };
  } finally {
    await index.close();
    await embeddings.close();
    if (!keep) fs.rmSync(indexDir, { recursive: true, force: true });
  }
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const mean = (xs: number[]) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

export function realSpeechSearchResults(e: RealSpeechSearchEvaluation): BenchResult[] {
  const bench = 'real-speech-search';
  const pick = (mode: Mode, lang: string, field: 'p5' | 'p5strict' | 'unjudged') =>
    mean(e.results.filter((r) => r.mode === mode && r.lang === lang).map((r) => r[field]));
  const n = (lang: string) => e.results.filter((r) => r.mode === 'keyword' && r.lang === lang).length;
  const out: BenchResult[] = [];
  const modes = MODES.filter((m) => e.results.some((r) => r.mode === m));
  for (const lang of ['en', 'hi']) {
    for (const mode of modes) {
      out.push({
        bench,
        metric: `precision@5 (lines), ${mode}, ${lang}`,
        value: r3(pick(mode, lang, 'p5')),
        unit: 'ratio',
        note: `${n(lang)} questions; strict (grade 2) ${r3(pick(mode, lang, 'p5strict'))}; unjudged lines in the top 5: ${r3(pick(mode, lang, 'unjudged'))} on average`,
      });
    }
    if (modes.length < MODES.length) continue;
    const best = Math.max(pick('keyword', lang, 'p5'), pick('semantic', lang, 'p5'));
    out.push({
      bench,
      metric: `hybrid minus the better of keyword and semantic, precision@5, ${lang}`,
      value: r3(pick('hybrid', lang, 'p5') - best),
      unit: 'ratio',
      target: { op: '>=', value: 0 },
    });
  }
  const tails = e.results.filter((r) => r.kind === 'tail' && r.mode === 'semantic');
  if (tails.length === 0) return out;
  const found = tails.filter((r) => (r.firstRelevantRank ?? Infinity) <= 10);
  out.push({
    bench,
    metric: 'tail test: answer beyond 90 % of a long turn in the semantic top 10',
    value: found.length,
    unit: `of ${tails.length}`,
    target: { op: '>=', value: tails.length },
    note: `${e.episodes} episodes, ${e.lines} lines indexed${e.buildSeconds ? `, built in ${Math.round(e.buildSeconds)} s` : ''}; missed: ${
      tails
        .filter((r) => !found.includes(r))
        .map((r) => r.id)
        .join(', ') || 'none'
    }`,
  });
  return out;
}

export const realSpeechSearchBench: Bench = {
  name: 'real-speech-search',
  description:
    'keyword / semantic / hybrid precision@5 and the tail test on hand-judged questions over real speech (EARSHOT_REAL_SPEECH_DIR; skipped when unset)',
  async run(progress) {
    const dir = process.env['EARSHOT_REAL_SPEECH_DIR'];
    if (!dir) {
      progress('EARSHOT_REAL_SPEECH_DIR is not set: skipped (see docs/search.md → Real speech)');
      return [];
    }
    return realSpeechSearchResults(await evaluateRealSpeechSearch(dir, progress));
  },
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? process.env['EARSHOT_REAL_SPEECH_DIR'];
  if (!dir) {
    console.error(
      'usage: node --import tsx test/bench/real-speech-search.bench.ts <evaluation-set dir> [--details]',
    );
    process.exit(2);
  }
  const e = await evaluateRealSpeechSearch(dir, (msg) => console.error(msg));
  if (process.argv.includes('--details')) {
    for (const r of e.results)
      console.log(
        `${r.id} ${r.mode.padEnd(8)} p@5 ${r.p5.toFixed(1)} strict ${r.p5strict.toFixed(1)} unjudged ${r.unjudged} first@${r.firstRelevantRank ?? '-'} ${r.top.slice(0, 5).join(' ')}`,
      );
  }
  console.table(
    realSpeechSearchResults(e).map(({ metric, value, unit, note }) => ({ metric, value, unit, note })),
  );
}
