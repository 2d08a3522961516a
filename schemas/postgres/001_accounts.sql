-- Accounts: plans, organizations, projects, API keys, notification emails.

CREATE TABLE plans (
  code text PRIMARY KEY,
  name text NOT NULL,
  includes_alerts boolean NOT NULL,
  active_alerts_included integer NOT NULL,
  alerts_per_pack integer NOT NULL,
  premium_endpoints boolean NOT NULL,
  requests_per_minute integer NOT NULL,
  sort_order integer NOT NULL
);

INSERT INTO plans (code, name, includes_alerts, active_alerts_included, alerts_per_pack, premium_endpoints, requests_per_minute, sort_order) VALUES
  ('starter',    'Starter',    false,    0,   0, false,   120, 1),
  ('growth',     'Growth',     false,    0,   0, false,   600, 2),
  ('team',       'Team',       true,    10,  25, false,  1200, 3),
  ('business',   'Business',   true,    50,  50, true,   3000, 4),
  ('enterprise', 'Enterprise', true,   500, 100, true,  12000, 5);

CREATE TABLE organizations (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id),
  slug text NOT NULL,
  name text NOT NULL,
  plan_code text NOT NULL REFERENCES plans (code),
  alerts_packs integer NOT NULL DEFAULT 0 CHECK (alerts_packs >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, slug)
);

-- Keys are stored as a SHA-256 digest; the full key is shown once, at creation.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id),
  name text NOT NULL,
  display_prefix text NOT NULL,
  key_sha256 text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_project ON api_keys (project_id);

-- Addresses alerts may mail, verified per organization.
CREATE TABLE notification_emails (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id),
  email text NOT NULL,
  verified_at timestamptz,
  verification_token_sha256 text,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX notification_emails_live ON notification_emails (organization_id, lower(email)) WHERE deleted_at IS NULL;
