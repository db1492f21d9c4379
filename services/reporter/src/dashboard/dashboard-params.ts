import { RunId, TicketKey } from '@aoc/contracts';
import { BadRequestException } from '@nestjs/common';
import { z } from 'zod';
import type { ShanghaiDate } from '../reports/report.types';
import { addDays, dayCount, shanghaiDay, weekStartOf } from './shanghai-calendar';

/** A query or path parameter the dashboard rejected; the 400 page names each field. */
export class DashboardParamError extends BadRequestException {
  constructor(readonly issues: { field: string; message: string }[]) {
    super({ code: 'REPORTER.DASHBOARD_PARAM_INVALID', issues });
  }
}

const Day = z.iso.date('must be a date YYYY-MM-DD');
/** Longest provider-health range one page draws; longer ranges would make unreadable charts. */
export const MAX_PROVIDER_RANGE_DAYS = 92;
export const DEFAULT_RUNS_LIMIT = 25;
export const MAX_RUNS_LIMIT = 200;

function parse<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new DashboardParamError(result.error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(query)', message: fieldMessage(i) })));
  }
  return result.data;
}

// Repeated parameters (?day=a&day=b) arrive as arrays; say so instead of zod's type jargon.
function fieldMessage(issue: z.core.$ZodIssue): string {
  return issue.code === 'invalid_type' ? 'must be given once, as text' : issue.message;
}

const RunsQuery = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(MAX_RUNS_LIMIT, `must be at most ${MAX_RUNS_LIMIT}`))
    .optional(),
  before: RunId.optional(),
});

export function parseRunsQuery(query: unknown): { limit: number; before: string | undefined } {
  const parsed = parse(RunsQuery, query ?? {});
  return { limit: parsed.limit ?? DEFAULT_RUNS_LIMIT, before: parsed.before };
}

export function parseRunId(runId: unknown): string {
  return parse(z.object({ runId: RunId }), { runId }).runId;
}

export function parseTicketKey(ticketKey: unknown): string {
  return parse(z.object({ ticketKey: TicketKey }), { ticketKey }).ticketKey;
}

export function parseDailyQuery(query: unknown, now: Date): ShanghaiDate {
  return parse(z.object({ day: Day.optional() }), query ?? {}).day ?? shanghaiDay(now);
}

export function parseWeeklyQuery(query: unknown, now: Date): ShanghaiDate {
  const weekStart = parse(
    z.object({ weekStart: Day.refine((d) => weekStartOf(d) === d, 'must be a Monday (weeks start on Monday, Asia/Shanghai)').optional() }),
    query ?? {},
  ).weekStart;
  return weekStart ?? weekStartOf(shanghaiDay(now));
}

/** Defaults to the last 7 Shanghai days ending today. */
export function parseProvidersQuery(query: unknown, now: Date): { from: ShanghaiDate; to: ShanghaiDate } {
  const parsed = parse(
    z
      .object({ from: Day.optional(), to: Day.optional() })
      .transform((q) => {
        const to = q.to ?? shanghaiDay(now);
        return { from: q.from ?? addDays(to, -6), to };
      })
      .refine((q) => q.from <= q.to, { message: 'must not be after to', path: ['from'] })
      .refine((q) => q.from > q.to || dayCount(q.from, q.to) <= MAX_PROVIDER_RANGE_DAYS, { message: `range must span at most ${MAX_PROVIDER_RANGE_DAYS} days`, path: ['to'] }),
    query ?? {},
  );
  return parsed;
}
