import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Webhook signatures: the Standard Webhooks scheme with this service's header names.
 * Secret `whsec_` + base64(32 random bytes); signed content
 * `${X-Webhook-ID}.${X-Webhook-Timestamp}.${rawBody}`; `X-Webhook-Signature: v1,<base64 HMAC-SHA256>`.
 * A receiver verifies with any Standard Webhooks library after renaming the headers
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const USER_AGENT = 'Earshot-Webhooks/1.0';

export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** What reads show of a secret: the prefix and the first six characters of the key. */
export function secretPrefix(secret: string): string {
  return secret.slice(0, WEBHOOK_SECRET_PREFIX.length + 6);
}

export interface SignedHeaders {
  'content-type': string;
  'user-agent': string;
  'x-webhook-id': string;
  'x-webhook-timestamp': string;
  'x-webhook-signature': string;
}

const signers = new Map<string, Webhook>();

function signer(secret: string): Webhook {
  let w = signers.get(secret);
  if (!w) {
    if (signers.size > 10_000) signers.clear();
    w = new Webhook(secret);
    signers.set(secret, w);
  }
  return w;
}

/**
 * Checks a received delivery as a receiver would: the signature over id, timestamp and the raw
 * body with `secret`, and a timestamp within 5 minutes of now. Returns the parsed body; throws
 * (`WebhookVerificationError` of the library) when the delivery is not genuine.
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  rawBody: string,
): unknown {
  const one = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
  };
  return signer(secret).verify(rawBody, {
    'webhook-id': one('x-webhook-id'),
    'webhook-timestamp': one('x-webhook-timestamp'),
    'webhook-signature': one('x-webhook-signature'),
  });
}

/** Headers for one attempt: `id` is the attempt's delivery id, `timestampSec` the send time. */
export function signWebhook(secret: string, id: string, timestampSec: number, body: string): SignedHeaders {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-webhook-id': id,
    'x-webhook-timestamp': String(timestampSec),
    'x-webhook-signature': signer(secret).sign(id, new Date(timestampSec * 1000), body),
  };
}
