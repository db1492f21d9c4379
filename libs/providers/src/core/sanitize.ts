import { createHash } from 'node:crypto';

/**
 * Sanitisation applied before anything leaves a provider package. It is deliberately
 * conservative: a false redaction costs a little evidence, a leak costs trust.
 */

const BILLING_KEY = /(cost|billing|bill|price|pricing|sku|invoice|charge|machine[_-]?type|instance[_-]?type|node[_-]?spec)/i;
const RAW_SQL_KEY = /^(sql|sql_text|query_text|digest_text|normalized_sql|prev_sql|plan|plan_text|raw|raw_response|body|log_line|message|connection_id)$/i;
const SECRETISH_KEY = /(pass(word)?|secret|token|authorization|api[-_]?key|credential|cookie|session)/i;

const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g;
const IPV6 = /\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{1,4}\b/gi;
const URL_HOST = /\b(?:https?|postgres(?:ql)?|mysql|grpc|tcp):\/\/[^\s"'<>]+/gi;
const INTERNAL_HOST = /\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:internal|local|lan|corp|svc|cluster\.local|intranet)(?::\d{1,5})?\b/gi;
const BEARER = /\b(?:bearer|basic)\s+[a-z0-9._~+/=-]{8,}/gi;
const KEY_VALUE_SECRET = /\b(pass(?:word)?|secret|token|api[-_]?key)\s*[=:]\s*[^\s,;&]+/gi;

export interface SanitizeOptions {
  /** Exact secret values known to the package (credentials); always redacted. */
  secrets?: readonly string[];
  /** Longest string kept; longer ones are cut with a marker. */
  maxStringLength?: number;
}

export function redactText(text: string, options: SanitizeOptions = {}): string {
  let out = text;
  for (const secret of options.secrets ?? []) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  out = out
    .replace(BEARER, '[redacted-credential]')
    .replace(KEY_VALUE_SECRET, (_m, key: string) => `${key}=[redacted]`)
    .replace(URL_HOST, '[redacted-url]')
    .replace(INTERNAL_HOST, '[redacted-host]')
    .replace(IPV4, '[redacted-address]')
    .replace(IPV6, '[redacted-address]');
  const max = options.maxStringLength ?? 2000;
  return out.length > max ? `${out.slice(0, max)}…[truncated]` : out;
}

/** Opaque, stable reference for a value that must not be shown (SQL text, full digest). */
export function opaqueRef(kind: string, value: string): string {
  return `${kind}:${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
}

/**
 * Deep-sanitises a structured result: drops billing and secret-looking keys, replaces raw SQL /
 * raw response fields by opaque references, and redacts addresses and secrets in every string.
 */
export function sanitizeValue(value: unknown, options: SanitizeOptions = {}, depth = 0): unknown {
  if (depth > 12) return '[truncated-depth]';
  if (typeof value === 'string') return redactText(value, options);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => sanitizeValue(v, options, depth + 1));
  if (typeof value === 'object' && value !== undefined) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (BILLING_KEY.test(key) || SECRETISH_KEY.test(key)) continue;
      if (RAW_SQL_KEY.test(key)) {
        if (typeof v === 'string') out[`${key}_ref`] = opaqueRef(key.toLowerCase(), v);
        continue;
      }
      out[key] = sanitizeValue(v, options, depth + 1);
    }
    return out;
  }
  return null;
}
