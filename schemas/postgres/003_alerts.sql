-- Alerts: alert definitions, previews, the match read model, deliveries and the digest schedule.
-- Webhook and chat connections, delivery attempts and disable tokens are in 004_.

-- Every change to an alert takes the next version, so the processors' in-memory alert index
-- reloads only what changed (`WHERE version > last seen`).
CREATE SEQUENCE alerts_version_seq;

CREATE TABLE alerts (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id),
  title text NOT NULL,
  description text,
  kind text NOT NULL CHECK (kind IN ('ENTITY_MENTION', 'PODCAST_SPEAKER')),
  delivery_cadence text NOT NULL CHECK (delivery_cadence IN ('REALTIME', 'DAILY', 'WEEKLY')),
  -- [{entity_type, entity_id}] with canonical entity ids
  entities jsonb NOT NULL,
  -- [{type: EMAIL, email} | {type: CHAT, chat_connection_id, chat_channel_id} | {type: WEBHOOK, webhook_connection_id}]
  notifications jsonb NOT NULL,
  -- only the axes that were set: {languages?, relevance?, source_popularity?, speaker_roles?}
  filters jsonb NOT NULL DEFAULT '{}',
  is_active boolean NOT NULL DEFAULT true,
  surface text NOT NULL DEFAULT 'PLATFORM',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  -- when the alert last became active (creation or resume): episodes the matcher had finished
  -- before then are matched as backfill, never delivered
  activated_at timestamptz,
  version int8 NOT NULL DEFAULT nextval('alerts_version_seq')
);
CREATE INDEX alerts_project ON alerts (project_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX alerts_version ON alerts (version);

-- Preview sweeps, one row per (project, kind, entities, count-affecting filters).
CREATE TABLE alert_previews (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id),
  request jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'RUNNING', 'COMPLETE', 'FAILED')),
  estimated_match_count integer,
  window_start timestamptz,
  window_end timestamptz,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz
);

-- The match read model (projection of alerts.matched). The id derives from (alert, episode).
CREATE TABLE alert_matches (
  id text PRIMARY KEY,
  alert_id text NOT NULL,
  project_id text NOT NULL,
  kind text NOT NULL,
  entity_type text NOT NULL,
  entity_id text NOT NULL,
  episode_id text NOT NULL,
  podcast_id text NOT NULL,
  relevance text NOT NULL,
  is_backfilled boolean NOT NULL,
  mention_count integer NOT NULL,
  published_at timestamptz NOT NULL,
  detected_at timestamptz NOT NULL,
  -- the AlertMatched event as JSON (windows, variants, roles)
  document jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_matches_alert ON alert_matches (alert_id, detected_at DESC, id DESC);
CREATE INDEX alert_matches_episode ON alert_matches (episode_id);

-- Deliveries (projection of deliveries.requested): one row per delivery, one per channel, and
-- the matches each delivery carries.
CREATE TABLE deliveries (
  id text PRIMARY KEY,
  alert_id text NOT NULL,
  project_id text NOT NULL,
  cadence text NOT NULL,
  window_start timestamptz,
  window_end timestamptz,
  match_ids text[] NOT NULL,
  requested_at timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_alert ON deliveries (alert_id, requested_at DESC, id DESC);

CREATE TABLE delivery_channels (
  delivery_id text NOT NULL,
  channel_key text NOT NULL,
  type text NOT NULL,
  email text,
  webhook_connection_id text,
  chat_connection_id text,
  chat_channel_id text,
  PRIMARY KEY (delivery_id, channel_key)
);

CREATE TABLE delivery_matches (
  match_id text NOT NULL,
  delivery_id text NOT NULL,
  alert_id text NOT NULL,
  PRIMARY KEY (match_id, delivery_id)
);
CREATE INDEX delivery_matches_delivery ON delivery_matches (delivery_id, match_id);

-- Outcomes per (delivery, channel type, destination) from deliveries.attempted / delivered /
-- abandoned. Kept apart from delivery_channels so that events consumed in any order land;
-- reads pair outcomes with channels. A status only moves up: RETRYING < ABANDONED < DELIVERED.
CREATE TABLE delivery_outcomes (
  delivery_id text NOT NULL,
  channel_type text NOT NULL,
  destination text NOT NULL,
  status text NOT NULL CHECK (status IN ('RETRYING', 'ABANDONED', 'DELIVERED')),
  attempts integer NOT NULL DEFAULT 0,
  status_code integer,
  error text,
  last_attempt_at timestamptz,
  PRIMARY KEY (delivery_id, channel_type, destination)
);

-- Digest schedule: per DAILY/WEEKLY alert, the start of the next window to plan, so a restart
-- neither skips nor repeats a window. Matches detected before `not_before` are never bundled
-- (they were delivered under an earlier cadence).
CREATE TABLE alert_digest_windows (
  alert_id text PRIMARY KEY,
  cadence text NOT NULL,
  next_window_start timestamptz NOT NULL,
  not_before timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
