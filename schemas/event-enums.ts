import type { DevEarshotEvents as AlertMatched } from './generated/AlertMatched.ts';
import { DevEarshotEvents as ClipEvents } from './generated/Clips.ts';
import type { DevEarshotEvents as DeliveryRequested } from './generated/DeliveryRequested.ts';
import { DevEarshotEvents as SegmentEvents } from './generated/Segments.ts';
import type { DevEarshotEvents as SpeakersIdentified } from './generated/SpeakersIdentified.ts';

/**
 * Enums of the event schemas (schemas/avro) that code also needs as values: to validate
 * requests, to describe them in the OpenAPI document, to iterate them. Each type is the one
 * generated from the schema; each list is checked when type-checking to hold every symbol of
 * that type and nothing else (test/unit/event-enums.unit.test.ts checks them, in order, against
 * the schema files). Code that needs one of these types imports it from here.
 */

/** The list, as given, when it holds every symbol of `T` (and, by its element type, only those). */
function symbols<T extends string>() {
  return <const V extends readonly T[]>(
    values: V & ([Exclude<T, V[number]>] extends [never] ? unknown : { missing: Exclude<T, V[number]> }),
  ): V => values;
}

/** What an alert watches for: a mention of an entity, or an entity speaking. */
export type AlertKind = AlertMatched.AlertKind;
export const ALERT_KINDS = symbols<AlertKind>()(['ENTITY_MENTION', 'PODCAST_SPEAKER']);

/** The kinds of entity an alert can watch. */
export type AlertEntityType = AlertMatched.AlertEntityType;
export const ALERT_ENTITY_TYPES = symbols<AlertEntityType>()(['PERSON', 'COMPANY', 'KNOWLEDGE_GRAPH_ENTITY']);

/** How often an alert delivers: each match, or a digest per day or week. */
export type Cadence = DeliveryRequested.DeliveryCadence;
export const CADENCES = symbols<Cadence>()(['REALTIME', 'DAILY', 'WEEKLY']);

/** Where a delivery goes. */
export type ChannelType = DeliveryRequested.ChannelType;
export const CHANNEL_TYPES = symbols<ChannelType>()(['EMAIL', 'CHAT', 'WEBHOOK']);

/** The role of a speaker in an episode. */
export type SpeakerRole = SpeakersIdentified.SpeakerRole;
export const SPEAKER_ROLES = symbols<SpeakerRole>()([
  'HOST',
  'GUEST',
  'PANELIST',
  'CORRESPONDENT',
  'AUDIENCE',
  'SOUNDBITE_SPEAKER',
]);

/** The symbols of an enum, read from the Avro schema that declares it (for long lists). */
function schemaSymbols<T extends string>(enumSchema: string): readonly T[] {
  return (JSON.parse(enumSchema) as { symbols: T[] }).symbols;
}

/** The kinds of clip an episode has; what clip search filters by. */
export type ClipType = ClipEvents.ClipType;
export const CLIP_TYPES = schemaSymbols<ClipType>(ClipEvents.ClipTypeSchema);

/** The kinds of segment an episode is divided into; what dialogue search filters by. */
export type SegmentType = SegmentEvents.SegmentType;
export const SEGMENT_TYPES = schemaSymbols<SegmentType>(SegmentEvents.SegmentTypeSchema);
