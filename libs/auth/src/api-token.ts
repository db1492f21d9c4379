import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API tokens look like `aoc_<id>_<secret>`: the id (12 hex) finds the row, the secret (32 random
 * bytes, base64url) is checked against its stored SHA-256. A fast hash is enough because the
 * secret has 256 bits of entropy (nothing to brute-force); the id alone grants nothing.
 */
export const API_TOKEN_PREFIX = 'aoc_';
const TOKEN_PATTERN = /^aoc_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface IssuedToken {
  readonly id: string;
  /** The whole token: shown once, never stored. */
  readonly token: string;
  readonly secretHash: string;
}

export function issueApiToken(random: (n: number) => Buffer = randomBytes): IssuedToken {
  const id = random(6).toString('hex');
  const secret = random(32).toString('base64url');
  return { id, token: `${API_TOKEN_PREFIX}${id}_${secret}`, secretHash: hashSecret(secret) };
}

/** Splits a presented token; null when it is not shaped like one of ours. */
export function parseApiToken(token: string): { id: string; secret: string } | null {
  const m = TOKEN_PATTERN.exec(token);
  return m ? { id: m[1], secret: m[2] } : null;
}

export function looksLikeApiToken(token: string): boolean {
  return token.startsWith(API_TOKEN_PREFIX);
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
