-- Attempts counted per key and fixed window, shared by every process on this store: failed
-- authentications (per client address, per key prefix; the API and the agent-tool server) and
-- the dashboard's sign-in, password-reset and sign-up attempts. Any instance that counts an
-- attempt adds to the same row, so a lockout holds across instances. The key is the SHA-256 of
-- what is counted (an address, an e-mail address): none of it is stored in the clear. A row is
-- worthless once `reset_at` (epoch ms) has passed; expired rows are deleted as counting goes on.
CREATE TABLE attempt_counters (
  key text PRIMARY KEY,
  count integer NOT NULL,
  reset_at bigint NOT NULL
);
CREATE INDEX attempt_counters_reset_at ON attempt_counters (reset_at);
