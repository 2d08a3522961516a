import fs from 'node:fs';
import path from 'node:path';
import { generateCatalog } from './catalog.ts';
import { biasEvaluations, chartDays } from './charts.ts';
import { generateEpisode, type ReleaseSchedule } from './episode.ts';
import type { TurnLengths } from './episode-script.ts';
import { NdjsonWriter } from './ndjson-writer.ts';
import { ratingSnapshots } from './ratings.ts';
import { Rng } from './rng.ts';
import { addKnownVariants, addSpeechNoise } from './speech-noise.ts';
import { PACKS } from './vocabulary/index.ts';
import { contentStems, phraseForm, QUERIES } from './vocabulary/queries.ts';

/**
 * The corpus generator: writes a deterministic corpus (a function of the seed, the sizes and the
 * reference date) as NDJSON files of `{"type", "data"}` records, one file per type, plus the
 * ground truth and a manifest. Streaming: the catalog is held in memory, episodes are generated
 * and written one at a time.
 */
export const RECORD_FILES = {
  publisher: 'publishers.ndjson',
  podcast: 'podcasts.ndjson',
  entity: 'entities.ndjson',
  episode: 'episodes.ndjson',
  ad_reads: 'ad_reads.ndjson',
  segments: 'segments.ndjson',
  clips: 'clips.ndjson',
  transcript: 'transcripts.ndjson',
  chart_row: 'chart_rows.ndjson',
  bias_evaluation: 'bias_evaluations.ndjson',
  rating_snapshot: 'rating_snapshots.ndjson',
} as const;
export type RecordFileType = keyof typeof RECORD_FILES;

export const GROUND_TRUTH_FILES = {
  mentions: 'ground-truth/mentions.ndjson',
  episodeEntities: 'ground-truth/episode-entities.ndjson',
  speakers: 'ground-truth/speakers.ndjson',
  queries: 'ground-truth/queries.ndjson',
  relevance: 'ground-truth/relevance.ndjson',
  /** Lines a paraphrase query's judgements leave out (they share a word with it): neither relevant nor not. */
  unjudged: 'ground-truth/unjudged.ndjson',
  /** Long answers (`turns: 'realistic'`) and the concept only their last sentence expresses. */
  tails: 'ground-truth/tails.ndjson',
} as const;

export interface GenerateOptions {
  podcasts: number;
  episodesPerPodcast: number;
  seed: number;
  out: string;
  /**
   * Reference "now" (epoch ms): episodes come out before it as `schedule` says; chart snapshots
   * end on its UTC day. Default: today 00:00 UTC.
   */
  asOf?: number;
  /** How publication dates fall before `asOf` (default `spread`: over 120 days). */
  schedule?: ReleaseSchedule;
  /** Days of chart snapshots (default 30). */
  chartDays?: number;
  /** Transcript length range in lines (default 140-320). */
  linesPerEpisode?: readonly [number, number];
  /**
   * Turn lengths: `short` (default; one or two sentences a turn) or `realistic` (long-tailed
   * guest answers, monologues of 1,000+ tokens with a planted tail; episode-script.ts).
   */
  turns?: TurnLengths;
  /** What real speech-to-text does: generic labels, merged turns, misspellings… (speech-noise.ts). */
  speechNoise?: boolean;
  onProgress?: (p: GenerateProgress) => void;
}

export interface GenerateProgress {
  episodes: number;
  totalEpisodes: number;
  lines: number;
  elapsedMs: number;
}

export interface Manifest {
  format: 'earshot-corpus-ndjson/1';
  generator_version: number;
  speech_noise: boolean;
  /** Turn lengths (`short` or `realistic`). */
  turns: TurnLengths;
  seed: number;
  as_of: string;
  /** How publication dates fall before `as_of`. */
  schedule: ReleaseSchedule;
  sizes: { podcasts: number; episodes_per_podcast: number; chart_days: number };
  counts: Record<RecordFileType, number>;
  transcript_lines: number;
  planted_mentions: number;
  /** Turns of 1,000+ tokens ending with a planted concept (`ground-truth/tails.ndjson`). */
  planted_tails: number;
  other_sense_occurrences: number;
  queries: number;
  relevance_judgements: number;
  /** Lines of a paraphrase query's concept left out because they share a word with the query. */
  paraphrase_overlaps_excluded: number;
  files: Record<string, string>;
  generated_at: string;
  generation_ms: number;
}

/** Bumped whenever the same seed and sizes would produce different files. */
export const GENERATOR_VERSION = 7;

