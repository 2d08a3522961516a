import { DevEarshotEvents as ClipEvents } from './generated/Clips.ts';
import { DevEarshotEvents as SegmentEvents } from './generated/Segments.ts';
import type { DevEarshotEvents as SpeakerEvents } from './generated/SpeakersIdentified.ts';

/**
 * The symbols of the events' enums, read from the Avro schemas that declare them: what the search
 * index filters by, the API validates and the corpus generator writes cannot drift from the events.
 */
export type ClipType = ClipEvents.ClipType;
export type SegmentType = SegmentEvents.SegmentType;
/** The role an identified speaker has in an episode. */
export type SpeakerRole = SpeakerEvents.SpeakerRole;

function symbols<T extends string>(enumSchema: string): readonly T[] {
  return (JSON.parse(enumSchema) as { symbols: T[] }).symbols;
}

export const CLIP_TYPES = symbols<ClipType>(ClipEvents.ClipTypeSchema);
export const SEGMENT_TYPES = symbols<SegmentType>(SegmentEvents.SegmentTypeSchema);
