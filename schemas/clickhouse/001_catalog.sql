-- Dimensions: publishers, podcasts, entities (people and companies are views), episodes.
-- Every table is a ReplacingMergeTree keyed by what identifies a row, with a version column:
-- replaying a topic writes the same rows with the same versions, and reads use FINAL, so a
-- replay leaves every table as one pass did. Catalog versions are the records' `updated_at`
-- (episodes: the time the record was appended to its topic).

CREATE TABLE IF NOT EXISTS publishers (
  id String,
  slug String,
  name String,
  description Nullable(String),
  website_url Nullable(String),
  image_url Nullable(String),
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY id;

CREATE TABLE IF NOT EXISTS podcasts (
  id String,
  slug String,
  directory_id Nullable(Int64),
  title String,
  publisher_id String,
  language LowCardinality(String),
  -- primary language subtag, lower case: `fr` for `fr-CA`
  lang LowCardinality(String),
  category_slugs Array(String),
  image_url Nullable(String),
  popularity Nullable(Float64),
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY id;

CREATE TABLE IF NOT EXISTS entities (
  id String,
  slug String,
  kind LowCardinality(String),
  name String,
  category_slug LowCardinality(String),
  category_name String,
  image_url Nullable(String),
  company_domain Nullable(String),
  company_ticker Nullable(String),
  person_title Nullable(String),
  person_company_id String,
  occupation_code String,
  occupation_system LowCardinality(String),
  occupation_slug String,
  occupation_title String,
  occupation_group String,
  field_code String,
  field_slug String,
  field_title String,
  standing LowCardinality(String),
  -- 0 unknown, 1 professional, 2 senior, 3 distinguished
  seniority_level UInt8,
  practicing Nullable(UInt8),
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY id;

CREATE VIEW IF NOT EXISTS companies AS
  SELECT id, slug, name, category_slug, company_domain AS domain, company_ticker AS ticker, image_url
  FROM entities FINAL WHERE kind = 'COMPANY';

CREATE VIEW IF NOT EXISTS people AS
  SELECT id, slug, name, category_slug, person_title AS title, person_company_id AS company_id,
    occupation_code, occupation_system, occupation_slug, occupation_title, occupation_group,
    field_code, field_slug, field_title, standing, seniority_level, practicing, image_url
  FROM entities FINAL WHERE kind = 'PERSON';

CREATE TABLE IF NOT EXISTS episodes (
  id String,
  slug String,
  podcast_id String,
  title String,
  description Nullable(String),
  published_at DateTime64(3, 'UTC'),
  duration_seconds Nullable(Float64),
  audio_url Nullable(String),
  image_url Nullable(String),
  language Nullable(String),
  -- JSON array of {name, role} credited by the feed
  people String,
  -- when the episode entered the catalog: the order of the episode feed
  available_at DateTime64(3, 'UTC'),
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY id;

-- The version of each episode-scoped record set (mentions, speakers, transcript, segments, clips,
-- ad reads) that the child tables hold. Written after the set's rows; a set whose version is
-- already here is not written again, and a newer version first marks the older rows deleted.
CREATE TABLE IF NOT EXISTS episode_versions (
  kind LowCardinality(String),
  episode_id String,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (kind, episode_id);
