import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { encodePacked, getAddress, keccak256 } from 'viem';
import type { PaymentLedger, PaymentRecord } from '../../projections/state/payments.ts';
import {
  base64url,
  decodeRequest,
  type EvmAuthorizationPayload,
  formatChallenge,
  type PaymentChallenge,
  parseCredential,
  verifyChallengeId,
} from './mpp.ts';
import {
  type Authorization,
  compareAuthorization,
  compareTerms,
  facilitatorRefusal,
  readAuthorization,
} from './payment-checks.ts';
import {
  challengeFor,
  chargeRequestFor,
  MPP_INTENT,
  MPP_METHOD,
  type PayableResource,
  type PaymentTermsSettings,
  paymentRequiredFor,
  requirementsFor,
  X402_VERSION,
} from './terms.ts';

/** Verifies and settles x402 payments: a remote facilitator or the local one (viem + a signer). */
export interface Facilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
}

/** The headers a 402 carries: x402 terms and a fresh Payment challenge. */
export interface PaymentTerms {
  headers: Record<string, string>;
  challenge: PaymentChallenge;
  requirements: PaymentRequirements;
}

/** A payment verified and reserved in the ledger; settle it after a success, release it otherwise. */
export interface AcceptedPayment {
  protocol: 'x402' | 'mpp';
  record: PaymentRecord;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  challenge?: PaymentChallenge;
}

/** Why a payment was refused; `status` and `code` are those of the problem to answer with. */
export interface RefusedPayment {
  refused: true;
  status: number;
  code: 'payment_invalid' | 'payment_protocol_conflict' | 'payments_unavailable';
  reason: string;
  detail: string;
  /** The request part at fault (`header.payment-signature`, `header.authorization`). */
  location: string;
  /** Fresh terms (absent for a protocol conflict). */
  headers: Record<string, string>;
}

/** The payment parts of a request: header values as they arrived. */
export interface PresentedPayment {
  /** `PAYMENT-SIGNATURE` (x402). */
  signature?: string;
  /** `Authorization` when its scheme is `Payment`. */
  authorization?: string;
}

export type Acceptance = { none: true } | RefusedPayment | AcceptedPayment;

export type Settlement =
  | { settled: true; headers: Record<string, string>; record: PaymentRecord }
  | { settled: false; reason: string; detail: string; headers: Record<string, string> };

export const PAYMENT_SIGNATURE_HEADER = 'payment-signature';

/** `Authorization: Payment …` is a payment credential, never an account one. */
export function isPaymentAuthorization(value: string | undefined): boolean {
  return typeof value === 'string' && /^Payment(\s|$)/i.test(value.trim());
}

/**
 * The payment gate, independent of any HTTP framework: the REST plugin and an agent-tool wrapper
 * use it the same way. `terms` gives the 402's headers for a price; `accept` verifies a presented
 * payment (x402 or the Payment scheme) against those terms and reserves it in the ledger;
 * `settle` executes the transfer once the request succeeded; `release` records that it did not
 * (nothing is charged and the authorization is not consumed).
 */
export class PaymentGate {
  constructor(
    private readonly settings: PaymentTermsSettings,
    private readonly ledger: PaymentLedger,
    /** Absent: terms are offered, payments refused (`payments_unavailable`). */
    private readonly facilitator: Facilitator | undefined,
  ) {}

  get network(): string {
    return this.settings.network;
  }

  get termsSettings(): PaymentTermsSettings {
    return this.settings;
  }

  terms(resource: PayableResource, error?: string): PaymentTerms {
    const challenge = challengeFor(this.settings, resource);
    return {
      challenge,
      requirements: requirementsFor(this.settings, resource.cents),
      headers: {
        'payment-required': encodePaymentRequiredHeader(paymentRequiredFor(this.settings, resource, error)),
        'www-authenticate': formatChallenge(challenge),
        'cache-control': 'no-store',
      },
    };
  }

  async accept(resource: PayableResource, presented: PresentedPayment): Promise<Acceptance> {
    const { signature, authorization } = presented;
    if (signature === undefined && authorization === undefined) return { none: true };
    if (signature !== undefined && authorization !== undefined) {
      return {
        refused: true,
        status: 400,
        code: 'payment_protocol_conflict',
        reason: 'both_protocols',
        detail: 'Send either PAYMENT-SIGNATURE (x402) or Authorization: Payment, not both.',
        location: 'header.payment-signature',
        headers: {},
      };
    }
    const location = signature !== undefined ? `header.${PAYMENT_SIGNATURE_HEADER}` : 'header.authorization';
    if (!this.facilitator) {
      return this.#refuse(
        resource,
        location,
        'settlement_unavailable',
        'This service cannot settle payments now.',
        {
          status: 503,
          code: 'payments_unavailable',
        },
      );
    }
    const requirements = requirementsFor(this.settings, resource.cents);
    const read =
      signature !== undefined
        ? this.#readX402(signature, requirements)
        : this.#readCredential(authorization!, resource, requirements);
    if ('reason' in read) return this.#refuse(resource, location, read.reason, read.detail);

