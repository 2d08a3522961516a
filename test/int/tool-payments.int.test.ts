import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentRequiredHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentToolServer, TOOLS } from '../../api/agents/index.ts';
import type { PaymentSettings } from '../../api/app.ts';
import { decodeRequest, parseChallenge, parseCredential } from '../../api/payments/mpp.ts';
import { checkToolPrices, loadPriceTable, operationKey, PriceTableError } from '../../api/payments/prices.ts';
import { atomicAmount } from '../../api/payments/terms.ts';
import { silentLogger } from '../../infra/logger.ts';
import { localFacilitator } from '../../infra/payments.ts';
import { PaymentLedger } from '../../projections/state/payments.ts';
import { projectedCorpus } from '../support/analytics.ts';
import { TEST_SETTINGS, testApi } from '../support/api.ts';
import {
  CHAIN_ID,
  deployTestToken,
  type LocalChain,
  startChain,
  type TestToken,
  TOKEN_DECIMALS,
  TOKEN_NAME,
  TOKEN_VERSION,
  testTokenTerms,
} from '../support/chain.ts';
import { freePort } from '../support/free-port.ts';
import { mppAuthorization, signAuthorization, x402Signature } from '../support/payer.ts';

const CENT = 10n ** BigInt(TOKEN_DECIMALS - 2);
const AS_OF = Date.UTC(2026, 9, 1);

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/**
 * Pay per tool call on the agent-tool server, end to end on a local EVM (hardhat's in-process
 * network) with an EIP-3009 token this test deploys: `initialize` and `tools/list` free without a
 * credential; an unpaid `tools/call` answered with the terms (tool error per the x402 MCP
 * transport, and the HTTP headers); a paid one (x402 in `_meta["x402/payment"]`, the Payment
 * scheme in `_meta["org.paymentauth/credential"]`, or the HTTP headers) served once and settled
 * once; a failing tool never charged. Real routes over a projected corpus, the local facilitator.
 */
