import { z } from 'zod';
import { ProviderError } from '../core/provider-error';
import { providerRequest, recordOf, type HttpCallRecord } from './http-client';

const LokiStreamsResponse = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('streams'),
    result: z.array(z.object({ stream: z.record(z.string(), z.string()), values: z.array(z.tuple([z.string().regex(/^\d{1,20}$/), z.string()])) })),
  }),
});

const LokiErrorResponse = z.object({ status: z.string(), error: z.string().optional(), message: z.string().optional() });

export interface LokiEndpoint {
  /** Base under which `/loki/api/v1/query_range` is served. */
  baseUrl: string;
  headers?: Record<string, string>;
  secrets?: readonly string[];
}

export interface LokiEntry {
  /** Epoch nanoseconds as Loki sends them (strings keep full precision). */
  timestampNs: string;
  line: string;
}

export interface LokiStream {
  labels: Record<string, string>;
  entries: LokiEntry[];
}

export interface LokiRangeQuery {
  logql: string;
  startMs: number;
  endMs: number;
  /** Most entries Loki may return; the package chooses it, never the caller alone. */
  limit: number;
  direction?: 'backward' | 'forward';
}

export interface LokiRangeResult {
  streams: LokiStream[];
  entryCount: number;
  /** Loki stopped at `limit`: there may be more lines in the window. */
  hitLimit: boolean;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Loki-style `query_range` client for log queries (streams only). Rejections keep Loki's own
 * words; retries and attempt records come from the shared provider HTTP client.
 */
export async function queryLokiRange(
  endpoint: LokiEndpoint,
  query: LokiRangeQuery,
  options: { signal?: AbortSignal; retryDelaysMs?: readonly number[]; maxResponseBytes?: number } = {},
): Promise<{ result: LokiRangeResult; record: HttpCallRecord }> {
  const params = new URLSearchParams({
    query: query.logql,
    start: `${BigInt(Math.floor(query.startMs)) * 1_000_000n}`,
    end: `${BigInt(Math.floor(query.endMs)) * 1_000_000n}`,
    limit: String(query.limit),
    direction: query.direction ?? 'backward',
  });
  let response: Awaited<ReturnType<typeof providerRequest>>;
  try {
    response = await providerRequest({
      url: `${endpoint.baseUrl.replace(/\/$/, '')}/loki/api/v1/query_range?${params.toString()}`,
      method: 'GET',
      headers: { accept: 'application/json', ...(endpoint.headers ?? {}) },
      signal: options.signal,
      secrets: endpoint.secrets,
      retryDelaysMs: options.retryDelaysMs,
      maxResponseBytes: options.maxResponseBytes ?? 8 * 1024 * 1024,
    });
  } catch (error) {
    // Loki explains a rejected LogQL in its body (plain text or JSON); that text is the detail.
    if (error instanceof ProviderError && error.code === 'PROVIDER.HTTP_4XX' && (error.details['httpStatus'] === 400 || error.details['httpStatus'] === 422)) {
      const parsed = LokiErrorResponse.safeParse(safeJson(error.detail));
      const detail = parsed.success ? (parsed.data.error ?? parsed.data.message ?? error.detail) : error.detail;
      throw Object.assign(new ProviderError('PROVIDER.QUERY_REJECTED', detail), { record: recordOf(error) });
    }
    throw error;
  }
  const parsed = LokiStreamsResponse.safeParse(safeJson(response.body));
  if (!parsed.success) throw Object.assign(new ProviderError('PROVIDER.RESPONSE_INVALID', 'the provider answered with a body that is not a Loki streams response'), { record: response.record });
  const streams = parsed.data.data.result.map((s) => ({ labels: s.stream, entries: s.values.map(([timestampNs, line]) => ({ timestampNs, line })) }));
  const entryCount = streams.reduce((n, s) => n + s.entries.length, 0);
  return { result: { streams, entryCount, hitLimit: entryCount >= query.limit }, record: response.record };
}
