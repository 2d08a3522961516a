-- Mentions. `mention_lines` holds one row per (entity, transcript line): a line naming an entity
-- counts once for it however often it names it (its text and timing are in `transcript_lines`,
-- the ways it names the entity in `entity_episodes`). `entity_episodes` is the rollup the aggregate
-- reads use: one row per (entity, episode) with its mention lines, those inside ad reads, and the
-- detector's relevance and variants. Both are sorted by entity and publication time, so a read
-- for one entity over a window touches only that range.

CREATE TABLE IF NOT EXISTS mention_lines (
  entity_id String,
  published_at DateTime64(3, 'UTC'),
  episode_id String,
  line_number UInt32,
  podcast_id String,
  speaker LowCardinality(String),
  in_ad UInt8,
  lang LowCardinality(String),
  version UInt64,
  is_deleted UInt8,
  INDEX episode_idx episode_id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (entity_id, published_at, episode_id, line_number);

CREATE TABLE IF NOT EXISTS entity_episodes (
  entity_id String,
  published_at DateTime64(3, 'UTC'),
  episode_id String,
  podcast_id String,
  lang LowCardinality(String),
  -- mention lines of the entity in the episode, and how many of them are inside ad reads
  lines UInt32,
  ad_lines UInt32,
  relevance LowCardinality(String),
  mention_count UInt32,
  variants Array(String),
  version UInt64,
  is_deleted UInt8,
  INDEX episode_idx episode_id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (entity_id, published_at, episode_id);
