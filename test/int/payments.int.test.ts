import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentSettings } from '../../api/app.ts';
import { receiptHeaders } from '../../api/payments/gate.ts';
import {
  formatChallenge,
  formatCredential,
  parseChallenge,
  parseCredential,
} from '../../api/payments/mpp.ts';
import { loadPriceTable } from '../../api/payments/prices.ts';
import { challengeFor, type PaymentTermsSettings } from '../../api/payments/terms.ts';
import { localFacilitator } from '../../infra/payments.ts';
import { LanceDbSearchIndex } from '../../projections/search/lancedb/lancedb-search-index.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PaymentLedger, type PaymentRecord } from '../../projections/state/payments.ts';
import { projectedCorpus } from '../support/analytics.ts';
import { testApi } from '../support/api.ts';
import {
  CHAIN_ID,
  compileTestToken,
  deployTestToken,
  type LocalChain,
  startChain,
  type TestToken,
  TOKEN_DECIMALS,
  TOKEN_NAME,
  TOKEN_VERSION,
  testTokenTerms,
} from '../support/chain.ts';
import {
  mppAuthorization,
  requirementsOf,
  signAuthorization,
  x402Header,
  x402Signature,
} from '../support/payer.ts';
import { diskStateStore } from '../support/state.ts';
import { tempDir } from '../support/temp-dir.ts';

type Api = Awaited<ReturnType<typeof testApi>>;

const CENT = 10n ** BigInt(TOKEN_DECIMALS - 2);
const AS_OF = Date.UTC(2026, 9, 1);

/**
 * Pay per request, end to end on a local EVM (hardhat's in-process network, JSON-RPC on
 * 127.0.0.1) with an EIP-3009 token this test deploys: x402 (`PAYMENT-SIGNATURE`) and the
 * Payment scheme (`Authorization: Payment`), verified and settled by the local facilitator (the
 * x402 reference `exact` EVM scheme), recorded in the ledger. Served by the real routes over a
 * projected corpus; one test route answers 500.
 */