    const auth = read.authorization;
    const authorizationKey = [this.settings.network, this.settings.asset.address, auth.from, auth.nonce]
      .join(':')
      .toLowerCase();
    // A payment seen before is refused here, before the chain is asked (a released one may be retried).
    const seen = await this.ledger.stateOf(authorizationKey, read.challenge?.id);
    if (seen && seen !== 'released')
      return this.#refuseUsed(resource, location, seen === 'reserved' ? 'in_use' : 'already_settled');
    const verified = await this.facilitator.verify(read.payload, requirements).catch(
      (err: unknown): VerifyResponse => ({
        isValid: false,
        invalidReason: 'verification_unavailable',
        invalidMessage: (err as Error).message,
      }),
    );
    if (!verified.isValid) {
      const why = facilitatorRefusal(verified.invalidReason ?? 'invalid_payment', verified.invalidMessage);
      return this.#refuse(resource, location, why.reason, why.detail);
    }
    const reserved = await this.ledger.reserve({
      protocol: read.challenge ? 'mpp' : 'x402',
      authorization_key: authorizationKey,
      ...(read.challenge ? { challenge_id: read.challenge.id } : {}),
      network: this.settings.network,
      asset: this.settings.asset.address,
      pay_to: this.settings.payTo,
      payer: getAddress(auth.from),
      amount: requirements.amount,
      price_cents: resource.cents,
      method: resource.method,
      resource: resource.target,
    });
    if ('refused' in reserved) return this.#refuseUsed(resource, location, reserved.refused);
    return {
      protocol: read.challenge ? 'mpp' : 'x402',
      record: reserved.record,
      payload: read.payload,
      requirements,
      ...(read.challenge ? { challenge: read.challenge } : {}),
    };
  }

  /** Executes the transfer of an accepted payment (after the request succeeded). */
  async settle(payment: AcceptedPayment, resource: PayableResource): Promise<Settlement> {
    const result = await this.facilitator!.settle(payment.payload, payment.requirements).catch(
      (err: unknown): SettleResponse => ({
        success: false,
        errorReason: 'settlement_unavailable',
        errorMessage: (err as Error).message,
        transaction: '',
        network: payment.requirements.network as `${string}:${string}`,
      }),
    );
    if (!result.success || !result.transaction) {
      const reason = result.errorReason ?? 'settlement_failed';
      await this.ledger.failed(payment.record.id, reason);
      return {
        settled: false,
        reason,
        detail: `The transfer could not be executed (${reason}); the answer was withheld and nothing was charged.`,
        headers: this.terms(resource, reason).headers,
      };
    }
    const record = await this.ledger.settled(payment.record.id, result.transaction);
    return { settled: true, record, headers: receiptHeaders(record, payment.challenge?.id) };
  }

  /** The request did not succeed: nothing is charged, the authorization stays unused. */
  async release(payment: AcceptedPayment, reason: string): Promise<void> {
    await this.ledger.released(payment.record.id, reason);
  }

  #refuse(
    resource: PayableResource,
    location: string,
    reason: string,
    detail: string,
    options: { status?: number; code?: RefusedPayment['code'] } = {},
  ): RefusedPayment {
    return {
      refused: true,
      status: options.status ?? 402,
      code: options.code ?? 'payment_invalid',
      reason,
      detail,
      location,
      headers: this.terms(resource, reason).headers,
    };
  }

  #refuseUsed(
    resource: PayableResource,
    location: string,
    why: 'in_use' | 'already_settled',
  ): RefusedPayment {
    return why === 'in_use'
      ? this.#refuse(resource, location, 'payment_in_use', 'This payment is being used by another request.')
      : this.#refuse(resource, location, 'payment_already_used', 'This payment was already used.');
  }

  #readX402(header: string, requirements: PaymentRequirements): Read {
    let payload: PaymentPayload;
    try {
      payload = decodePaymentSignatureHeader(header);
    } catch {
      return { reason: 'invalid_payload', detail: 'PAYMENT-SIGNATURE is not base64-encoded JSON.' };
    }
    if (payload?.x402Version !== X402_VERSION)
      return { reason: 'invalid_x402_version', detail: `This service speaks x402 version ${X402_VERSION}.` };
    const accepted = payload.accepted as Partial<PaymentRequirements> | undefined;
    if (!accepted || typeof accepted !== 'object')
      return {
        reason: 'invalid_payload',
        detail: 'The payment does not say which terms it accepts (`accepted`).',
      };
    const mismatch = compareTerms(accepted, requirements);
    if (mismatch) return mismatch;
    const authorization = readAuthorization(
      (payload.payload as { authorization?: unknown } | undefined)?.authorization,
    );
    if ('reason' in authorization) return authorization;
    const signed = compareAuthorization(authorization, requirements);
    if (signed) return signed;
    // Verified and settled against this service's terms, never the ones the client echoes.
    return { payload: { ...payload, accepted: requirements }, authorization };
  }

  #readCredential(header: string, resource: PayableResource, requirements: PaymentRequirements): Read {
    const credential = parseCredential(header);
    if ('malformed' in credential) return { reason: 'malformed_credential', detail: credential.malformed };
    const { challenge } = credential;
    if (
      !verifyChallengeId(this.settings.challengeKey, challenge, {
        method: resource.method,
        url: resource.target,
      })
    )
      return {
        reason: 'challenge_invalid',
        detail: 'The challenge was not issued by this service for this request (its id does not verify).',
      };
    if (
      challenge.realm !== this.settings.realm ||
      challenge.method !== MPP_METHOD ||
      challenge.intent !== MPP_INTENT
    )
      return { reason: 'challenge_invalid', detail: 'The challenge is for another realm, method or intent.' };
    const expires = Date.parse(challenge.expires);
    if (!Number.isFinite(expires) || expires <= Date.now())
      return { reason: 'challenge_expired', detail: `The challenge expired at ${challenge.expires}.` };
    const asked = decodeRequest(challenge.request) as { amount?: unknown } | undefined;
    if (base64url(chargeRequestFor(this.settings, resource.cents)) !== challenge.request)
      return {
        reason: asked?.amount !== requirements.amount ? 'amount_mismatch' : 'terms_changed',
        detail: 'The challenge asks for other terms than this request costs now; use a fresh challenge.',
      };
    const payload = credential.payload as Partial<EvmAuthorizationPayload>;
    if (payload.type !== 'authorization')
      return {
        reason: 'credential_type_unsupported',
        detail: 'This service accepts `type: "authorization"` (EIP-3009) credentials.',
      };
    const authorization = readAuthorization(payload);
    if ('reason' in authorization) return authorization;
    const signed = compareAuthorization(authorization, requirements);
    if (signed) return signed;
    const binding = keccak256(encodePacked(['string', 'string'], [challenge.id, challenge.realm]));
    if (authorization.nonce.toLowerCase() !== binding)
      return {
        reason: 'challenge_binding_mismatch',
        detail: 'The authorization nonce must be keccak256(challenge.id ‖ challenge.realm).',
      };
    if (typeof payload.signature !== 'string' || !/^0x[0-9a-fA-F]+$/.test(payload.signature))
      return { reason: 'invalid_signature', detail: 'The credential has no signature.' };
    return {
      payload: {
        x402Version: X402_VERSION,
        accepted: requirements,
        payload: { signature: payload.signature, authorization },
      },
      authorization,
      challenge,
    };
  }
}

type Read =
  | { reason: string; detail: string }
  | { payload: PaymentPayload; authorization: Authorization; challenge?: PaymentChallenge };

/**
 * The receipt headers of a settled payment, rebuilt from its ledger record alone (so an operator
 * can reproduce a receipt): `PAYMENT-RESPONSE` for x402, `Payment-Receipt` for the Payment scheme.
 */
export function receiptHeaders(record: PaymentRecord, challengeId?: string | null): Record<string, string> {
  if (record.protocol === 'x402') {
    return {
      'payment-response': encodePaymentResponseHeader({
        success: true,
        transaction: record.tx_hash ?? '',
        network: record.network as `${string}:${string}`,
        payer: record.payer,
        amount: record.amount,
      }),
    };
  }
  return {
    'payment-receipt': base64url({
      status: 'success',
      method: MPP_METHOD,
      intent: MPP_INTENT,
      timestamp: (record.settled_at ?? record.updated_at).toISOString(),
      reference: record.tx_hash ?? '',
      challengeId: challengeId ?? record.challenge_id ?? '',
      amount: record.amount,
      currency: record.asset,
      recipient: record.pay_to,
      payer: record.payer,
    }),
  };
}
