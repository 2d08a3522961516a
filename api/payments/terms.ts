import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { base64url, challengeId, type EvmChargeRequest, type PaymentChallenge } from './mpp.ts';

/** The token payments are made in. */
export interface PaymentAsset {
  /** Contract address. */
  address: `0x${string}`;
  /** EIP-712 domain name and version of its `transferWithAuthorization`. */
  name: string;
  version: string;
  decimals: number;
}

/** What a payable request costs and where the money goes (configuration, passed in). */
export interface PaymentTermsSettings {
  /** The recipient. */
  payTo: `0x${string}`;
  /** CAIP-2, `eip155:<chain id>`. */
  network: `${string}:${string}`;
  asset: PaymentAsset;
  /** How long a signed authorization may take to arrive (x402 `maxTimeoutSeconds`). */
  maxTimeoutSeconds: number;
  /** How long a Payment challenge stays valid. */
  challengeTtlSeconds: number;
  /** The Payment scheme's protection space (the API's host). */
  realm: string;
  /** HMAC key binding Payment challenge ids. */
  challengeKey: Buffer;
}

/** What a request asks to be paid for. */
export interface PayableResource {
  /** HTTP method (`POST` for a tool call). */
  method: string;
  /** Path and query, or `tool:<name>` for an agent tool. */
  target: string;
  /** Absolute URL shown to the payer. */
  url: string;
  description: string;
  cents: number;
}

export const X402_VERSION = 2;
export const MPP_METHOD = 'evm';
export const MPP_INTENT = 'charge';

export function chainIdOf(network: string): number {
  const m = /^eip155:(\d+)$/.exec(network);
  if (!m) throw new Error(`not an EVM network: ${network}`);
  return Number(m[1]);
}

/** Whole cents to the asset's atomic units (1 cent of a 6-decimal dollar token is 10000). */
export function atomicAmount(cents: number, decimals: number): string {
  if (decimals < 2) throw new Error('the payment asset needs at least 2 decimals to price whole cents');
  return (BigInt(cents) * 10n ** BigInt(decimals - 2)).toString();
}

/** The x402 `exact` requirement for a price. */
export function requirementsFor(settings: PaymentTermsSettings, cents: number): PaymentRequirements {
  return {
    scheme: 'exact',
    network: settings.network,
    asset: settings.asset.address,
    amount: atomicAmount(cents, settings.asset.decimals),
    payTo: settings.payTo,
    maxTimeoutSeconds: settings.maxTimeoutSeconds,
    extra: { name: settings.asset.name, version: settings.asset.version },
  };
}

/** The body of `PAYMENT-REQUIRED`. */
export function paymentRequiredFor(
  settings: PaymentTermsSettings,
  resource: PayableResource,
  error?: string,
): PaymentRequired {
  return {
    x402Version: X402_VERSION,
    ...(error ? { error } : {}),
    resource: { url: resource.url, description: resource.description, mimeType: 'application/json' },
    accepts: [requirementsFor(settings, resource.cents)],
  };
}

export function chargeRequestFor(settings: PaymentTermsSettings, cents: number): EvmChargeRequest {
  return {
    amount: atomicAmount(cents, settings.asset.decimals),
    currency: settings.asset.address,
    recipient: settings.payTo,
    methodDetails: {
      chainId: chainIdOf(settings.network),
      credentialTypes: ['authorization'],
      decimals: settings.asset.decimals,
    },
  };
}

/** A fresh Payment challenge for a request, its `id` bound to the rest and to the request. */
export function challengeFor(
  settings: PaymentTermsSettings,
  resource: PayableResource,
  now = Date.now(),
): PaymentChallenge {
  const params = {
    realm: settings.realm,
    method: MPP_METHOD,
    intent: MPP_INTENT,
    request: base64url(chargeRequestFor(settings, resource.cents)),
    expires: new Date(now + settings.challengeTtlSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  return {
    id: challengeId(settings.challengeKey, params, { method: resource.method, url: resource.target }),
    ...params,
    description: resource.description,
  };
}

/** `x-payment-info` of an operation, and an entry of `/.well-known/x402`: the same numbers as a 402. */
export function paymentInfo(settings: PaymentTermsSettings | undefined, network: string, cents: number) {
  return {
    price: { amount: (cents / 100).toFixed(2), currency: 'USD', cents },
    protocols: ['x402', 'mpp'],
    network,
    ...(settings
      ? {
          scheme: 'exact',
          asset: settings.asset.address,
          amount: atomicAmount(cents, settings.asset.decimals),
          pay_to: settings.payTo,
          mpp: { method: MPP_METHOD, intent: MPP_INTENT },
        }
      : {}),
  };
}
