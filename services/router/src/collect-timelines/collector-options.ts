import { loadConfig } from '@aoc/config';
import { z } from 'zod';

const MINUTE = 60_000;

/** Timeline collector settings; parsed at boot, bad keys named. */
export interface CollectorOptions {
  /** Off: no background cycles (the backfill endpoint still works). */
  enabled: boolean;
  /** Tickets answered within this many days are re-read. */
  lookbackDays: number;
  /** Tickets read per cycle. */
  batch: number;
  /** Time between cycles. */
  cycleMs: number;
  /** A ticket is read again at most this often. */
  repollMs: number;
  /** Longest wait after failures (backoff cap). */
  maxBackoffMs: number;
}

/** Backfill reads at most this many tickets per call. */
export const MAX_BACKFILL = 500;

export const DEFAULT_COLLECTOR: CollectorOptions = { enabled: true, lookbackDays: 14, batch: 100, cycleMs: MINUTE, repollMs: 5 * MINUTE, maxBackoffMs: 60 * MINUTE };

export const CollectorConfigSchema = z.object({
  AOC_TIMELINE_COLLECTOR: z.enum(['on', 'off']).default('on'),
  AOC_TIMELINE_LOOKBACK_DAYS: z.coerce.number().int().min(1).max(90).default(DEFAULT_COLLECTOR.lookbackDays),
  AOC_TIMELINE_BATCH: z.coerce.number().int().min(1).max(MAX_BACKFILL).default(DEFAULT_COLLECTOR.batch),
  AOC_TIMELINE_CYCLE_MS: z.coerce.number().int().min(50).max(60 * MINUTE).default(DEFAULT_COLLECTOR.cycleMs),
  AOC_TIMELINE_REPOLL_MS: z.coerce.number().int().min(0).max(24 * 60 * MINUTE).default(DEFAULT_COLLECTOR.repollMs),
});

export function loadCollectorOptions(env: Record<string, string | undefined> = process.env): CollectorOptions {
  const c = loadConfig('router', CollectorConfigSchema, env);
  return {
    enabled: c.AOC_TIMELINE_COLLECTOR === 'on',
    lookbackDays: c.AOC_TIMELINE_LOOKBACK_DAYS,
    batch: c.AOC_TIMELINE_BATCH,
    cycleMs: c.AOC_TIMELINE_CYCLE_MS,
    repollMs: c.AOC_TIMELINE_REPOLL_MS,
    maxBackoffMs: DEFAULT_COLLECTOR.maxBackoffMs,
  };
}

/** Wait after `failures` consecutive failures: doubling from 30 s, at most the cap; Retry-After wins when longer. */
export function backoffMs(failures: number, retryAfterMs: number | null, capMs: number): number {
  const exponential = Math.min(capMs, 30_000 * 2 ** Math.max(0, failures - 1));
  return Math.min(capMs, Math.max(exponential, retryAfterMs ?? 0));
}
