import fc from 'fast-check';
import { hashSecret, issueApiToken, looksLikeApiToken, parseApiToken, secretMatches } from './api-token';

describe('API tokens', () => {
  it('issues a token whose secret matches its stored hash and nothing else', () => {
    const issued = issueApiToken();
    const parts = parseApiToken(issued.token);
    expect(parts?.id).toBe(issued.id);
    expect(issued.token).toMatch(/^aoc_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(issued.secretHash).toBe(hashSecret(parts?.secret ?? ''));
    expect(issued.secretHash).not.toContain(parts?.secret ?? '-');
    expect(secretMatches(parts?.secret ?? '', issued.secretHash)).toBe(true);
    expect(issueApiToken().token).not.toBe(issued.token);
  });

  it('refuses any other secret, including one differing in a single character', () => {
    const issued = issueApiToken();
    const secret = parseApiToken(issued.token)?.secret ?? '';
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), (other) => {
        if (other === secret) return;
        expect(secretMatches(other, issued.secretHash)).toBe(false);
      }),
      { numRuns: 500 },
    );
    const flipped = (secret[0] === 'A' ? 'B' : 'A') + secret.slice(1);
    expect(secretMatches(flipped, issued.secretHash)).toBe(false);
  });

  it('parses only its own shape', () => {
    expect(parseApiToken('aoc_0123456789ab_short')).toBeNull();
    expect(parseApiToken('Bearer aoc_0123456789ab_' + 'a'.repeat(43))).toBeNull();
    expect(parseApiToken('aoc_0123456789AB_' + 'a'.repeat(43))).toBeNull();
    expect(parseApiToken('aoc_0123456789ab_' + 'a'.repeat(43))).toEqual({ id: '0123456789ab', secret: 'a'.repeat(43) });
    expect(looksLikeApiToken('eyJhbGciOi')).toBe(false);
  });
});
