import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Secrets at rest: webhook signing secrets and chat bot tokens are stored encrypted with
 * AES-256-GCM under a key derived from the service's secrets key, with the row id as
 * additional data (a ciphertext moved to another row does not decrypt). The same root key
 * signs the tokens in email links (alert-disable, address verification) through HKDF-derived
 * subkeys, so one key protects everything and each use has its own.
 *
 * The root key is `EARSHOT_SECRETS_KEY` (base64 of 32 bytes) or, when unset, a key generated
 * once into `EARSHOT_DATA_DIR/secrets.key` (mode 0600). Processes that share a PostgreSQL
 * state store must share the key: set `EARSHOT_SECRETS_KEY` there.
 */
export class SecretsKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsKeyError';
  }
}

export function parseSecretsKey(text: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new SecretsKeyError('EARSHOT_SECRETS_KEY must be base64 of 32 bytes');
  return key;
}

/** The configured key, or the data dir's key file (created on first use). */
export function loadSecretsKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return parseSecretsKey(configured);
  const file = path.join(dataDir, 'secrets.key');
  try {
    return parseSecretsKey(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      return parseSecretsKey(fs.readFileSync(file, 'utf8'));
    throw err;
  }
}

const VERSION = 'v1';

export class SecretBox {
  private readonly encryptionKey: Buffer;
  private readonly root: Buffer;

  constructor(rootKey: Buffer) {
    if (rootKey.length !== 32) throw new SecretsKeyError('the secrets key must be 32 bytes');
    this.root = rootKey;
    this.encryptionKey = this.subkey('earshot/secrets-at-rest');
  }

  /** A 32-byte key for one purpose, derived from the root key. */
  subkey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.root, Buffer.alloc(0), purpose, 32));
  }

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url), bound to `context` (e.g. the row id). */
  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    cipher.setAAD(Buffer.from(context));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ct]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  decrypt(sealed: string, context: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ct === undefined)
      throw new SecretsKeyError('unreadable sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new SecretsKeyError('a stored secret does not decrypt: was EARSHOT_SECRETS_KEY changed?');
    }
  }
}

/** The form of a TokenSigner token (a regular expression, for request schemas). */
export const SIGNED_TOKEN_PATTERN = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$';

/**
 * Compact signed tokens for links: `base64url(JSON payload).base64url(HMAC-SHA256)`, with a
 * purpose baked into the key so a token of one kind is never accepted as another.
 */
export class TokenSigner {
  private readonly key: Buffer;

  constructor(box: SecretBox, purpose: string) {
    this.key = box.subkey(`earshot/token/${purpose}`);
  }

  sign(payload: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The payload of a token this signer made, or undefined for anything else. */
  verify<T extends Record<string, unknown>>(token: string): T | undefined {
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return undefined;
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
      return payload !== null && typeof payload === 'object' ? (payload as T) : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
