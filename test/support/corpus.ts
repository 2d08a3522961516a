import fs from 'node:fs';
import path from 'node:path';
import type { PlantedMention, SpeakerTruth } from '../../ingest/corpus/episode.ts';
import type { TurnLengths } from '../../ingest/corpus/episode-script.ts';
import { GROUND_TRUTH_FILES, generateCorpus, RECORD_FILES } from '../../ingest/corpus/generate.ts';
import { OCCUPATIONS } from '../../ingest/corpus/vocabulary/occupations.ts';
import type { EventProducer } from '../../ingest/event-producer.ts';
import type {
  AdReads,
  BiasEvaluation,
  ChartSnapshotRow,
  Clips,
  Entity,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  Publisher,
  RatingSnapshot,
  Segments,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';

/**
 * A generated corpus read back from its NDJSON files, with the ground truth, and the mention and
 * speaker events derived from that ground truth (what a perfect detector would emit).
 */
export interface Corpus {
  dir: string;
  asOf: number;
  publishers: Publisher[];
  podcasts: Podcast[];
  entities: Entity[];
  episodes: EpisodePublished[];
  transcripts: Transcript[];
  segments: Segments[];
  clips: Clips[];
  adReads: AdReads[];
  charts: ChartSnapshotRow[];
  bias: BiasEvaluation[];
  ratings: RatingSnapshot[];
  truth: {
    mentions: PlantedMention[];
    episodeEntities: {
      episode_id: string;
      entities: { entity_id: string; relevance: 'on_target' | 'incidental'; mention_count: number }[];
    }[];
    speakers: { episode_id: string; speakers: SpeakerTruth[] }[];
  };
}

/**
 * One record per line. Read as bytes and decoded a line at a time: a file past 512 MiB (the
 * transcripts of the bench preset with realistic turn lengths) is longer than a string can be.
 */
function readNdjson<T>(file: string): T[] {
  if (!fs.existsSync(file)) return [];
  const buf = fs.readFileSync(file);
  const out: T[] = [];
  let start = 0;
  while (start < buf.length) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    if (end > start) out.push(JSON.parse(buf.toString('utf8', start, end)) as T);
    start = end + 1;
  }
  return out;
}

export function loadCorpus(dir: string): Corpus {
  const records = <T>(file: string) =>
    readNdjson<{ type: string; data: T }>(path.join(dir, file)).map((r) => r.data);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { as_of: string };
  return {
    dir,
    asOf: Date.parse(manifest.as_of),
    publishers: records(RECORD_FILES.publisher),
    podcasts: records(RECORD_FILES.podcast),
    entities: records(RECORD_FILES.entity),
    episodes: records(RECORD_FILES.episode),
    transcripts: records(RECORD_FILES.transcript),
    segments: records(RECORD_FILES.segments),
    clips: records(RECORD_FILES.clips),
    adReads: records(RECORD_FILES.ad_reads),
    charts: records(RECORD_FILES.chart_row),
    bias: records(RECORD_FILES.bias_evaluation),
    ratings: records(RECORD_FILES.rating_snapshot),
    truth: {
      mentions: readNdjson(path.join(dir, GROUND_TRUTH_FILES.mentions)),
      episodeEntities: readNdjson(path.join(dir, GROUND_TRUTH_FILES.episodeEntities)),
      speakers: readNdjson(path.join(dir, GROUND_TRUTH_FILES.speakers)),
    },
  };
}

export async function generateTestCorpus(options: {
  dir: string;
  podcasts: number;
  episodesPerPodcast: number;
  seed: number;
  asOf: number;
  /** Turn lengths (default `short`; `realistic`: long-tailed, as in real interviews). */
  turns?: TurnLengths;
}): Promise<Corpus> {
  await generateCorpus({
    podcasts: options.podcasts,
    episodesPerPodcast: options.episodesPerPodcast,
    seed: options.seed,
    out: options.dir,
    asOf: options.asOf,
    chartDays: 10,
    ...(options.turns ? { turns: options.turns } : {}),
  });
  return loadCorpus(options.dir);
}

/** A deterministic "speaking within their field" flag for a guest appearance. */
export function inFieldOf(episodeId: string, label: string): boolean {
  let h = 0;
  for (const c of `${episodeId}/${label}`) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % 3 !== 0;
}

/**
 * MentionsDetected and SpeakersIdentified events from the ground truth: every planted mention
 * of the entity sense, with the speaker and timing of its line; every speaker with the capacity
 * of the person's occupation.
 */
