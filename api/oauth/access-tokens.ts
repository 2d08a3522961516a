import { randomBytes } from 'node:crypto';
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from 'jose';
import type { SecretBox } from '../../processors/alerts/index.ts';
import type { OAuthSigningKeyRows, SigningKeyRow } from '../../projections/state/oauth-keys.ts';

export const ACCESS_TOKEN_TTL_S = 15 * 60;
const ALG = 'ES256';
/** How long a process uses the keys it read before reading them again. */
const KEY_CACHE_MS = 60_000;

/** The claims of an access token beyond the registered ones. */
export interface AccessClaims {
  /** The grant the token was issued under. */
  grant_id: string;
  project_id: string;
  client_id: string;
}

type SigningKey = Parameters<SignJWT['sign']>[0];

export type VerifiedAccess = AccessClaims & { sub: string; exp: number };

/** Why an access token was refused, in words a person reads in the 401's body. */
export class AccessTokenError extends Error {}

const sealContext = (kid: string) => `oauth-signing-key:${kid}`;

/**
 * Access tokens: JWTs signed with ES256 by a key kept in the state store (the private half
 * sealed with the secrets key), published at the JWKS URI. Every process that shares the store
 * and the secrets key signs and verifies with the same keys; `rotate` adds a key that signs from
 * then on, and the retired one stays published for an hour (its tokens live 15 minutes).
 */
export class AccessTokens {
  private signing: { at: number; kid: string; key: SigningKey } | undefined;
  private verifying: { at: number; keys: JWTVerifyGetKey; kids: Set<string> } | undefined;

  constructor(
    private readonly rows: OAuthSigningKeyRows,
    private readonly box: SecretBox,
    /** `iss` of the tokens: the authorization server's public URL. */
    readonly issuer: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Makes the first signing key when the store holds none. */
  async ensureKey(): Promise<void> {
    if (await this.rows.current()) return;
    await this.rows.addIfNone(await this.newKey());
  }

  /** A new signing key; the previous ones stay published for an hour. Returns the new kid and the retired ones. */
  async rotate(): Promise<{ kid: string; retired: string[] }> {
    const row = await this.newKey();
    const retired = await this.rows.rotate(row, new Date(this.now()));
    this.signing = undefined;
    this.verifying = undefined;
    return { kid: row.kid, retired };
  }

  /** The JWK Set to publish. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const rows = await this.rows.published(new Date(this.now()));
    return { keys: rows.map((r) => r.public_jwk as JWK) };
  }

  async sign(claims: AccessClaims, subject: string, audience: string): Promise<string> {
    const key = await this.signingKey();
    const now = Math.floor(this.now() / 1000);
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: ALG, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(this.issuer)
      .setSubject(subject)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + ACCESS_TOKEN_TTL_S)
      .setJti(randomBytes(12).toString('base64url'))
      .sign(key.key);
  }

  /** The claims of a token signed here for `audience`, or AccessTokenError saying why not. */
  async verify(token: string, audience: string): Promise<VerifiedAccess> {
    const kid = kidOf(token);
    let keys = await this.verifyingKeys(false);
    if (kid && !keys.kids.has(kid)) keys = await this.verifyingKeys(true);
    try {
      const { payload } = await jwtVerify(token, keys.keys, {
        issuer: this.issuer,
        audience,
        algorithms: [ALG],
        typ: 'at+jwt',
        currentDate: new Date(this.now()),
        requiredClaims: ['exp', 'sub', 'grant_id', 'project_id'],
      });
      return payload as JWTPayload & VerifiedAccess;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') throw new AccessTokenError('The access token has expired.');
      if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && (err as { claim?: string }).claim === 'aud')
        throw new AccessTokenError(`The access token was issued for another resource, not ${audience}.`);
      throw new AccessTokenError('The access token is not one this server issued.');
    }
  }

  private async newKey(): Promise<Omit<SigningKeyRow, 'created_at' | 'retired_at'>> {
    const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
    const kid = randomBytes(12).toString('base64url');
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
    const privateJwk = await exportJWK(privateKey);
    return {
      kid,
      alg: ALG,
      public_jwk: publicJwk,
      private_sealed: this.box.encrypt(JSON.stringify(privateJwk), sealContext(kid)),
    };
  }

  private async signingKey() {
    if (this.signing && this.now() - this.signing.at < KEY_CACHE_MS) return this.signing;
    let row = await this.rows.current();
    if (!row) {
      await this.ensureKey();
      row = await this.rows.current();
    }
    const jwk = JSON.parse(this.box.decrypt(row!.private_sealed, sealContext(row!.kid))) as JWK;
    const key = (await importJWK(jwk, ALG)) as SigningKey;
    this.signing = { at: this.now(), kid: row!.kid, key };
    return this.signing;
  }

  private async verifyingKeys(reload: boolean) {
    if (this.verifying && !reload && this.now() - this.verifying.at < KEY_CACHE_MS) return this.verifying;
    // An unknown kid reloads at most once a second (a forged kid costs no more than that).
    if (this.verifying && reload && this.now() - this.verifying.at < 1000) return this.verifying;
    const { keys } = await this.jwks();
    this.verifying = {
      at: this.now(),
      keys: createLocalJWKSet({ keys }),
      kids: new Set(keys.map((k) => String(k.kid))),
    };
    return this.verifying;
  }
}

function kidOf(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as {
      kid?: unknown;
    };
    return typeof header.kid === 'string' ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a presented credential looks like a JWT (three base64url parts, a JSON header). */
export function looksLikeJwt(credential: string): boolean {
  return /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(credential);
}
