import { loadConfig } from '@aoc/config';
import { z } from 'zod';

const MINUTE = 60_000;

/** Deadlines of the diagnosis chain (the seeds' budget); tests shorten them. */
export interface DeadlineOptions {
  /** Shared absolute deadline from intake: 22 min. */
  sharedMs: number;
  /** Per scenario thread: 16 min. */
  scenarioMs: number;
  /** Kept free before the shared deadline for reconciliation, write-back and terminal status: 3 min. */
  publicationReserveMs: number;
  /** How often expired threads are looked for. */
  sweepMs: number;
}

export const DEFAULT_DEADLINES: DeadlineOptions = { sharedMs: 22 * MINUTE, scenarioMs: 16 * MINUTE, publicationReserveMs: 3 * MINUTE, sweepMs: 5000 };

export const RouterConfigSchema = z
  .object({
    AOC_DEADLINE_SHARED_MS: z.coerce.number().int().min(100).max(24 * 60 * MINUTE).default(DEFAULT_DEADLINES.sharedMs),
    AOC_DEADLINE_SCENARIO_MS: z.coerce.number().int().min(50).max(24 * 60 * MINUTE).default(DEFAULT_DEADLINES.scenarioMs),
    AOC_DEADLINE_PUBLICATION_RESERVE_MS: z.coerce.number().int().min(0).max(60 * MINUTE).default(DEFAULT_DEADLINES.publicationReserveMs),
    AOC_DEADLINE_SWEEP_MS: z.coerce.number().int().min(10).max(MINUTE).default(DEFAULT_DEADLINES.sweepMs),
  })
  .refine((c) => c.AOC_DEADLINE_PUBLICATION_RESERVE_MS < c.AOC_DEADLINE_SHARED_MS, {
    message: 'the publication reserve must be shorter than the shared deadline',
    path: ['AOC_DEADLINE_PUBLICATION_RESERVE_MS'],
  });

export function loadDeadlines(env: Record<string, string | undefined> = process.env): DeadlineOptions {
  const c = loadConfig('router', RouterConfigSchema, env);
  return { sharedMs: c.AOC_DEADLINE_SHARED_MS, scenarioMs: c.AOC_DEADLINE_SCENARIO_MS, publicationReserveMs: c.AOC_DEADLINE_PUBLICATION_RESERVE_MS, sweepMs: c.AOC_DEADLINE_SWEEP_MS };
}

/** The shared deadline of a run that entered at `startedAt`. */
export function runDeadline(startedAt: Date, d: DeadlineOptions): Date {
  return new Date(startedAt.getTime() + d.sharedMs);
}

/** A scenario's deadline: its own budget, but never past the point where publication must start. */
export function scenarioDeadline(startedAt: Date, runDeadlineAt: Date, d: DeadlineOptions): Date {
  return new Date(Math.min(startedAt.getTime() + d.scenarioMs, runDeadlineAt.getTime() - d.publicationReserveMs));
}
