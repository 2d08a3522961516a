-- Episode-scoped tables: transcript lines and words, identified speakers, segments, clips.
-- Row versions are `4 × set version + 1`; a newer set first writes `4 × new version` deletion
-- markers (is_deleted = 1) over the older rows, so FINAL shows exactly the newest set.

CREATE TABLE IF NOT EXISTS transcript_lines (
  episode_id String,
  line_number UInt32,
  speaker LowCardinality(String),
  role Nullable(String),
  start_seconds Float64,
  end_seconds Float64,
  text String,
  language LowCardinality(String),
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (episode_id, line_number);

CREATE TABLE IF NOT EXISTS transcript_words (
  episode_id String,
  line_number UInt32,
  word_index UInt32,
  word String,
  start_seconds Float64,
  end_seconds Float64,
  confidence Nullable(Float64),
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (episode_id, line_number, word_index);

CREATE TABLE IF NOT EXISTS episode_speakers (
  episode_id String,
  label String,
  podcast_id String,
  published_at DateTime64(3, 'UTC'),
  person_id String,
  name Nullable(String),
  role LowCardinality(String),
  line_count UInt32,
  capacity LowCardinality(String),
  in_field Nullable(UInt8),
  confidence Float64,
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (episode_id, label);

CREATE TABLE IF NOT EXISTS segments (
  episode_id String,
  id String,
  number UInt32,
  title String,
  type LowCardinality(String),
  start_seconds Float64,
  end_seconds Float64,
  first_line UInt32,
  last_line UInt32,
  description Nullable(String),
  summary Nullable(String),
  audio_url Nullable(String),
  read_type Nullable(String),
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (episode_id, id);

CREATE TABLE IF NOT EXISTS clips (
  episode_id String,
  id String,
  type LowCardinality(String),
  title String,
  description Nullable(String),
  intro_statement Nullable(String),
  engagement_score Float64,
  start_seconds Float64,
  end_seconds Float64,
  audio_url Nullable(String),
  segment_id Nullable(String),
  speaker Nullable(String),
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (episode_id, id);
