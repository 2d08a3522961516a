import { TOPICS, type TopicSpec } from '../../schemas/topics.ts';

/**
 * The NDJSON record format: one JSON object per line, `{"type": "<type>", "data": {...}}`, where
 * `data` is the Avro value of the type's topic as plain JSON (timestamps as epoch milliseconds,
 * optional fields may be left out and take their schema default). Each type names the topic it
 * goes to, the id that identifies a record (for resuming) and the record key.
 */
export interface RecordTypeSpec {
  topic: TopicSpec;
  /** Identity of the record, for "already ingested" (episode-scoped types use the episode id). */
  id(data: Record<string, unknown>): string;
  /** Record key on the topic. */
  key(data: Record<string, unknown>): string;
  /** Field holding the episode id the record belongs to (referential check), if any. */
  episodeRef?: string;
  /** Field holding the podcast id the record belongs to (referential check), if any. */
  podcastRef?: string;
}

const byField =
  (field: string) =>
  (d: Record<string, unknown>): string =>
    String(d[field]);

export const RECORD_TYPES = {
  publisher: { topic: TOPICS.publishers, id: byField('id'), key: byField('id') },
  podcast: { topic: TOPICS.podcasts, id: byField('id'), key: byField('id') },
  entity: { topic: TOPICS.entities, id: byField('id'), key: byField('id') },
  episode: { topic: TOPICS.episodes, id: byField('id'), key: byField('id'), podcastRef: 'podcast_id' },
  transcript: {
    topic: TOPICS.transcripts,
    id: byField('episode_id'),
    key: byField('episode_id'),
    episodeRef: 'episode_id',
  },
  segments: {
    topic: TOPICS.segments,
    id: byField('episode_id'),
    key: byField('episode_id'),
    episodeRef: 'episode_id',
  },
  clips: {
    topic: TOPICS.clips,
    id: byField('episode_id'),
    key: byField('episode_id'),
    episodeRef: 'episode_id',
  },
  ad_reads: {
    topic: TOPICS.adReads,
    id: byField('episode_id'),
    key: byField('episode_id'),
    episodeRef: 'episode_id',
  },
  chart_row: {
    topic: TOPICS.charts,
    id: byField('id'),
    key: (d: Record<string, unknown>) =>
      `${d.source}/${d.chart_type}/${d.country}/${(d.category as { slug?: string } | undefined)?.slug}`,
  },
  bias_evaluation: {
    topic: TOPICS.bias,
    id: byField('id'),
    key: byField('podcast_id'),
    podcastRef: 'podcast_id',
  },
  rating_snapshot: {
    topic: TOPICS.ratings,
    id: byField('id'),
    key: byField('podcast_id'),
    podcastRef: 'podcast_id',
  },
} as const satisfies Record<string, RecordTypeSpec>;

export type IngestRecordType = keyof typeof RECORD_TYPES;
export const INGEST_RECORD_TYPES = Object.keys(RECORD_TYPES) as IngestRecordType[];

/** Order in which a directory's files are loaded, so that what others refer to comes first. */
export const LOAD_ORDER: Record<string, number> = {
  'publishers.ndjson': 0,
  'podcasts.ndjson': 1,
  'entities.ndjson': 2,
  'episodes.ndjson': 3,
  'ad_reads.ndjson': 4,
  'segments.ndjson': 5,
  'clips.ndjson': 6,
  'transcripts.ndjson': 7,
  'chart_rows.ndjson': 8,
  'bias_evaluations.ndjson': 9,
  'rating_snapshots.ndjson': 10,
};
