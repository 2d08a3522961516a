-- Agents: OAuth 2.1 for agent-tool clients (registered clients, grants a person approved, their
-- authorization codes and refresh tokens, the token-signing keys) and tool-call usage.

-- A client registered with `POST /oauth/register` (RFC 7591; public clients only: no secret).
-- Clients that use a metadata-document URL as their id are not stored here (fetched and cached).
CREATE TABLE oauth_clients (
  id text PRIMARY KEY,
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- What a person approved on the consent page: a client acting on one project, for one resource.
-- Active once its first code is exchanged; revoked by the person, by `POST /oauth/revoke`, by a
-- reused refresh token or a reused code.
CREATE TABLE oauth_grants (
  id text PRIMARY KEY,
  client_id text NOT NULL,
  client_name text NOT NULL,
  user_id text NOT NULL REFERENCES users (id),
  project_id text NOT NULL REFERENCES projects (id),
  resource text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  activated_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoked_reason text
);
CREATE INDEX oauth_grants_project ON oauth_grants (project_id, created_at);

-- Authorization codes and refresh tokens are stored as their SHA-256 only.
CREATE TABLE oauth_codes (
  code_sha256 text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES oauth_grants (id),
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id);

CREATE TABLE oauth_refresh_tokens (
  token_sha256 text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES oauth_grants (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);

-- Keys that sign access tokens (ES256). The private key is sealed with the secrets key; the
-- public key is published at the JWKS URI until an hour after the key is retired.
CREATE TABLE oauth_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  public_jwk jsonb NOT NULL,
  private_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);

-- Tool calls per project, tool, credential (API key or grant) and UTC day.
CREATE TABLE tool_usage (
  project_id text NOT NULL REFERENCES projects (id),
  tool text NOT NULL,
  credential_id text NOT NULL,
  day date NOT NULL,
  calls bigint NOT NULL DEFAULT 0,
  errors bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, tool, credential_id, day)
);
