import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The webhook's signature: `x-aoc-signature: v1=<hex>` where `<hex>` is HMAC-SHA256, keyed with the
 * configured secret, over `<timestamp>.<raw body>` and `<timestamp>` is the `x-aoc-timestamp`
 * header (Unix seconds of the attempt). Signing the timestamp with the body makes a captured
 * request useless after the tolerance window: a receiver checks the signature on the raw bytes
 * (before parsing), the timestamp against its clock, and then the notification id against the ids
 * it already accepted.
 */

export const WEBHOOK_HEADERS = {
  id: 'x-aoc-notification-id',
  kind: 'x-aoc-notification-kind',
  attempt: 'x-aoc-delivery-attempt',
  timestamp: 'x-aoc-timestamp',
  signature: 'x-aoc-signature',
} as const;

export const SIGNATURE_VERSION = 'v1';
/** How far a receiver should accept a timestamp from its own clock (seconds). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The hex HMAC-SHA256 of `<timestamp>.<body>`. */
export function webhookDigest(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** The signature header's value for one attempt. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `${SIGNATURE_VERSION}=${webhookDigest(secret, timestamp, body)}`;
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature' };

/**
 * What a receiver does (and the tests do): the timestamp within `toleranceSeconds` of `nowSeconds`
 * and one of the signature header's `v1=` values equal (in constant time) to the digest of the raw
 * body. The header may carry several comma-separated values (a secret being rotated).
 */
export function verifyWebhook(input: { secret: string; timestamp: string | undefined; signature: string | undefined; body: string; nowSeconds: number; toleranceSeconds?: number }): VerifyResult {
  if (!input.timestamp || !input.signature) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(input.timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const timestamp = Number(input.timestamp);
  if (Math.abs(input.nowSeconds - timestamp) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return { ok: false, reason: 'stale_timestamp' };
  const expected = Buffer.from(webhookDigest(input.secret, timestamp, input.body), 'hex');
  for (const part of input.signature.split(',')) {
    const [version, hex] = part.trim().split('=', 2);
    if (version !== SIGNATURE_VERSION || !hex || !/^[0-9a-f]{64}$/i.test(hex)) continue;
    if (timingSafeEqual(Buffer.from(hex, 'hex'), expected)) return { ok: true };
  }
  return { ok: false, reason: 'bad_signature' };
}