describe('pay per tool call', () => {
  let chain: LocalChain;
  let token: TestToken;
  let fx: Awaited<ReturnType<typeof projectedCorpus>>;
  let api: Awaited<ReturnType<typeof testApi>>;
  let mcp: FastifyInstance;
  let mcpUrl: string;
  let podcastId: string;
  let rpcId = 0;
  const payer = () => chain.accounts[2]!;
  const payTo = () => chain.accounts[4]!.address;

  beforeAll(async () => {
    chain = await startChain();
    token = await deployTestToken(chain);
    await token.mint(payer().address, 100n * CENT * 100n);
    const terms = testTokenTerms(chain, token);
    const payments: PaymentSettings = { prices: loadPriceTable(), terms };
    fx = await projectedCorpus({ podcasts: 3, episodesPerPodcast: 2, seed: 19, asOf: AS_OF });
    const mcpPort = await freePort();
    mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    api = await testApi({ payments, mcpUrl, rateLimitPerMinute: 100_000 }, undefined, {
      state: fx.state,
      analytics: fx.analytics,
      facilitator: localFacilitator({
        rpcUrl: chain.rpcUrl,
        signerKey: chain.keys[1]!,
        network: chain.network,
      }),
    });
    mcp = await buildAgentToolServer(api.app, {
      logger: silentLogger(),
      state: api.state,
      accounts: api.accounts,
      publicUrl: TEST_SETTINGS.publicUrl,
      dashboardUrl: TEST_SETTINGS.dashboardUrl,
      docsUrl: TEST_SETTINGS.docsUrl,
    });
    await mcp.listen({ port: mcpPort, host: '127.0.0.1' });
    const list = await api.app.inject({
      method: 'GET',
      url: '/v1/podcasts?limit=1',
      headers: { 'x-api-key': api.keys.business! },
    });
    podcastId = (list.json() as { data: { id: string }[] }).data[0]!.id;
  }, 180_000);

  afterAll(async () => {
    await mcp?.close();
    await api?.close();
    await fx?.close();
    await chain?.stop();
  });

  async function rpc(
    method: string,
    params: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    // Every tool category served, the opt-in ones too.
    const res = await fetch(`${mcpUrl}?include=all`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    });
    const text = await res.text();
    let body: { result?: unknown; error?: { code: number; message: string } } = {};
    try {
      body = JSON.parse(text);
    } catch {
      // a problem document or nothing
    }
    return { status: res.status, headers: res.headers, text, body };
  }

  async function call(
    name: string,
    args: Record<string, unknown>,
    meta?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    const res = await rpc('tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) }, headers);
    expect(res.status, res.text).toBe(200);
    return { ...res, result: res.body.result as ToolResult };
  }

  /** The x402 terms of an unpaid call, from the tool error. */
  async function offer(name: string, args: Record<string, unknown>) {
    const unpaid = await call(name, args);
    expect(unpaid.result.isError).toBe(true);
    return unpaid;
  }

  /** An x402 payload for the terms in a tool error, signed by the reference client. */
  async function x402Payload(required: PaymentRequired, account = payer()): Promise<PaymentPayload> {
    const header = await x402Signature(encodePaymentRequiredHeader(required), account);
    return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PaymentPayload;
  }

  async function balances() {
    return { payer: await token.balanceOf(payer().address), payTo: await token.balanceOf(payTo()) };
  }

  const latest = async () => (await new PaymentLedger(fx.state).list({ limit: 1 }))[0];

  it('serves initialize and tools/list without a credential', async () => {
    const init = await rpc('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    });
    expect(init.status, init.text).toBe(200);
    expect(init.body.result).toMatchObject({ serverInfo: { name: 'earshot' } });
    const list = await rpc('tools/list');
    expect(list.status, list.text).toBe(200);
    const names = (list.body.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toContain('earshot_get_podcast');
    // Nothing was reserved or charged for either.
    expect(await new PaymentLedger(fx.state).list({ limit: 1 })).toHaveLength(0);
  });

  it('answers an unpaid call of a payable tool with the terms: x402 PaymentRequired in the tool error, the Payment challenge, and both in the HTTP headers', async () => {
    const res = await offer('earshot_get_podcast', { podcast_id: podcastId });
    const required = res.result.structuredContent as unknown as PaymentRequired;
    expect(required).toMatchObject({
      x402Version: 2,
      error: 'payment_required',
      resource: { url: 'mcp://tool/earshot_get_podcast' },
      accepts: [
        {
          scheme: 'exact',
          network: chain.network,
          asset: token.address,
          amount: CENT.toString(),
          payTo: payTo(),
          extra: { name: TOKEN_NAME, version: TOKEN_VERSION },
        },
      ],
    });
    // content[0].text: the x402/error wrapper of the same terms.
    const wrapped = JSON.parse(res.result.content[0]!.text) as {
      'x402/error': { code: number; data: unknown };
    };
    expect(wrapped['x402/error'].code).toBe(402);
    expect(wrapped['x402/error'].data).toEqual(required);
    // The HTTP response carries the same terms.
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!)).toEqual(required);
    const www = res.headers.get('www-authenticate')!;
    expect(www).toMatch(/^Payment id="/);
    expect(www).toMatch(/Bearer realm="mcp", resource_metadata="/);
    const challenge = parseChallenge(www)!;
    expect(challenge).toMatchObject({ method: 'evm', intent: 'charge', realm: '127.0.0.1:8080' });
    // …and the challenge in `_meta`, as JSON (request decoded): the one the header carries.
    const meta = res.result._meta!['org.paymentauth/payment-required'] as {
      httpStatus: number;
      challenges: Record<string, unknown>[];
    };
    expect(meta.httpStatus).toBe(402);
    expect(meta.challenges[0]).toEqual({ ...challenge, request: decodeRequest(challenge.request) });
  });

  it('serves a call paid with x402 in _meta once: the result, the receipt in _meta and PAYMENT-RESPONSE, the balance moved once, the ledger settled', async () => {
    const before = await balances();
    const args = { podcast_id: podcastId };
    const unpaid = await offer('earshot_get_podcast', args);
    const payload = await x402Payload(unpaid.result.structuredContent as unknown as PaymentRequired);
    const paid = await call('earshot_get_podcast', args, { 'x402/payment': payload });
    expect(paid.result.isError, paid.text).toBeFalsy();
    expect(paid.result.structuredContent).toMatchObject({ id: podcastId });
    const receipt = paid.result._meta!['x402/payment-response'] as { success: boolean; transaction: string };
    expect(receipt).toMatchObject({ success: true, network: chain.network, payer: payer().address });
    expect(decodePaymentResponseHeader(paid.headers.get('payment-response')!)).toEqual(receipt);
    const tx = await chain.client.getTransactionReceipt({ hash: receipt.transaction as `0x${string}` });
    expect(tx.status).toBe('success');
    const after = await balances();
    expect(after.payer).toBe(before.payer - CENT);
    expect(after.payTo).toBe(before.payTo + CENT);
    expect(await latest()).toMatchObject({
      protocol: 'x402',
      state: 'settled',
      tx_hash: receipt.transaction,
      price_cents: 1,
      method: 'POST',
      resource: 'tool:earshot_get_podcast',
    });

    // The same payment again: refused with fresh terms, nothing moves, the tool does not run.
    const replay = await call('earshot_get_podcast', args, { 'x402/payment': payload });
    expect(replay.result.isError).toBe(true);
    expect(replay.result.structuredContent).toMatchObject({ error: 'payment_already_used' });
    expect(replay.result.content[0]!.text).toContain('payment_already_used');
    expect(replay.headers.get('payment-response')).toBeNull();
    expect(await balances()).toEqual(after);
  });

  it('does not charge a call whose tool fails: released, the authorization unused and still good for a call that succeeds', async () => {
    const before = await balances();
    const unpaid = await offer('earshot_get_podcast', { podcast_id: 'pod_does_not_exist' });
    const payload = await x402Payload(unpaid.result.structuredContent as unknown as PaymentRequired);
    const nonce = (payload.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce;
    const failed = await call(
      'earshot_get_podcast',
      { podcast_id: 'pod_does_not_exist' },
      { 'x402/payment': payload },
    );
    expect(failed.result.isError).toBe(true);
    expect(failed.result.content[0]!.text).toMatch(/^404 not_found/);
    expect(failed.result._meta?.['x402/payment-response']).toBeUndefined();
    expect(failed.headers.get('payment-response')).toBeNull();
    expect(await balances()).toEqual(before);
    expect(await token.authorizationUsed(payer().address, nonce)).toBe(false);
    expect(await latest()).toMatchObject({ state: 'released', failure: 'tool error', tx_hash: null });
    // Not consumed: the same authorization pays for a call of the same price that succeeds.
    const ok = await call('earshot_get_podcast', { podcast_id: podcastId }, { 'x402/payment': payload });
    expect(ok.result.isError, ok.text).toBeFalsy();
    expect(await token.authorizationUsed(payer().address, nonce)).toBe(true);
    expect((await balances()).payer).toBe(before.payer - CENT);
  });

  it('refuses a payment for the wrong amount, naming the reason, and charges nothing', async () => {
    const before = await balances();
    // earshot_bias_leaderboard costs 5 cents; a 1-cent payment does not pay for it.
    const cheap = await offer('earshot_get_podcast', { podcast_id: podcastId });
    const payload = await x402Payload(cheap.result.structuredContent as unknown as PaymentRequired);
    const res = await call('earshot_bias_leaderboard', {}, { 'x402/payment': payload });
    expect(res.result.isError).toBe(true);
    expect(res.result.structuredContent).toMatchObject({
      error: 'amount_mismatch',
      accepts: [{ amount: (5n * CENT).toString() }],
    });
    expect(res.result.content[0]!.text).toContain('amount_mismatch');
    // A signed transfer of less than the price, claiming the right terms.
    const required = (await offer('earshot_get_podcast', { podcast_id: podcastId })).result
      .structuredContent as unknown as PaymentRequired;
    const signed = await signAuthorization(
      payer(),
      { address: token.address, name: TOKEN_NAME, version: TOKEN_VERSION, chainId: CHAIN_ID },
      { to: payTo(), value: '1' },
    );
    const short = await call(
      'earshot_get_podcast',
      { podcast_id: podcastId },
      {
        'x402/payment': {
          x402Version: 2,
          accepted: required.accepts[0],
          payload: { authorization: signed.authorization, signature: signed.signature },
        },
      },
    );
    expect(short.result.structuredContent).toMatchObject({ error: 'amount_mismatch' });
    expect(await balances()).toEqual(before);
  });

  it('serves concurrent calls with the same payment exactly once', async () => {
    const before = await balances();
    const args = { podcast_id: podcastId };
    const payload = await x402Payload(
      (await offer('earshot_get_podcast', args)).result.structuredContent as unknown as PaymentRequired,
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, () => call('earshot_get_podcast', args, { 'x402/payment': payload })),
    );
    const served = results.filter((r) => !r.result.isError);
    expect(served).toHaveLength(1);
    for (const r of results.filter((x) => x.result.isError))
      expect(String((r.result.structuredContent as { error?: string }).error)).toMatch(
        /^payment_(in_use|already_used)$/,
      );
    expect((await balances()).payer).toBe(before.payer - CENT);
  });

  it('takes the Payment scheme: a credential in _meta (request as JSON) is served once with an org.paymentauth/receipt; a reused one is refused', async () => {
    const before = await balances();
    const args = { podcast_id: podcastId };
    const unpaid = await offer('earshot_get_podcast', args);
    const www = unpaid.headers.get('www-authenticate')!.split(/, Bearer /)[0]!;
    const header = await mppAuthorization(www, payer(), { name: TOKEN_NAME, version: TOKEN_VERSION });
    const credential = parseCredential(header);
    if ('malformed' in credential) throw new Error(credential.malformed);
    // The MCP transport's native form: the challenge's request as JSON, not base64url.
    const native = {
      ...credential,
      challenge: { ...credential.challenge, request: decodeRequest(credential.challenge.request) },
    };
    const paid = await call('earshot_get_podcast', args, { 'org.paymentauth/credential': native });
    expect(paid.result.isError, paid.text).toBeFalsy();
    const receipt = paid.result._meta!['org.paymentauth/receipt'] as Record<string, unknown>;
    expect(receipt).toMatchObject({
      status: 'success',
      method: 'evm',
      intent: 'charge',
      challengeId: credential.challenge.id,
      payer: payer().address,
      amount: CENT.toString(),
    });
    expect(decodeRequest(paid.headers.get('payment-receipt')!)).toEqual(receipt);
    expect(await latest()).toMatchObject({
      protocol: 'mpp',
      state: 'settled',
      challenge_id: credential.challenge.id,
    });
    expect((await balances()).payer).toBe(before.payer - CENT);

    const reused = await call('earshot_get_podcast', args, { 'org.paymentauth/credential': native });
    expect(reused.result.isError).toBe(true);
    expect(reused.result.structuredContent).toMatchObject({ error: 'payment_already_used' });
    // A challenge issued for another tool does not pay for this one.
    const other = await offer('earshot_list_publishers', {});
    const forOther = await mppAuthorization(
      other.headers.get('www-authenticate')!.split(/, Bearer /)[0]!,
      payer(),
      { name: TOKEN_NAME, version: TOKEN_VERSION },
    );
    const wrongTool = await call('earshot_get_podcast', args, {}, { authorization: forOther });
    expect(wrongTool.result.structuredContent).toMatchObject({ error: 'challenge_invalid' });
    expect((await balances()).payer).toBe(before.payer - CENT);
  });

  it('takes the HTTP headers too (PAYMENT-SIGNATURE), and refuses both protocols at once', async () => {
    const before = await balances();
    const args = { podcast_id: podcastId };
    const unpaid = await offer('earshot_get_podcast', args);
    const signature = await x402Signature(unpaid.headers.get('payment-required')!, payer());
    const www = unpaid.headers.get('www-authenticate')!.split(/, Bearer /)[0]!;
    const credential = await mppAuthorization(www, payer(), { name: TOKEN_NAME, version: TOKEN_VERSION });
    const both = await call(
      'earshot_get_podcast',
      args,
      {},
      { 'payment-signature': signature, authorization: credential },
    );
    expect(both.result.isError).toBe(true);
    expect(both.result.content[0]!.text).toMatch(/^400 payment_protocol_conflict/);
    const paid = await call('earshot_get_podcast', args, {}, { 'payment-signature': signature });
    expect(paid.result.isError, paid.text).toBeFalsy();
    expect(paid.headers.get('payment-response')).not.toBeNull();
    expect((await balances()).payer).toBe(before.payer - CENT);
  });

  it('takes the account path for any presented credential: a key is served unpaid, an invalid one is 401', async () => {
    const before = await balances();
    const withKey = await call('earshot_get_podcast', { podcast_id: podcastId }, undefined, {
      authorization: `Bearer ${api.keys.business!}`,
    });
    expect(withKey.result.isError, withKey.text).toBeFalsy();
    expect(withKey.headers.get('payment-response')).toBeNull();
    const bad = await rpc(
      'tools/call',
      { name: 'earshot_get_podcast', arguments: { podcast_id: podcastId } },
      {
        'x-api-key': 'esk_not_a_key',
      },
    );
    expect(bad.status).toBe(401);
    expect(await balances()).toEqual(before);
  });

  it('answers a call of a tool that cannot be paid per call (alerts) without a credential with "needs an account"', async () => {
    const before = await balances();
    const res = await call('earshot_list_alerts', {});
    expect(res.result.isError).toBe(true);
    expect(res.result.structuredContent).toBeUndefined();
    expect(res.headers.get('payment-required')).toBeNull();
    expect(res.result.content[0]!.text).toMatch(
      /^401 authentication_required: earshot_list_alerts needs an account/,
    );
    expect(await balances()).toEqual(before);
  });

  it('lists every priced tool in /.well-known/x402 on both hosts, with the terms a call is offered', async () => {
    const prices = loadPriceTable();
    const onTools = (await (await fetch(new URL('/.well-known/x402', mcpUrl))).json()) as {
      tools: {
        tool: string;
        price: { cents: number };
        amount: string;
        accepts: unknown[];
        network: string;
      }[];
      payments: string;
    };
    const onApi = (await api.app.inject({ method: 'GET', url: '/.well-known/x402' })).json();
    expect(onTools).toEqual(onApi);
    expect(onTools.payments).toBe('on');
    expect(onTools.tools.map((t) => t.tool).sort()).toEqual(Object.keys(prices.tools).sort());
    const served = new Set(
      ((await rpc('tools/list', {}, {})).body.result as { tools: { name: string }[] }).tools.map(
        (t) => t.name,
      ),
    );
    const all = await fetch(`${mcpUrl}?include=all`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    for (const t of ((await all.json()) as { result: { tools: { name: string }[] } }).result.tools)
      served.add(t.name);
    for (const entry of onTools.tools) {
      const cents = prices.tools[entry.tool]!;
      expect(entry.price.cents, entry.tool).toBe(cents);
      expect(entry.amount, entry.tool).toBe(atomicAmount(cents, TOKEN_DECIMALS));
      expect(entry.network).toBe(chain.network);
      // The terms an unpaid call of the tool is offered are the listed ones.
      if (!served.has(entry.tool)) continue;
      const declaration = TOOLS.find((d) => d.name === entry.tool)!;
      const res = await fetch(`${mcpUrl}?tools=${entry.tool}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: entry.tool, arguments: {} },
        }),
      });
      const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!) as PaymentRequired;
      expect(
        required.accepts,
        `${entry.tool} (${operationKey(declaration.operation.method, declaration.operation.path)})`,
      ).toEqual(entry.accepts);
    }
  });

  it('refuses a price table that prices an unknown tool or an alert tool', () => {
    const tools = TOOLS.map((d) => ({ name: d.name, method: d.operation.method, path: d.operation.path }));
    expect(() => checkToolPrices({ operations: {}, tools: { earshot_nope: 1 } }, tools)).toThrow(
      PriceTableError,
    );
    expect(() => checkToolPrices({ operations: {}, tools: { earshot_list_alerts: 1 } }, tools)).toThrow(
      /cannot be paid per call/,
    );
    expect(() => checkToolPrices(loadPriceTable(), tools)).not.toThrow();
  });
});
