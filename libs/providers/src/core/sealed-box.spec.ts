import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { openJson, parseSealKey, sealJson, SealedBoxError } from './sealed-box';

const reasonOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SealedBoxError) return e.reason;
    throw e;
  }
  return 'opened';
};

describe('sealed box (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('round-trips JSON and uses a fresh IV every time', () => {
    const a = sealJson(key, 'p', { x: 1 });
    const b = sealJson(key, 'p', { x: 1 });
    expect(a).not.toBe(b);
    expect(openJson(key, 'p', a)).toEqual({ x: 1 });
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('rejects another key, another purpose and any flipped bit', () => {
    const token = sealJson(key, 'p', { address: '10.0.0.1:4000' });
    expect(reasonOf(() => openJson(randomBytes(32), 'p', token))).toBe('unauthenticated');
    expect(reasonOf(() => openJson(key, 'q', token))).toBe('unauthenticated');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Buffer.from(token, 'base64url').length - 1 }), fc.integer({ min: 1, max: 255 }), (at, mask) => {
        const raw = Buffer.from(token, 'base64url');
        raw[at] ^= mask;
        expect(reasonOf(() => openJson(key, 'p', raw.toString('base64url')))).toBe('unauthenticated');
      }),
      { numRuns: 500 },
    );
  });

  it('reports malformed tokens without throwing anything else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        expect(['malformed', 'unauthenticated']).toContain(reasonOf(() => openJson(key, 'p', s)));
      }),
      { numRuns: 1000 },
    );
  });

  it('parses keys as hex, base64 and base64url', () => {
    expect(parseSealKey(key.toString('hex'))).toEqual(key);
    expect(parseSealKey(key.toString('base64'))).toEqual(key);
    expect(parseSealKey(key.toString('base64url'))).toEqual(key);
    expect(reasonOf(() => parseSealKey('short'))).toBe('malformed');
  });
});
