-- People who sign in to the dashboard: accounts, their sessions, the organizations they belong to,
-- invitations and password resets; and API key usage per day, counted by the API.

-- A password is stored only as a scrypt hash (`scrypt$N$r$p$salt$hash`, base64); the address
-- is unique whatever its case. A person signs in once the address is verified.
CREATE TABLE users (
  id text PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  email_verified_at timestamptz,
  password_changed_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE organization_members (
  organization_id text NOT NULL REFERENCES organizations (id),
  user_id text NOT NULL REFERENCES users (id),
  role text NOT NULL CHECK (role IN ('owner', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_user ON organization_members (user_id, organization_id);

-- An invitation is accepted once, by a signed-in person whose verified address is the invited one,
-- before it expires. Only the SHA-256 of its token is stored.
CREATE TABLE organization_invitations (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations (id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'member')),
  token_sha256 text NOT NULL UNIQUE,
  invited_by text NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by text REFERENCES users (id),
  revoked_at timestamptz
);
CREATE INDEX organization_invitations_org ON organization_invitations (organization_id, created_at);

-- Server-side sessions behind the dashboard cookie. Only the SHA-256 of the session id is stored.
-- user_id NULL: a visitor who has not signed in (a form is open); signing in replaces the session.
CREATE TABLE user_sessions (
  id_sha256 text PRIMARY KEY,
  user_id text REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX user_sessions_user ON user_sessions (user_id);
CREATE INDEX user_sessions_expires ON user_sessions (expires_at);

-- A reset link works once, until it expires. Only the SHA-256 of its token is stored.
CREATE TABLE password_resets (
  token_sha256 text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX password_resets_user ON password_resets (user_id);

-- Requests per API key and UTC day, counted by the API process that served them and added here
-- in batches: every authenticated request, and how many of them were refused for the rate limit.
CREATE TABLE api_key_usage (
  key_id text NOT NULL REFERENCES api_keys (id),
  day date NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  rate_limited bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day)
);
