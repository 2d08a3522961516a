import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { FastifyBaseLogger } from 'fastify';
import {
  type AcceptedPayment,
  isPaymentAuthorization,
  type PaymentGate,
  type PresentedPayment,
  type RefusedPayment,
} from '../payments/gate.ts';
import {
  base64url,
  decodeRequest,
  formatCredential,
  type PaymentChallenge,
  type PaymentCredential,
  parseChallenge,
} from '../payments/mpp.ts';
import type { PriceTable } from '../payments/prices.ts';
import { type PayableResource, paymentRequiredFor } from '../payments/terms.ts';
import type { ToolCallPath } from './tool-calls.ts';

/** `_meta` keys of the x402 MCP transport (payload in, settlement out). */
export const X402_PAYMENT_META = 'x402/payment';
export const X402_RESPONSE_META = 'x402/payment-response';
/** `_meta` keys of the Payment scheme's MCP transport (credential in, receipt out). */
export const MPP_CREDENTIAL_META = 'org.paymentauth/credential';
export const MPP_RECEIPT_META = 'org.paymentauth/receipt';
/** Where a tool result carries the Payment challenge (the shape of the transport's -32042 `data`). */
export const MPP_REQUIRED_META = 'org.paymentauth/payment-required';

export interface ToolPaymentOptions {
  gate: PaymentGate;
  prices: PriceTable;
  /** `{mcp_url}`, named in the terms' description. */
  mcpUrl: string;
  /** The Bearer challenge of the agent-tool server, offered next to the Payment one. */
  bearerChallenge: string;
  logger: FastifyBaseLogger;
}

/** The x402 resource of a tool: `resource.target` `tool:<name>` binds Payment challenges to the tool. */
export function toolResource(name: string, description: string, cents: number): PayableResource {
  return { method: 'POST', target: `tool:${name}`, url: `mcp://tool/${name}`, description, cents };
}

/**
 * Pay per tool call: a `ToolCallPath` wrapper. A call with an account passes through untouched.
 * A call without one, of a tool the price table prices, is answered with the terms (a tool error
 * carrying x402 `PaymentRequired` and the Payment challenge, and the same terms in the HTTP
 * response's `PAYMENT-REQUIRED` and `WWW-Authenticate` headers) until it presents a payment:
 * x402 in `_meta["x402/payment"]` (or the `PAYMENT-SIGNATURE` header), or a Payment credential in
 * `_meta["org.paymentauth/credential"]` (or `Authorization: Payment`). That payment is checked,
 * verified and reserved by the gate (the ledger REST requests use), the tool runs with its REST
 * call marked paid (so the route does not charge it again), and the transfer is settled only when
 * the tool's result is no error; the receipt comes back in the result's `_meta` and in the HTTP
 * response's receipt header. A tool error releases the payment: nothing is charged.
 */
export function toolPayments(next: ToolCallPath, opts: ToolPaymentOptions): ToolCallPath {
  const { gate, prices } = opts;
  return async (call) => {
    if (call.caller) return next(call);
    const name = call.tool.declaration.name;
    const cents = prices.tools[name];
    if (cents === undefined)
      return errorResult(
        `401 authentication_required: ${name} needs an account (it cannot be paid per call). Authorize with OAuth or send an API key as a Bearer token.`,
      );
    const resource = toolResource(name, call.tool.declaration.title, cents);
    const presented = presentedPayment(call.payment?.headers ?? {}, call.payment?.meta);
    const setHeaders = (headers: Record<string, string>) => {
      for (const [k, v] of Object.entries(headers)) call.payment?.setHeader(k, v);
    };
    if ('malformed' in presented) {
      const terms = gate.terms(resource, 'invalid_payload');
      setHeaders(terms.headers);
      return termsResult(
        gate,
        resource,
        terms.headers,
        `402 payment_invalid (invalid_payload): ${presented.malformed}`,
        'invalid_payload',
      );
    }
    const accepted = await gate.accept(resource, presented);
    if ('none' in accepted) {
      const terms = gate.terms(resource, 'payment_required');
      setHeaders(withBearer(terms.headers, opts.bearerChallenge));
      return termsResult(
        gate,
        resource,
        terms.headers,
        `${name} costs ${cents} US cent${cents === 1 ? '' : 's'} per call; pay with x402 (_meta["${X402_PAYMENT_META}"]) or the Payment scheme (_meta["${MPP_CREDENTIAL_META}"]) and call it again with the same arguments, or connect with an account.`,
        'payment_required',
      );
    }
    if ('refused' in accepted) return refusedResult(gate, resource, accepted, setHeaders);

    let result: CallToolResult;
    try {
      result = await next({ ...call, paid: { accepted, resource } });
    } catch (err) {
      await release(accepted, 'tool call failed');
      throw err;
    }
    if (result.isError) {
      await release(accepted, 'tool error');
      return result;
    }
    const settled = await gate.settle(accepted, resource);
    if (!settled.settled) {
      opts.logger.warn(
        { payment: accepted.record.id, reason: settled.reason },
        'tool payment settlement failed',
      );
      setHeaders(settled.headers);
      const failed = termsResult(
        gate,
        resource,
        settled.headers,
        `402 payment_settlement_failed (${settled.reason}): ${settled.detail}`,
        settled.reason,
      );
      (failed.structuredContent as Record<string, unknown>)[X402_RESPONSE_META] = {
        success: false,
        errorReason: settled.reason,
        transaction: '',
        network: gate.network,
      };
      return failed;
    }
    opts.logger.info(
      {
        payment: settled.record.id,
        protocol: settled.record.protocol,
        tool: name,
        tx: settled.record.tx_hash,
      },
      'tool payment settled',
    );
    setHeaders(settled.headers);
    return { ...result, _meta: { ...result._meta, ...receiptMeta(settled.headers) } };
  };

  async function release(payment: AcceptedPayment, reason: string) {
    try {
      await gate.release(payment, reason);
    } catch (err) {
      opts.logger.error({ err, payment: payment.record.id }, 'could not record a released payment');
    }
  }
}

