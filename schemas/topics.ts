import type { SchemaName } from './avro-schemas.ts';

/**
 * The topic table: every topic the pipeline carries, in one place.
 *
 * Episode-scoped topics are keyed by episode id so that everything about one episode stays in
 * order on one partition; catalog topics are keyed by the id of what they describe and are
 * compacted (the newest version of each record is the truth). Dead-letter topics hold what a
 * step could not process, with where it came from and why.
 */
export type Retention =
  | { policy: 'compact' }
  /** `ms: -1` keeps records forever (the topic is a source of truth). */
  | { policy: 'delete'; ms: number };

export interface TopicSpec {
  /** Logical name; the physical name is `${EARSHOT_TOPIC_PREFIX}${name}`. */
  name: string;
  /** What the record key is. */
  key: string;
  valueSchema: SchemaName;
  partitions: number;
  retention: Retention;
  deadLetter: string;
  /** Largest record the topic accepts, in bytes (transcripts with word timings are large). */
  maxMessageBytes: number;
}

const DAY_MS = 86_400_000;
const FOREVER = { policy: 'delete', ms: -1 } as const;
const MB = 1024 * 1024;

function topic(
  name: string,
  key: string,
  valueSchema: SchemaName,
  partitions: number,
  retention: Retention,
  maxMessageBytes = MB,
): TopicSpec {
  return { name, key, valueSchema, partitions, retention, deadLetter: `${name}.dlq`, maxMessageBytes };
}

export const TOPICS = {
  publishers: topic('catalog.publishers', 'publisher id', 'Publisher', 3, { policy: 'compact' }),
  podcasts: topic('catalog.podcasts', 'podcast id', 'Podcast', 3, { policy: 'compact' }),
  entities: topic('catalog.entities', 'entity id', 'Entity', 3, { policy: 'compact' }),
  episodes: topic('episodes.published', 'episode id', 'EpisodePublished', 6, { policy: 'compact' }),
  transcripts: topic('episodes.transcripts', 'episode id', 'Transcript', 6, { policy: 'compact' }, 16 * MB),
  segments: topic('episodes.segments', 'episode id', 'Segments', 6, { policy: 'compact' }),
  clips: topic('episodes.clips', 'episode id', 'Clips', 6, { policy: 'compact' }),
  adReads: topic('episodes.ad-reads', 'episode id', 'AdReads', 6, { policy: 'compact' }),
  charts: topic('charts.snapshots', 'source/chart_type/country/category', 'ChartSnapshotRow', 3, {
    policy: 'delete',
    ms: 400 * DAY_MS,
  }),
  bias: topic('podcasts.bias-evaluations', 'podcast id', 'BiasEvaluation', 3, FOREVER),
  ratings: topic('podcasts.ratings', 'podcast id', 'RatingSnapshot', 3, FOREVER),
  mentions: topic('mentions.detected', 'episode id', 'MentionsDetected', 6, { policy: 'compact' }, 8 * MB),
  speakers: topic('speakers.identified', 'episode id', 'SpeakersIdentified', 6, { policy: 'compact' }),
  alertMatches: topic('alerts.matched', 'alert id', 'AlertMatched', 6, FOREVER),
  deliveriesRequested: topic('deliveries.requested', 'delivery id', 'DeliveryRequested', 6, FOREVER),
  deliveriesAttempted: topic('deliveries.attempted', 'delivery id', 'DeliveryAttempted', 6, {
    policy: 'delete',
    ms: 90 * DAY_MS,
  }),
  deliveriesDelivered: topic('deliveries.delivered', 'delivery id', 'DeliveryDelivered', 6, FOREVER),
  deliveriesAbandoned: topic('deliveries.abandoned', 'delivery id', 'DeliveryAbandoned', 6, FOREVER),
} as const satisfies Record<string, TopicSpec>;

export const DEAD_LETTER_RETENTION: Retention = { policy: 'delete', ms: 30 * DAY_MS };

/** Every topic including the dead-letter topics, each as a spec that can be created. */
export function allTopicSpecs(): TopicSpec[] {
  const specs: TopicSpec[] = [];
  for (const spec of Object.values(TOPICS)) {
    specs.push(spec);
    specs.push({
      name: spec.deadLetter,
      key: `${spec.key} of the failed record`,
      valueSchema: 'DeadLetter',
      partitions: 1,
      retention: DEAD_LETTER_RETENTION,
      deadLetter: spec.deadLetter,
      maxMessageBytes: spec.maxMessageBytes + MB,
    });
  }
  return specs;
}

export function topicByName(name: string): TopicSpec | undefined {
  return allTopicSpecs().find((t) => t.name === name);
}