export function derivedEvents(c: Corpus): { mentions: MentionsDetected[]; speakers: SpeakersIdentified[] } {
  const podcasts = new Map(c.podcasts.map((p) => [p.id, p]));
  const transcripts = new Map(c.transcripts.map((t) => [t.episode_id, t]));
  const entities = new Map(c.entities.map((e) => [e.id, e]));
  const capacityOf = new Map(OCCUPATIONS.map((o) => [o.slug, o.capacity]));
  const byEpisode = new Map<string, PlantedMention[]>();
  for (const m of c.truth.mentions) {
    if (m.sense !== 'entity') continue;
    const list = byEpisode.get(m.episode_id) ?? [];
    list.push(m);
    byEpisode.set(m.episode_id, list);
  }
  const relevance = new Map(c.truth.episodeEntities.map((e) => [e.episode_id, e.entities]));
  const mentions: MentionsDetected[] = [];
  const speakers: SpeakersIdentified[] = [];
  for (const episode of c.episodes) {
    const transcript = transcripts.get(episode.id);
    if (!transcript) continue;
    const podcast = podcasts.get(episode.podcast_id)!;
    const language = episode.language ?? transcript.language ?? podcast.language;
    const planted = byEpisode.get(episode.id) ?? [];
    const variants = new Map<string, Set<string>>();
    for (const m of planted) {
      const set = variants.get(m.entity_id) ?? new Set<string>();
      set.add(m.variant);
      variants.set(m.entity_id, set);
    }
    mentions.push({
      episode_id: episode.id,
      podcast_id: episode.podcast_id,
      published_at: episode.published_at,
      language,
      detector_version: 'ground-truth',
      mentions: planted.map((m) => {
        const line = transcript.lines[m.line_number - 1]!;
        return {
          entity_id: m.entity_id,
          line_number: m.line_number,
          speaker: line.speaker,
          start_seconds: line.start_seconds,
          end_seconds: line.end_seconds,
          variant: m.variant,
          char_start: m.char_start,
          char_end: m.char_end,
          in_ad: m.in_ad,
          matched: null,
          match: null,
        };
      }),
      entities: (relevance.get(episode.id) ?? [])
        .filter((e) => variants.has(e.entity_id))
        .map((e) => ({
          entity_id: e.entity_id,
          relevance: e.relevance,
          mention_count: e.mention_count,
          variants: [...variants.get(e.entity_id)!].sort(),
        })),
      detected_at: episode.published_at + 3_600_000,
    });
    const truth = c.truth.speakers.find((s) => s.episode_id === episode.id);
    speakers.push({
      episode_id: episode.id,
      podcast_id: episode.podcast_id,
      published_at: episode.published_at,
      language,
      speakers: (truth?.speakers ?? []).map((s) => {
        const occupation = s.person_id ? entities.get(s.person_id)?.person?.occupation?.slug : undefined;
        return {
          label: s.label,
          person_id: s.person_id,
          name: s.name,
          role: s.role,
          line_count: s.line_count,
          capacity: occupation ? (capacityOf.get(occupation) ?? null) : null,
          in_field: s.person_id ? inFieldOf(episode.id, s.label) : null,
          confidence: 1,
        };
      }),
      identified_at: episode.published_at + 3_600_000,
    });
  }
  return { mentions, speakers };
}

/** Produces the whole corpus and the derived events onto their topics. */
export async function produceCorpus(producer: EventProducer, c: Corpus): Promise<void> {
  const { mentions, speakers } = derivedEvents(c);
  const send = async <T>(topic: (typeof TOPICS)[keyof typeof TOPICS], values: T[], key: (v: T) => string) => {
    for (let i = 0; i < values.length; i += 500) {
      await producer.send(
        topic,
        values.slice(i, i + 500).map((value) => ({ key: key(value), value })),
      );
    }
  };
  await send(TOPICS.publishers, c.publishers, (p) => p.id);
  await send(TOPICS.podcasts, c.podcasts, (p) => p.id);
  await send(TOPICS.entities, c.entities, (e) => e.id);
  await send(TOPICS.episodes, c.episodes, (e) => e.id);
  await send(TOPICS.transcripts, c.transcripts, (t) => t.episode_id);
  await send(TOPICS.segments, c.segments, (s) => s.episode_id);
  await send(TOPICS.clips, c.clips, (s) => s.episode_id);
  await send(TOPICS.adReads, c.adReads, (s) => s.episode_id);
  await send(TOPICS.charts, c.charts, (r) => `${r.source}/${r.chart_type}/${r.country}/${r.category.slug}`);
  await send(TOPICS.bias, c.bias, (b) => b.podcast_id);
  await send(TOPICS.ratings, c.ratings, (r) => r.podcast_id);
  await send(TOPICS.mentions, mentions, (m) => m.episode_id);
  await send(TOPICS.speakers, speakers, (s) => s.episode_id);
}
