-- Listener rating snapshots (podcasts.ratings): per podcast, platform and country over time.
CREATE TABLE IF NOT EXISTS rating_snapshots (
  podcast_id String,
  platform LowCardinality(String),
  country LowCardinality(String),
  captured_at DateTime64(3, 'UTC'),
  id String,
  average Float64,
  count UInt64,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (podcast_id, platform, country, captured_at, id);
