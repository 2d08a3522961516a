-- An API key may expire: NULL (the default, and every key made before this) never expires.
-- Authentication answers 401 api_key_expired from expires_at on.
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
