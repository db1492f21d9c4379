import type { AocError } from '@aoc/errors';
import { modelMetrics } from '@aoc/telemetry';
import { request as httpRequest, type Dispatcher } from 'undici';
import { z } from 'zod';
import type { RoleModelConfig } from '../agent-runtime.config';
import { isTransientModelCode, modelError, redactSecrets, type ModelErrorCode } from '../model.errors';
import type { EngineResult, ModelEngine, ModelRequest, TokenUsage } from '../model-port';
import { schemaName, strictJsonSchema } from './strict-json-schema';

export type OpenAiRoleConfig = Extract<RoleModelConfig, { engine: 'openai' }>;

export interface RetryTiming {
  /** First backoff delay; doubles per retry, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_TIMING: RetryTiming = { baseDelayMs: 500, maxDelayMs: 8000 };

export interface OpenAiChatEngineOptions {
  config: OpenAiRoleConfig;
  retry?: RetryTiming;
  /** undici dispatcher (connection pool); the global one by default. */
  dispatcher?: Dispatcher;
  sleep?: (ms: number) => Promise<void>;
}

/** The parts of a chat-completions response this client reads; anything else is ignored. */
const ChatCompletionResponse = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullable().optional(),
        message: z.object({
          content: z.string().nullable().optional(),
          refusal: z.string().nullable().optional(),
        }),
      }),
    )
    .min(1),
  usage: z
    .object({ prompt_tokens: z.number().int().nonnegative(), completion_tokens: z.number().int().nonnegative() })
    .nullable()
    .optional(),
});

type Attempt<T> =
  | { ok: true; output: T; model: string; usage: TokenUsage | null }
  | { ok: false; code: ModelErrorCode; message: string; details: Record<string, unknown>; usage: TokenUsage | null; retryAfterMs: number | null };

/** Invalid output (not JSON, or not matching the schema) is asked for again once. */
const OUTPUT_RETRIES = 1;
const RETRY_AFTER_CAP_MS = 30000;

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function addUsage(total: TokenUsage | null, more: TokenUsage | null): TokenUsage | null {
  if (!more) return total;
  if (!total) return { ...more };
  return { promptTokens: total.promptTokens + more.promptTokens, completionTokens: total.completionTokens + more.completionTokens };
}

function firstIssue(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  return { field: issue?.path.join('.') || '(root)', message: issue?.message ?? 'invalid' };
}

/**
 * OpenAI-compatible chat-completions client with JSON-schema structured output. One instance per
 * role (model, base URL, key, timeout and retry budget come from the role's configuration).
 *
 * Retries, with exponential backoff and jitter, only what may pass on a second try: HTTP 429,
 * 5xx, network errors and timeouts, up to `maxRetries`. Other 4xx are not retried. A reply that
 * is not JSON or does not match the schema is asked for once more; refusals and truncated
 * replies fail at once. The API key is sent as a bearer token and nowhere else.
 */
