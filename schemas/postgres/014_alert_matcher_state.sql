-- The alert matcher's episode facts when several processes run the matcher (PostgreSQL): what is
-- known about each recent episode follows the episode's partition to whichever member holds it
-- (processors/alerts/matching/state-matcher-facts.ts). `version` lets a member that lost the
-- partition in a rebalance find its write refused instead of overwriting the new owner's.
CREATE TABLE alert_matcher_episodes (
  episode_id text PRIMARY KEY,
  facts jsonb NOT NULL,
  lines jsonb,
  touched_at bigint NOT NULL,
  version bigint NOT NULL
);
CREATE INDEX alert_matcher_episodes_touched ON alert_matcher_episodes (touched_at);

-- The backfill's way from an alert's entities to the episodes that mention them (kind m) or
-- where they speak (kind s).
CREATE TABLE alert_matcher_entities (
  kind text NOT NULL,
  entity_id text NOT NULL,
  episode_id text NOT NULL,
  PRIMARY KEY (kind, entity_id, episode_id)
);
CREATE INDEX alert_matcher_entities_episode ON alert_matcher_entities (episode_id);

-- Alerts already backfilled (per partition), episodes waiting for speakers.
CREATE TABLE alert_matcher_meta (
  ns text NOT NULL,
  key text NOT NULL,
  value bigint NOT NULL,
  PRIMARY KEY (ns, key)
);
