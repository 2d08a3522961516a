import { type Static, Type } from '@sinclair/typebox';
import { nullable, Timestamp } from '../schemas.ts';
import { EntityCompact, PodcastSummary } from './catalog.ts';

/**
 * What an episode looks like on every endpoint that returns one: the episode read
 * (`GET /v1/podcasts/episodes/{id}`), the episode feed, and the episode record the live stream,
 * the archive replay and the bulk download carry.
 */
export const Speaker = Type.Object({
  label: Type.String({ description: 'diarization label' }),
  name: nullable(Type.String()),
  role: Type.String({ description: 'HOST, GUEST, PANELIST, CORRESPONDENT, AUDIENCE, SOUNDBITE_SPEAKER' }),
  person: nullable(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
  line_count: Type.Integer(),
  capacity: nullable(Type.String()),
  in_field: nullable(Type.Boolean()),
});

export const Segment = Type.Object({
  id: Type.String(),
  number: Type.Integer(),
  title: Type.String(),
  type: Type.String(),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  duration_seconds: Type.Number(),
  first_line: Type.Integer(),
  last_line: Type.Integer(),
  description: nullable(Type.String()),
  summary: nullable(Type.String()),
  audio_url: nullable(Type.String()),
  read_type: nullable(Type.String()),
});

export const Clip = Type.Object({
  id: Type.String(),
  type: Type.String(),
  title: Type.String(),
  description: nullable(Type.String()),
  intro_statement: nullable(Type.String()),
  engagement_score: Type.Number(),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  duration_seconds: Type.Number(),
  audio_url: nullable(Type.String()),
  segment_id: nullable(Type.String()),
  speaker: nullable(Type.String({ description: 'diarization label of the main speaker' })),
});

export const EpisodeEntity = Type.Object({
  entity: EntityCompact,
  relevance: Type.String({ description: 'on_target or incidental' }),
  mention_count: Type.Integer({ description: 'mentions, several per line possible' }),
  line_count: Type.Integer({ description: 'lines naming the entity' }),
  ad_line_count: Type.Integer({ description: 'of those, lines inside ad reads' }),
  variants: Type.Array(Type.String()),
});

export const TranscriptLine = Type.Object({
  number: Type.Integer(),
  speaker: Type.String(),
  speaker_name: nullable(Type.String()),
  role: nullable(Type.String()),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  text: Type.String(),
});

/** The fields of an episode every endpoint returns. */
export const EpisodeFields = {
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  description: nullable(Type.String()),
  published_at: Timestamp,
  duration_seconds: nullable(Type.Number()),
  audio_url: nullable(Type.String()),
  image_url: nullable(Type.String()),
  language: nullable(Type.String({ description: 'BCP-47; the podcast’s language when the feed gives none' })),
  podcast: PodcastSummary,
  people: Type.Array(Type.Object({ name: Type.String(), role: Type.String() }), {
    description: 'people the feed credits',
  }),
};

/**
 * The episode record of the live stream, the archive replay and the bulk download: the episode as
 * the episode read returns it, the entities it mentions and the speakers identified in it, and
 * the heavy relations `include` asks for. Documented once (`#/components/schemas/EpisodeRecord`).
 */
export const EpisodeRecord = Type.Object(
  {
    ...EpisodeFields,
    entities: Type.Array(EpisodeEntity, {
      description: 'entities the episode mentions, most lines first (those in the catalog)',
    }),
    speakers: Type.Array(Speaker, { description: 'diarized speakers, by label, with the people they are' }),
    transcript: Type.Optional(
      Type.Object(
        { language: Type.String(), lines: Type.Array(TranscriptLine) },
        { description: 'include=transcript: the diarized, speaker-identified lines' },
      ),
    ),
    segments: Type.Optional(Type.Array(Segment, { description: 'include=segments' })),
    clips: Type.Optional(Type.Array(Clip, { description: 'include=clips, best first' })),
  },
  {
    $id: 'EpisodeRecord',
    description:
      'An episode with its podcast, entities and speakers, and the relations include= asks for (transcript, segments, clips)',
  },
);
export type EpisodeRecordValue = Static<typeof EpisodeRecord>;

/**
 * A transcript line as the API returns it: the diarized label with the person identified for it
 * (the label's role when identified, else the line's own).
 */
export function transcriptLineView(
  line: {
    number: number;
    speaker: string;
    role: string | null;
    start_seconds: number;
    end_seconds: number;
    text: string;
  },
  byLabel: Map<string, { name: string | null; role: string }>,
): Static<typeof TranscriptLine> {
  const s = byLabel.get(line.speaker);
  return {
    number: line.number,
    speaker: line.speaker,
    speaker_name: s?.name ?? null,
    role: s?.role ?? line.role,
    start_seconds: line.start_seconds,
    end_seconds: line.end_seconds,
    text: line.text,
  };
}

/** Speaker views from the rows of a store, with the people the catalog knows. */
export function speakerViews(
  rows: {
    label: string;
    name: string | null;
    role: string;
    person_id: string | null;
    line_count: number;
    capacity: string | null;
    in_field: boolean | number | null;
  }[],
  people: Map<string, { id: string; name: string; slug: string }>,
): Static<typeof Speaker>[] {
  return rows.map((s) => {
    const p = s.person_id ? people.get(s.person_id) : undefined;
    return {
      label: s.label,
      name: s.name,
      role: s.role,
      person: p ? { id: p.id, name: p.name, slug: p.slug } : null,
      line_count: s.line_count,
      capacity: s.capacity || null,
      in_field: s.in_field === null ? null : Number(s.in_field) === 1,
    };
  });
}