export class OpenAiChatEngine implements ModelEngine {
  readonly kind = 'openai' as const;
  private readonly retry: RetryTiming;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: OpenAiChatEngineOptions) {
    this.retry = options.retry ?? DEFAULT_RETRY_TIMING;
    this.sleep = options.sleep ?? sleepFor;
  }

  get model(): string {
    return this.options.config.model;
  }

  async invoke<T>(request: ModelRequest<T>): Promise<EngineResult<T>> {
    const { config } = this.options;
    const body = JSON.stringify({
      model: config.model,
      messages: [
        { role: 'system', content: request.instructions.text },
        { role: 'user', content: JSON.stringify(request.input) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: schemaName(request.instructions.id), strict: true, schema: strictJsonSchema(request.output) },
      },
    });
    let attempts = 0;
    let transientRetries = 0;
    let outputRetries = 0;
    let usage: TokenUsage | null = null;
    for (;;) {
      attempts += 1;
      const timer = modelMetrics.callDuration.startTimer();
      const outcome = await this.attempt(request, body);
      timer({ agent_role: request.role, outcome: outcome.ok ? 'ok' : outcome.code });
      if (outcome.usage) {
        modelMetrics.tokens.add({ agent_role: request.role, type: 'prompt' }, outcome.usage.promptTokens);
        modelMetrics.tokens.add({ agent_role: request.role, type: 'completion' }, outcome.usage.completionTokens);
      }
      usage = addUsage(usage, outcome.usage);
      if (outcome.ok) return { output: outcome.output, model: outcome.model, usage, attempts };
      if (isTransientModelCode(outcome.code) && transientRetries < config.maxRetries) {
        transientRetries += 1;
        await this.sleep(this.backoff(transientRetries, outcome.retryAfterMs));
        continue;
      }
      if ((outcome.code === 'MODEL.OUTPUT_INVALID' || outcome.code === 'MODEL.RESPONSE_INVALID') && outputRetries < OUTPUT_RETRIES) {
        outputRetries += 1;
        continue;
      }
      throw this.fail(outcome.code, `${outcome.message} (role ${request.role}, model ${config.model}, ${attempts} attempt${attempts === 1 ? '' : 's'})`, {
        ...outcome.details,
        role: request.role,
        model: config.model,
        attempts,
      });
    }
  }

  private fail(code: ModelErrorCode, message: string, details: Record<string, unknown>): AocError {
    return modelError(code, this.redact(message), details);
  }

  private redact(text: string): string {
    return redactSecrets(text, this.options.config.apiKey ? [this.options.config.apiKey] : []);
  }

  private backoff(retry: number, retryAfterMs: number | null): number {
    const exp = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (retry - 1));
    const jittered = exp / 2 + Math.random() * (exp / 2);
    return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
  }

  private async attempt<T>(request: ModelRequest<T>, body: string): Promise<Attempt<T>> {
    const { config } = this.options;
    const failure = (code: ModelErrorCode, message: string, details: Record<string, unknown> = {}, extra: { usage?: TokenUsage | null; retryAfterMs?: number | null } = {}): Attempt<T> => ({
      ok: false,
      code,
      message,
      details,
      usage: extra.usage ?? null,
      retryAfterMs: extra.retryAfterMs ?? null,
    });
    const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (config.apiKey) headers['authorization'] = `Bearer ${config.apiKey}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), config.timeoutMs);
    let status: number;
    let text: string;
    let retryAfter: string | null = null;
    try {
      const response = await httpRequest(url, {
        method: 'POST',
        headers,
        body,
        signal: controller.signal,
        dispatcher: this.options.dispatcher,
        headersTimeout: config.timeoutMs,
        bodyTimeout: config.timeoutMs,
      });
      status = response.statusCode;
      const header = response.headers['retry-after'];
      retryAfter = Array.isArray(header) ? (header[0] ?? null) : (header ?? null);
      text = await response.body.text();
    } catch (error) {
      if (controller.signal.aborted) return failure('MODEL.TIMEOUT', `no complete reply within ${config.timeoutMs} ms`, { timeoutMs: config.timeoutMs });
      const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : 'UNKNOWN';
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
        return failure('MODEL.TIMEOUT', `no complete reply within ${config.timeoutMs} ms`, { timeoutMs: config.timeoutMs });
      }
      return failure('MODEL.NETWORK_ERROR', `request failed before a reply (${code})`, { cause: code });
    } finally {
      clearTimeout(timer);
    }

    if (status < 200 || status >= 300) {
      const upstream = this.redact(upstreamMessage(text));
      const suffix = upstream ? `: ${upstream}` : '';
      if (status === 429) return failure('MODEL.RATE_LIMITED', `HTTP 429 from the model API${suffix}`, { status }, { retryAfterMs: parseRetryAfter(retryAfter) });
      if (status >= 500) return failure('MODEL.UPSTREAM_UNAVAILABLE', `HTTP ${status} from the model API${suffix}`, { status });
      return failure('MODEL.REQUEST_REJECTED', `HTTP ${status} from the model API${suffix}`, { status });
    }

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return failure('MODEL.RESPONSE_INVALID', 'the model API replied with a body that is not JSON');
    }
    const envelope = ChatCompletionResponse.safeParse(json);
    if (!envelope.success) {
      const issue = firstIssue(envelope.error);
      return failure('MODEL.RESPONSE_INVALID', `the model API reply is not a chat completion: field "${issue.field}": ${issue.message}`, { field: issue.field });
    }
    const usage = envelope.data.usage ? { promptTokens: envelope.data.usage.prompt_tokens, completionTokens: envelope.data.usage.completion_tokens } : null;
    const choice = envelope.data.choices[0];
    const model = envelope.data.model ?? config.model;
    if (choice.message.refusal) {
      return failure('MODEL.REFUSED', 'the model refused to answer', { refusal: this.redact(choice.message.refusal).slice(0, 300) }, { usage });
    }
    if (choice.finish_reason === 'content_filter') return failure('MODEL.REFUSED', 'the reply was withheld by a content filter', {}, { usage });
    if (choice.finish_reason === 'length') return failure('MODEL.TRUNCATED', 'the reply was cut off at the token limit (finish_reason=length)', {}, { usage });
    const content = choice.message.content;
    if (!content) return failure('MODEL.OUTPUT_INVALID', 'the reply has no content', { field: '(root)' }, { usage });
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      return failure('MODEL.OUTPUT_INVALID', 'the reply content is not valid JSON', { field: '(root)' }, { usage });
    }
    const output = request.output.safeParse(parsed);
    if (!output.success) {
      const issue = firstIssue(output.error);
      return failure('MODEL.OUTPUT_INVALID', `the reply does not match the output schema: field "${issue.field}": ${issue.message}`, { field: issue.field }, { usage });
    }
    return { ok: true, output: output.data, model, usage };
  }
}

/** The `error.message` of an OpenAI-style error body, else a short excerpt. */
function upstreamMessage(text: string): string {
  let message = text;
  try {
    const json = JSON.parse(text) as unknown;
    if (typeof json === 'object' && json !== null && 'error' in json) {
      const error = (json as { error: unknown }).error;
      if (typeof error === 'string') message = error;
      else if (typeof error === 'object' && error !== null && 'message' in error && typeof (error as { message: unknown }).message === 'string') {
        message = (error as { message: string }).message;
      }
    }
  } catch {
    // Not JSON: keep the raw excerpt.
  }
  return message.replace(/\s+/g, ' ').trim().slice(0, 300);
}

function parseRetryAfter(value: string | null): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}
