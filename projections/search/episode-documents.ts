import type {
  Clips,
  EpisodePublished,
  MentionsDetected,
  Segments,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { primaryLanguage } from '../../schemas/language-tags.ts';
import { buildPassages } from './passages.ts';
import {
  type ClipDoc,
  type EpisodeDocs,
  type EpisodePart,
  entityKey,
  type LineDoc,
  type PassageDoc,
  type SegmentDoc,
  type SegmentLine,
  type SegmentType,
  type Speaker,
  type StoredClip,
} from './search-index.ts';

/**
 * Pure functions from an episode's events to its search documents. The projector stores the
 * newest event of each kind per episode (compacted to what search needs) and rebuilds the
 * episode's documents from them, so the result does not depend on the order events arrive in.
 */

export type EpisodePartName = EpisodePart['part'];

export interface EpisodePartsValue {
  episode?: Pick<EpisodePublished, 'id' | 'podcast_id' | 'published_at' | 'language'>;
  transcript?: { language: string; lines: Omit<Transcript['lines'][number], 'words'>[] };
  segments?: Segments['segments'];
  clips?: Clips['clips'];
  mentions?: { entity_id: string; line_number: number }[];
  speakers?: Pick<SpeakersIdentified['speakers'][number], 'label' | 'person_id' | 'name' | 'role'>[];
}

/** The part an event of `topic` fills, compacted to what search reads, as JSON; or undefined. */
export function compactPart(
  part: EpisodePartName,
  value: unknown,
): { episode_id: string; payload: string } | undefined {
  switch (part) {
    case 'episode': {
      const v = value as EpisodePublished;
      return {
        episode_id: v.id,
        payload: JSON.stringify({
          id: v.id,
          podcast_id: v.podcast_id,
          published_at: Number(v.published_at),
          language: v.language,
        }),
      };
    }
    case 'transcript': {
      const v = value as Transcript;
      return {
        episode_id: v.episode_id,
        payload: JSON.stringify({
          language: v.language,
          lines: v.lines.map((l) => ({
            number: l.number,
            speaker: l.speaker,
            role: l.role,
            start_seconds: l.start_seconds,
            end_seconds: l.end_seconds,
            text: l.text,
          })),
        }),
      };
    }
    case 'segments': {
      const v = value as Segments;
      return { episode_id: v.episode_id, payload: JSON.stringify(v.segments) };
    }
    case 'clips': {
      const v = value as Clips;
      return { episode_id: v.episode_id, payload: JSON.stringify(v.clips) };
    }
    case 'mentions': {
      const v = value as MentionsDetected;
      return {
        episode_id: v.episode_id,
        payload: JSON.stringify(
          v.mentions.map((m) => ({ entity_id: m.entity_id, line_number: m.line_number })),
        ),
      };
    }
    case 'speakers': {
      const v = value as SpeakersIdentified;
      return {
        episode_id: v.episode_id,
        payload: JSON.stringify(
          v.speakers.map((s) => ({ label: s.label, person_id: s.person_id, name: s.name, role: s.role })),
        ),
      };
    }
  }
}

export function parseParts(parts: EpisodePart[]): Map<string, EpisodePartsValue> {
  const out = new Map<string, EpisodePartsValue>();
  for (const p of parts) {
    const value = out.get(p.episode_id) ?? {};
    (value as Record<string, unknown>)[p.part] = JSON.parse(p.payload);
    out.set(p.episode_id, value);
  }
  return out;
}

/** What a clip's vector embeds: its title, description, lead-in and the words spoken in it. */
export function clipText(
  clip: Pick<StoredClip, 'title' | 'description' | 'intro_statement'>,
  spoken: string[],
): string {
  return [clip.title, clip.description, clip.intro_statement, spoken.join(' ')]
    .filter((s): s is string => typeof s === 'string' && s.trim().length > 0)
    .map((s) => s.trim().replace(/[.!?]?$/, (m) => m || '.'))
    .join(' ');
}

/**
 * Builds an episode's documents, or undefined while its episode, transcript or segments event is
 * still missing. Vectors are left null; the projector fills them.
 */
export function buildEpisodeDocs(episodeId: string, v: EpisodePartsValue): EpisodeDocs | undefined {
  if (!v.episode || !v.transcript || !v.segments) return undefined;
  const publishedAt = Number(v.episode.published_at);
  // `und` (BCP-47's undetermined) when neither event names a language.
  const language = primaryLanguage(v.transcript.language || v.episode.language) || 'und';

  const speakersByLabel = new Map<string, Speaker>();
  for (const s of v.speakers ?? []) {
    speakersByLabel.set(s.label, {
      label: s.label,
      name: s.name ?? s.label,
      role: s.role,
      person_id: s.person_id ?? null,
    });
  }
  const speakerOf = (label: string, role: string | null | undefined): Speaker =>
    speakersByLabel.get(label) ?? { label, name: label, role: role ?? null, person_id: null };

  const mentionsByLine = new Map<number, string[]>();
  for (const m of v.mentions ?? []) {
    const list = mentionsByLine.get(m.line_number) ?? [];
    if (!list.includes(m.entity_id)) list.push(m.entity_id);
    mentionsByLine.set(m.line_number, list);
  }
  const linesByNumber = new Map(v.transcript.lines.map((l) => [l.number, l]));

  // Episode-level keys: every entity mentioned, every identified speaker with their role.
  const episodeKeys = new Set<string>();
  for (const ids of mentionsByLine.values()) {
    for (const id of ids) {
      episodeKeys.add(entityKey(id));
      episodeKeys.add(entityKey(id, 'mention'));
    }
  }
  const speakingLabels = new Set(v.transcript.lines.map((l) => l.speaker));
  for (const s of speakersByLabel.values()) {
    if (s.person_id && s.role && speakingLabels.has(s.label)) {
      episodeKeys.add(entityKey(s.person_id));
      episodeKeys.add(entityKey(s.person_id, s.role));
    }
  }
  const entity_keys = [...episodeKeys].sort();
  const base = {
    episode_id: episodeId,
    podcast_id: v.episode.podcast_id,
    published_at: publishedAt,
    language,
  };

  const keysOfLines = (numbers: number[]): string[] => {
    const keys = new Set<string>();
    for (const n of numbers) {
      for (const id of mentionsByLine.get(n) ?? []) {
        keys.add(entityKey(id));
        keys.add(entityKey(id, 'mention'));
      }
      const line = linesByNumber.get(n);
      const speaker = line && speakersByLabel.get(line.speaker);
      if (speaker?.person_id && speaker.role) {
        keys.add(entityKey(speaker.person_id));
        keys.add(entityKey(speaker.person_id, speaker.role));
      }
    }
    return [...keys].sort();
  };

  const segmentOfClip = new Map<string, StoredClip['segment']>();
  const segments: SegmentDoc[] = [];
  const lines: LineDoc[] = [];
  const passages: PassageDoc[] = [];
  const sortedSegments = [...v.segments].sort((a, b) => a.number - b.number);
  for (const seg of sortedSegments) {
    const numbers: number[] = [];
    const segLines: SegmentLine[] = [];
    for (let n = seg.first_line; n <= seg.last_line; n++) {
      const line = linesByNumber.get(n);
      if (!line) continue;
      numbers.push(n);
      segLines.push({
        number: n,
        speaker: speakerOf(line.speaker, line.role),
        start_seconds: line.start_seconds,
        end_seconds: line.end_seconds,
        text: line.text,
        mentions: mentionsByLine.get(n) ?? [],
      });
      lines.push({
        ...base,
        entity_keys,
        id: `${episodeId}:${n}`,
        segment_id: seg.id,
        segment_type: seg.type as SegmentType,
        number: n,
        text: line.text,
      });
    }
    for (const p of buildPassages(segLines)) {
      passages.push({
        ...base,
        entity_keys,
        id: `${episodeId}:${p.number}:${p.part}`,
        segment_id: seg.id,
        segment_type: seg.type as SegmentType,
        number: p.number,
        last_number: p.last_number,
        text: p.text,
        vector: null,
        vector_key: null,
      });
    }
    segmentOfClip.set(seg.id, { id: seg.id, title: seg.title, type: seg.type as SegmentType });
    segments.push({
      ...base,
      entity_keys,
      id: seg.id,
      number: seg.number,
      title: seg.title,
      type: seg.type as SegmentType,
      start_seconds: seg.start_seconds,
      end_seconds: seg.end_seconds,
      description: seg.description,
      summary: seg.summary,
      audio_url: seg.audio_url,
      read_type: seg.read_type,
      segment_entity_keys: keysOfLines(numbers),
      lines: segLines,
      clips: [],
    });
  }

  const clips: ClipDoc[] = [];
  for (const clip of v.clips ?? []) {
    const spokenLines = v.transcript.lines.filter(
      (l) => l.end_seconds > clip.start_seconds && l.start_seconds < clip.end_seconds,
    );
    const speaker = clip.speaker ? speakerOf(clip.speaker, null) : null;
    const keys = new Set(keysOfLines([]));
    for (const l of spokenLines) {
      for (const id of mentionsByLine.get(l.number) ?? []) {
        keys.add(entityKey(id));
        keys.add(entityKey(id, 'mention'));
      }
    }
    if (speaker?.person_id && speaker.role) {
      keys.add(entityKey(speaker.person_id));
      keys.add(entityKey(speaker.person_id, speaker.role));
    }
    const stored: StoredClip = {
      id: clip.id,
      type: clip.type,
      title: clip.title,
      description: clip.description,
      intro_statement: clip.intro_statement,
      engagement_score: clip.engagement_score,
      start_seconds: clip.start_seconds,
      end_seconds: clip.end_seconds,
      audio_url: clip.audio_url,
      segment: (clip.segment_id && segmentOfClip.get(clip.segment_id)) || null,
      speaker,
    };
    clips.push({
      ...base,
      ...stored,
      entity_keys,
      clip_entity_keys: [...keys].sort(),
      speaker_person_id: speaker?.person_id ?? null,
      text: clipText(
        stored,
        spokenLines.map((l) => l.text),
      ),
      vector: null,
      vector_key: null,
    });
    const owner = segments.find((s) => s.id === clip.segment_id);
    owner?.clips.push(stored);
  }
  for (const s of segments)
    s.clips.sort((a, b) => b.engagement_score - a.engagement_score || cmp(a.id, b.id));

  return {
    episode_id: episodeId,
    episode: { id: episodeId, podcast_id: v.episode.podcast_id, published_at: publishedAt, entity_keys },
    segments,
    lines,
    passages,
    clips,
  };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
