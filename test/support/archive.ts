import {
  type ArchivePart,
  clipsPart,
  episodePart,
  mentionsPart,
  type PodcastPart,
  podcastPart,
  segmentsPart,
  speakersPart,
  transcriptPart,
} from '../../projections/archive/archive-parts.ts';
import type {
  Clips,
  EpisodePublished,
  MentionsDetected,
  Segments,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';

/** The events one episode's records come from, with plausible contents. */
export interface EpisodeEvents {
  episode: EpisodePublished;
  transcript: Transcript;
  segments: Segments;
  clips: Clips;
  mentions: MentionsDetected;
  speakers: SpeakersIdentified;
}

export function episodeEvents(o: {
  id: string;
  podcastId: string;
  publishedAt: number;
  title?: string;
  language?: string | null;
  lines?: string[];
  entityId?: string;
  personId?: string;
}): EpisodeEvents {
  const lines = o.lines ?? ['Welcome to the show.', 'Today we talk about markets.', 'Thanks for listening.'];
  const language = o.language ?? null;
  return {
    episode: {
      id: o.id,
      slug: `${o.id}-slug`,
      podcast_id: o.podcastId,
      guid: o.id,
      title: o.title ?? `Episode ${o.id}`,
      description: null,
      published_at: o.publishedAt,
      duration_seconds: lines.length * 5,
      audio_url: `https://cdn.example/${o.id}.mp3`,
      image_url: null,
      language,
      people: [{ name: 'Dana Whitfield', role: 'host' }],
      source: 'ingest',
    },
    transcript: {
      episode_id: o.id,
      language: language ?? 'en-US',
      lines: lines.map((text, i) => ({
        number: i + 1,
        speaker: i % 2 === 0 ? 'SPEAKER_1' : 'SPEAKER_2',
        role: null,
        start_seconds: i * 5,
        end_seconds: i * 5 + 4.5,
        text,
        words: null,
      })),
      transcribed_at: o.publishedAt + 600_000,
    },
    segments: {
      episode_id: o.id,
      segments: [
        {
          id: `${o.id}-seg-1`,
          number: 1,
          title: 'Intro',
          type: 'INTRO',
          start_seconds: 0,
          end_seconds: 5,
          first_line: 1,
          last_line: 1,
          description: null,
          summary: null,
          audio_url: null,
          read_type: null,
          topics: [],
        },
      ],
    },
    clips: {
      episode_id: o.id,
      clips: [
        {
          id: `${o.id}-clip-1`,
          type: 'INSIGHTFUL',
          title: 'On markets',
          description: null,
          intro_statement: null,
          engagement_score: 0.7,
          start_seconds: 5,
          end_seconds: 9.5,
          audio_url: null,
          segment_id: null,
          speaker: 'SPEAKER_2',
        },
      ],
    },
    mentions: {
      episode_id: o.id,
      podcast_id: o.podcastId,
      published_at: o.publishedAt,
      language: language ?? 'en-US',
      detector_version: 'test',
      mentions: o.entityId
        ? [
            {
              entity_id: o.entityId,
              line_number: 2,
              speaker: 'SPEAKER_2',
              start_seconds: 5,
              end_seconds: 9.5,
              variant: 'markets',
              char_start: 18,
              char_end: 25,
              in_ad: false,
              matched: 'markets',
              match: 'name',
            },
          ]
        : [],
      entities: o.entityId
        ? [{ entity_id: o.entityId, relevance: 'on_target', mention_count: 1, variants: ['markets'] }]
        : [],
      detected_at: o.publishedAt + 700_000,
    },
    speakers: {
      episode_id: o.id,
      podcast_id: o.podcastId,
      published_at: o.publishedAt,
      language: language ?? 'en-US',
      speakers: [
        {
          label: 'SPEAKER_1',
          person_id: o.personId ?? null,
          name: o.personId ? 'Dana Whitfield' : null,
          role: 'HOST',
          line_count: Math.ceil(lines.length / 2),
          capacity: null,
          in_field: null,
          confidence: 1,
        },
        {
          label: 'SPEAKER_2',
          person_id: null,
          name: null,
          role: 'GUEST',
          line_count: Math.floor(lines.length / 2),
          capacity: null,
          in_field: null,
          confidence: 0.8,
        },
      ],
      identified_at: o.publishedAt + 700_000,
    },
  };
}

/** A podcast's summary part, as the archive projector makes it from a podcast record. */
export function podcastSummaryPart(
  id: string,
  at = 1,
  o: { publisherId?: string; language?: string } = {},
): PodcastPart {
  return podcastPart(
    {
      id,
      slug: `${id}-slug`,
      directory_id: null,
      title: `Podcast ${id}`,
      description: null,
      publisher_id: o.publisherId ?? null,
      language: o.language ?? 'en-US',
      categories: [],
      hosts: [],
      image_url: null,
      feed_url: null,
      website_url: null,
      content_advisory_rating: null,
      popularity: null,
      updated_at: at,
    },
    at,
  );
}

/** Every part of an episode, as the archive projector would make them from its events at `at`. */
export function archiveParts(e: EpisodeEvents, at: number): ArchivePart[] {
  return [
    episodePart(e.episode, at),
    transcriptPart(e.transcript, at),
    segmentsPart(e.segments, at),
    clipsPart(e.clips, at),
    mentionsPart(e.mentions, at),
    speakersPart(e.speakers, at),
  ];
}
