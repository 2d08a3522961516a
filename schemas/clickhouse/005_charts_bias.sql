-- Chart snapshots (one row per captured chart position) and political-bias evaluations.
-- A chart's live rows are those of its newest capture.

CREATE TABLE IF NOT EXISTS chart_rows (
  source LowCardinality(String),
  chart_type LowCardinality(String),
  country LowCardinality(String),
  category_slug LowCardinality(String),
  captured_at DateTime64(3, 'UTC'),
  id String,
  rank UInt32,
  previous_rank Nullable(UInt32),
  chart_total UInt32,
  source_updated_at Nullable(DateTime64(3, 'UTC')),
  external_id String,
  external_url Nullable(String),
  growth_indicator Nullable(String),
  category_name String,
  category_external_id Nullable(String),
  category_parent_slug Nullable(String),
  channel_subscriber_count Nullable(Float64),
  view_count Nullable(Float64),
  weekly_avg_downloads Nullable(Float64),
  reach_pct Nullable(Float64),
  -- the ChartShow record as JSON
  show String,
  podcast_id String,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (source, chart_type, country, category_slug, captured_at, id);

CREATE TABLE IF NOT EXISTS bias_evaluations (
  podcast_id String,
  evaluated_at DateTime64(3, 'UTC'),
  id String,
  political_context LowCardinality(String),
  is_political UInt8,
  political_topic_percentage Float64,
  lean_score Nullable(Float64),
  bias Nullable(String),
  episodes_analyzed UInt32,
  model String,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (podcast_id, evaluated_at, id);
