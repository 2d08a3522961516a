-- Day rollups of topic_episode_entities for the topic lists (projections/analytics/topic-queries.ts),
-- so a list over a year reads a few thousand rows instead of every topic-episode row of the year.
-- Both are recomputed at projection time for the (topic, day) keys a batch's episodes have or
-- had (projections/analytics/rollups.ts), with deletion markers and versions as the other rollups.
-- Days are UTC days of the episode's publication time. A read takes whole days of its window from
-- here and the rest of the window (the partial first and last day) from topic_episode_entities.

-- Per topic and day, over every podcast: episodes, segments and mention lines summed (an episode
-- is on one day, so a window's whole days add up).
CREATE TABLE IF NOT EXISTS topic_days (
  topic LowCardinality(String),
  day Date,
  episodes UInt64,
  segments UInt64,
  lines UInt64,
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (topic, day);

INSERT INTO topic_days (topic, day, episodes, segments, lines, version, is_deleted)
SELECT topic, toDate(published_at) AS day, count(), sum(segments), sum(lines), 1, 0
FROM topic_episode_entities FINAL
WHERE (SELECT count() FROM topic_days) = 0
GROUP BY topic, day;

-- Per podcast, topic and day: the topic list of one podcast reads its range.
CREATE TABLE IF NOT EXISTS podcast_topic_days (
  podcast_id LowCardinality(String),
  day Date,
  topic LowCardinality(String),
  episodes UInt64,
  segments UInt64,
  lines UInt64,
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (podcast_id, day, topic);

INSERT INTO podcast_topic_days (podcast_id, day, topic, episodes, segments, lines, version, is_deleted)
SELECT podcast_id, toDate(published_at) AS day, topic, count(), sum(segments), sum(lines), 1, 0
FROM topic_episode_entities FINAL
WHERE (SELECT count() FROM podcast_topic_days) = 0
GROUP BY podcast_id, day, topic;

-- Per topic and podcast, the days (numbers of days since 1970-01-01, sorted) the podcast discussed
-- it: a window's distinct podcasts on a topic are the rows with a day inside the window's whole
-- days, plus the podcasts of its partial days. One row per pair, whatever the window.
CREATE TABLE IF NOT EXISTS topic_podcasts (
  topic LowCardinality(String),
  podcast_id LowCardinality(String),
  days Array(UInt16),
  version UInt64,
  is_deleted UInt8
) ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (topic, podcast_id);

INSERT INTO topic_podcasts (topic, podcast_id, days, version, is_deleted)
SELECT topic, podcast_id, arraySort(groupUniqArray(toUInt16(day))), 1, 0
FROM podcast_topic_days FINAL
WHERE (SELECT count() FROM topic_podcasts) = 0
GROUP BY topic, podcast_id;
