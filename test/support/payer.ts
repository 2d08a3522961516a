import crypto from 'node:crypto';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes, toClientEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { encodePacked, type Hex, keccak256, type PrivateKeyAccount } from 'viem';
import {
  decodeRequest,
  type EvmChargeRequest,
  formatCredential,
  parseChallenge,
} from '../../api/payments/mpp.ts';

/**
 * A paying client, as an agent would be: it reads the 402's terms and signs an EIP-3009
 * authorization with the x402 reference client (`exact` scheme), or answers the Payment
 * challenge with an `evm` `charge` credential. The hand-made variants (`signAuthorization`) let
 * tests present wrong amounts, recipients, networks and expired windows.
 */
export async function x402Signature(
  paymentRequiredHeader: string,
  account: PrivateKeyAccount,
  tamper?: (requirements: PaymentRequirements) => PaymentRequirements,
): Promise<string> {
  const required = decodePaymentRequiredHeader(paymentRequiredHeader) as PaymentRequired;
  const terms = tamper ? { ...required, accepts: required.accepts.map(tamper) } : required;
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: toClientEvmSigner(account) });
  // The test token is no default asset: the client is told to pay in it, with its default cap.
  client.setSpendControls({
    allowedAssets: terms.accepts.map((r) => ({ network: r.network, asset: r.asset })),
  });
  const payload = await client.createPaymentPayload(terms);
  return encodePaymentSignatureHeader(payload);
}

export interface Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

/** Signs an EIP-3009 `TransferWithAuthorization` for a token (its EIP-712 domain). */
export async function signAuthorization(
  account: PrivateKeyAccount,
  token: { address: `0x${string}`; name: string; version: string; chainId: number },
  fields: Partial<Authorization> & { to: `0x${string}`; value: string },
): Promise<{ authorization: Authorization; signature: Hex }> {
  const now = Math.floor(Date.now() / 1000);
  const authorization: Authorization = {
    from: account.address,
    validAfter: String(now - 600),
    validBefore: String(now + 300),
    nonce: `0x${crypto.randomBytes(32).toString('hex')}`,
    ...fields,
  };
  const signature = await account.signTypedData({
    domain: {
      name: token.name,
      version: token.version,
      chainId: token.chainId,
      verifyingContract: token.address,
    },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: authorization.from,
      to: authorization.to,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  });
  return { authorization, signature };
}

/** A `PAYMENT-SIGNATURE` carrying a hand-made authorization against (possibly altered) terms. */
export function x402Header(
  accepted: PaymentRequirements,
  signed: { authorization: Authorization; signature: Hex },
): string {
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted,
    payload: { authorization: signed.authorization, signature: signed.signature },
  };
  return encodePaymentSignatureHeader(payload);
}

/** The first requirement of a `PAYMENT-REQUIRED` header. */
export function requirementsOf(paymentRequiredHeader: string): PaymentRequirements {
  return (decodePaymentRequiredHeader(paymentRequiredHeader) as PaymentRequired).accepts[0]!;
}

/**
 * Answers a `WWW-Authenticate: Payment` challenge (method `evm`, intent `charge`) with an
 * EIP-3009 authorization whose nonce binds it to the challenge, as draft-evm-charge asks.
 */
export async function mppAuthorization(
  wwwAuthenticate: string,
  account: PrivateKeyAccount,
  token: { name: string; version: string },
  alter?: { challenge?: (c: ReturnType<typeof parseChallenge> & object) => object },
): Promise<string> {
  const challenge = parseChallenge(wwwAuthenticate);
  if (!challenge) throw new Error(`not a Payment challenge: ${wwwAuthenticate}`);
  const request = decodeRequest(challenge.request) as EvmChargeRequest;
  const signed = await signAuthorization(
    account,
    { address: request.currency as `0x${string}`, chainId: request.methodDetails.chainId, ...token },
    {
      to: request.recipient as `0x${string}`,
      value: request.amount,
      validBefore: String(Math.floor(Date.parse(challenge.expires) / 1000)),
      nonce: keccak256(encodePacked(['string', 'string'], [challenge.id, challenge.realm])),
    },
  );
  const echoed = alter?.challenge ? alter.challenge(challenge) : challenge;
  return formatCredential({
    challenge: echoed as typeof challenge,
    payload: { type: 'authorization', ...signed.authorization, signature: signed.signature },
    source: `did:pkh:eip155:${request.methodDetails.chainId}:${account.address}`,
  });
}
