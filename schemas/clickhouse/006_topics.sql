-- The topics each segment discusses (Segments.segments[].topics), one row per segment and topic,
-- with the segment's line range: what the topic reads count episodes and mention lines by.
CREATE TABLE IF NOT EXISTS segment_topics (
  topic LowCardinality(String),
  episode_id String,
  segment_id String,
  first_line UInt32,
  last_line UInt32,
  version UInt64,
  is_deleted UInt8,
  INDEX episode_idx episode_id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (topic, episode_id, segment_id);
