import { createHmac } from 'node:crypto';
import { signWebhook, verifyWebhook, webhookDigest, WEBHOOK_HEADERS } from './webhook-signature';

/** The webhook signature: HMAC-SHA256 over `<timestamp>.<raw body>`, checked the way a receiver must. */
describe('webhook signature', () => {
  const secret = 'a-secret-of-32-characters-length';
  const body = '{"format":"auto-oncall-optimizer-notification","kind":"focus.terminal","x":"é"}';
  const timestamp = 1_800_000_000;

  it('is v1=<hex HMAC-SHA256 of "timestamp.body"> keyed with the secret (a known vector)', () => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
    expect(webhookDigest(secret, timestamp, body)).toBe(expected);
    expect(signWebhook(secret, timestamp, body)).toBe(`v1=${expected}`);
    expect(signWebhook('abc', 1, '{}')).toBe(`v1=${createHmac('sha256', 'abc').update('1.{}').digest('hex')}`);
    expect(Object.values(WEBHOOK_HEADERS)).toEqual(['x-aoc-notification-id', 'x-aoc-notification-kind', 'x-aoc-delivery-attempt', 'x-aoc-timestamp', 'x-aoc-signature']);
  });

  it('verifies the raw body and timestamp it was made for, within the tolerance', () => {
    const signature = signWebhook(secret, timestamp, body);
    expect(verifyWebhook({ secret, timestamp: String(timestamp), signature, body, nowSeconds: timestamp + 299 })).toEqual({ ok: true });
    expect(verifyWebhook({ secret, timestamp: String(timestamp), signature, body, nowSeconds: timestamp - 299 })).toEqual({ ok: true });
    // A rotated secret: either value may match.
    expect(verifyWebhook({ secret, timestamp: String(timestamp), signature: `v1=${'0'.repeat(64)}, ${signature}`, body, nowSeconds: timestamp })).toEqual({ ok: true });
  });

  it('refuses a changed body, a changed timestamp, another secret, a stale or missing header', () => {
    const signature = signWebhook(secret, timestamp, body);
    const check = (over: Partial<Parameters<typeof verifyWebhook>[0]>) => verifyWebhook({ secret, timestamp: String(timestamp), signature, body, nowSeconds: timestamp, ...over });
    expect(check({ body: body.replace('focus.terminal', 'problem.decided') })).toEqual({ ok: false, reason: 'bad_signature' });
    // Re-parsed and re-serialised JSON is not the raw body.
    expect(check({ body: JSON.stringify(JSON.parse(body), null, 1) })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(check({ timestamp: String(timestamp + 1), nowSeconds: timestamp })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(check({ secret: 'another-secret-of-32-characters!' })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(check({ nowSeconds: timestamp + 301 })).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(check({ timestamp: '1.8e9' })).toEqual({ ok: false, reason: 'bad_timestamp' });
    expect(check({ signature: undefined })).toEqual({ ok: false, reason: 'missing_headers' });
    expect(check({ signature: `v0=${signature.slice(3)}` })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(check({ signature: 'v1=zz' })).toEqual({ ok: false, reason: 'bad_signature' });
  });
});
