import type { PaymentRequirements } from '@x402/core/types';
import { isAddress } from 'viem';

/**
 * The checks a payment passes before it is verified by a facilitator: the EIP-3009 authorization
 * it carries, the terms the client says it accepted and the signed transfer, each against this
 * request's terms, and the facilitator's own refusals in this service's stable words.
 */

export interface Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

export function readAuthorization(raw: unknown): Authorization | { reason: string; detail: string } {
  const a = (raw ?? {}) as Record<string, unknown>;
  const integer = (v: unknown) => typeof v === 'string' && /^\d{1,78}$/.test(v);
  if (
    typeof a.from !== 'string' ||
    !isAddress(a.from) ||
    typeof a.to !== 'string' ||
    !isAddress(a.to) ||
    !integer(a.value) ||
    !integer(a.validAfter) ||
    !integer(a.validBefore) ||
    typeof a.nonce !== 'string' ||
    !/^0x[0-9a-fA-F]{64}$/.test(a.nonce)
  )
    return {
      reason: 'invalid_payload',
      detail:
        'The payment carries no well-formed EIP-3009 authorization (from, to, value, validAfter, validBefore, nonce).',
    };
  return a as unknown as Authorization;
}

/** The terms a client says it accepted, against this request's. */
export function compareTerms(
  accepted: Partial<PaymentRequirements>,
  ours: PaymentRequirements,
): { reason: string; detail: string } | undefined {
  if (accepted.scheme !== ours.scheme)
    return { reason: 'unsupported_scheme', detail: `This service takes the \`${ours.scheme}\` scheme.` };
  if (accepted.network !== ours.network)
    return {
      reason: 'network_mismatch',
      detail: `The payment is on ${String(accepted.network)}; this service is paid on ${ours.network}.`,
    };
  if (String(accepted.asset).toLowerCase() !== ours.asset.toLowerCase())
    return { reason: 'asset_mismatch', detail: `This service is paid in ${ours.asset}.` };
  if (accepted.amount !== ours.amount)
    return {
      reason: 'amount_mismatch',
      detail: `The payment is for ${String(accepted.amount)} atomic units; this request costs ${ours.amount}.`,
    };
  if (String(accepted.payTo).toLowerCase() !== ours.payTo.toLowerCase())
    return { reason: 'recipient_mismatch', detail: `Payments for this service go to ${ours.payTo}.` };
  return undefined;
}

/** The signed transfer itself, against this request's terms. */
export function compareAuthorization(
  a: Authorization,
  ours: PaymentRequirements,
): { reason: string; detail: string } | undefined {
  if (a.to.toLowerCase() !== ours.payTo.toLowerCase())
    return {
      reason: 'recipient_mismatch',
      detail: `The authorization pays ${a.to}; payments go to ${ours.payTo}.`,
    };
  if (BigInt(a.value) !== BigInt(ours.amount))
    return {
      reason: 'amount_mismatch',
      detail: `The authorization is for ${a.value} atomic units; this request costs exactly ${ours.amount}.`,
    };
  const now = Math.floor(Date.now() / 1000);
  if (BigInt(a.validBefore) <= BigInt(now))
    return {
      reason: 'authorization_expired',
      detail: `The authorization expired at ${a.validBefore} (Unix time).`,
    };
  if (BigInt(a.validAfter) > BigInt(now))
    return {
      reason: 'authorization_not_yet_valid',
      detail: `The authorization is valid only after ${a.validAfter}.`,
    };
  return undefined;
}

/** The facilitator's reasons, in this service's stable words where one applies. */
const FACILITATOR_REASONS: Record<string, { reason: string; detail: string }> = {
  invalid_exact_evm_signature: {
    reason: 'invalid_signature',
    detail: 'The signature does not verify for the payer.',
  },
  invalid_exact_evm_failed_to_parse_signature: {
    reason: 'invalid_signature',
    detail: 'The signature cannot be read.',
  },
  invalid_exact_evm_nonce_already_used: {
    reason: 'payment_already_used',
    detail: 'This authorization was already used.',
  },
  invalid_exact_evm_insufficient_balance: {
    reason: 'insufficient_funds',
    detail: 'The payer does not hold enough of the asset.',
  },
  invalid_exact_evm_recipient_mismatch: {
    reason: 'recipient_mismatch',
    detail: 'The authorization pays another recipient.',
  },
  invalid_exact_evm_authorization_value: {
    reason: 'amount_mismatch',
    detail: 'The authorization is not for exactly the price.',
  },
  invalid_exact_evm_payload_authorization_valid_before: {
    reason: 'authorization_expired',
    detail: 'The authorization expires too soon or has expired.',
  },
};

export function facilitatorRefusal(
  reason: string,
  message: string | undefined,
): { reason: string; detail: string } {
  return (
    FACILITATOR_REASONS[reason] ?? {
      reason,
      detail: `The payment did not verify (${reason})${message ? `: ${message}` : ''}.`,
    }
  );
}
