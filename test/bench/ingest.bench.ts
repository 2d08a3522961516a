import path from 'node:path';
import { silentLogger } from '../../infra/logger.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { loadNdjson } from '../../ingest/loader/loader.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import { understandingSteps } from '../../processors/context/steps.ts';
import type { MentionsDetected, SpeakersIdentified } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { embeddedBackbone } from '../support/backbone.ts';
import { readTopic } from '../support/topics.ts';
import type { Bench, BenchResult } from './bench.ts';
import { benchCorpus } from './bench-corpus.ts';

/**
 * End to end on the bench corpus (≥ 1,000,000 transcript lines): the NDJSON loader produces every
 * record into a fresh embedded log while the mention and speaker processors consume, until both
 * have processed every transcript. Checks that nothing was lost: one MentionsDetected and one
 * SpeakersIdentified per transcript, and the speakers' line counts add up to the lines ingested.
 */
export const ingestBench: Bench = {
  name: 'ingest',
  description:
    'bench corpus end to end: NDJSON loader → events → mention and speaker processors (embedded log)',
  async run(progress) {
    const { dir, manifest } = await benchCorpus(progress);
    const bb = await embeddedBackbone();
    const state = new IngestState(path.join(bb.dir, 'ingest-state'));
    const steps = understandingSteps({ eventLog: bb.log, producer: bb.producer, dataDir: bb.dir });
    const runners = [steps.context, steps.mentions, steps.speakers].map(
      (def) =>
        new ConsumerRunner(def as never, bb.log, bb.producer, silentLogger(), {
          maxBatchItems: 2000,
          maxBatchWaitMs: 1000,
        }),
    );
    try {
      for (const r of runners) await r.start();
      const t0 = performance.now();
      let lastNote = 0;
      const report = await loadNdjson(dir, {
        producer: bb.producer,
        state,
        onProgress: (p) => {
          if (Date.now() - lastNote > 5000) {
            lastNote = Date.now();
            progress(
              `loading ${path.basename(p.file)}: ${p.produced.toLocaleString()} records, ${p.lines.toLocaleString()} lines`,
            );
          }
        },
      });
      const loadedAt = performance.now();
      progress(
        `loaded ${report.produced.toLocaleString()} records in ${report.seconds.toFixed(1)} s; waiting for the processors`,
      );
      const done = () =>
        runners.every((r) => r.stats.consumed > 0) &&
        runners[1]!.stats.written >= manifest.counts.transcript &&
        runners[2]!.stats.written >= manifest.counts.transcript;
      while (!done()) {
        await new Promise((r) => setTimeout(r, 100));
        if (performance.now() - loadedAt > 600_000)
          throw new Error('processors did not finish within 10 minutes');
      }
      // Committed: every group has no lag left.
      for (const r of runners) {
        while ((await r.lag()).some((p) => p.lag > 0)) await new Promise((res) => setTimeout(res, 50));
      }
      const finished = performance.now();
      const seconds = (finished - t0) / 1000;

      const mentions = new Map(
        (await readTopic<MentionsDetected>(bb.log, bb.codec, TOPICS.mentions)).map((r) => [r.key, r.value]),
      );
      const speakers = new Map(
        (await readTopic<SpeakersIdentified>(bb.log, bb.codec, TOPICS.speakers)).map((r) => [r.key, r.value]),
      );
      const linesOut = [...speakers.values()].reduce(
        (s, e) => s + e.speakers.reduce((a, x) => a + x.line_count, 0),
        0,
      );
      const mentionCount = [...mentions.values()].reduce((s, e) => s + e.mentions.length, 0);
      const lossless =
        report.rejected === 0 &&
        report.lines === manifest.transcript_lines &&
        mentions.size === manifest.counts.transcript &&
        speakers.size === manifest.counts.transcript &&
        linesOut === manifest.transcript_lines;
      const results: BenchResult[] = [
        {
          bench: 'ingest',
          metric: 'transcript lines',
          value: manifest.transcript_lines,
          unit: 'lines',
          target: { op: '>=', value: 1_000_000 },
        },
        {
          bench: 'ingest',
          metric: 'loader: records',
          value: Math.round(report.recordsPerSecond),
          unit: 'records/s',
          note: `${report.produced.toLocaleString()} records in ${report.seconds.toFixed(1)} s`,
        },
        {
          bench: 'ingest',
          metric: 'loader: transcript lines',
          value: Math.round(report.linesPerSecond),
          unit: 'lines/s',
        },
        {
          bench: 'ingest',
          metric: 'end to end (load → mentions + speakers committed)',
          value: Math.round(manifest.transcript_lines / seconds),
          unit: 'lines/s',
          note: `${seconds.toFixed(1)} s; ${mentionCount.toLocaleString()} mentions`,
        },
        {
          bench: 'ingest',
          metric: 'no loss (lines in = lines out, one event per transcript)',
          value: lossless ? 1 : 0,
          unit: 'bool',
          target: { op: '>=', value: 1 },
          note: `${manifest.counts.transcript} transcripts → ${mentions.size} mention events, ${speakers.size} speaker events; ${manifest.transcript_lines} lines in, ${linesOut} out`,
        },
        {
          bench: 'ingest',
          metric: 'corpus generation',
          value: Math.round(manifest.transcript_lines / (manifest.generation_ms / 1000)),
          unit: 'lines/s',
          note: `${(manifest.generation_ms / 1000).toFixed(1)} s for the bench corpus`,
        },
      ];
      return results;
    } finally {
      for (const r of runners) await r.stop();
      await state.close();
      await bb.close();
    }
  },
};
