import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import Fastify, { type FastifyInstance } from 'fastify';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../infra/config.ts';
import { createFacilitator, localFacilitator } from '../../infra/payments.ts';
import { PaymentLedger } from '../../projections/state/payments.ts';
import { testApi } from '../support/api.ts';
import {
  deployTestToken,
  type LocalChain,
  startChain,
  type TestToken,
  TOKEN_DECIMALS,
  TOKEN_NAME,
  TOKEN_VERSION,
  testTokenTerms,
} from '../support/chain.ts';
import { x402Signature } from '../support/payer.ts';

const CENT = 10n ** BigInt(TOKEN_DECIMALS - 2);
const ROUTE = '/v1/test/remote-paid';

/**
 * The remote facilitator path (`X402_FACILITATOR_URL`) end to end: a facilitator service on
 * 127.0.0.1 built from the x402 reference facilitator (`x402Facilitator` with the `exact` EVM
 * scheme, `POST /verify`, `POST /settle`, `GET /supported` as the reference facilitator serves
 * them) over hardhat's in-process network, and the API configured with only its URL: the
 * facilitator `createFacilitator` makes from that configuration (the reference
 * `HTTPFacilitatorClient`) verifies and settles a paid request.
 */
describe('pay per request through a remote facilitator', () => {
  let chain: LocalChain;
  let token: TestToken;
  let facilitatorHost: FastifyInstance;
  let api: Awaited<ReturnType<typeof testApi>>;
  const calls: string[] = [];

  beforeAll(async () => {
    chain = await startChain();
    token = await deployTestToken(chain);
    await token.mint(chain.accounts[2]!.address, 100n * CENT);
    const reference = localFacilitator({
      rpcUrl: chain.rpcUrl,
      signerKey: chain.keys[1]!,
      network: chain.network,
    });
    facilitatorHost = Fastify();
    facilitatorHost.post('/verify', async (request) => {
      calls.push('verify');
      const body = request.body as {
        paymentPayload: PaymentPayload;
        paymentRequirements: PaymentRequirements;
      };
      return reference.verify(body.paymentPayload, body.paymentRequirements);
    });
    facilitatorHost.post('/settle', async (request) => {
      calls.push('settle');
      const body = request.body as {
        paymentPayload: PaymentPayload;
        paymentRequirements: PaymentRequirements;
      };
      return reference.settle(body.paymentPayload, body.paymentRequirements);
    });
    facilitatorHost.get('/supported', async () => ({
      kinds: [{ x402Version: 2, scheme: 'exact', network: chain.network }],
      extensions: [],
      signers: {},
    }));
    const facilitatorUrl = await facilitatorHost.listen({ port: 0, host: '127.0.0.1' });

    const config = loadConfig({
      X402_PAY_TO: chain.accounts[4]!.address,
      X402_NETWORK: chain.network,
      X402_ASSET: token.address,
      X402_ASSET_NAME: TOKEN_NAME,
      X402_ASSET_VERSION: TOKEN_VERSION,
      X402_ASSET_DECIMALS: String(TOKEN_DECIMALS),
      X402_FACILITATOR_URL: facilitatorUrl,
    });
    const facilitator = createFacilitator(config);
    expect(facilitator?.constructor.name).toBe('HTTPFacilitatorClient');
    const terms = testTokenTerms(chain, token);
    api = await testApi(
      { payments: { prices: { operations: { [`GET ${ROUTE}`]: 2 }, tools: {} }, terms } },
      (a) => a.get(ROUTE, async () => ({ ok: true })),
      { facilitator },
    );
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    await facilitatorHost?.close();
    await chain?.stop();
  });

  it('verifies and settles a paid request through the remote facilitator: 200, receipt, balance moved once; a replay refused', async () => {
    const payer = chain.accounts[2]!;
    const before = await token.balanceOf(payer.address);
    const offer = await api.app.inject({ method: 'GET', url: ROUTE });
    expect(offer.statusCode).toBe(402);
    const signature = await x402Signature(offer.headers['payment-required'] as string, payer);
    calls.length = 0;
    const res = await api.app.inject({
      method: 'GET',
      url: ROUTE,
      headers: { 'payment-signature': signature },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(calls).toEqual(['verify', 'settle']);
    const receipt = decodePaymentResponseHeader(res.headers['payment-response'] as string);
    expect(receipt).toMatchObject({ success: true, network: chain.network, payer: payer.address });
    const tx = await chain.client.getTransactionReceipt({ hash: receipt.transaction as `0x${string}` });
    expect(tx.status).toBe('success');
    expect(await token.balanceOf(payer.address)).toBe(before - 2n * CENT);
    const [record] = await new PaymentLedger(api.state).list({ limit: 1 });
    expect(record).toMatchObject({ state: 'settled', tx_hash: receipt.transaction });

    const replay = await api.app.inject({
      method: 'GET',
      url: ROUTE,
      headers: { 'payment-signature': signature },
    });
    expect(replay.statusCode).toBe(402);
    expect(replay.json()).toMatchObject({ reason: 'payment_already_used' });
    expect(await token.balanceOf(payer.address)).toBe(before - 2n * CENT);
  });

  it("passes the remote facilitator's refusal on: a payer without funds is refused with the reason it gives, nothing settled", async () => {
    // A key that never held the token.
    const broke = privateKeyToAccount(generatePrivateKey());
    const offer = await api.app.inject({ method: 'GET', url: ROUTE });
    const signature = await x402Signature(offer.headers['payment-required'] as string, broke);
    calls.length = 0;
    const res = await api.app.inject({
      method: 'GET',
      url: ROUTE,
      headers: { 'payment-signature': signature },
    });
    expect(res.statusCode, res.body).toBe(402);
    // The reference scheme's own reason for an unfunded transfer (its simulation fails), as it
    // gives it over HTTP: not a transport failure (`verification_unavailable`).
    expect(res.json()).toMatchObject({
      error_code: 'payment_invalid',
      reason: 'invalid_exact_evm_transaction_simulation_failed',
    });
    expect(calls).toEqual(['verify']);
  });
});
