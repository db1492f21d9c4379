import pLimit from 'p-limit';
import { ProviderError } from './provider-error';

export interface BatchLimits {
  concurrency: number;
  /** Execution budget shared by the waves, e.g. 108 s. */
  budgetMs: number;
  /** Hard limit of the whole batch, e.g. 120 s. */
  outerMs: number;
}

export const CLINIC_BATCH_LIMITS: BatchLimits = { concurrency: 6, budgetMs: 108_000, outerMs: 120_000 };

export type QueryOutcome<R> = { ok: true; value: R; startedAt: number; durationMs: number } | { ok: false; error: ProviderError; startedAt: number; durationMs: number };

/** Per-query timeout: the budget divided by the number of concurrency waves. */
export function perQueryTimeoutMs(queryCount: number, limits: BatchLimits): number {
  const waves = Math.max(1, Math.ceil(queryCount / limits.concurrency));
  return Math.floor(limits.budgetMs / waves);
}

/**
 * Runs independent queries with bounded concurrency. Each query's clock starts when it is
 * scheduled (not when the batch starts), so a slow first wave cannot starve later ones; the
 * outer limit still stops everything.
 */
export async function runBatch<Q extends { id: string }, R>(
  queries: readonly Q[],
  run: (query: Q, signal: AbortSignal) => Promise<R>,
  limits: BatchLimits = CLINIC_BATCH_LIMITS,
  outerSignal?: AbortSignal,
): Promise<Map<string, QueryOutcome<R>>> {
  const limit = pLimit(limits.concurrency);
  const perQuery = perQueryTimeoutMs(queries.length, limits);
  const outer = new AbortController();
  const outerTimer = setTimeout(() => outer.abort(), limits.outerMs);
  const onOuter = () => outer.abort();
  outerSignal?.addEventListener('abort', onOuter);
  const results = new Map<string, QueryOutcome<R>>();
  try {
    await Promise.all(
      queries.map((q) =>
        limit(async () => {
          const startedAt = Date.now();
          if (outer.signal.aborted) {
            results.set(q.id, { ok: false, error: new ProviderError('PROVIDER.BUDGET_EXHAUSTED', 'the batch ran out of time before this query started'), startedAt, durationMs: 0 });
            return;
          }
          const controller = new AbortController();
          const abort = () => controller.abort();
          outer.signal.addEventListener('abort', abort);
          let timedOut = false;
          const timer = setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, perQuery);
          try {
            // The race stops waiting even for a query that ignores its abort signal.
            const abandoned = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(new Error('aborted'))));
            abandoned.catch(() => undefined);
            const value = await Promise.race([run(q, controller.signal), abandoned]);
            results.set(q.id, { ok: true, value, startedAt, durationMs: Date.now() - startedAt });
          } catch (error) {
            // Whatever the query threw after its deadline or the outer limit fired, that is the cause.
            const e = controller.signal.aborted
              ? timedOut
                ? new ProviderError('PROVIDER.TIMEOUT', `query ${q.id} exceeded its ${perQuery} ms share of the batch budget`, { retryable: true })
                : new ProviderError('PROVIDER.BUDGET_EXHAUSTED', `the batch hit its ${limits.outerMs} ms limit`)
              : error instanceof ProviderError
                ? error
                : new ProviderError('PROVIDER.RESPONSE_INVALID', error instanceof Error ? error.message : String(error));
            results.set(q.id, { ok: false, error: e, startedAt, durationMs: Date.now() - startedAt });
          } finally {
            clearTimeout(timer);
            outer.signal.removeEventListener('abort', abort);
          }
        }),
      ),
    );
  } finally {
    clearTimeout(outerTimer);
    outerSignal?.removeEventListener('abort', onOuter);
  }
  return results;
}
