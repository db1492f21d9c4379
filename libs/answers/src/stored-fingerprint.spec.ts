import { answerFingerprint, legacySingleMessageFingerprint } from './answer-fingerprint';
import {
  LEGACY_FINGERPRINT_PREFIX,
  fingerprintKind,
  formatStoredFingerprint,
  isLegacyFingerprint,
  parseStoredFingerprint,
  sameAnswerVersion,
  storedLegacyFingerprint,
  storedPairFingerprint,
} from './stored-fingerprint';

const customer = 'Region split finished; latency is back to normal.';
const internal = 'Evidence: TopSQL on c1. No follow-up.';

describe('stored fingerprints', () => {
  it('stores a pair fingerprint bare, exactly as topics carry it', () => {
    const stored = storedPairFingerprint(customer, internal);
    expect(stored).toBe(answerFingerprint(customer, internal));
    expect(fingerprintKind(stored)).toBe('pair_v2');
    expect(isLegacyFingerprint(stored)).toBe(false);
  });

  it('keeps a legacy digest unchanged and readable behind its prefix', () => {
    const stored = storedLegacyFingerprint(customer);
    expect(stored).toBe(`${LEGACY_FINGERPRINT_PREFIX}${legacySingleMessageFingerprint(customer)}`);
    expect(parseStoredFingerprint(stored)).toEqual({ kind: 'legacy_single_message', digest: legacySingleMessageFingerprint(customer) });
    expect(isLegacyFingerprint(stored)).toBe(true);
    expect(formatStoredFingerprint(parseStoredFingerprint(stored)!)).toBe(stored);
  });

  it.each([
    ['empty', ''],
    ['upper-case hex', 'A'.repeat(64)],
    ['too short', 'a'.repeat(63)],
    ['prefix without digest', LEGACY_FINGERPRINT_PREFIX],
    ['prefix with a bad digest', `${LEGACY_FINGERPRINT_PREFIX}xyz`],
    ['unknown prefix', `legacy:${'a'.repeat(64)}`],
  ])('does not recognise %s', (_why, stored) => {
    expect(parseStoredFingerprint(stored)).toBeNull();
    expect(fingerprintKind(stored)).toBeNull();
    expect(isLegacyFingerprint(stored)).toBe(false);
  });

  it('compares versions by kind and digest', () => {
    const pair = storedPairFingerprint(customer, internal);
    const legacy = storedLegacyFingerprint(customer);
    expect(sameAnswerVersion(pair, storedPairFingerprint(`${customer}\n\n---\nRun id: r2`, internal))).toBe(true);
    expect(sameAnswerVersion(legacy, storedLegacyFingerprint(`  ${customer}  `))).toBe(true);
    expect(sameAnswerVersion(pair, storedPairFingerprint(customer, `${internal} Escalate.`))).toBe(false);
    expect(sameAnswerVersion(legacy, pair)).toBe(false);
    expect(sameAnswerVersion(pair, legacy)).toBe(false);
  });

  it('never equates a legacy digest with a pair digest, even when the hashes collide', () => {
    // A single message that happens to be the v2 hash input yields the very same sha256.
    const collidingLegacyMessage = JSON.stringify({ v: 2, customer: 'a', internal: 'b' });
    const pair = storedPairFingerprint('a', 'b');
    const legacy = storedLegacyFingerprint(collidingLegacyMessage);
    expect(parseStoredFingerprint(legacy)!.digest).toBe(pair);
    expect(sameAnswerVersion(pair, legacy)).toBe(false);
  });

  it('compares unrecognised strings verbatim and never with a real fingerprint', () => {
    expect(sameAnswerVersion('fp-a', 'fp-a')).toBe(true);
    expect(sameAnswerVersion('fp-a', 'fp-b')).toBe(false);
    const pair = storedPairFingerprint(customer, internal);
    expect(sameAnswerVersion(pair.toUpperCase(), pair)).toBe(false);
  });
});
