import { Type } from '@sinclair/typebox';
import { OptionalUrl } from './config-fields.ts';

/** Pay per request (x402): prices, where payments go, the token and the facilitator. Part of `EnvSchema`. */
export const paymentSettings = {
  EARSHOT_PRICES_FILE: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'JSON price table (`{"operations": {"GET /v1/…": cents}, "tools": {"name": cents}}`, whole cents from 1) that replaces the defaults: what each operation and agent tool costs per request ([Payments](payments.md#prices))',
      unset: 'the defaults, `api/payments/prices.json`',
    }),
  ),
  X402_PAY_TO: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description:
        'the address payments go to; setting it turns pay per request on: billable endpoints answer 402 with terms instead of 401 ([Payments](payments.md))',
      unset: 'payments off: billable endpoints need an API key',
    }),
  ),
  X402_NETWORK: Type.String({
    default: 'eip155:8453',
    pattern: '^eip155:[0-9]{1,12}$',
    description: 'CAIP-2 network payments are made on (`eip155:8453` is Base)',
  }),
  X402_ASSET: Type.String({
    default: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'the EIP-3009 token paid in (default USDC on Base)',
  }),
  X402_ASSET_NAME: Type.String({
    default: 'USD Coin',
    minLength: 1,
    description: "the token's EIP-712 domain name (USDC on Base: `USD Coin`)",
  }),
  X402_ASSET_VERSION: Type.String({
    default: '2',
    minLength: 1,
    description: "the token's EIP-712 domain version",
  }),
  X402_ASSET_DECIMALS: Type.Integer({
    default: 6,
    minimum: 2,
    maximum: 36,
    description: "the token's decimals (prices are whole cents of a dollar token)",
  }),
  X402_MAX_TIMEOUT_SECONDS: Type.Integer({
    default: 120,
    minimum: 10,
    maximum: 3600,
    description: 'how long a payment may take to arrive after the 402 (x402 `maxTimeoutSeconds`)',
  }),
  X402_CHALLENGE_TTL_SECONDS: Type.Integer({
    default: 300,
    minimum: 10,
    maximum: 86_400,
    description: 'how long a `WWW-Authenticate: Payment` challenge stays valid (`expires`)',
  }),
  X402_FACILITATOR_URL: OptionalUrl(
    'a remote x402 facilitator that verifies and settles payments (`POST …/verify`, `…/settle`)',
    'the local facilitator when `X402_RPC_URL` and `X402_SIGNER_KEY` are set; else payments are refused (503) while terms are still offered',
  ),
  X402_RPC_URL: OptionalUrl(
    'JSON-RPC endpoint of the payment network, for the local facilitator (with `X402_SIGNER_KEY`)',
    'no local facilitator',
  ),
  X402_SIGNER_KEY: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{64}$',
      description:
        'private key of the account the local facilitator submits transfers from (it pays the gas); never logged',
      unset: 'no local facilitator',
    }),
  ),
};
