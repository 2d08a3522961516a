-- One row per (sponsor, episode) with the sponsor's ad reads in the episode: network promos left
-- out, episodes of known date only (projections/analytics/rollups.ts). The sponsor list over a
-- window (projections/analytics/placement-queries.ts) counts a sponsor's episodes as rows here
-- instead of a distinct count of episode ids over the window's ad reads, which took half its time.
-- Sorted by time, as the window is read; recomputed per episode for the episodes a batch touched.
CREATE TABLE IF NOT EXISTS sponsor_episodes (
  published_at DateTime64(3, 'UTC'),
  sponsor_key LowCardinality(String),
  episode_id String,
  podcast_id LowCardinality(String),
  sponsor_name LowCardinality(String),
  company_id LowCardinality(String),
  ads UInt32,
  version UInt64,
  is_deleted UInt8,
  INDEX episode_idx episode_id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (published_at, sponsor_key, episode_id);

INSERT INTO sponsor_episodes (published_at, sponsor_key, episode_id, podcast_id, sponsor_name, company_id, ads,
  version, is_deleted)
SELECT any(published_at), sponsor_key, episode_id, any(podcast_id), any(sponsor_name), any(company_id), count(), 1, 0
FROM ad_reads FINAL
WHERE (SELECT count() FROM sponsor_episodes) = 0 AND is_network_promo = 0
  AND published_at > toDateTime64(0, 3, 'UTC')
GROUP BY sponsor_key, episode_id;
