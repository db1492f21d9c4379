import { request, type Dispatcher } from 'undici';
import { jiraAuthorizationOf, jiraSecretsOf, type ParsedJiraTicketSourceConfig } from './jira-ticket-source.config';
import { ticketSourceError, type TicketSourceErrorCode } from './ticket-source.errors';

export interface JiraHttpOptions {
  /** undici dispatcher (Agent/Pool); the global one by default. */
  dispatcher?: Dispatcher;
  /** Waits between retries; injectable so tests need not wait. */
  sleep?: (ms: number) => Promise<void>;
}

export interface JiraCall {
  method: 'GET' | 'POST' | 'PUT';
  /** Path below the base URL, e.g. `/rest/api/2/issue/SUP-1`. */
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
  /**
   * Whether a failure after which the server may have acted (5xx, network error, timeout) may be
   * retried here. False for POST: the caller checks what was written before trying again.
   */
  retryAmbiguous: boolean;
}

/** A failed attempt: what to throw if it is the last one, and whether it may be retried. */
interface Failure {
  code: TicketSourceErrorCode;
  message: string;
  details: Record<string, unknown>;
  retryable: boolean;
  retryAfterMs: number | null;
}

const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `Retry-After` as milliseconds (delta-seconds or an HTTP date), or null. */
export function retryAfterMsOf(header: string | string[] | undefined, now: number = Date.now()): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Jira's `errorMessages` / `errors` of an error body, else a short excerpt of the text. */
function upstreamMessageOf(text: string): string {
  let message = text;
  try {
    const json = JSON.parse(text) as { errorMessages?: unknown; errors?: unknown; message?: unknown };
    const parts: string[] = [];
    if (Array.isArray(json.errorMessages)) parts.push(...json.errorMessages.filter((m): m is string => typeof m === 'string'));
    if (json.errors && typeof json.errors === 'object') {
      for (const [field, value] of Object.entries(json.errors as Record<string, unknown>)) parts.push(`${field}: ${String(value)}`);
    }
    if (typeof json.message === 'string') parts.push(json.message);
    if (parts.length > 0) message = parts.join('; ');
  } catch {
    // Not JSON: keep the raw excerpt.
  }
  return message.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * The adapter's HTTP client over undici: JSON in and out, one timeout per request, bounded
 * retries after 429 (always: Jira did not act) and after 5xx, network errors and timeouts (only
 * when `retryAmbiguous`), honouring `Retry-After` up to `retryAfterCapMs`. 401/403 become
 * `TICKET_SOURCE.AUTH_FAILED`, 404 `TICKET_SOURCE.NOT_FOUND`. The credential is sent in the
 * `Authorization` header only and is redacted from every message this client produces.
 */
export class JiraHttpClient {
  private readonly base: string;
  private readonly authorization: string;
  private readonly secrets: string[];
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly config: ParsedJiraTicketSourceConfig,
    private readonly options: JiraHttpOptions = {},
  ) {
    this.base = config.baseUrl.replace(/\/+$/, '');
    this.authorization = jiraAuthorizationOf(config);
    this.secrets = jiraSecretsOf(config).filter((s) => s.length >= 4);
    this.sleep = options.sleep ?? sleepFor;
  }

  /** Removes the credential from any text (a server may echo it). */
  redact(text: string): string {
    return this.secrets.reduce((out, s) => out.split(s).join('***'), text);
  }

  /** The delay before retry number `retry` (1-based). */
  backoffMs(retry: number, retryAfterMs: number | null): number {
    const cap = this.config.retryAfterCapMs;
    if (retryAfterMs !== null) return Math.min(retryAfterMs, cap);
    return Math.min(cap, this.config.retryBaseDelayMs * 2 ** (retry - 1));
  }

  /** Waits before retry number `retry` (1-based). */
  waitBeforeRetry(retry: number, retryAfterMs: number | null): Promise<void> {
    return this.sleep(this.backoffMs(retry, retryAfterMs));
  }

  async json(call: JiraCall): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(call);
      if (!('code' in outcome)) return outcome.json;
      if (!outcome.retryable || attempt > this.config.maxRetries) {
        const after = attempt > 1 ? ` (${attempt} attempts)` : '';
        throw ticketSourceError(outcome.code, this.redact(outcome.message + after), { request: `${call.method} ${call.path}`, attempts: attempt, ...outcome.details, ...(outcome.retryAfterMs !== null ? { retryAfterMs: outcome.retryAfterMs } : {}) });
      }
      await this.waitBeforeRetry(attempt, outcome.retryAfterMs);
    }
  }

  private url(call: JiraCall): string {
    const url = new URL(this.base + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, String(value));
    return url.toString();
  }

  private async attempt(call: JiraCall): Promise<{ json: unknown } | Failure> {
    const what = `${call.method} ${call.path}`;
    const fail = (code: TicketSourceErrorCode, message: string, retryable: boolean, details: Record<string, unknown> = {}, retryAfterMs: number | null = null): Failure => ({
      code,
      message,
      details,
      retryable,
      retryAfterMs,
    });
    const timeoutMs = this.config.timeoutMs;
    let status: number;
    let text: string;
    let retryAfter: string | string[] | undefined;
    try {
      const response = await request(this.url(call), {
        method: call.method,
        headers: {
          authorization: this.authorization,
          accept: 'application/json',
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(timeoutMs),
        dispatcher: this.options.dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      retryAfter = response.headers['retry-after'];
      text = await readLimited(response.body);
    } catch (error) {
      if (error instanceof ResponseTooLarge) return fail('TICKET_SOURCE.RESPONSE_INVALID', `Jira response to ${what} exceeds ${MAX_RESPONSE_BYTES} bytes`, false);
      const code = (error as { code?: unknown; name?: unknown } | null)?.code ?? (error as { name?: unknown } | null)?.name;
      const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'TimeoutError' || code === 'AbortError';
      if (timedOut) return fail('TICKET_SOURCE.TIMEOUT', `Jira did not answer ${what} within ${timeoutMs} ms`, call.retryAmbiguous, { timeoutMs });
      return fail('TICKET_SOURCE.UNAVAILABLE', `Jira request ${what} failed before a reply (${String(code ?? 'unknown')})`, call.retryAmbiguous);
    }

    if (status >= 200 && status < 300) {
      if (text.trim() === '') return { json: null };
      try {
        return { json: JSON.parse(text) as unknown };
      } catch {
        return fail('TICKET_SOURCE.RESPONSE_INVALID', `Jira answered ${what} with a body that is not JSON`, false, { status });
      }
    }
    const upstream = upstreamMessageOf(text);
    const suffix = upstream ? `: ${upstream}` : '';
    const details = { status };
    if (status === 401 || status === 403) return fail('TICKET_SOURCE.AUTH_FAILED', `Jira rejected the credentials for ${what} (HTTP ${status})${suffix}`, false, details);
    if (status === 404) return fail('TICKET_SOURCE.NOT_FOUND', `Jira has no such resource for ${what} (HTTP 404)${suffix}`, false, details);
    if (status === 429) {
      return fail('TICKET_SOURCE.UNAVAILABLE', `Jira rate-limited ${what} (HTTP 429)${suffix}`, true, details, retryAfterMsOf(retryAfter));
    }
    if (status >= 500) return fail('TICKET_SOURCE.UNAVAILABLE', `Jira failed ${what} (HTTP ${status})${suffix}`, call.retryAmbiguous, details, retryAfterMsOf(retryAfter));
    return fail('TICKET_SOURCE.REQUEST_REJECTED', `Jira rejected ${what} (HTTP ${status})${suffix}`, false, details);
  }
}

class ResponseTooLarge extends Error {}

async function readLimited(body: AsyncIterable<Buffer | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) throw new ResponseTooLarge();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
