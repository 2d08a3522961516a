import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with scrypt (memory-hard), from `node:crypto`. A hash records its own cost
 * parameters — `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64) — so the cost can be raised later:
 * hashes made with lower parameters still verify, and `needsRehash` says when to store a new one.
 *
 * N = 2^15, r = 8, p = 1: 32 MiB and about 100 ms of one core per hash on the development
 * machine. That is below OWASP's scrypt figure (N = 2^17, 128 MiB), chosen so that sign-ins on a
 * shared 2-core machine stay well under a second; raise `COST` when the hardware allows.
 */
export const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** The most characters a password may have (scrypt reads all of them). */
export const MAX_PASSWORD_CHARS = 1024;
export const MIN_PASSWORD_CHARS = 10;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

function parse(stored: string) {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return undefined;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (![cost.N, cost.r, cost.p].every((v) => Number.isSafeInteger(v) && v > 0)) return undefined;
  return { cost, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

/** Whether `password` is the one `stored` was made from (constant time in the comparison). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.cost);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

/** True when `stored` was made with other cost parameters than today's. */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.cost.N !== COST.N || parsed.cost.r !== COST.r || parsed.cost.p !== COST.p;
}

let decoy: Promise<string> | undefined;

/**
 * Spends the time of one verification without a stored hash: sign-in with an unknown address
 * takes as long as with a known one, so timing does not tell which addresses have accounts.
 */
export async function verifyDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(16).toString('base64'));
  await verifyPassword(password, await decoy);
  return false;
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string, email?: string): string | undefined {
  const chars = [...password].length;
  if (chars < MIN_PASSWORD_CHARS) return `must be at least ${MIN_PASSWORD_CHARS} characters`;
  if (chars > MAX_PASSWORD_CHARS) return `must be at most ${MAX_PASSWORD_CHARS} characters`;
  if (email && password.trim().toLowerCase() === email.trim().toLowerCase())
    return 'must not be your email address';
  return undefined;
}
