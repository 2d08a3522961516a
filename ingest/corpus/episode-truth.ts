import type { SpeakerRole } from '../../schemas/event-enums.ts';
import type {
  AdReads,
  Clips,
  EpisodePublished,
  Segments,
  Transcript,
} from '../../schemas/generated/index.ts';

/**
 * One generated episode: the published episode, its diarized transcript, segments, ad reads and
 * clips, plus the ground truth of what was planted in it (mentions with sense, who spoke under
 * which label, which entities the episode is about).
 */

export interface PlantedMention {
  episode_id: string;
  line_number: number;
  entity_id: string;
  variant: string;
  char_start: number;
  char_end: number;
  /** `entity`: the entity is meant; `other`: the ordinary word ("apple" the fruit). */
  sense: 'entity' | 'other';
  in_ad: boolean;
  ambiguous: boolean;
}

export interface SpeakerTruth {
  label: string;
  person_id: string | null;
  name: string | null;
  role: SpeakerRole;
  line_count: number;
}

export interface EntityRelevanceTruth {
  entity_id: string;
  relevance: 'on_target' | 'incidental';
  mention_count: number;
  non_ad_lines: number;
  /** On target whatever its lines: named in the title or description (not a host), or credited. */
  pinned: boolean;
}

export interface GeneratedEpisode {
  episode: EpisodePublished;
  transcript: Transcript;
  segments: Segments;
  clips: Clips;
  adReads: AdReads;
  mentions: PlantedMention[];
  speakers: SpeakerTruth[];
  entities: EntityRelevanceTruth[];
  /** Concept ids expressed by each line (index = line number - 1). */
  lineConcepts: string[][];
  /** Long answers (realistic turn lengths) and the concept only their last sentence expresses. */
  tails: TailTruth[];
}

export interface TailTruth {
  episode_id: string;
  line_number: number;
  /** Estimated model tokens of the whole line. */
  tokens: number;
  concept: string;
  /** The last sentence, which alone expresses `concept`. */
  text: string;
}
