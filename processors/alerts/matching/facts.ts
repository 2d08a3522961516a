import type {
  Clips,
  EpisodePublished,
  MentionsDetected,
  SpeakersIdentified,
  Transcript,
} from '../../../schemas/generated/index.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import type { DecodedRecord } from '../../consumer-runner.ts';
import { ok, type StepResult, skip } from '../../step-result.ts';
import type { FactClip, FactLine, MatcherFacts } from './matcher-facts.ts';

/**
 * The matcher's input side: each record of its five topics becomes one compact fact about an
 * episode (`toFact`, the pure handle of the step), and facts merge into what the episode store
 * holds about the episode, in any arrival order (`mergeFact`).
 */
export type FactItem =
  | {
      kind: 'episode';
      episode_id: string;
      podcast_id: string;
      published_at: number;
      language: string | null;
      audio_url: string | null;
    }
  | { kind: 'transcript'; episode_id: string; language: string; lines: FactLine[] }
  | { kind: 'clips'; episode_id: string; clips: FactClip[] }
  | { kind: 'mentions'; episode_id: string; value: MentionsDetected }
  | { kind: 'speakers'; episode_id: string; value: SpeakersIdentified };

export const MATCHER_INPUTS = [
  TOPICS.episodes,
  TOPICS.transcripts,
  TOPICS.clips,
  TOPICS.mentions,
  TOPICS.speakers,
];

/** Pure: one input record → one fact. */
export function toFact(record: DecodedRecord<unknown>): StepResult<FactItem> {
  switch (record.topic) {
    case TOPICS.episodes.name: {
      const e = record.value as EpisodePublished;
      return ok({
        kind: 'episode',
        episode_id: e.id,
        podcast_id: e.podcast_id,
        published_at: e.published_at,
        language: e.language,
        audio_url: e.audio_url,
      });
    }
    case TOPICS.transcripts.name: {
      const t = record.value as Transcript;
      return ok({
        kind: 'transcript',
        episode_id: t.episode_id,
        language: t.language,
        lines: t.lines.map((l) => ({
          n: l.number,
          s: l.speaker,
          r: l.role,
          a: l.start_seconds,
          b: l.end_seconds,
          t: l.text,
        })),
      });
    }
    case TOPICS.clips.name: {
      const c = record.value as Clips;
      return ok({
        kind: 'clips',
        episode_id: c.episode_id,
        clips: c.clips.map((x) => ({
          id: x.id,
          type: x.type,
          title: x.title,
          start_seconds: x.start_seconds,
          end_seconds: x.end_seconds,
          audio_url: x.audio_url,
          speaker: x.speaker,
        })),
      });
    }
    case TOPICS.mentions.name: {
      const m = record.value as MentionsDetected;
      return ok({ kind: 'mentions', episode_id: m.episode_id, value: m });
    }
    case TOPICS.speakers.name: {
      const s = record.value as SpeakersIdentified;
      return ok({ kind: 'speakers', episode_id: s.episode_id, value: s });
    }
    default:
      return skip(`not an input of the matcher: ${record.topic}`);
  }
}

function linesByEntity(mentions: MentionsDetected['mentions']): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const m of mentions) {
    const list = out[m.entity_id];
    if (!list) out[m.entity_id] = [m.line_number];
    else if (!list.includes(m.line_number)) list.push(m.line_number);
  }
  return out;
}

/** Merges a fact into an episode's facts; returns the transcript lines when it carried them. */
export function mergeFact(f: MatcherFacts, item: FactItem, now: number): FactLine[] | undefined {
  f.touched_at = now;
  switch (item.kind) {
    case 'episode':
      f.podcast_id = item.podcast_id;
      f.published_at = item.published_at;
      f.episode_language = item.language;
      f.audio_url = item.audio_url;
      return undefined;
    case 'transcript':
      f.transcript_language = item.language;
      f.has_lines = true;
      f.line_count = item.lines.length;
      return item.lines;
    case 'clips':
      f.clips = item.clips;
      return undefined;
    case 'mentions': {
      const m = item.value;
      f.mentions = {
        language: m.language,
        podcast_id: m.podcast_id,
        published_at: m.published_at,
        detected_at: m.detected_at,
        lines: linesByEntity(m.mentions),
        entities: m.entities.map((e) => ({ ...e })),
        received_at: now,
      };
      return undefined;
    }
    case 'speakers': {
      const s = item.value;
      f.speakers = {
        language: s.language,
        podcast_id: s.podcast_id,
        published_at: s.published_at,
        identified_at: s.identified_at,
        list: s.speakers.map((x) => ({
          label: x.label,
          person_id: x.person_id,
          name: x.name,
          role: x.role,
          line_count: x.line_count,
        })),
      };
      return undefined;
    }
  }
}
