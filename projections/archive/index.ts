/**
 * The episode archive: a projection of the episode topics into the state store, partitioned by
 * UTC publication day with a build generation per day, and the live order in which episodes
 * became fully processed (docs/streams.md).
 */
export {
  type ArchiveItem,
  type ArchivePart,
  type EpisodePart,
  type MentionPart,
  PART_KINDS,
  type PartKind,
  type PodcastPart,
  podcastPart,
  type SpeakerPart,
  type TranscriptPart,
  utcDay,
} from './archive-parts.ts';
export { ARCHIVE_BATCH_ITEMS, archiveProjector } from './archive-projector.ts';
export {
  ARCHIVE_TABLES,
  type ArchiveDay,
  type ArchiveKey,
  type ArchiveRecordRow,
  ArchiveStore,
  type HeavyPart,
  type LiveEntry,
  type WriteReport,
} from './archive-store.ts';
export { LiveFeed, type LiveFeedOptions } from './live-feed.ts';
