-- Rollups the catalog-surface list reads scan instead of raw rows (projections/analytics/rollups.ts).
-- Each is either part of an episode-scoped set (versions and deletion markers as in 002) or
-- recomputed from the tables above for what a batch touched, with a newer version each time:
-- a replay recomputes the same values, so none of them counts anything twice.

-- Part of the mentions set: one row per episode with the (entity, line) pairs of its mention
-- lines outside ad reads, sorted by episode, so the topic rollup finds an episode's lines by key.
CREATE TABLE IF NOT EXISTS episode_mention_lines (
  episode_id String,
  entity_ids Array(String),
  line_numbers Array(UInt32),
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY episode_id;

-- The episodes of the catalog sorted by publication time (episodes is sorted by id): the episode
-- timeseries reads the window's range. Recomputed from episodes for every episode a batch of the
-- catalog carries; a republished date marks the row at the old time deleted.
CREATE TABLE IF NOT EXISTS episode_dates (
  published_at DateTime64(3, 'UTC'),
  id String,
  podcast_id String,
  version UInt64,
  is_deleted UInt8,
  INDEX id_idx id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (published_at, id);

-- One row per (topic, episode): the episode's segments on the topic and the mention lines outside
-- ad reads inside them, with the episode's podcast and publication time as the catalog has them.
-- Recomputed for an episode whenever its segments, mentions or catalog record are written.
CREATE TABLE IF NOT EXISTS topic_episodes (
  topic LowCardinality(String),
  published_at DateTime64(3, 'UTC'),
  episode_id String,
  podcast_id LowCardinality(String),
  segments UInt32,
  lines UInt32,
  version UInt64,
  is_deleted UInt8,
  INDEX episode_idx episode_id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (topic, published_at, episode_id);

-- Part of the speakers set: the guests (speakers with a catalog person, in any role but host),
-- sorted by person (the guest totals are recomputed per person from here) and by podcast (the
-- guests of one podcast read one range).
CREATE TABLE IF NOT EXISTS guest_appearances (
  person_id String,
  episode_id String,
  label String,
  podcast_id String,
  published_at DateTime64(3, 'UTC'),
  role LowCardinality(String),
  line_count UInt32,
  capacity LowCardinality(String),
  in_field Nullable(UInt8),
  version UInt64,
  is_deleted UInt8,
  INDEX episode_idx episode_id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (person_id, episode_id, label);

CREATE TABLE IF NOT EXISTS podcast_guest_appearances (
  podcast_id String,
  person_id String,
  episode_id String,
  label String,
  published_at DateTime64(3, 'UTC'),
  role LowCardinality(String),
  line_count UInt32,
  capacity LowCardinality(String),
  in_field Nullable(UInt8),
  version UInt64,
  is_deleted UInt8,
  INDEX episode_idx episode_id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (podcast_id, person_id, episode_id, label);

-- One row per guest over all time, recomputed from guest_appearances for the people a batch of
-- speaker sets touched (those it names and those the episodes named before).
CREATE TABLE IF NOT EXISTS guest_totals (
  person_id String,
  appearances UInt32,
  podcast_count UInt32,
  line_count UInt64,
  first_appearance DateTime64(3, 'UTC'),
  last_appearance DateTime64(3, 'UTC'),
  last_episode_id String,
  capacities Array(String),
  roles Array(String),
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY person_id;

-- One row per sponsor over all time (network promos left out), recomputed from ad_reads after
-- every batch that writes or completes ad reads; sponsors no longer seen are marked deleted.
CREATE TABLE IF NOT EXISTS sponsor_totals (
  sponsor_key String,
  sponsor_name String,
  company_id String,
  ad_count UInt64,
  episode_reach UInt64,
  podcast_reach UInt64,
  first_seen DateTime64(3, 'UTC'),
  last_seen DateTime64(3, 'UTC'),
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY sponsor_key;
