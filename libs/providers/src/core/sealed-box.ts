import { z } from 'zod';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption (AES-256-GCM) of small JSON values, for opaque references a caller may
 * hold and hand back (provider instance addresses) and for credentials at rest (browser state).
 * Token layout, base64url without padding: version byte | 12-byte random IV | ciphertext | 16-byte tag.
 * The `purpose` string is bound as additional authenticated data, so a token sealed for one
 * purpose never opens for another.
 */

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

export type SealedBoxFailure = 'malformed' | 'unauthenticated';

export class SealedBoxError extends Error {
  constructor(
    readonly reason: SealedBoxFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SealedBoxError';
  }
}

/** A 256-bit key given as base64url, base64 or 64 hex characters. Never echoes the value. */
export function parseSealKey(encoded: string): Buffer {
  const text = encoded.trim();
  let key: Buffer;
  if (/^[0-9a-fA-F]{64}$/.test(text)) key = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) key = Buffer.from(text.replace(/=$/, '').replace(/\+/g, '-').replace(/\//g, '_'), 'base64url');
  else throw new SealedBoxError('malformed', 'key must be 32 bytes given as base64url, base64 or 64 hex characters');
  if (key.length !== KEY_BYTES) throw new SealedBoxError('malformed', 'key must decode to exactly 32 bytes');
  return key;
}

export function sealJson(key: Buffer, purpose: string, value: unknown): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** Opens a token sealed by `sealJson`; a changed, truncated or foreign-key token fails authentication. */
export function openJson(key: Buffer, purpose: string, token: string): unknown {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new SealedBoxError('malformed', 'token is not base64url');
  const raw = Buffer.from(token, 'base64url');
  if (raw.length < 1 + IV_BYTES + TAG_BYTES + 1) throw new SealedBoxError('malformed', 'token is too short');
  if (raw[0] !== VERSION) throw new SealedBoxError('malformed', `token version ${raw[0]} is not supported`);
  const iv = raw.subarray(1, 1 + IV_BYTES);
  const tag = raw.subarray(raw.length - TAG_BYTES);
  const body = raw.subarray(1 + IV_BYTES, raw.length - TAG_BYTES);
  let plain: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(tag);
    plain = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedBoxError('unauthenticated', 'token failed authentication: it was altered or sealed under another key');
  }
  try {
    return JSON.parse(plain) as unknown;
  } catch {
    throw new SealedBoxError('malformed', 'token content is not JSON');
  }
}

/** A configuration field holding a 32-byte key as base64url, base64 or 64 hex characters. */
export const SealKeyText = z.string().refine(
  (k) => {
    try {
      parseSealKey(k);
      return true;
    } catch (e) {
      if (e instanceof SealedBoxError) return false;
      throw e;
    }
  },
  { message: 'must be a 32-byte key as base64url, base64 or 64 hex characters' },
);
