-- Delivery: webhook and team-chat connections, the senders' durable schedule, and the
-- projection of delivery attempts (deliveries.attempted). Outcomes per delivery and channel
-- (delivery_outcomes) are in 003_.

-- Webhook connections. The signing secret is stored encrypted (AES-256-GCM under the service's
-- secrets key, bound to the row id); reads show `secret_prefix` only. Rotation overwrites the
-- ciphertext, so the old secret stops signing at once. Soft delete: `deleted_at`.
CREATE TABLE webhook_connections (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id),
  name text NOT NULL,
  url text NOT NULL,
  surface text NOT NULL DEFAULT 'PLATFORM',
  secret_sealed text NOT NULL,
  secret_prefix text NOT NULL,
  secret_rotated_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX webhook_connections_project ON webhook_connections (project_id, id);

-- Team-chat connections (a workspace with a bot token). The token is stored encrypted like
-- webhook secrets. Soft delete: `deleted_at`.
CREATE TABLE chat_connections (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id),
  name text NOT NULL,
  team_id text,
  team_name text,
  bot_user_id text,
  token_sealed text NOT NULL,
  token_prefix text NOT NULL,
  surface text NOT NULL DEFAULT 'PLATFORM',
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX chat_connections_project ON chat_connections (project_id, id);

-- When a verification mail was last sent (a token is valid for 7 days from then).
ALTER TABLE notification_emails ADD COLUMN verification_sent_at timestamptz;

-- The senders' durable schedule: one row per requested delivery (deliveries.requested), kept
-- until it is delivered or abandoned. A sender claims due rows with a lease; a crash leaves the
-- lease to expire (or, on the single-process embedded store, to be released at start) and the
-- delivery is attempted again: at least once, never lost.
CREATE TABLE delivery_jobs (
  -- One job per channel of a delivery: `<delivery_id>|<channel key>`.
  job_id text PRIMARY KEY,
  delivery_id text NOT NULL,
  alert_id text NOT NULL,
  project_id text NOT NULL,
  cadence text NOT NULL,
  channel_type text NOT NULL,
  channel jsonb NOT NULL,
  match_ids jsonb NOT NULL,
  window_start timestamptz,
  window_end timestamptz,
  requested_at timestamptz NOT NULL,
  state text NOT NULL DEFAULT 'PENDING', -- PENDING | DELIVERED | ABANDONED
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_owner text,
  lease_until timestamptz,
  last_error text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX delivery_jobs_due ON delivery_jobs (next_attempt_at) WHERE state = 'PENDING';

-- Projection of deliveries.attempted: one row per attempt (the REST delivery views read it).
CREATE TABLE delivery_attempts (
  attempt_id text PRIMARY KEY, -- the delivery_id sent on the wire for this attempt (X-Webhook-ID)
  delivery_id text NOT NULL,
  attempt integer NOT NULL,
  alert_id text NOT NULL,
  channel_type text NOT NULL,
  destination text NOT NULL,
  succeeded boolean NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  next_attempt_at timestamptz
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt);
