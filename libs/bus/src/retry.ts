import type { RetryPolicy } from './bus-api';

/** Four tries, 100 ms doubling up to 5 s apart: a transient fault (a restart, a failover) gets seconds to pass. */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, initialDelayMs: 100, maxDelayMs: 5000 };

/**
 * The wait before the try after `attempt`: exponential, capped, and jittered between half and all
 * of it so that the consumers a shared fault failed together do not retry in step.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
