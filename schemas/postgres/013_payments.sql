-- Pay per request: every payment the API accepted (x402 `PAYMENT-SIGNATURE` or an
-- `Authorization: Payment` credential), and what became of it. A row is written when a payment
-- verifies and before the request runs (`reserved`), then becomes `settled` (the transfer was
-- executed: `tx_hash`) or `released` (the answer was not a success: nothing was charged and
-- the authorization was not used). The unique keys make a replay fail on every API process that
-- shares this store: one row per signed authorization (network, asset, payer, nonce) and one per
-- Payment challenge.
CREATE TABLE payments (
  id text PRIMARY KEY,
  protocol text NOT NULL CHECK (protocol IN ('x402', 'mpp')),
  authorization_key text NOT NULL UNIQUE,
  challenge_id text UNIQUE,
  state text NOT NULL CHECK (state IN ('reserved', 'settled', 'released', 'failed')),
  network text NOT NULL,
  asset text NOT NULL,
  pay_to text NOT NULL,
  payer text NOT NULL,
  amount text NOT NULL,
  price_cents integer NOT NULL,
  method text NOT NULL,
  resource text NOT NULL,
  tx_hash text,
  failure text,
  attempts integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz
);
CREATE INDEX payments_by_created_at ON payments (created_at DESC, id);
