import { pathToFileURL } from 'node:url';
import type { EmbeddingsPort } from '../../projections/embeddings/embeddings-port.ts';
import { fetchModel } from '../../projections/embeddings/model-fetch.ts';
import { OnnxEmbeddings } from '../../projections/embeddings/onnx-embeddings.ts';
import { modelsDirOf } from '../support/open-embeddings.ts';

export interface EmbeddingsBenchResult {
  model: string;
  sentences: number;
  batchSize: number;
  wordsPerSentence: number;
  seconds: number;
  sentencesPerSecond: number;
  /** Milliseconds per `embed` call of `batchSize` sentences. */
  batchMsP50: number;
  batchMsMax: number;
}

export interface BenchOptions {
  batchSize?: number;
  wordsPerSentence?: number;
  /** Sentences embedded first and not timed, so one-off allocation is not measured. */
  warmup?: number;
  seed?: number;
}

/** Embeds `n` synthetic transcript lines in calls of `batchSize` and reports throughput. */
export async function benchEmbeddings(
  port: EmbeddingsPort,
  n: number,
  options: BenchOptions = {},
): Promise<EmbeddingsBenchResult> {
  const batchSize = options.batchSize ?? 32;
  const wordsPerSentence = options.wordsPerSentence ?? 15;
  const lines = transcriptLines(n, wordsPerSentence, options.seed ?? 1);
  const warmup = transcriptLines(options.warmup ?? Math.min(batchSize, 32), wordsPerSentence, 999);
  if (warmup.length > 0) await port.embed(warmup);

  const batchMs: number[] = [];
  const started = performance.now();
  for (let i = 0; i < lines.length; i += batchSize) {
    const t = performance.now();
    const vectors = await port.embed(lines.slice(i, i + batchSize));
    batchMs.push(performance.now() - t);
    if (vectors.length !== Math.min(batchSize, lines.length - i)) {
      throw new Error('embed returned a short batch');
    }
  }
  const seconds = (performance.now() - started) / 1000;
  batchMs.sort((a, b) => a - b);
  return {
    model: port.model,
    sentences: n,
    batchSize,
    wordsPerSentence,
    seconds: round(seconds, 3),
    sentencesPerSecond: round(n / seconds, 1),
    batchMsP50: round(batchMs[Math.floor(batchMs.length / 2)] ?? 0, 1),
    batchMsMax: round(batchMs[batchMs.length - 1] ?? 0, 1),
  };
}

const WORDS = (
  'so and the we you I think that really like know what market rates inflation Fed bank ' +
  'episode guest show today talking about company CEO revenue growth quarter earnings AI chips ' +
  'Nvidia Apple election senator policy climate energy oil prices startup founder funding round ' +
  'crypto bitcoin stock shares investors recession jobs report housing mortgage sponsor code ' +
  'podcast listeners interview book story season team coach game playoffs trade deal tariffs ' +
  'China Europe war ceasefire vaccine study researchers data privacy lawsuit court ruling ' +
  'honestly basically actually yeah right absolutely huge big new next last year week million billion'
).split(' ');

/** Deterministic pseudo-random lines of the given length, shaped like transcript text. */
export function transcriptLines(count: number, words: number, seed: number): string[] {
  let state = seed >>> 0;
  const next = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => {
    const picked = Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]!);
    const line = picked.join(' ');
    return `${line[0]!.toUpperCase()}${line.slice(1)}${next() < 0.2 ? '?' : '.'}`;
  });
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 512);
  const { dir, source } = await fetchModel({
    modelsDir: process.env['EARSHOT_MODELS_DIR'] || modelsDirOf(),
    onProgress: (p) => process.stderr.write(`\r${p.source}: ${(p.receivedBytes / 1e6).toFixed(1)} MB`),
  });
  process.stderr.write(`model from ${source} at ${dir}\n`);
  const rows = [];
  for (const threads of [1, 2]) {
    const port = await OnnxEmbeddings.open({ modelDir: dir, intraOpNumThreads: threads, maxBatchSize: 64 });
    try {
      for (const batchSize of [1, 32, 64]) {
        rows.push({
          threads,
          ...(await benchEmbeddings(port, batchSize === 1 ? Math.min(n, 128) : n, { batchSize })),
        });
      }
    } finally {
      await port.close();
    }
  }
  console.table(rows);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
