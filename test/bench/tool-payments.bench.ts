import os from 'node:os';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { buildAgentToolServer } from '../../api/agents/index.ts';
import { loadPriceTable } from '../../api/payments/prices.ts';
import { silentLogger } from '../../infra/logger.ts';
import { localFacilitator } from '../../infra/payments.ts';
import { projectedCorpus } from '../support/analytics.ts';
import { TEST_SETTINGS, testApi } from '../support/api.ts';
import { deployTestToken, startChain, TOKEN_DECIMALS, testTokenTerms } from '../support/chain.ts';
import { freePort } from '../support/free-port.ts';
import { x402Signature } from '../support/payer.ts';
import { type Bench, type BenchResult, percentile } from './bench.ts';

const CALLS = 100;
const TOOL = 'earshot_get_podcast';

/**
 * What paying adds to a tool call: `earshot_get_podcast` on the agent-tool server (listening on
 * 127.0.0.1, a small projected corpus) called with an API key, then paid per call with x402 in
 * `_meta["x402/payment"]`, verified and settled by the local facilitator against hardhat's
 * in-process network and recorded in the ledger. Payloads are signed before the clock starts;
 * calls are sequential `tools/call` POSTs over HTTP.
 */
export const toolPaymentsBench: Bench = {
  name: 'tool-payments',
  description: `added latency of a paid tool call (verify + settle on a local chain), ${CALLS} sequential calls`,
  async run(progress) {
    progress('starting the local chain, the token and a small projected corpus');
    const chain = await startChain();
    const fx = await projectedCorpus({
      podcasts: 1,
      episodesPerPodcast: 1,
      seed: 19,
      asOf: Date.UTC(2026, 9, 1),
    });
    try {
      const token = await deployTestToken(chain);
      const payer = chain.accounts[2]!;
      await token.mint(payer.address, 10n ** BigInt(TOKEN_DECIMALS) * 1_000n);
      const terms = testTokenTerms(chain, token, { maxTimeoutSeconds: 600, challengeTtlSeconds: 600 });
      const mcpPort = await freePort();
      const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
      const api = await testApi(
        { payments: { prices: loadPriceTable(), terms }, mcpUrl, rateLimitPerMinute: 10_000_000 },
        undefined,
        {
          state: fx.state,
          analytics: fx.analytics,
          facilitator: localFacilitator({
            rpcUrl: chain.rpcUrl,
            signerKey: chain.keys[1]!,
            network: chain.network,
          }),
        },
      );
      const mcp = await buildAgentToolServer(api.app, {
        logger: silentLogger(),
        state: api.state,
        accounts: api.accounts,
        publicUrl: TEST_SETTINGS.publicUrl,
        dashboardUrl: TEST_SETTINGS.dashboardUrl,
        docsUrl: TEST_SETTINGS.docsUrl,
      });
      await mcp.listen({ port: mcpPort, host: '127.0.0.1' });
      try {
        const list = await api.app.inject({
          method: 'GET',
          url: '/v1/podcasts?limit=1',
          headers: { 'x-api-key': api.keys.business! },
        });
        const podcastId = (list.json() as { data: { id: string }[] }).data[0]!.id;
        let id = 0;
        const call = async (headers: Record<string, string>, meta?: Record<string, unknown>) => {
          const res = await fetch(mcpUrl, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...headers,
            },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: ++id,
              method: 'tools/call',
              params: { name: TOOL, arguments: { podcast_id: podcastId }, ...(meta ? { _meta: meta } : {}) },
            }),
          });
          return (await res.json()) as {
            result: { isError?: boolean; structuredContent?: unknown; _meta?: Record<string, unknown> };
          };
        };
        const time = async (
          prepared: { headers: Record<string, string>; meta?: Record<string, unknown> }[],
          receipt?: string,
        ) => {
          const ms: number[] = [];
          for (const p of prepared) {
            const started = process.hrtime.bigint();
            const out = await call(p.headers, p.meta);
            ms.push(Number(process.hrtime.bigint() - started) / 1e6);
            if (out.result.isError || (receipt && !out.result._meta?.[receipt]))
              throw new Error(`tool call failed: ${JSON.stringify(out.result).slice(0, 500)}`);
          }
          return ms.sort((a, b) => a - b);
        };
        const keyed = Array.from({ length: CALLS }, () => ({
          headers: { authorization: `Bearer ${api.keys.business!}` },
        }));
        progress('warming up');
        await time(keyed);
        progress(`baseline: ${CALLS} tool calls with an API key`);
        const baseline = await time(keyed);

        progress(`signing ${CALLS} x402 payloads`);
        const offer = await call({});
        const required = encodePaymentRequiredHeader(offer.result.structuredContent as PaymentRequired);
        const paid: { headers: Record<string, string>; meta: Record<string, unknown> }[] = [];
        for (let i = 0; i < CALLS; i++) {
          const header = await x402Signature(required, payer);
          paid.push({
            headers: {},
            meta: { 'x402/payment': JSON.parse(Buffer.from(header, 'base64').toString('utf8')) },
          });
        }
        progress(`x402: ${CALLS} paid tool calls`);
        const x402 = await time(paid, 'x402/payment-response');

        const base50 = percentile(baseline, 50);
        const base99 = percentile(baseline, 99);
        const note = `${CALLS} sequential tools/call POSTs over HTTP on 127.0.0.1; local facilitator, hardhat in-process network (automine), PGlite ledger; API-key baseline p50 ${base50.toFixed(2)} ms, p99 ${base99.toFixed(2)} ms; load ${os.loadavg()[0]!.toFixed(1)}`;
        const results: BenchResult[] = [
          { bench: 'tool-payments', metric: 'api key tool call p50', value: base50, unit: 'ms' },
          { bench: 'tool-payments', metric: 'api key tool call p99', value: base99, unit: 'ms' },
          {
            bench: 'tool-payments',
            metric: 'x402 paid tool call p50',
            value: percentile(x402, 50),
            unit: 'ms',
          },
          {
            bench: 'tool-payments',
            metric: 'x402 paid tool call p99',
            value: percentile(x402, 99),
            unit: 'ms',
          },
          {
            bench: 'tool-payments',
            metric: 'x402 added latency p50',
            value: percentile(x402, 50) - base50,
            unit: 'ms',
            note,
          },
          {
            bench: 'tool-payments',
            metric: 'x402 added latency p99',
            value: percentile(x402, 99) - base99,
            unit: 'ms',
            note,
          },
        ];
        return results;
      } finally {
        await mcp.close();
        await api.close();
      }
    } finally {
      await fx.close();
      await chain.stop();
    }
  },
};
