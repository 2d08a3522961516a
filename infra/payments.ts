import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient } from '@x402/core/http';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, defineChain, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { PaymentSettings } from '../api/app.ts';
import type { Facilitator } from '../api/payments/gate.ts';
import { loadPriceTable, PriceTableError } from '../api/payments/prices.ts';
import { chainIdOf } from '../api/payments/terms.ts';
import type { SecretBox } from '../processors/alerts/index.ts';
import { type Config, ConfigError, publicUrlOf } from './config.ts';

/**
 * Pay per request, from configuration: the price table (`EARSHOT_PRICES_FILE` or the defaults),
 * and, when `X402_PAY_TO` is set, the terms (network, asset, recipient) with the key that binds
 * Payment challenges (derived from the secrets key, so every API process verifies every other's).
 */
export function paymentSettings(config: Config, box: SecretBox): PaymentSettings {
  const { env } = config;
  let prices: PaymentSettings['prices'];
  try {
    prices = env.EARSHOT_PRICES_FILE ? loadPriceTable(env.EARSHOT_PRICES_FILE) : loadPriceTable();
  } catch (err) {
    if (err instanceof PriceTableError)
      throw new ConfigError([
        { variable: 'EARSHOT_PRICES_FILE', message: err.message, value: env.EARSHOT_PRICES_FILE },
      ]);
    throw err;
  }
  const network = env.X402_NETWORK as `${string}:${string}`;
  if (!env.X402_PAY_TO) return { prices, network };
  return {
    prices,
    network,
    terms: {
      payTo: env.X402_PAY_TO as `0x${string}`,
      network,
      asset: {
        address: env.X402_ASSET as `0x${string}`,
        name: env.X402_ASSET_NAME,
        version: env.X402_ASSET_VERSION,
        decimals: env.X402_ASSET_DECIMALS,
      },
      maxTimeoutSeconds: env.X402_MAX_TIMEOUT_SECONDS,
      challengeTtlSeconds: env.X402_CHALLENGE_TTL_SECONDS,
      realm: new URL(publicUrlOf(config)).host,
      challengeKey: box.subkey('earshot/payments/challenge'),
    },
  };
}

/**
 * What verifies and settles payments: the remote facilitator at `X402_FACILITATOR_URL`, else the
 * local one (the x402 reference `exact` EVM scheme over viem, submitting transfers from
 * `X402_SIGNER_KEY` through `X402_RPC_URL`), else none (terms offered, payments refused).
 */
export function createFacilitator(config: Config): Facilitator | undefined {
  const { env } = config;
  if (!env.X402_PAY_TO) return undefined;
  if (env.X402_FACILITATOR_URL) return new HTTPFacilitatorClient({ url: env.X402_FACILITATOR_URL });
  if (env.X402_RPC_URL && env.X402_SIGNER_KEY)
    return localFacilitator({
      rpcUrl: env.X402_RPC_URL,
      signerKey: env.X402_SIGNER_KEY as `0x${string}`,
      network: env.X402_NETWORK as `${string}:${string}`,
    });
  return undefined;
}

/** The local facilitator: verification and settlement against a JSON-RPC node with a signer. */
export function localFacilitator(options: {
  rpcUrl: string;
  signerKey: `0x${string}`;
  network: `${string}:${string}`;
  confirmationTimeoutMs?: number;
}): Facilitator {
  const account = privateKeyToAccount(options.signerKey);
  const id = chainIdOf(options.network);
  const chain = defineChain({
    id,
    name: options.network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const client = createWalletClient({ account, chain, transport: http(options.rpcUrl) }).extend(
    publicActions,
  );
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) => client.readContract(args as never),
      verifyTypedData: (args) => client.verifyTypedData(args as never),
      writeContract: (args) => client.writeContract(args as never),
      sendTransaction: (args) => client.sendTransaction(args),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
      getCode: (args) => client.getCode(args),
    },
    { confirmationTimeoutMs: options.confirmationTimeoutMs ?? 60_000 },
  );
  const facilitator = new x402Facilitator();
  registerExactEvmScheme(facilitator, { signer, networks: options.network });
  return facilitator;
}
