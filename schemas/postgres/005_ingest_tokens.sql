-- Ingest tokens: credentials for the HTTP batch ingest, separate from customer API keys.
-- Only a SHA-256 digest is stored; the token is shown once when an operator creates it.
CREATE TABLE ingest_tokens (
  id text PRIMARY KEY,
  name text NOT NULL,
  display_prefix text NOT NULL,
  token_sha256 text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
