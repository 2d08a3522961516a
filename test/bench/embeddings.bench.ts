import os from 'node:os';
import path from 'node:path';
import { generateCorpus } from '../../ingest/corpus/generate.ts';
import { readAll } from '../../ingest/corpus/read-corpus.ts';
import {
  fetchModel,
  LOCAL_MODEL_NAMES,
  type LocalModelName,
  MODEL_NAME,
} from '../../projections/embeddings/model-fetch.ts';
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
 * - `<model> t2 sorted` for each local model (LOCAL_MODELS: all-MiniLM-L6-v2, its int8 export,
 *   bge-small-en-v1.5 and its int8 export; EARSHOT_BENCH_EMBEDDINGS_MODELS, comma-separated,
 *   picks some): what the vector filler does — two ORT threads, a pass's passages in one call,
 *   batched by length (longest first, 32 a batch, each padded to its longest); the int8 exports
 *   also report their mean cosine to their fp32 model's vectors;
 * - `all-MiniLM-L6-v2 t2 unsorted`: calls of 32 passages in corpus order (no batching by length);
 * - `all-MiniLM-L6-v2 t1 sorted`: one thread.
 *
 * The machine this runs on is rarely quiet, so each option also reports tokens per CPU second
 * (the process's user + system time while it ran, every thread counted): on a quiet 2-core
 * machine with two threads, wall-clock tokens/s is at most about twice that figure.
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

      const picked = (process.env['EARSHOT_BENCH_EMBEDDINGS_MODELS'] ?? LOCAL_MODEL_NAMES.join(','))
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean) as LocalModelName[];
      const options: { name: string; model: LocalModelName; threads: number; sorted: boolean }[] = [];
      for (const model of picked) {
        options.push({ name: `${model} t2 sorted`, model, threads: 2, sorted: true });
        if (model === MODEL_NAME) {
          options.push({ name: `${model} t2 unsorted`, model, threads: 2, sorted: false });
          options.push({ name: `${model} t1 sorted`, model, threads: 1, sorted: true });
        }
      }

      const results: BenchResult[] = [];
      const reference = new Map<string, Float32Array[]>();
      const load = () => os.loadavg()[0]!.toFixed(1);
      for (const o of options) {
        progress(`${o.name}: fetching the model unless cached`);
        const { dir } = await fetchModel({ modelsDir: TEST_MODELS_DIR, model: o.model });
        const port = await OnnxEmbeddings.open({
          modelDir: dir,
          model: o.model,
          intraOpNumThreads: o.threads,
        });
        try {
          const tokens = passages.reduce((n, p) => n + port.tokenize(p).length, 0);
          await port.embed(passages.slice(0, 32)); // warm-up
          const loadBefore = load();
          const cpuBefore = process.cpuUsage();
          const started = performance.now();
          let vectors: Float32Array[] = [];
          if (o.sorted) vectors = await port.embed(passages);
          else
            for (let i = 0; i < passages.length; i += 32)
              vectors.push(...(await port.embed(passages.slice(i, i + 32))));
          const seconds = (performance.now() - started) / 1000;
          const cpu = process.cpuUsage(cpuBefore);
          const cpuSeconds = (cpu.user + cpu.system) / 1e6;
          const perSecond = tokens / seconds;
          let note = `${passages.length} passages, ${tokens} tokens (${Math.round(tokens / passages.length)} a passage) in ${seconds.toFixed(1)} s (${cpuSeconds.toFixed(1)} CPU s); load average ${loadBefore} → ${load()}`;
          const fp32 = o.model.replace(/-int8$/, '');
          const ref = reference.get(fp32);
          if (fp32 === o.model) reference.set(o.model, vectors);
          else if (ref) {
            let sum = 0;
            vectors.forEach((v, i) => {
              let dot = 0;
              for (let d = 0; d < v.length; d++) dot += v[d]! * ref[i]![d]!;
              sum += dot;
            });
            note += `; mean cosine to ${fp32} ${(sum / vectors.length).toFixed(4)}`;
          }
          progress(
            `${o.name}: ${Math.round(perSecond)} tokens/s, ${Math.round(tokens / cpuSeconds)} per CPU second`,
          );
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
              metric: `${o.name}: tokens per CPU second`,
              value: Math.round(tokens / cpuSeconds),
              unit: 'tokens/CPU s',
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
