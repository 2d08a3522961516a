import type {
  Clips,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  Segments,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';

/**
 * Events → the parts of an episode record, as the archive keeps them (JSON text). Pure: the same
 * event always gives the same part, so a replay writes what the first pass wrote. What needs the
 * catalog (the podcast summary, entities in compact form, the people speakers are) is resolved
 * when a record is read (api/views/episode-record.ts); everything else is here, in the shape the
 * record carries.
 */
export const PART_KINDS = ['episode', 'transcript', 'segments', 'clips', 'mentions', 'speakers'] as const;
export type PartKind = (typeof PART_KINDS)[number];

/** Parts an episode needs before it is in the archive (segments and clips join when they come). */
export const REQUIRED_PARTS: readonly PartKind[] = ['episode', 'transcript', 'mentions', 'speakers'];

export interface ArchivePart {
  kind: PartKind;
  episodeId: string;
  /** Append time of the event: a part replaces one of an older or equal version with other content. */
  version: number;
  json: string;
  /** The episode part's facts the archive is ordered and filtered by. */
  facts?: EpisodeFacts;
}

/**
 * A podcast as records refer to it (the summary every endpoint embeds), with what the live stream
 * filters by. An episode is complete only once its podcast is known, so no record lacks it.
 */
export interface PodcastPart {
  kind: 'podcast';
  podcastId: string;
  version: number;
  json: string;
  publisherId: string | null;
  language: string;
}

/** What the archive projector writes. */
export type ArchiveItem = ArchivePart | PodcastPart;

export function podcastPart(p: Podcast, at: number): PodcastPart {
  return {
    kind: 'podcast',
    podcastId: p.id,
    version: at,
    json: JSON.stringify({ id: p.id, title: p.title, image_url: p.image_url, slug: p.slug }),
    publisherId: p.publisher_id,
    language: p.language,
  };
}

export interface EpisodeFacts {
  podcastId: string;
  publishedAt: number;
  /** The episode's own language (null: its podcast's). */
  language: string | null;
}

/** The episode part: the fields of the episode read, less what the catalog supplies. */
export interface EpisodePart {
  id: string;
  slug: string;
  podcast_id: string;
  title: string;
  description: string | null;
  published_at: string;
  duration_seconds: number | null;
  audio_url: string | null;
  image_url: string | null;
  language: string | null;
  people: { name: string; role: string }[];
}

export interface TranscriptPart {
  language: string;
  lines: {
    number: number;
    speaker: string;
    role: string | null;
    start_seconds: number;
    end_seconds: number;
    text: string;
  }[];
}

export interface SpeakerPart {
  label: string;
  person_id: string | null;
  name: string | null;
  role: string;
  line_count: number;
  capacity: string | null;
  in_field: boolean | null;
}

/** An entity an episode mentions (the catalog supplies its compact form when read). */
export interface MentionPart {
  entity_id: string;
  relevance: string;
  mention_count: number;
  line_count: number;
  ad_line_count: number;
  variants: string[];
}

const seconds = (start: number, end: number) => Math.round((end - start) * 1000) / 1000;

export function episodePart(e: EpisodePublished, at: number): ArchivePart {
  const part: EpisodePart = {
    id: e.id,
    slug: e.slug,
    podcast_id: e.podcast_id,
    title: e.title,
    description: e.description,
    published_at: new Date(e.published_at).toISOString(),
    duration_seconds: e.duration_seconds,
    audio_url: e.audio_url,
    image_url: e.image_url,
    language: e.language,
    people: e.people.map((p) => ({ name: p.name, role: p.role })),
  };
  return {
    kind: 'episode',
    episodeId: e.id,
    version: at,
    json: JSON.stringify(part),
    facts: { podcastId: e.podcast_id, publishedAt: e.published_at, language: e.language },
  };
}

/** Diarized lines without word timings, in line order. */
export function transcriptPart(t: Transcript, at: number): ArchivePart {
  const part: TranscriptPart = {
    language: t.language,
    lines: [...t.lines]
      .sort((a, b) => a.number - b.number)
      .map((l) => ({
        number: l.number,
        speaker: l.speaker,
        role: l.role,
        start_seconds: l.start_seconds,
        end_seconds: l.end_seconds,
        text: l.text,
      })),
  };
  return { kind: 'transcript', episodeId: t.episode_id, version: at, json: JSON.stringify(part) };
}

/** Segments in order, as the episode read shows them. */
export function segmentsPart(s: Segments, at: number): ArchivePart {
  const segments = [...s.segments]
    .sort((a, b) => a.number - b.number || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((g) => ({
      id: g.id,
      number: g.number,
      title: g.title,
      type: g.type,
      start_seconds: g.start_seconds,
      end_seconds: g.end_seconds,
      duration_seconds: seconds(g.start_seconds, g.end_seconds),
      first_line: g.first_line,
      last_line: g.last_line,
      description: g.description,
      summary: g.summary,
      audio_url: g.audio_url,
      read_type: g.read_type,
    }));
  return { kind: 'segments', episodeId: s.episode_id, version: at, json: JSON.stringify(segments) };
}

/** Clips best first (highest engagement, then id), as the episode read shows them. */
export function clipsPart(c: Clips, at: number): ArchivePart {
  const clips = [...c.clips]
    .sort((a, b) => b.engagement_score - a.engagement_score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((k) => ({
      id: k.id,
      type: k.type,
      title: k.title,
      description: k.description,
      intro_statement: k.intro_statement,
      engagement_score: k.engagement_score,
      start_seconds: k.start_seconds,
      end_seconds: k.end_seconds,
      duration_seconds: seconds(k.start_seconds, k.end_seconds),
      audio_url: k.audio_url,
      segment_id: k.segment_id,
      speaker: k.speaker,
    }));
  return { kind: 'clips', episodeId: c.episode_id, version: at, json: JSON.stringify(clips) };
}

/**
 * The entities an episode mentions: lines naming each (a line naming it twice counts once), of
 * those the lines inside ad reads, with the detector's relevance, count and variants; entities
 * named on no line are left out. Most lines first, then entity id (as the episode read orders).
 */
export function mentionsPart(m: MentionsDetected, at: number): ArchivePart {
  const lines = new Map<string, Map<number, boolean>>();
  for (const mention of m.mentions) {
    const byLine = lines.get(mention.entity_id) ?? new Map<number, boolean>();
    byLine.set(mention.line_number, (byLine.get(mention.line_number) ?? false) || mention.in_ad);
    lines.set(mention.entity_id, byLine);
  }
  const summaries = new Map(m.entities.map((e) => [e.entity_id, e]));
  const entities: MentionPart[] = [...lines].map(([entityId, byLine]) => {
    const summary = summaries.get(entityId);
    return {
      entity_id: entityId,
      relevance: summary?.relevance ?? 'incidental',
      mention_count: summary?.mention_count ?? byLine.size,
      line_count: byLine.size,
      ad_line_count: [...byLine.values()].filter(Boolean).length,
      variants: summary?.variants ?? [],
    };
  });
  entities.sort(
    (a, b) =>
      b.line_count - a.line_count || (a.entity_id < b.entity_id ? -1 : a.entity_id > b.entity_id ? 1 : 0),
  );
  return { kind: 'mentions', episodeId: m.episode_id, version: at, json: JSON.stringify(entities) };
}

/** Speakers by diarization label. */
export function speakersPart(s: SpeakersIdentified, at: number): ArchivePart {
  const speakers: SpeakerPart[] = [...s.speakers]
    .sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
    .map((p) => ({
      label: p.label,
      person_id: p.person_id,
      name: p.name,
      role: p.role,
      line_count: p.line_count,
      capacity: p.capacity,
      in_field: p.in_field,
    }));
  return { kind: 'speakers', episodeId: s.episode_id, version: at, json: JSON.stringify(speakers) };
}

/** The UTC publication day of an instant, `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
