import { loadConfig, secret } from '@aoc/config';
import { z } from 'zod';

/**
 * Where the optimizer's terminal results are sent: one webhook (a JSON POST signed with
 * HMAC-SHA256). Without `AOC_OPTIMIZER_WEBHOOK_URL` nothing is sent: each result is still recorded,
 * as `not_configured`. The URL (a chat webhook's path often is its token) and the secret are
 * secrets: never logged, never shown; the pages show the URL's origin only.
 */

/** The settings a webhook needs; both or neither. */
export const NotificationConfigShape = {
  AOC_OPTIMIZER_WEBHOOK_URL: secret(
    z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(2000)
      .optional(),
  ),
  /** The HMAC-SHA256 key: at least 16 characters. */
  AOC_OPTIMIZER_WEBHOOK_SECRET: secret(z.string().min(16, 'must be at least 16 characters').max(4096).optional()),
  /** Attempts per notification before it is given up (`gave_up`, kept and shown). */
  AOC_OPTIMIZER_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(10),
  /** One attempt's budget: connecting, the response headers and the body each within it. */
  AOC_OPTIMIZER_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** The wait after the first failed attempt; it doubles per attempt up to the cap. */
  AOC_OPTIMIZER_WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
  AOC_OPTIMIZER_WEBHOOK_BACKOFF_CAP_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
  /** How often the sender looks for due notifications. */
  AOC_OPTIMIZER_WEBHOOK_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
};

export const NotificationConfig = z.object(NotificationConfigShape).superRefine((c, ctx) => {
  if (c.AOC_OPTIMIZER_WEBHOOK_URL !== undefined && c.AOC_OPTIMIZER_WEBHOOK_SECRET === undefined) ctx.addIssue({ code: 'custom', path: ['AOC_OPTIMIZER_WEBHOOK_SECRET'], message: 'is required with AOC_OPTIMIZER_WEBHOOK_URL (every notification is signed)' });
  if (c.AOC_OPTIMIZER_WEBHOOK_URL === undefined && c.AOC_OPTIMIZER_WEBHOOK_SECRET !== undefined) ctx.addIssue({ code: 'custom', path: ['AOC_OPTIMIZER_WEBHOOK_URL'], message: 'is required with AOC_OPTIMIZER_WEBHOOK_SECRET' });
  if (c.AOC_OPTIMIZER_WEBHOOK_BACKOFF_CAP_MS < c.AOC_OPTIMIZER_WEBHOOK_BACKOFF_MS) ctx.addIssue({ code: 'custom', path: ['AOC_OPTIMIZER_WEBHOOK_BACKOFF_CAP_MS'], message: 'must be at least AOC_OPTIMIZER_WEBHOOK_BACKOFF_MS' });
});

export interface Webhook {
  url: string;
  secret: string;
  maxAttempts: number;
  timeoutMs: number;
  backoffMs: number;
  backoffCapMs: number;
  pollMs: number;
}

/** The webhook, or null when none is configured. A bad setting throws `ConfigError` naming the key, never a secret's value. */
export function webhookFromEnv(env: Record<string, string | undefined> = process.env): Webhook | null {
  const c = loadConfig('optimizer', NotificationConfig, env);
  if (c.AOC_OPTIMIZER_WEBHOOK_URL === undefined || c.AOC_OPTIMIZER_WEBHOOK_SECRET === undefined) return null;
  return {
    url: c.AOC_OPTIMIZER_WEBHOOK_URL,
    secret: c.AOC_OPTIMIZER_WEBHOOK_SECRET,
    maxAttempts: c.AOC_OPTIMIZER_WEBHOOK_MAX_ATTEMPTS,
    timeoutMs: c.AOC_OPTIMIZER_WEBHOOK_TIMEOUT_MS,
    backoffMs: c.AOC_OPTIMIZER_WEBHOOK_BACKOFF_MS,
    backoffCapMs: c.AOC_OPTIMIZER_WEBHOOK_BACKOFF_CAP_MS,
    pollMs: c.AOC_OPTIMIZER_WEBHOOK_POLL_MS,
  };
}

/**
 * Whether a result written now is to be sent (`pending`) or only recorded (`not_configured`): the
 * process that produces the result decides, by its own configuration. A setting it cannot parse
 * counts as configured, so a typo never silently drops a notification (the sender refuses to start
 * on it, naming the key).
 */
export function deliveryOnWrite(env: Record<string, string | undefined> = process.env): 'pending' | 'not_configured' {
  const url = env['AOC_OPTIMIZER_WEBHOOK_URL'];
  if (url === undefined || url === '') return 'not_configured';
  return 'pending';
}

/** The URL without path, query or credentials: what may be shown or logged. */
export function webhookOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

/** The wait before attempt `attempts + 1`, after `attempts` failed ones: `backoffMs · 2^(attempts-1)`, at most the cap (a `Retry-After` may ask for longer, up to the cap). */
export function retryDelayMs(attempts: number, webhook: Pick<Webhook, 'backoffMs' | 'backoffCapMs'>, retryAfterMs: number | null = null): number {
  const exponential = webhook.backoffMs * 2 ** Math.max(0, Math.min(attempts - 1, 40));
  return Math.min(webhook.backoffCapMs, Math.max(exponential, retryAfterMs ?? 0));
}
