import { newId } from './accounts.ts';
import { type Queryable, sqlState, UNIQUE_VIOLATION } from './state-store.ts';

/** What became of an accepted payment. */
export type PaymentState = 'reserved' | 'settled' | 'released' | 'failed';
export type PaymentProtocol = 'x402' | 'mpp';

export interface PaymentRecord {
  id: string;
  protocol: PaymentProtocol;
  /** `network:asset:payer:nonce` of the signed transfer authorization (lower case). */
  authorization_key: string;
  /** The Payment challenge's `id` (MPP only). */
  challenge_id: string | null;
  state: PaymentState;
  network: string;
  asset: string;
  pay_to: string;
  payer: string;
  /** Atomic units of the asset, as a decimal string. */
  amount: string;
  price_cents: number;
  method: string;
  resource: string;
  tx_hash: string | null;
  failure: string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  settled_at: Date | null;
}

export type NewPayment = Pick<
  PaymentRecord,
  | 'protocol'
  | 'authorization_key'
  | 'network'
  | 'asset'
  | 'pay_to'
  | 'payer'
  | 'amount'
  | 'price_cents'
  | 'method'
  | 'resource'
> & { challenge_id?: string };

/** Why a payment could not be reserved. */
export type ReserveRefusal = 'in_use' | 'already_settled';

const COLUMNS =
  'id, protocol, authorization_key, challenge_id, state, network, asset, pay_to, payer, amount, price_cents, method, resource, tx_hash, failure, attempts, created_at, updated_at, settled_at';

/**
 * The payments ledger in the state store. A payment is reserved before the request it pays for
 * runs; the unique keys (the signed authorization, the Payment challenge) make that reservation
 * atomic across every process sharing the store, so a replayed or concurrent copy is refused. A
 * payment whose request did not succeed is released: it was not charged, and the same signed
 * authorization may be presented again (it is reserved anew, `attempts` counts the tries).
 */
export class PaymentLedger {
  constructor(private readonly db: Queryable) {}

  /** Reserves a payment, or says why it cannot be: another request holds it, or it was spent. */
  async reserve(input: NewPayment): Promise<{ record: PaymentRecord } | { refused: ReserveRefusal }> {
    const [record] = await this.db
      .query<PaymentRecord>(
        `INSERT INTO payments (id, protocol, authorization_key, challenge_id, state, network, asset, pay_to,
         payer, amount, price_cents, method, resource)
       VALUES ($1, $2, $3, $4, 'reserved', $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (authorization_key) DO UPDATE
         SET state = 'reserved', attempts = payments.attempts + 1, updated_at = now(), failure = NULL,
             method = EXCLUDED.method, resource = EXCLUDED.resource
         WHERE payments.state = 'released'
           AND payments.protocol = EXCLUDED.protocol
           AND payments.challenge_id IS NOT DISTINCT FROM EXCLUDED.challenge_id
       RETURNING ${COLUMNS}`,
        [
          newId('pay'),
          input.protocol,
          input.authorization_key,
          input.challenge_id ?? null,
          input.network,
          input.asset,
          input.pay_to,
          input.payer,
          input.amount,
          input.price_cents,
          input.method,
          input.resource,
        ],
      )
      .catch(async (err: unknown) => {
        // A Payment challenge already used with another authorization: refused like a replay.
        if (sqlState(err) === UNIQUE_VIOLATION) return [];
        throw err;
      });
    if (record) return { record };
    const [held] = await this.db.query<{ state: PaymentState }>(
      'SELECT state FROM payments WHERE authorization_key = $1 OR challenge_id = $2',
      [input.authorization_key, input.challenge_id ?? null],
    );
    return { refused: held?.state === 'reserved' ? 'in_use' : 'already_settled' };
  }

  /** What became of a payment already seen (by its authorization or its challenge), if any. */
  async stateOf(authorizationKey: string, challengeId?: string): Promise<PaymentState | undefined> {
    const [held] = await this.db.query<{ state: PaymentState }>(
      'SELECT state FROM payments WHERE authorization_key = $1 OR challenge_id = $2 ORDER BY updated_at DESC LIMIT 1',
      [authorizationKey, challengeId ?? null],
    );
    return held?.state;
  }

  /** Records the executed transfer. */
  async settled(id: string, txHash: string): Promise<PaymentRecord> {
    return this.#update(id, "state = 'settled', tx_hash = $2, settled_at = now(), failure = NULL", [txHash]);
  }

  /** The request did not succeed: nothing was charged. */
  async released(id: string, reason: string): Promise<PaymentRecord> {
    return this.#update(id, "state = 'released', failure = $2", [reason]);
  }

  /** Settlement failed after the request succeeded: the answer was withheld, nothing was charged. */
  async failed(id: string, reason: string): Promise<PaymentRecord> {
    return this.#update(id, "state = 'failed', failure = $2", [reason]);
  }

  async get(id: string): Promise<PaymentRecord | undefined> {
    const [record] = await this.db.query<PaymentRecord>(`SELECT ${COLUMNS} FROM payments WHERE id = $1`, [
      id,
    ]);
    return record;
  }

  /** Newest first. */
  async list(options: { limit?: number; state?: PaymentState } = {}): Promise<PaymentRecord[]> {
    const params: unknown[] = [options.limit ?? 100];
    let where = '';
    if (options.state) {
      params.push(options.state);
      where = 'WHERE state = $2';
    }
    return this.db.query<PaymentRecord>(
      `SELECT ${COLUMNS} FROM payments ${where} ORDER BY created_at DESC, id DESC LIMIT $1`,
      params,
    );
  }

  async #update(id: string, set: string, params: unknown[]): Promise<PaymentRecord> {
    const [record] = await this.db.query<PaymentRecord>(
      `UPDATE payments SET ${set}, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...params],
    );
    if (!record) throw new Error(`no payment ${id}`);
    return record;
  }
}