export const PRESETS = {
  /**
   * Loaded on first `npm start`: short episodes, so every projection (embeddings included) is
   * quick, dated up to the minute it is generated, so every read has data in its default window.
   */
  demo: { podcasts: 12, episodesPerPodcast: 8, linesPerEpisode: [24, 40], schedule: 'recent' },
  /**
   * At least 1,000,000 transcript lines, with the noise of real speech-to-text (merged turns make
   * fewer lines: 26 episodes a podcast instead of 25).
   */
  bench: {
    podcasts: 180,
    episodesPerPodcast: 26,
    linesPerEpisode: [140, 320],
    schedule: 'spread',
    speechNoise: true,
  },
  /** For tests. */
  small: { podcasts: 6, episodesPerPodcast: 3, linesPerEpisode: [60, 120], schedule: 'spread' },
} as const satisfies Record<
  string,
  {
    podcasts: number;
    episodesPerPodcast: number;
    linesPerEpisode: readonly [number, number];
    schedule: ReleaseSchedule;
    speechNoise?: boolean;
  }
>;

export function startOfUtcDay(t: number): number {
  return Math.floor(t / 86_400_000) * 86_400_000;
}

export async function generateCorpus(options: GenerateOptions): Promise<Manifest> {
  const started = Date.now();
  const asOf = options.asOf ?? startOfUtcDay(Date.now());
  const days = options.chartDays ?? 30;
  const root = new Rng(options.seed);
  fs.mkdirSync(options.out, { recursive: true });
  const out = (file: string) => path.join(options.out, file);
  const writers = Object.fromEntries(
    Object.entries(RECORD_FILES).map(([type, file]) => [type, new NdjsonWriter(out(file))]),
  ) as Record<RecordFileType, NdjsonWriter>;
  const truth = Object.fromEntries(
    Object.entries(GROUND_TRUTH_FILES).map(([k, file]) => [k, new NdjsonWriter(out(file))]),
  ) as Record<keyof typeof GROUND_TRUTH_FILES, NdjsonWriter>;
  const emit = (type: RecordFileType, data: unknown) => writers[type].write({ type, data });

  const catalog = generateCatalog(root.fork('catalog'), { podcasts: options.podcasts, asOf });
  if (options.speechNoise) addKnownVariants(catalog);
  for (const p of catalog.publishers) emit('publisher', p);
  for (const p of catalog.podcasts) emit('podcast', p.podcast);
  for (const e of catalog.entities) emit('entity', e);

  // Queries and how their relevant lines are recognised.
  for (const q of QUERIES) truth.queries.write(q);
  const byConcept = new Map<string, { id: string; grade: number }[]>();
  const addConcept = (concept: string, id: string, grade: number) => {
    const list = byConcept.get(concept) ?? [];
    list.push({ id, grade });
    byConcept.set(concept, list);
  };
  const allConcepts = Object.values(PACKS).flatMap((p) => p.topics.flatMap((t) => t.concepts));
  for (const q of QUERIES) {
    if (!q.concept) continue;
    addConcept(q.concept, q.id, 2);
    if (q.kind === 'mixed') {
      for (const rel of allConcepts.find((c) => c.id === q.concept)?.related ?? []) addConcept(rel, q.id, 1);
    }
  }
  const phrases = QUERIES.filter((q) => q.phrase).map((q) => ({ id: q.id, form: phraseForm(q.phrase!) }));
  const paraphrase = new Map(
    QUERIES.filter((q) => q.kind === 'paraphrase').map((q) => [
      q.id,
      { lang: q.lang, words: contentStems(q.text, q.lang) },
    ]),
  );
  let overlapsExcluded = 0;

  let lines = 0;
  let planted = 0;
  let tails = 0;
  let ambiguousOther = 0;
  let judgements = 0;
  const releases = new Map<string, number[]>();
  const totalEpisodes = options.podcasts * options.episodesPerPodcast;
  let done = 0;
  let lastProgress = 0;
  const flushAll = async () => {
    for (const w of [...Object.values(writers), ...Object.values(truth)]) if (w.pending > 0) await w.drain();
  };

  for (const show of catalog.podcasts) {
    const published: number[] = [];
    for (let e = 0; e < options.episodesPerPodcast; e++) {
      const ep = generateEpisode({
        catalog,
        show,
        index: e,
        episodesPerPodcast: options.episodesPerPodcast,
        asOf,
        rng: root.fork('episode', show.index, e),
        linesPerEpisode: options.linesPerEpisode,
        schedule: options.schedule,
        ...(options.turns ? { turns: options.turns } : {}),
      });
      if (options.speechNoise) addSpeechNoise(ep, show, catalog, root.fork('noise', show.index, e));
      for (const t of ep.tails) truth.tails.write(t);
      tails += ep.tails.length;
      published.push(ep.episode.published_at);
      emit('episode', ep.episode);
      emit('ad_reads', ep.adReads);
      emit('segments', ep.segments);
      emit('clips', ep.clips);
      emit('transcript', ep.transcript);
      for (const m of ep.mentions) {
        truth.mentions.write(m);
        planted++;
        if (m.sense === 'other') ambiguousOther++;
      }
      truth.episodeEntities.write({ episode_id: ep.episode.id, entities: ep.entities });
      truth.speakers.write({ episode_id: ep.episode.id, speakers: ep.speakers });
      for (const line of ep.transcript.lines) {
        const grades = new Map<string, number>();
        for (const c of ep.lineConcepts[line.number - 1] ?? []) {
          for (const { id, grade } of byConcept.get(c) ?? [])
            grades.set(id, Math.max(grades.get(id) ?? 0, grade));
        }
        const form = phraseForm(line.text);
        for (const p of phrases) if (form.includes(p.form)) grades.set(p.id, 2);
        // A paraphrase query's relevant lines share no content word with it; a line that does
        // (a filler, a team name or a second sentence happened to use one) is left out of its
        // judgements and listed as unjudged, so an evaluation drops it from the ranking instead of
        // counting a line about the concept as a miss.
        for (const [id, stems] of paraphrase) {
          if (!grades.has(id)) continue;
          const words = contentStems(line.text, stems.lang);
          if ([...stems.words].some((w) => words.has(w))) {
            grades.delete(id);
            truth.unjudged.write({ query_id: id, episode_id: ep.episode.id, line_number: line.number });
            overlapsExcluded++;
          }
        }
        for (const [query_id, grade] of grades) {
          truth.relevance.write({ query_id, episode_id: ep.episode.id, line_number: line.number, grade });
          judgements++;
        }
      }
      lines += ep.transcript.lines.length;
      done++;
      if (writers.transcript.pending > 1 << 20) await flushAll();
      const now = Date.now();
      if (options.onProgress && now - lastProgress > 250) {
        lastProgress = now;
        options.onProgress({ episodes: done, totalEpisodes, lines, elapsedMs: now - started });
      }
    }
    releases.set(
      show.podcast.id,
      published.sort((a, b) => a - b),
    );
  }

  const chartsUntil = startOfUtcDay(asOf);
  for (const rows of chartDays({ catalog, rng: root.fork('charts'), asOf: chartsUntil, days, releases })) {
    for (const row of rows) emit('chart_row', row);
    await flushAll();
  }
  for (const b of biasEvaluations(catalog, root.fork('bias'), asOf)) emit('bias_evaluation', b);
  for (const r of ratingSnapshots(catalog, root.fork('ratings'), asOf)) emit('rating_snapshot', r);

  await Promise.all([...Object.values(writers), ...Object.values(truth)].map((w) => w.close()));
  options.onProgress?.({ episodes: done, totalEpisodes, lines, elapsedMs: Date.now() - started });

  const counts = Object.fromEntries(Object.entries(writers).map(([t, w]) => [t, w.count])) as Record<
    RecordFileType,
    number
  >;
  const manifest: Manifest = {
    format: 'earshot-corpus-ndjson/1',
    generator_version: GENERATOR_VERSION,
    speech_noise: options.speechNoise ?? false,
    turns: options.turns ?? 'short',
    seed: options.seed,
    as_of: new Date(asOf).toISOString(),
    schedule: options.schedule ?? 'spread',
    sizes: { podcasts: options.podcasts, episodes_per_podcast: options.episodesPerPodcast, chart_days: days },
    counts,
    transcript_lines: lines,
    planted_mentions: planted - ambiguousOther,
    planted_tails: tails,
    other_sense_occurrences: ambiguousOther,
    queries: QUERIES.length,
    relevance_judgements: judgements,
    paraphrase_overlaps_excluded: overlapsExcluded,
    files: { ...RECORD_FILES, ...GROUND_TRUTH_FILES },
    generated_at: new Date().toISOString(),
    generation_ms: Date.now() - started,
  };
  fs.writeFileSync(out('manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
