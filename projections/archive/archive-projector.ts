import type { DecodedRecord, ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { ok, skip } from '../../processors/step-result.ts';
import type {
  Clips,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  Segments,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import {
  type ArchiveItem,
  clipsPart,
  episodePart,
  mentionsPart,
  podcastPart,
  segmentsPart,
  speakersPart,
  transcriptPart,
} from './archive-parts.ts';
import type { ArchiveStore, WriteReport } from './archive-store.ts';

const PARTS: Record<string, (r: DecodedRecord<unknown>) => ArchiveItem> = {
  [TOPICS.podcasts.name]: (r) => podcastPart(r.value as Podcast, r.timestamp),
  [TOPICS.episodes.name]: (r) => episodePart(r.value as EpisodePublished, r.timestamp),
  [TOPICS.transcripts.name]: (r) => transcriptPart(r.value as Transcript, r.timestamp),
  [TOPICS.segments.name]: (r) => segmentsPart(r.value as Segments, r.timestamp),
  [TOPICS.clips.name]: (r) => clipsPart(r.value as Clips, r.timestamp),
  [TOPICS.mentions.name]: (r) => mentionsPart(r.value as MentionsDetected, r.timestamp),
  [TOPICS.speakers.name]: (r) => speakersPart(r.value as SpeakersIdentified, r.timestamp),
};

/**
 * Transcripts are large (tens of kilobytes of text each): a batch of this many keeps one write
 * transaction, and the memory it holds, small.
 */
export const ARCHIVE_BATCH_ITEMS = 200;

/**
 * The archive projector: episode, transcript, segment, clip, mention and speaker events, and the
 * podcasts they belong to, → the episode archive (archive-store.ts). Every part is versioned by the time its event was appended,
 * so a later event for an episode replaces an earlier one and a replay changes nothing.
 * `onWritten` hears of each write (the live feed of an API in the same process polls at once).
 */
export function archiveProjector(
  store: ArchiveStore,
  options: { onWritten?: (report: WriteReport) => void } = {},
): ProcessorDefinition<unknown, ArchiveItem> {
  return {
    name: 'archive-projector',
    groupId: 'projector.archive',
    inputs: [
      TOPICS.podcasts,
      TOPICS.episodes,
      TOPICS.transcripts,
      TOPICS.segments,
      TOPICS.clips,
      TOPICS.mentions,
      TOPICS.speakers,
    ],
    maxBatchItems: ARCHIVE_BATCH_ITEMS,
    handle(record) {
      const part = PARTS[record.topic];
      if (!part) return skip(`the archive does not read ${record.topic}`);
      return ok(part(record));
    },
    sink: {
      async probe() {
        await store.probe();
      },
      async write(items) {
        const report = await store.write(items);
        options.onWritten?.(report);
      },
    },
  };
}
