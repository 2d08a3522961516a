-- The episode archive (projections/archive): every episode's parts as the episode record carries
-- them, written by the archive projector from the podcast, episode, transcript, segment, clip,
-- mention and speaker topics; partitioned by UTC publication day, each day with a build generation.

-- Day generations and change stamps. Never reset (a rebuild empties the tables, not this), so a
-- generation a cursor carries is never handed out again.
CREATE SEQUENCE archive_build_seq;

-- The podcasts episodes refer to: the summary a record carries, and what the live stream filters
-- by (publisher, language).
CREATE TABLE archive_podcasts (
  podcast_id text PRIMARY KEY,
  summary text NOT NULL,
  publisher_id text,
  language text NOT NULL,
  version int8 NOT NULL
);

-- One row per episode: each part as JSON text with the version it was written at (a part is only
-- replaced by a newer version). `complete` once the episode, its transcript, mentions and speakers
-- and its podcast are all here: only complete episodes are in the archive's days and the live
-- stream.
CREATE TABLE archive_episodes (
  episode_id text PRIMARY KEY,
  podcast_id text,
  -- the episode's own language (null: the podcast's), for the live stream's language filter
  language text,
  published_at timestamptz,
  day date,
  episode text,
  episode_v int8,
  transcript text,
  transcript_v int8,
  segments text,
  segments_v int8,
  clips text,
  clips_v int8,
  mentions text,
  mentions_v int8,
  speakers text,
  speakers_v int8,
  complete boolean NOT NULL DEFAULT false
);
CREATE INDEX archive_episodes_order ON archive_episodes (day, published_at, episode_id) WHERE complete;

-- One row per UTC publication day holding complete episodes. `generation` changes whenever the
-- day's publication order changes other than by appending at its end (a late episode landing
-- before the last one, an episode moving away, a rebuild); `changed` whenever any of its
-- records changes (the download's builds are keyed by both).
CREATE TABLE archive_days (
  day date PRIMARY KEY,
  generation int8 NOT NULL,
  changed int8 NOT NULL,
  episodes integer NOT NULL,
  last_published_at timestamptz NOT NULL,
  last_episode_id text NOT NULL
);

-- The live stream's order: episodes in the order they became complete. Written in the same
-- transaction, under the archive's lock, so a sequence number is visible only after every
-- smaller one. Not emptied by a rebuild: it records what was announced (an episode is announced
-- once), as alert matches record what was sent.
CREATE SEQUENCE archive_live_seq;
CREATE TABLE archive_live (
  seq int8 PRIMARY KEY,
  episode_id text NOT NULL UNIQUE,
  ready_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX archive_live_ready_at ON archive_live (ready_at);
