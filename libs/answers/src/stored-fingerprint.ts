import { answerFingerprint, legacySingleMessageFingerprint } from './answer-fingerprint';

/**
 * Which hash a stored answer fingerprint is:
 * - `pair_v2`: sha256 over the normalised (customer reply, internal handoff) pair; stored bare,
 *   exactly as topics carry it;
 * - `legacy_single_message`: sha256 over one normalised message, from before answers had two
 *   messages; stored with {@link LEGACY_FINGERPRINT_PREFIX} so it is never read as a pair digest.
 */
export type FingerprintKind = 'pair_v2' | 'legacy_single_message';

export interface ParsedFingerprint {
  kind: FingerprintKind;
  digest: string;
}

/** Marks a stored legacy digest; both kinds are 64 hex characters, so the shape alone cannot tell them apart. */
export const LEGACY_FINGERPRINT_PREFIX = 'legacy-single:';

const DIGEST = /^[a-f0-9]{64}$/;

/** Reads a stored fingerprint; null when it is neither a bare pair digest nor a prefixed legacy digest. */
export function parseStoredFingerprint(stored: string): ParsedFingerprint | null {
  if (stored.startsWith(LEGACY_FINGERPRINT_PREFIX)) {
    const digest = stored.slice(LEGACY_FINGERPRINT_PREFIX.length);
    return DIGEST.test(digest) ? { kind: 'legacy_single_message', digest } : null;
  }
  return DIGEST.test(stored) ? { kind: 'pair_v2', digest: stored } : null;
}

export function formatStoredFingerprint(fingerprint: ParsedFingerprint): string {
  return fingerprint.kind === 'legacy_single_message' ? `${LEGACY_FINGERPRINT_PREFIX}${fingerprint.digest}` : fingerprint.digest;
}

/** The stored form of a current answer (same string as `answerFingerprint`). */
export function storedPairFingerprint(customerReplyMarkdown: string, internalHandoffMarkdown: string): string {
  return answerFingerprint(customerReplyMarkdown, internalHandoffMarkdown);
}

/** The stored form of an older single-message answer; the digest itself is never rewritten. */
export function storedLegacyFingerprint(markdown: string): string {
  return formatStoredFingerprint({ kind: 'legacy_single_message', digest: legacySingleMessageFingerprint(markdown) });
}

export function fingerprintKind(stored: string): FingerprintKind | null {
  return parseStoredFingerprint(stored)?.kind ?? null;
}

export function isLegacyFingerprint(stored: string): boolean {
  return fingerprintKind(stored) === 'legacy_single_message';
}

/**
 * Whether two stored fingerprints denote the same answer version. Kinds must match: a legacy digest
 * never saw the internal handoff, so it can never prove equality with a pair. Strings that are not
 * recognisable fingerprints are compared verbatim, as opaque ids.
 */
export function sameAnswerVersion(a: string, b: string): boolean {
  const left = parseStoredFingerprint(a);
  const right = parseStoredFingerprint(b);
  if (left === null || right === null) return left === null && right === null && a === b;
  return left.kind === right.kind && left.digest === right.digest;
}
