import { request } from 'undici';
import { ProviderError } from '../core/provider-error';
import { redactText } from '../core/sanitize';

export type StatusClass = '200' | '400' | '500' | '502' | 'other';

export function statusClassOf(status: number): StatusClass {
  if (status >= 200 && status < 300) return '200';
  if (status === 502) return '502';
  if (status >= 400 && status < 500) return '400';
  if (status >= 500 && status < 600) return '500';
  return 'other';
}

export interface HttpAttempt {
  status: number;
  statusClass: StatusClass;
  at: string;
  durationMs: number;
}

/** A provider 5xx episode: what was seen, whether retries recovered, the redacted upstream error. */
export interface SystemEvent {
  statusSequence: number[];
  result: 'recovered' | 'failed';
  upstreamError: string;
  requestId: string | null;
}

export interface HttpCallRecord {
  attempts: HttpAttempt[];
  systemEvent: SystemEvent | null;
}

export interface HttpRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Delays before the retries after a 5xx; the identical request is retried at most this many times. */
  retryDelaysMs?: readonly number[];
  maxResponseBytes?: number;
  secrets?: readonly string[];
}

export interface HttpResponse {
  status: number;
  body: string;
  record: HttpCallRecord;
}

const DEFAULT_RETRY_DELAYS = [250, 1000] as const;

async function readLimited(body: AsyncIterable<Buffer | Uint8Array>, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) throw new ProviderError('PROVIDER.OUTPUT_TOO_LARGE', `provider response exceeds ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One read-only provider request. A 5xx is retried (the identical request, at most twice by
 * default, with bounded delays); a 4xx is returned as a rejection and never retried unchanged.
 * Every response attempt is recorded by status class, and 5xx episodes become system events.
 */
export async function providerRequest(req: HttpRequest): Promise<HttpResponse> {
  const delays = req.retryDelaysMs ?? DEFAULT_RETRY_DELAYS;
  const attempts: HttpAttempt[] = [];
  const sequence: number[] = [];
  let lastError = '';
  let requestId: string | null = null;
  for (let attempt = 0; ; attempt++) {
    const started = Date.now();
    let status: number;
    let text: string;
    try {
      const res = await request(req.url, { method: req.method, headers: req.headers, body: req.body, signal: req.signal, headersTimeout: 60_000, bodyTimeout: 60_000 });
      status = res.statusCode;
      const rid = res.headers['x-request-id'];
      if (typeof rid === 'string') requestId = rid.slice(0, 128);
      text = await readLimited(res.body, req.maxResponseBytes ?? 8 * 1024 * 1024);
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      if (req.signal?.aborted) throw new ProviderError('PROVIDER.TIMEOUT', 'provider request was cancelled by its deadline', { retryable: true });
      const message = error instanceof Error ? error.message : String(error);
      throw new ProviderError(/terminated|premature|other side closed/i.test(message) ? 'PROVIDER.RESPONSE_INVALID' : 'PROVIDER.UNREACHABLE', redactText(`provider connection failed: ${message}`, { secrets: req.secrets }), { retryable: true });
    }
    attempts.push({ status, statusClass: statusClassOf(status), at: new Date(started).toISOString(), durationMs: Date.now() - started });
    if (status >= 500 && status < 600) {
      sequence.push(status);
      lastError = redactText(text.slice(0, 500), { secrets: req.secrets, maxStringLength: 500 });
      if (attempt < delays.length) {
        await new Promise((r) => setTimeout(r, delays[attempt]));
        if (req.signal?.aborted) throw new ProviderError('PROVIDER.TIMEOUT', 'provider request was cancelled by its deadline', { retryable: true });
        continue;
      }
      const record: HttpCallRecord = { attempts, systemEvent: { statusSequence: sequence, result: 'failed', upstreamError: lastError, requestId } };
      throw Object.assign(new ProviderError('PROVIDER.HTTP_5XX', `provider answered ${sequence.join(', ')}: ${lastError}`, { httpStatus: status, retryable: false }), { record });
    }
    if (sequence.length > 0) sequence.push(status);
    const record: HttpCallRecord = {
      attempts,
      systemEvent: sequence.length > 0 ? { statusSequence: sequence, result: 'recovered', upstreamError: lastError, requestId } : null,
    };
    if (status >= 400) {
      // The provider's own rejection text, credential-redacted, is the detail: no re-diagnosis.
      throw Object.assign(new ProviderError('PROVIDER.HTTP_4XX', redactText(text.slice(0, 1000), { secrets: req.secrets, maxStringLength: 1000 }), { httpStatus: status }), { record });
    }
    return { status, body: text, record };
  }
}

/** The call record attached to a ProviderError thrown by providerRequest, if any. */
export function recordOf(error: unknown): HttpCallRecord | null {
  const record = (error as { record?: HttpCallRecord } | null)?.record;
  return record ?? null;
}
