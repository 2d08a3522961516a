-- Copies of what the catalog-surface reads need, sorted by the key they are read by, so a read or
-- a rollup recompute touches one key's range instead of every row (projections/analytics/rollups.ts).
-- Each statement is idempotent on a store that already holds rows: the copies are filled from
-- the tables above as they are, at the versions those rows carry. Both are read by key range, one
-- key (a sponsor, a topic) at a time: granules of 1,024 rows instead of 8,192 let such a read
-- skip more of the table (FINAL reads every granule a range touches), for a primary index eight
-- times larger (one mark per 1,024 rows; a few thousand marks at 10M mention lines).

-- Every ad_reads row (same columns, same versions, deletion markers included), sorted by sponsor:
-- the placements of one company and one sponsor's figures read its range, and the sponsor totals
-- are recomputed for the sponsors a batch touched from their ranges only. Written with ad_reads
-- (the ad-read set writes both; a deletion marker repeats this table's key, sponsor included).
CREATE TABLE IF NOT EXISTS sponsor_ad_reads (
  episode_id String,
  id String,
  podcast_id LowCardinality(String),
  published_at DateTime64(3, 'UTC'),
  sponsor_key LowCardinality(String),
  sponsor_name LowCardinality(String),
  company_id LowCardinality(String),
  read_type LowCardinality(String),
  is_network_promo UInt8,
  segment_id Nullable(String),
  start_seconds Float64,
  end_seconds Float64,
  first_line Nullable(UInt32),
  last_line Nullable(UInt32),
  version UInt64,
  is_deleted UInt8,
  INDEX episode_idx episode_id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (sponsor_key, published_at, episode_id, id)
SETTINGS index_granularity = 1024;

INSERT INTO sponsor_ad_reads (episode_id, id, podcast_id, published_at, sponsor_key, sponsor_name, company_id,
  read_type, is_network_promo, segment_id, start_seconds, end_seconds, first_line, last_line, version, is_deleted)
SELECT episode_id, id, podcast_id, published_at, sponsor_key, sponsor_name, company_id, read_type, is_network_promo,
  segment_id, start_seconds, end_seconds, first_line, last_line, version, is_deleted
FROM ad_reads FINAL
WHERE (SELECT count() FROM sponsor_ad_reads) = 0;

-- One row per (topic, episode), replacing topic_episodes (dropped below): the episode's segments on
-- the topic, the mention lines outside ad reads inside them (a line inside two segments on the
-- topic counts in each), the episode's podcast and publication time, and per entity mentioned
-- inside them its lines. The topic lists read the counts of a window's range (the arrays are other
-- columns: not read), one topic's breakdown the entities of its range.
CREATE TABLE IF NOT EXISTS topic_episode_entities (
  topic LowCardinality(String),
  published_at DateTime64(3, 'UTC'),
  episode_id String,
  podcast_id LowCardinality(String),
  segments UInt32,
  lines UInt32,
  entity_ids Array(String),
  entity_lines Array(UInt32),
  version UInt64,
  is_deleted UInt8,
  INDEX episode_idx episode_id TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (topic, published_at, episode_id)
SETTINGS index_granularity = 1024;

INSERT INTO topic_episode_entities (topic, published_at, episode_id, podcast_id, segments, lines, entity_ids,
  entity_lines, version, is_deleted)
SELECT topic, published_at, episode_id, podcast_id, segments, lines, counted.1,
  arrayMap(n -> toUInt32(n), counted.2), 1, 0
FROM (
  SELECT t.topic AS topic, e.published_at AS published_at, t.episode_id AS episode_id, e.podcast_id AS podcast_id,
    count() AS segments, sum(arrayCount(l -> l >= t.first_line AND l <= t.last_line, m.line_numbers)) AS lines,
    sumMap(arrayFilter((x, l) -> l >= t.first_line AND l <= t.last_line, m.entity_ids, m.line_numbers) AS inside,
      arrayMap(x -> toUInt64(1), inside)) AS counted
  FROM (SELECT topic, episode_id, first_line, last_line FROM segment_topics FINAL) AS t
  INNER JOIN (SELECT id, podcast_id, published_at FROM episodes FINAL) AS e ON e.id = t.episode_id
  LEFT JOIN (SELECT episode_id, entity_ids, line_numbers FROM episode_mention_lines FINAL) AS m
    ON m.episode_id = t.episode_id
  GROUP BY t.topic, e.published_at, t.episode_id, e.podcast_id
)
WHERE (SELECT count() FROM topic_episode_entities) = 0;

DROP TABLE IF EXISTS topic_episodes;