describe('pay per request', () => {
  let chain: LocalChain;
  let token: TestToken;
  let fx: Awaited<ReturnType<typeof projectedCorpus>>;
  let api: Api;
  let second: Api;
  let app: FastifyInstance;
  let terms: PaymentTermsSettings;
  let payments: PaymentSettings;
  let podcastId: string;
  const searchDir = tempDir('earshot-payments-search-');
  const searchIndex = new LanceDbSearchIndex(searchDir.dir, { dimensions: 8, model: 'payments-test' });
  const payer = () => chain.accounts[2]!;
  const payTo = () => chain.accounts[4]!.address;
  const tokenMeta = () => ({
    address: token.address,
    name: TOKEN_NAME,
    version: TOKEN_VERSION,
    chainId: CHAIN_ID,
  });

  beforeAll(async () => {
    chain = await startChain();
    token = await deployTestToken(chain);
    await token.mint(chain.accounts[2]!.address, 100n * CENT * 100n);
    await token.mint(chain.accounts[3]!.address, 100n * CENT * 100n);
    const defaults = loadPriceTable();
    terms = testTokenTerms(chain, token);
    payments = {
      prices: {
        operations: { ...defaults.operations, 'GET /v1/test/paid-explode': 1, 'GET /v1/test/paid-drain': 1 },
        tools: {},
      },
      terms,
    };
    const facilitator = localFacilitator({
      rpcUrl: chain.rpcUrl,
      signerKey: chain.keys[1]!,
      network: chain.network,
    });
    fx = await projectedCorpus({ podcasts: 3, episodesPerPodcast: 2, seed: 19, asOf: AS_OF });
    const explode = (a: FastifyInstance) => {
      a.get('/v1/test/paid-explode', async () => {
        throw new Error('the handler failed');
      });
      // Succeeds, but meanwhile the payer spends everything: the settlement fails on chain.
      a.get('/v1/test/paid-drain', async () => {
        const spender = chain.walletFor(chain.accounts[3]!);
        const { abi } = compileTestToken();
        const all = await token.balanceOf(chain.accounts[3]!.address);
        const tx = await spender.writeContract({
          address: token.address,
          abi,
          functionName: 'transfer',
          args: [chain.accounts[0]!.address, all],
        });
        await spender.waitForTransactionReceipt({ hash: tx });
        return { ok: true };
      });
    };
    await searchIndex.open();
    // Every payable route is served: the analytics and catalog reads, and search (an empty index).
    api = await testApi({ payments, rateLimitPerMinute: 100_000 }, explode, {
      state: fx.state,
      analytics: fx.analytics,
      searchIndex,
      facilitator,
    });
    // A second API process on the same state store and chain: the ledger is shared.
    second = await testApi({ payments, rateLimitPerMinute: 100_000 }, explode, {
      state: fx.state,
      analytics: fx.analytics,
      facilitator: localFacilitator({
        rpcUrl: chain.rpcUrl,
        signerKey: chain.keys[5]!,
        network: chain.network,
      }),
    });
    app = api.app;
    const list = await app.inject({
      method: 'GET',
      url: '/v1/podcasts?limit=1',
      headers: { 'x-api-key': api.keys.business! },
    });
    podcastId = (list.json() as { data: { id: string }[] }).data[0]!.id;
  }, 180_000);

  afterAll(async () => {
    await second?.close();
    await api?.close();
    await fx?.close();
    await searchIndex.close();
    searchDir.remove();
    await chain?.stop();
  });

  const ask = (url: string, headers: Record<string, string> = {}, target = app) =>
    target.inject({ method: 'GET', url, headers });

  async function balances() {
    return { payer: await token.balanceOf(payer().address), payTo: await token.balanceOf(payTo()) };
  }

  it('answers a billable request without a credential with 402: x402 terms, a Payment challenge and a payment_required problem', async () => {
    const res = await ask('/v1/podcasts?limit=2');
    expect(res.statusCode).toBe(402);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json()).toMatchObject({ error_code: 'payment_required', status: 402 });
    const required = decodePaymentRequiredHeader(
      res.headers['payment-required'] as string,
    ) as PaymentRequired;
    expect(required).toMatchObject({
      x402Version: 2,
      resource: { url: 'http://127.0.0.1:8080/v1/podcasts?limit=2' },
      accepts: [
        {
          scheme: 'exact',
          network: chain.network,
          asset: token.address,
          amount: CENT.toString(),
          payTo: payTo(),
          maxTimeoutSeconds: 120,
          extra: { name: TOKEN_NAME, version: TOKEN_VERSION },
        },
      ],
    });
    const challenge = parseChallenge(res.headers['www-authenticate'] as string)!;
    expect(challenge).toMatchObject({ realm: '127.0.0.1:8080', method: 'evm', intent: 'charge' });
    expect(Date.parse(challenge.expires)).toBeGreaterThan(Date.now());
    expect(Buffer.from(challenge.id, 'base64url').length).toBeGreaterThanOrEqual(16);
  });

  it('serves a paid request once: 200 with a PAYMENT-RESPONSE receipt, the balance moved once, the ledger settled', async () => {
    const before = await balances();
    const offer = await ask('/v1/podcasts?limit=2');
    const signature = await x402Signature(offer.headers['payment-required'] as string, payer());
    const res = await ask('/v1/podcasts?limit=2', { 'payment-signature': signature });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as { data: unknown[] }).data).toHaveLength(2);
    const receipt = decodePaymentResponseHeader(res.headers['payment-response'] as string);
    expect(receipt).toMatchObject({ success: true, network: chain.network, payer: payer().address });
    const tx = await chain.client.getTransactionReceipt({ hash: receipt.transaction as `0x${string}` });
    expect(tx.status).toBe('success');
    const after = await balances();
    expect(after.payer).toBe(before.payer - CENT);
    expect(after.payTo).toBe(before.payTo + CENT);

    const [record] = await new PaymentLedger(fx.state).list({ limit: 1 });
    expect(record).toMatchObject({
      protocol: 'x402',
      state: 'settled',
      tx_hash: receipt.transaction,
      payer: payer().address,
      amount: CENT.toString(),
      price_cents: 1,
      resource: '/v1/podcasts?limit=2',
    });
    // The receipt is reproducible from the ledger alone.
    expect(receiptHeaders(record!)['payment-response']).toBe(res.headers['payment-response']);

    // The same signature again: refused, nothing moves.
    const replay = await ask('/v1/podcasts?limit=2', { 'payment-signature': signature });
    expect(replay.statusCode).toBe(402);
    expect(replay.json()).toMatchObject({ error_code: 'payment_invalid', reason: 'payment_already_used' });
    expect(replay.headers['payment-required']).toBeDefined();
    // …on another API process too.
    const elsewhere = await ask('/v1/podcasts?limit=2', { 'payment-signature': signature }, second.app);
    expect(elsewhere.statusCode).toBe(402);
    expect(await balances()).toEqual(after);
  });

  it('never charges a request whose handler fails (404, 422, 500): not settled, the authorization unused and still good', async () => {
    const before = await balances();
    const offer = await ask(`/v1/podcasts/${podcastId}`);
    const signature = await x402Signature(offer.headers['payment-required'] as string, payer());
    const nonce = requirementsNonce(signature);
    for (const [url, status] of [
      ['/v1/podcasts/pod_does_not_exist', 404],
      ['/v1/podcasts?limit=1000', 422],
      ['/v1/test/paid-explode', 500],
    ] as const) {
      const res = await ask(url, { 'payment-signature': signature });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
      expect(res.headers['payment-response'], url).toBeUndefined();
      expect(await balances(), url).toEqual(before);
      expect(await token.authorizationUsed(payer().address, nonce), url).toBe(false);
      const [record] = await new PaymentLedger(fx.state).list({ limit: 1 });
      expect(record, url).toMatchObject({ state: 'released', failure: `answered ${status}`, tx_hash: null });
    }
    // Not consumed: the same authorization pays for a request that succeeds.
    const ok = await ask(`/v1/podcasts/${podcastId}`, { 'payment-signature': signature });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.headers['payment-response']).toBeDefined();
    expect(await token.authorizationUsed(payer().address, nonce)).toBe(true);
    expect((await balances()).payer).toBe(before.payer - CENT);
    const [record] = await new PaymentLedger(fx.state).list({ limit: 1 });
    expect(record).toMatchObject({ state: 'settled', attempts: 4 });
  });

  it('withholds a successful answer whose transfer cannot be settled: 402, nothing charged, the payment recorded failed', async () => {
    const drained = chain.accounts[3]!;
    const before = await token.balanceOf(payTo());
    const offer = await ask('/v1/test/paid-drain');
    const signature = await x402Signature(offer.headers['payment-required'] as string, drained);
    const res = await ask('/v1/test/paid-drain', { 'payment-signature': signature });
    expect(res.statusCode, res.body).toBe(402);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json()).toMatchObject({ error_code: 'payment_settlement_failed' });
    expect(res.body).not.toContain('"ok"');
    expect(res.headers['payment-response']).toBeUndefined();
    expect(res.headers['payment-required']).toBeDefined();
    expect(await token.balanceOf(payTo())).toBe(before);
    const [record] = await new PaymentLedger(fx.state).list({ limit: 1 });
    expect(record).toMatchObject({ state: 'failed', payer: drained.address, tx_hash: null });
    // Spent for good: the same signature is refused, not served again.
    const again = await ask('/v1/test/paid-drain', { 'payment-signature': signature });
    expect(again.json()).toMatchObject({ reason: 'payment_already_used' });
  });

  it('refuses a payment for the wrong amount, recipient, network or asset, or past its window, with 402 naming the reason', async () => {
    const before = await balances();
    const offer = await ask('/v1/podcasts/rankings/sources');
    const ours = requirementsOf(offer.headers['payment-required'] as string);
    const cases: [string, () => Promise<string>][] = [
      // Signed for less than the price, and saying so.
      [
        'amount_mismatch',
        () =>
          x402Signature(offer.headers['payment-required'] as string, payer(), (r) => ({ ...r, amount: '1' })),
      ],
      // Claims to accept our terms but signs a smaller transfer.
      [
        'amount_mismatch',
        async () =>
          x402Header(ours, await signAuthorization(payer(), tokenMeta(), { to: payTo(), value: '1' })),
      ],
      [
        'recipient_mismatch',
        async () =>
          x402Header(
            ours,
            await signAuthorization(payer(), tokenMeta(), {
              to: chain.accounts[3]!.address,
              value: ours.amount,
            }),
          ),
      ],
      [
        'network_mismatch',
        () =>
          x402Signature(offer.headers['payment-required'] as string, payer(), (r) => ({
            ...r,
            network: 'eip155:8453',
          })),
      ],
      [
        'asset_mismatch',
        () =>
          x402Signature(offer.headers['payment-required'] as string, payer(), (r) => ({
            ...r,
            asset: payTo(),
          })),
      ],
      [
        'authorization_expired',
        async () =>
          x402Header(
            ours,
            await signAuthorization(payer(), tokenMeta(), {
              to: payTo(),
              value: ours.amount,
              validBefore: String(Math.floor(Date.now() / 1000) - 5),
            }),
          ),
      ],
      [
        'invalid_signature',
        async () => {
          // Signed by someone else on the payer's behalf.
          const signed = await signAuthorization(chain.accounts[3]!, tokenMeta(), {
            to: payTo(),
            value: ours.amount,
          });
          return x402Header(ours, {
            ...signed,
            authorization: { ...signed.authorization, from: payer().address },
          });
        },
      ],
      ['invalid_payload', async () => 'not base64 json'],
    ];
    for (const [reason, make] of cases) {
      const res = await ask('/v1/podcasts/rankings/sources', { 'payment-signature': await make() });
      expect(res.statusCode, `${reason}: ${res.body}`).toBe(402);
      expect(res.json(), reason).toMatchObject({
        error_code: 'payment_invalid',
        reason,
        errors: [{ location: 'header.payment-signature', message: reason }],
      });
      const fresh = decodePaymentRequiredHeader(res.headers['payment-required'] as string) as PaymentRequired;
      expect(fresh.error, reason).toBe(reason);
    }
    expect(await balances()).toEqual(before);
  });

  it('serves exactly one of several identical payments sent at once, across API processes', async () => {
    const before = await balances();
    const offer = await ask('/v1/podcasts?limit=1');
    const signature = await x402Signature(offer.headers['payment-required'] as string, payer());
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        ask('/v1/podcasts?limit=1', { 'payment-signature': signature }, i % 2 === 0 ? app : second.app),
      ),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses).toEqual([200, 402, 402, 402, 402, 402]);
    for (const refused of answers.filter((a) => a.statusCode === 402))
      expect(['payment_in_use', 'payment_already_used']).toContain(refused.json().reason);
    expect((await balances()).payer).toBe(before.payer - CENT);
  });

  it('takes the account path for any account credential, even an invalid one, whatever payment comes with it', async () => {
    const before = await balances();
    const offer = await ask('/v1/podcasts?limit=1');
    const signature = await x402Signature(offer.headers['payment-required'] as string, payer());
    for (const headers of <Record<string, string>[]>[
      { 'x-api-key': 'esk_not_a_real_key_at_all_000000', 'payment-signature': signature },
      { authorization: 'Bearer esk_not_a_real_key_at_all_000000', 'payment-signature': signature },
      { authorization: 'not-even-a-scheme', 'payment-signature': signature },
    ]) {
      const res = await ask('/v1/podcasts?limit=1', headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json().error_code).toBe('invalid_api_key');
    }
    const withKey = await ask('/v1/podcasts?limit=1', {
      'x-api-key': api.keys.business!,
      'payment-signature': signature,
    });
    expect(withKey.statusCode).toBe(200);
    expect(withKey.headers['payment-response']).toBeUndefined();
    expect(await balances()).toEqual(before);
  });

  it('refuses a request carrying both payment protocols', async () => {
    const offer = await ask('/v1/podcasts?limit=1');
    const signature = await x402Signature(offer.headers['payment-required'] as string, payer());
    const credential = await mppAuthorization(offer.headers['www-authenticate'] as string, payer(), {
      name: TOKEN_NAME,
      version: TOKEN_VERSION,
    });
    const res = await ask('/v1/podcasts?limit=1', {
      'payment-signature': signature,
      authorization: credential,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error_code: 'payment_protocol_conflict' });
  });

  describe('the Payment scheme (MPP, method evm, intent charge)', () => {
    it('accepts a valid credential once, with a Payment-Receipt, and refuses it when reused', async () => {
      const before = await balances();
      const offer = await ask('/v1/entities/types');
      const credential = await mppAuthorization(offer.headers['www-authenticate'] as string, payer(), {
        name: TOKEN_NAME,
        version: TOKEN_VERSION,
      });
      const res = await ask('/v1/entities/types', { authorization: credential });
      expect(res.statusCode, res.body).toBe(200);
      const receipt = JSON.parse(
        Buffer.from(res.headers['payment-receipt'] as string, 'base64url').toString(),
      );
      const challenge = parseChallenge(offer.headers['www-authenticate'] as string)!;
      expect(receipt).toMatchObject({ status: 'success', method: 'evm', challengeId: challenge.id });
      const tx = await chain.client.getTransactionReceipt({ hash: receipt.reference });
      expect(tx.status).toBe('success');
      expect((await balances()).payer).toBe(before.payer - CENT);
      const [record] = await new PaymentLedger(fx.state).list({ limit: 1 });
      expect(record).toMatchObject({ protocol: 'mpp', state: 'settled', challenge_id: challenge.id });
      expect(receiptHeaders(record!)['payment-receipt']).toBe(res.headers['payment-receipt']);

      for (const target of [app, second.app]) {
        const reused = await ask('/v1/entities/types', { authorization: credential }, target);
        expect(reused.statusCode).toBe(402);
        expect(reused.json()).toMatchObject({
          error_code: 'payment_invalid',
          reason: 'payment_already_used',
        });
        expect(parseChallenge(reused.headers['www-authenticate'] as string)).toBeDefined();
      }
      expect((await balances()).payer).toBe(before.payer - CENT);
    });

    it('issues a distinct challenge each time, even twice in one second for one request, and each pays once', async () => {
      const before = await balances();
      const [a, b] = await Promise.all([ask('/v1/entities/types'), ask('/v1/entities/types')]);
      const ids = [a, b].map((r) => parseChallenge(r.headers['www-authenticate'] as string)!);
      expect(ids[0]!.id).not.toBe(ids[1]!.id);
      // Same parameters, same instant: still two challenges.
      const resource = { method: 'GET', target: '/v1/entities/types', url: '', description: 'x', cents: 1 };
      const now = Date.now();
      expect(challengeFor(terms, resource, now).id).not.toBe(challengeFor(terms, resource, now).id);
      for (const offer of [a, b]) {
        const credential = await mppAuthorization(offer.headers['www-authenticate'] as string, payer(), {
          name: TOKEN_NAME,
          version: TOKEN_VERSION,
        });
        const res = await ask('/v1/entities/types', { authorization: credential });
        expect(res.statusCode, res.body).toBe(200);
      }
      expect((await balances()).payer).toBe(before.payer - 2n * CENT);
    });

    it('refuses a forged id, a challenge for another request, an expired challenge and an unbound authorization', async () => {
      const before = await balances();
      const offer = await ask('/v1/entities/types');
      const www = offer.headers['www-authenticate'] as string;
      const token = { name: TOKEN_NAME, version: TOKEN_VERSION };
      const forged = await mppAuthorization(www, payer(), token, {
        challenge: (c) => ({ ...c, id: crypto.randomBytes(32).toString('base64url') }),
      });
      // The terms of a 1-cent request, presented for a 5-cent one.
      const elsewhere = await ask('/v1/podcasts/bias/publishers/leaderboard', {
        authorization: await mppAuthorization(www, payer(), token),
      });
      const expiredChallenge = challengeFor(
        terms,
        { method: 'GET', target: '/v1/entities/types', url: '', description: 'x', cents: 1 },
        Date.now() - 301_000,
      );
      const expired = await mppAuthorization(formatChallenge(expiredChallenge), payer(), token);
      // The authorization's nonce is not bound to the challenge.
      const honest = parseCredential(await mppAuthorization(www, payer(), token));
      if ('malformed' in honest) throw new Error(honest.malformed);
      const unbound = formatCredential({
        ...honest,
        payload: {
          ...honest.payload,
          ...(await signAuthorization(payer(), tokenMeta(), {
            to: payTo(),
            value: CENT.toString(),
          }).then((s) => ({ ...s.authorization, signature: s.signature }))),
        },
      });
      for (const [reason, res] of [
        ['challenge_invalid', await ask('/v1/entities/types', { authorization: forged })],
        ['challenge_invalid', elsewhere],
        ['challenge_expired', await ask('/v1/entities/types', { authorization: expired })],
        ['challenge_binding_mismatch', await ask('/v1/entities/types', { authorization: unbound })],
        ['malformed_credential', await ask('/v1/entities/types', { authorization: 'Payment !!!' })],
      ] as const) {
        expect(res.statusCode, `${reason}: ${res.body}`).toBe(402);
        expect(res.json(), reason).toMatchObject({
          error_code: 'payment_invalid',
          reason,
          errors: [{ location: 'header.authorization' }],
        });
        expect(parseChallenge(res.headers['www-authenticate'] as string), reason).toBeDefined();
      }
      expect(await balances()).toEqual(before);
    });
  });

  it('agrees for every payable operation: /openapi.json x-payment-info, /.well-known/x402 and the 402 terms', async () => {
    const doc = (await ask('/openapi.json')).json() as {
      paths: Record<string, Record<string, { 'x-payment-info'?: Record<string, unknown> }>>;
    };
    const known = (await ask('/.well-known/x402')).json() as {
      payments: string;
      networks: string[];
      resources: {
        method: string;
        path: string;
        price: { cents: number };
        amount: string;
        accepts: unknown[];
      }[];
    };
    expect(known).toMatchObject({ payments: 'on', networks: [chain.network] });
    const table = payments.prices!.operations;
    const listed = new Map(known.resources.map((r) => [`${r.method} ${r.path}`, r]));
    expect([...listed.keys()].sort()).toEqual(Object.keys(table).sort());
    for (const [op, cents] of Object.entries(table)) {
      const [method, path] = op.split(' ') as [string, string];
      const info = doc.paths[path]?.[method.toLowerCase()]?.['x-payment-info'];
      expect(info, op).toMatchObject({
        price: { cents, currency: 'USD', amount: (cents / 100).toFixed(2) },
        network: chain.network,
        asset: token.address,
        pay_to: payTo(),
        amount: (BigInt(cents) * CENT).toString(),
      });
      const entry = listed.get(op)!;
      const {
        accepts,
        method: _m,
        path: _p,
        url: _u,
        description: _d,
        ...terms
      } = entry as typeof entry & {
        url: string;
        description?: string;
      };
      expect(terms, op).toEqual(info);
      const res = await ask(path.replace(/\{[^}]+\}/g, 'x1'));
      expect(res.statusCode, op).toBe(402);
      const required = decodePaymentRequiredHeader(
        res.headers['payment-required'] as string,
      ) as PaymentRequired;
      expect(required.accepts, op).toEqual(accepts);
      expect(required.accepts[0]!.amount, op).toBe(info!.amount);
    }
    // Not payable: alerts and account management answer 401 without a credential.
    expect((await ask(`/v1/projects/${api.projects.business}/alerts`)).statusCode).toBe(401);
    expect((await ask('/v1/alerts/alr_x')).statusCode).toBe(401);
    expect((await ask(`/v1/organizations/${api.org.id}/projects`)).statusCode).toBe(401);
  });
});

