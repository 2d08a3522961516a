import type { FastifyInstance } from 'fastify';
import { localFacilitator } from '../../infra/payments.ts';
import { testApi } from '../support/api.ts';
import {
  deployTestToken,
  startChain,
  TOKEN_DECIMALS,
  TOKEN_NAME,
  TOKEN_VERSION,
  testTokenTerms,
} from '../support/chain.ts';
import { mppAuthorization, x402Signature } from '../support/payer.ts';
import { type Bench, type BenchResult, percentile } from './bench.ts';

const REQUESTS = 200;
const URL = '/v1/bench/paid';

/**
 * What paying adds to a request: the same cheap route called with an API key, then paid per
 * request with x402 and with the Payment scheme, each payment verified (signature, terms,
 * on-chain simulation) and settled (a `transferWithAuthorization` mined) by the local
 * facilitator against hardhat's in-process network over JSON-RPC on 127.0.0.1, and recorded in
 * the ledger (PGlite). Authorizations are signed before the clock starts: the figure is the
 * server's, not the client's signing. Requests are sequential, through `inject` (no sockets).
 */
export const paymentsBench: Bench = {
  name: 'payments',
  description: `added latency of a paid request (verify + settle on a local chain), ${REQUESTS} sequential requests per protocol`,
  async run(progress) {
    progress('starting the local chain and deploying the test token');
    const chain = await startChain();
    try {
      const token = await deployTestToken(chain);
      const payer = chain.accounts[2]!;
      await token.mint(payer.address, 10n ** BigInt(TOKEN_DECIMALS) * 1_000n);
      const terms = testTokenTerms(chain, token, { maxTimeoutSeconds: 600, challengeTtlSeconds: 600 });
      const api = await testApi(
        {
          payments: { prices: { operations: { [`GET ${URL}`]: 1 }, tools: {} }, terms },
          rateLimitPerMinute: 10_000_000,
        },
        (a: FastifyInstance) => a.get(URL, async () => ({ ok: true })),
        {
          facilitator: localFacilitator({
            rpcUrl: chain.rpcUrl,
            signerKey: chain.keys[1]!,
            network: chain.network,
          }),
        },
      );
      try {
        const time = async (
          headers: () => Record<string, string>,
          expectHeader?: string,
        ): Promise<number[]> => {
          const ms: number[] = [];
          const prepared = Array.from({ length: REQUESTS }, headers);
          for (const h of prepared) {
            const started = process.hrtime.bigint();
            const res = await api.app.inject({ method: 'GET', url: URL, headers: h });
            ms.push(Number(process.hrtime.bigint() - started) / 1e6);
            if (res.statusCode !== 200 || (expectHeader && !res.headers[expectHeader]))
              throw new Error(`paid request answered ${res.statusCode}: ${res.body}`);
          }
          return ms.sort((a, b) => a - b);
        };
        const key = api.keys.business!;
        progress('warming up');
        await time(() => ({ 'x-api-key': key }));

        progress(`baseline: ${REQUESTS} requests with an API key`);
        const baseline = await time(() => ({ 'x-api-key': key }));

        progress(`signing ${REQUESTS} x402 authorizations`);
        const offer = await api.app.inject({ method: 'GET', url: URL });
        const signatures: string[] = [];
        for (let i = 0; i < REQUESTS; i++)
          signatures.push(await x402Signature(offer.headers['payment-required'] as string, payer));
        progress(`x402: ${REQUESTS} paid requests`);
        let n = 0;
        const x402 = await time(() => ({ 'payment-signature': signatures[n++]! }), 'payment-response');

        progress(`signing ${REQUESTS} Payment credentials`);
        const credentials: string[] = [];
        for (let i = 0; i < REQUESTS; i++) {
          const fresh = await api.app.inject({ method: 'GET', url: URL });
          credentials.push(
            await mppAuthorization(fresh.headers['www-authenticate'] as string, payer, {
              name: TOKEN_NAME,
              version: TOKEN_VERSION,
            }),
          );
        }
        progress(`Payment scheme: ${REQUESTS} paid requests`);
        let m = 0;
        const mpp = await time(() => ({ authorization: credentials[m++]! }), 'payment-receipt');

        const base50 = percentile(baseline, 50);
        const base99 = percentile(baseline, 99);
        const note = `${REQUESTS} sequential requests, inject; local facilitator, hardhat in-process network (automine) over JSON-RPC on 127.0.0.1, PGlite ledger; baseline p50 ${base50.toFixed(2)} ms, p99 ${base99.toFixed(2)} ms`;
        const results: BenchResult[] = [
          { bench: 'payments', metric: 'api key request p50', value: base50, unit: 'ms' },
          { bench: 'payments', metric: 'api key request p99', value: base99, unit: 'ms' },
        ];
        for (const [protocol, sorted] of [
          ['x402', x402],
          ['mpp', mpp],
        ] as const) {
          results.push(
            {
              bench: 'payments',
              metric: `${protocol} paid request p50`,
              value: percentile(sorted, 50),
              unit: 'ms',
            },
            {
              bench: 'payments',
              metric: `${protocol} paid request p99`,
              value: percentile(sorted, 99),
              unit: 'ms',
            },
            {
              bench: 'payments',
              metric: `${protocol} added latency p50`,
              value: percentile(sorted, 50) - base50,
              unit: 'ms',
              note,
            },
            {
              bench: 'payments',
              metric: `${protocol} added latency p99`,
              value: percentile(sorted, 99) - base99,
              unit: 'ms',
              note,
            },
          );
        }
        return results;
      } finally {
        await api.close();
      }
    } finally {
      await chain.stop();
    }
  },
};
