import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { TOPICS } from '../../schemas/topics.ts';
import type { EventLog } from '../event-log/event-log.ts';
import type { EventProducer } from '../event-producer.ts';
import { IngestState } from '../loader/ingest-state.ts';
import { type LoadReport, loadNdjson } from '../loader/loader.ts';
import { generateCorpus, PRESETS } from './generate.ts';

/**
 * The demo corpus: on the first start of an empty data dir (EARSHOT_DEMO=on), a small corpus
 * (12 podcasts × 8 episodes) is generated under `<data dir>/demo-corpus` and loaded through the
 * NDJSON loader like any other input, before the service captures what its consumers must
 * catch up with, so `/readyz` turns 200 once the demo has been processed. It is dated up to the
 * minute of that start (the `recent` schedule), so every read has data in its default window.
 */
export const DEMO_SEED = 20_251_121;

const CORPUS_TOPICS = [
  TOPICS.publishers,
  TOPICS.podcasts,
  TOPICS.entities,
  TOPICS.episodes,
  TOPICS.transcripts,
  TOPICS.segments,
  TOPICS.clips,
  TOPICS.adReads,
  TOPICS.charts,
  TOPICS.bias,
  TOPICS.ratings,
].map((t) => t.name);

/** True when none of the topics a corpus feeds holds a record. */
export async function corpusTopicsEmpty(log: EventLog): Promise<boolean> {
  const topics = await log.listTopics();
  return topics
    .filter((t) => CORPUS_TOPICS.includes(t.name))
    .every((t) => t.partitions.every((p) => p.end === 0));
}

export interface DemoDeps {
  dataDir: string;
  eventLog: EventLog;
  producer: EventProducer;
  logger: Logger;
  now?: number;
  /** The service's ingest state (default: one opened under `dataDir`, closed after the load). */
  state?: IngestState;
}

/** Generates and loads the demo corpus if the corpus topics are empty; returns what was loaded. */
export async function loadDemoCorpusIfEmpty(deps: DemoDeps): Promise<LoadReport | null> {
  if (!(await corpusTopicsEmpty(deps.eventLog))) return null;
  const started = Date.now();
  const dir = path.join(deps.dataDir, 'demo-corpus');
  fs.rmSync(dir, { recursive: true, force: true });
  const manifest = await generateCorpus({
    ...PRESETS.demo,
    seed: DEMO_SEED,
    out: dir,
    asOf: Math.floor((deps.now ?? Date.now()) / 60_000) * 60_000,
  });
  const state = deps.state ?? IngestState.inDataDir(deps.dataDir);
  try {
    const report = await loadNdjson(dir, { producer: deps.producer, state });
    deps.logger.info(
      {
        dir,
        podcasts: manifest.counts.podcast,
        episodes: manifest.counts.episode,
        lines: manifest.transcript_lines,
        records: report.produced,
        rejected: report.rejected,
        ms: Date.now() - started,
      },
      'demo corpus loaded',
    );
    return report;
  } finally {
    if (!deps.state) await state.close();
  }
}