/** The EIP-3009 nonce inside a PAYMENT-SIGNATURE. */
function requirementsNonce(signature: string): `0x${string}` {
  const payload = JSON.parse(Buffer.from(signature, 'base64').toString()) as {
    payload: { authorization: { nonce: `0x${string}` } };
  };
  return payload.payload.authorization.nonce;
}

describe('pay per request, configured partly or not at all', () => {
  const paid = (a: FastifyInstance) => a.get('/v1/test/paid', async () => ({ ok: true }));
  const prices = { operations: { 'GET /v1/test/paid': 2 }, tools: {} };

  it('without a recipient, payments are off: a billable endpoint answers 401 as before, discovery says off', async () => {
    const api = await testApi({ payments: { prices } }, paid);
    try {
      const res = await api.app.inject({ method: 'GET', url: '/v1/test/paid' });
      expect(res.statusCode).toBe(401);
      expect(res.json().error_code).toBe('authentication_required');
      expect(res.headers['payment-required']).toBeUndefined();
      const paying = await api.app.inject({
        method: 'GET',
        url: '/v1/test/paid',
        headers: { 'payment-signature': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' },
      });
      expect(paying.statusCode).toBe(401);
      const known = (await api.app.inject({ method: 'GET', url: '/.well-known/x402' })).json();
      expect(known).toMatchObject({
        payments: 'off',
        networks: ['eip155:8453'],
        resources: [{ method: 'GET', path: '/v1/test/paid', price: { cents: 2 }, network: 'eip155:8453' }],
      });
      const withKey = await api.app.inject({
        method: 'GET',
        url: '/v1/test/paid',
        headers: { 'x-api-key': api.keys.starter! },
      });
      expect(withKey.statusCode).toBe(200);
    } finally {
      await api.close();
    }
  });

  it('with a recipient but no way to settle, the terms are offered and a payment is refused with 503', async () => {
    const terms: PaymentTermsSettings = {
      payTo: '0x00000000000000000000000000000000000000a1',
      network: 'eip155:8453',
      asset: {
        address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        name: 'USD Coin',
        version: '2',
        decimals: 6,
      },
      maxTimeoutSeconds: 120,
      challengeTtlSeconds: 300,
      realm: '127.0.0.1:8080',
      challengeKey: crypto.randomBytes(32),
    };
    const api = await testApi({ payments: { prices, terms } }, paid);
    try {
      const offer = await api.app.inject({ method: 'GET', url: '/v1/test/paid' });
      expect(offer.statusCode).toBe(402);
      expect(requirementsOf(offer.headers['payment-required'] as string)).toMatchObject({
        amount: '20000',
        payTo: terms.payTo,
        network: 'eip155:8453',
      });
      const res = await api.app.inject({
        method: 'GET',
        url: '/v1/test/paid',
        headers: { 'payment-signature': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        error_code: 'payments_unavailable',
        reason: 'settlement_unavailable',
      });
      expect(res.headers['payment-required']).toBeDefined();
    } finally {
      await api.close();
    }
  });
});

describe('earshot payments list', () => {
  const tmp = tempDir();
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const earshot = (...args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(root, 'bin/earshot.js'), ...args], {
      cwd: root,
      env: { ...process.env, EARSHOT_DATA_DIR: tmp.dir, LOG_LEVEL: 'warn' },
    });
  let settled: PaymentRecord;

  beforeAll(async () => {
    // The store the CLI opens when no service runs (EARSHOT_DATA_DIR/state).
    const state = diskStateStore(path.join(tmp.dir, 'state'));
    await migrate(state);
    const ledger = new PaymentLedger(state);
    const base = {
      network: 'eip155:8453',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      pay_to: '0x00000000000000000000000000000000000000a1',
      payer: '0x00000000000000000000000000000000000000b2',
      amount: '10000',
      price_cents: 1,
      method: 'GET',
      resource: '/v1/podcasts?limit=2',
    };
    const first = await ledger.reserve({ ...base, protocol: 'x402', authorization_key: 'k1' });
    if (!('record' in first)) throw new Error('not reserved');
    settled = await ledger.settled(first.record.id, `0x${'ab'.repeat(32)}`);
    const second = await ledger.reserve({
      ...base,
      protocol: 'mpp',
      authorization_key: 'k2',
      challenge_id: 'c2',
    });
    if (!('record' in second)) throw new Error('not reserved');
    await ledger.released(second.record.id, 'answered 404');
    // The same authorization again while it is held, and the same challenge with another one: refused.
    expect(await ledger.reserve({ ...base, protocol: 'x402', authorization_key: 'k1' })).toEqual({
      refused: 'already_settled',
    });
    expect(
      await ledger.reserve({ ...base, protocol: 'mpp', authorization_key: 'k3', challenge_id: 'c2' }),
    ).toMatchObject({ refused: expect.any(String) });
    await state.close();
  });
  afterAll(() => tmp.remove());

  it('lists the ledger, newest first, each settled payment with the receipt it was answered with', {
    timeout: 240_000,
  }, async () => {
    const json = await earshot('payments', 'list', '--json');
    const rows = json.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { id: string; state: string; receipt: { header: string; value: string } | null },
      );
    expect(rows.map((r) => r.state)).toEqual(['released', 'settled']);
    expect(rows[1]).toMatchObject({ id: settled.id, tx_hash: settled.tx_hash });
    expect(rows[1]!.receipt).toEqual({
      header: 'payment-response',
      value: receiptHeaders(settled)['payment-response'],
    });
    expect(rows[0]!.receipt).toBeNull();
    const table = await earshot('payments', 'list', '--state', 'settled');
    expect(table.stdout).toContain(settled.id);
    expect(table.stdout).not.toContain('released');
  });
});
