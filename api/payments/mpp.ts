import crypto from 'node:crypto';

/**
 * The "Payment" HTTP authentication scheme (MPP): the challenge a 402 carries in
 * `WWW-Authenticate: Payment …`, the credential a client returns in `Authorization: Payment …`
 * and the `Payment-Receipt`. The `id` is an HMAC of the other parameters and of the request they
 * were issued for, so the server needs no stored challenge: a credential echoes the challenge,
 * and a forged or altered one does not verify. Single use is the ledger's job (the ledger keeps
 * each challenge id it accepted, unique).
 */
export interface PaymentChallenge {
  id: string;
  realm: string;
  method: string;
  intent: string;
  /** base64url (no padding) of the canonical JSON of the method's request. */
  request: string;
  /** RFC 3339. */
  expires: string;
  description?: string;
}

/** What the `evm` method's `charge` intent asks for (draft-evm-charge). */
export interface EvmChargeRequest {
  amount: string;
  currency: string;
  recipient: string;
  methodDetails: { chainId: number; credentialTypes: string[]; decimals: number };
}

/** An EIP-3009 authorization credential (`type: "authorization"`). */
export interface EvmAuthorizationPayload {
  type: 'authorization';
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
  signature: string;
}

export interface PaymentCredential {
  challenge: PaymentChallenge;
  payload: Record<string, unknown>;
  source?: string;
}

/** JSON with object keys sorted (RFC 8785 for the strings and integers these documents hold). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function base64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : canonicalJson(value)).toString('base64url');
}

const SALT_BYTES = 16;

function mac(
  key: Buffer,
  salt: Buffer,
  params: Omit<PaymentChallenge, 'id' | 'description'>,
  target: { method: string; url: string },
): Buffer {
  return crypto
    .createHmac('sha256', key)
    .update(salt)
    .update(
      [
        params.realm,
        params.method,
        params.intent,
        params.request,
        params.expires,
        target.method,
        target.url,
      ].join('\n'),
    )
    .digest();
}

/**
 * A challenge id: 128 random bits (every challenge is distinct, even two issued in the same
 * second for the same request) followed by an HMAC of them, the challenge's parameters and the
 * request (method and target) it was issued for.
 */
export function challengeId(
  key: Buffer,
  params: Omit<PaymentChallenge, 'id' | 'description'>,
  target: { method: string; url: string },
  salt: Buffer = crypto.randomBytes(SALT_BYTES),
): string {
  return Buffer.concat([salt, mac(key, salt, params, target)]).toString('base64url');
}

export function verifyChallengeId(
  key: Buffer,
  challenge: PaymentChallenge,
  target: { method: string; url: string },
): boolean {
  const raw = Buffer.from(String(challenge.id), 'base64url');
  if (raw.length !== SALT_BYTES + 32 || raw.toString('base64url') !== challenge.id) return false;
  const expected = mac(key, raw.subarray(0, SALT_BYTES), challenge, target);
  return crypto.timingSafeEqual(expected, raw.subarray(SALT_BYTES));
}

const quote = (v: string) => `"${v.replace(/["\\]/g, '\\$&')}"`;

/** `Payment id="…", realm="…", …` */
export function formatChallenge(c: PaymentChallenge): string {
  const params: [string, string | undefined][] = [
    ['id', c.id],
    ['realm', c.realm],
    ['method', c.method],
    ['intent', c.intent],
    ['request', c.request],
    ['expires', c.expires],
    ['description', c.description],
  ];
  return `Payment ${params
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${quote(v!)}`)
    .join(', ')}`;
}

/** Reads the auth-params of one `Payment` challenge (the inverse of formatChallenge). */
export function parseChallenge(header: string): PaymentChallenge | undefined {
  const m = /^Payment\s+(.*)$/is.exec(header.trim());
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))\s*,?/gy;
  let part: RegExpExecArray | null;
  // biome-ignore lint/suspicious/noAssignInExpressions: a sticky regex walks the parameters
  while ((part = re.exec(m[1]!)) !== null) {
    params[part[1]!.toLowerCase()] = part[2] !== undefined ? part[2].replace(/\\(.)/g, '$1') : part[3]!;
  }
  const { id, realm, method, intent, request, expires, description } = params;
  if (!id || !realm || !method || !intent || !request || !expires) return undefined;
  return { id, realm, method, intent, request, expires, ...(description ? { description } : {}) };
}

/** The `Authorization: Payment <b64token>` credential, or why it cannot be read. */
export function parseCredential(header: string): PaymentCredential | { malformed: string } {
  const m = /^Payment\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header.trim());
  if (!m) return { malformed: 'the credential is not a b64token' };
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'));
  } catch {
    return { malformed: 'the credential is not base64url-encoded JSON' };
  }
  const c = json as Partial<PaymentCredential>;
  const ch = c?.challenge as Partial<PaymentChallenge> | undefined;
  if (!ch || typeof ch !== 'object')
    return { malformed: 'the credential does not echo its challenge (`challenge`)' };
  for (const k of ['id', 'realm', 'method', 'intent', 'request', 'expires'] as const)
    if (typeof ch[k] !== 'string') return { malformed: `challenge.${k} is missing` };
  if (!c.payload || typeof c.payload !== 'object') return { malformed: 'the credential has no `payload`' };
  return c as PaymentCredential;
}

export function decodeRequest(request: string): unknown {
  try {
    return JSON.parse(Buffer.from(request, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Encodes a credential (what a client sends; the tests and the bench pay with it). */
export function formatCredential(credential: PaymentCredential): string {
  return `Payment ${Buffer.from(JSON.stringify(credential)).toString('base64url')}`;
}
