import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Agent, request, type Dispatcher } from 'undici';
import { claimDue, giveUpSpent, markDelivered, markFailed, type ClaimedNotification } from '../persistence/notification-store';
import { retryDelayMs, webhookOrigin, type Webhook } from './notification-config';
import { signWebhook, WEBHOOK_HEADERS } from './webhook-signature';

/**
 * Sends the outbox: claims one due notification at a time, POSTs its stored body, signed, to the
 * webhook (undici, with a connect, headers and body timeout and an overall deadline per attempt),
 * and marks the outcome: a 2xx is delivered; anything else (a status, a refused connection, a
 * timeout) is retried after `backoff · 2^(n-1)` up to the cap, and given up (`gave_up`, the error
 * kept) once the attempts are spent. A sender that dies between the POST and the mark leaves a
 * claim that expires; the notification is then sent again under the same id (at least once: the
 * receiver drops ids it already accepted). The URL and the secret never appear in an error.
 */

export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  /** Why the attempt failed (no URL, no secret). */
  error: string | null;
  retryAfterMs: number | null;
}

export interface DeliveryPass {
  claimed: number;
  delivered: number;
  retried: number;
  gaveUp: number;
}

export interface WebhookSenderOptions {
  /** undici dispatcher; a dedicated Agent with the timeouts by default. */
  dispatcher?: Dispatcher;
  now?: () => Date;
  /** How many notifications one pass sends at most. */
  batch?: number;
  /** How long a claim holds a notification (default: the timeout plus 30 s); it must outlast one attempt. */
  claimMs?: number;
  /** Runs between the POST and the mark (tests use it to kill the sender there). */
  afterSend?: (n: ClaimedNotification, outcome: SendOutcome) => void | Promise<void>;
}

const MAX_EXCERPT = 200;

/** `Retry-After` as milliseconds (delta-seconds or an HTTP date), or null. */
function retryAfterMsOf(header: string | string[] | undefined, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

async function excerptOf(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk as Uint8Array));
    size += (chunk as Uint8Array).length;
    if (size >= 4096) break;
  }
  if (!body.destroyed) body.destroy();
  return Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, MAX_EXCERPT);
}

export class WebhookSender {
  private readonly agent: Agent | null;
  private readonly dispatcher: Dispatcher;
  private readonly now: () => Date;
  private readonly claimMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly webhook: Webhook,
    private readonly options: WebhookSenderOptions = {},
  ) {
    this.agent = options.dispatcher ? null : new Agent({ connect: { timeout: webhook.timeoutMs }, headersTimeout: webhook.timeoutMs, bodyTimeout: webhook.timeoutMs });
    this.dispatcher = options.dispatcher ?? (this.agent as Agent);
    this.now = options.now ?? (() => new Date());
    this.claimMs = options.claimMs ?? webhook.timeoutMs + 30_000;
  }

  /** The origin the notifications go to (what may be shown). */
  get origin(): string {
    return webhookOrigin(this.webhook.url);
  }

  /** One attempt: the signed POST of the stored body. Never throws. */
  async post(n: ClaimedNotification): Promise<SendOutcome> {
    const timestamp = Math.floor(this.now().getTime() / 1000);
    const timeoutMs = this.webhook.timeoutMs;
    try {
      const response = await request(this.webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'auto-oncall-optimizer/1',
          [WEBHOOK_HEADERS.id]: n.notificationId,
          [WEBHOOK_HEADERS.kind]: n.kind,
          [WEBHOOK_HEADERS.attempt]: String(n.attempt),
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: signWebhook(this.webhook.secret, timestamp, n.body),
        },
        body: n.body,
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const excerpt = await excerptOf(response.body);
      if (response.statusCode >= 200 && response.statusCode < 300) return { ok: true, statusCode: response.statusCode, error: null, retryAfterMs: null };
      return { ok: false, statusCode: response.statusCode, error: `the receiver answered HTTP ${response.statusCode}${excerpt ? `: ${excerpt}` : ''}`, retryAfterMs: retryAfterMsOf(response.headers['retry-after'], this.now().getTime()) };
    } catch (error) {
      // undici's timeouts carry a code; the overall deadline is a DOMException named TimeoutError (whose legacy code is a number).
      const e = error as { code?: unknown; name?: unknown; cause?: { code?: unknown } } | null;
      const names = [e?.code, e?.name, e?.cause?.code].filter((x): x is string => typeof x === 'string');
      const timedOut = names.some((n) => ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'TimeoutError', 'AbortError'].includes(n));
      return { ok: false, statusCode: null, error: timedOut ? `no answer from ${this.origin} within ${timeoutMs} ms` : `the POST to ${this.origin} failed before a reply (${names[0] ?? 'unknown'})`, retryAfterMs: null };
    }
  }

  /** Sends what is due, one claim at a time, and gives up on notifications whose attempts are spent. */
  async deliverDue(): Promise<DeliveryPass> {
    const pass: DeliveryPass = { claimed: 0, delivered: 0, retried: 0, gaveUp: 0 };
    const m = this.dataSource.manager;
    pass.gaveUp += await giveUpSpent(m, this.webhook.maxAttempts, this.now());
    for (let i = 0; i < (this.options.batch ?? 20); i += 1) {
      const claimer = randomUUID();
      const [n] = await claimDue(m, { claimer, now: this.now(), claimMs: this.claimMs, maxAttempts: this.webhook.maxAttempts, limit: 1 });
      if (!n) break;
      pass.claimed += 1;
      const outcome = await this.post(n);
      // A throw here is a sender that died after sending: nothing is marked, the claim expires.
      await this.options.afterSend?.(n, outcome);
      const at = this.now();
      if (outcome.ok) {
        if (await markDelivered(m, n.notificationId, outcome.statusCode ?? 200, at)) pass.delivered += 1;
        continue;
      }
      const last = n.attempt >= this.webhook.maxAttempts;
      const next = last ? null : new Date(at.getTime() + retryDelayMs(n.attempt, this.webhook, outcome.retryAfterMs));
      const error = last ? `gave up after ${n.attempt} attempt(s): ${outcome.error ?? 'failed'}` : `attempt ${n.attempt} failed: ${outcome.error ?? 'failed'}`;
      if (await markFailed(m, n.notificationId, claimer, error, outcome.statusCode, next, at)) {
        if (last) pass.gaveUp += 1;
        else pass.retried += 1;
      }
    }
    return pass;
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }
}