/**
 * The payment a call presents, as the gate reads it: `_meta` first (the MCP transports), the
 * HTTP headers otherwise. x402's payload object is encoded as its header would be; a Payment
 * credential's challenge may carry `request` as JSON (the transport's native form) or as the
 * base64url string the challenge id is bound to.
 */
export function presentedPayment(
  headers: { signature?: string; authorization?: string },
  meta: Record<string, unknown> | undefined,
): PresentedPayment | { malformed: string } {
  const x402 = meta?.[X402_PAYMENT_META];
  const credential = meta?.[MPP_CREDENTIAL_META];
  let signature = headers.signature;
  let authorization = isPaymentAuthorization(headers.authorization) ? headers.authorization : undefined;
  if (x402 !== undefined) {
    if (!x402 || typeof x402 !== 'object' || Array.isArray(x402))
      return { malformed: `_meta["${X402_PAYMENT_META}"] must be an x402 PaymentPayload object.` };
    signature = encodePaymentSignatureHeader(x402 as Parameters<typeof encodePaymentSignatureHeader>[0]);
  }
  if (credential !== undefined) {
    const c = credential as { challenge?: Record<string, unknown> };
    if (!c || typeof c !== 'object' || !c.challenge || typeof c.challenge !== 'object')
      return {
        malformed: `_meta["${MPP_CREDENTIAL_META}"] must be a Payment credential object ({challenge, payload}).`,
      };
    const request = c.challenge.request;
    const challenge =
      request !== null && typeof request === 'object'
        ? { ...c.challenge, request: base64url(request) }
        : c.challenge;
    authorization = formatCredential({
      ...(credential as object),
      challenge,
    } as unknown as PaymentCredential);
  }
  return {
    ...(signature !== undefined ? { signature } : {}),
    ...(authorization !== undefined ? { authorization } : {}),
  };
}

const errorResult = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/** `WWW-Authenticate` with the Payment challenge and the Bearer one (an account works too). */
function withBearer(headers: Record<string, string>, bearer: string): Record<string, string> {
  const www = headers['www-authenticate'];
  return www ? { ...headers, 'www-authenticate': `${www}, ${bearer}` } : headers;
}

/** A Payment challenge as the MCP transport carries it: JSON, `request` decoded. */
function challengeJson(challenge: PaymentChallenge): Record<string, unknown> {
  return { ...challenge, request: decodeRequest(challenge.request) };
}

/**
 * The terms as a tool error (the x402 MCP transport): `structuredContent` the x402
 * `PaymentRequired`, `content[0].text` its `x402/error` wrapper; the Payment challenge in
 * `_meta["org.paymentauth/payment-required"]`.
 */
function termsResult(
  gate: PaymentGate,
  resource: PayableResource,
  /** The terms' headers: the challenge is the one the HTTP response carries. */
  headers: Record<string, string>,
  message: string,
  reason: string,
): CallToolResult {
  const required = paymentRequiredFor(gate.termsSettings, resource, reason);
  const challenge = parseChallenge(headers['www-authenticate'] ?? '');
  return {
    isError: true,
    structuredContent: required as unknown as Record<string, unknown>,
    content: [
      { type: 'text', text: JSON.stringify({ 'x402/error': { code: 402, message, data: required } }) },
    ],
    ...(challenge
      ? { _meta: { [MPP_REQUIRED_META]: { httpStatus: 402, challenges: [challengeJson(challenge)] } } }
      : {}),
  };
}

function refusedResult(
  gate: PaymentGate,
  resource: PayableResource,
  refused: RefusedPayment,
  setHeaders: (h: Record<string, string>) => void,
): CallToolResult {
  setHeaders(refused.headers);
  if (refused.code === 'payment_protocol_conflict')
    return errorResult(`${refused.status} ${refused.code}: ${refused.detail}`);
  return termsResult(
    gate,
    resource,
    refused.headers,
    `${refused.status} ${refused.code} (${refused.reason}): ${refused.detail}`,
    refused.reason,
  );
}

/** The receipt headers of a settlement as the MCP transports carry them in a result's `_meta`. */
function receiptMeta(headers: Record<string, string>): Record<string, unknown> {
  const x402 = headers['payment-response'];
  if (x402) return { [X402_RESPONSE_META]: decodePaymentResponseHeader(x402) };
  const mpp = headers['payment-receipt'];
  return mpp ? { [MPP_RECEIPT_META]: decodeRequest(mpp) } : {};
}
