import { z } from 'zod';
import type { ShanghaiDate } from './report.types';

/**
 * Report periods are Asia/Shanghai natural days: UTC+8 all year (no daylight saving since 1991),
 * so a day D covers [D 00:00+08:00, D+1 00:00+08:00) and a week is seven such days from a Monday.
 */
const SHANGHAI_OFFSET_MS = 8 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Longest range /v1/providers/health accepts, in days (inclusive). */
export const MAX_HEALTH_RANGE_DAYS = 366;

function utcMidnight(day: ShanghaiDate): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/** `YYYY-MM-DD` naming a real calendar day. */
export const ShanghaiDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((d) => {
    const ms = utcMidnight(d);
    return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === d;
  }, 'must be a real calendar date');

export function addDays(day: ShanghaiDate, days: number): ShanghaiDate {
  return new Date(utcMidnight(day) + days * DAY_MS).toISOString().slice(0, 10);
}

/** 1 = Monday ... 7 = Sunday (a calendar date has the same weekday in every zone). */
export function isoWeekday(day: ShanghaiDate): number {
  const d = new Date(utcMidnight(day)).getUTCDay();
  return d === 0 ? 7 : d;
}

/** The Asia/Shanghai natural day an instant falls in. */
export function shanghaiDayOf(instant: Date): ShanghaiDate {
  return new Date(instant.getTime() + SHANGHAI_OFFSET_MS).toISOString().slice(0, 10);
}

/** The instant a Shanghai day starts. */
export function shanghaiDayStart(day: ShanghaiDate): Date {
  return new Date(utcMidnight(day) - SHANGHAI_OFFSET_MS);
}

/** Inclusive day count of [from, to]. */
export function dayCount(from: ShanghaiDate, to: ShanghaiDate): number {
  return Math.round((utcMidnight(to) - utcMidnight(from)) / DAY_MS) + 1;
}

export interface ReportPeriod {
  from: ShanghaiDate;
  /** Inclusive last day. */
  to: ShanghaiDate;
  /** Instants: [startsAt, endsBefore). */
  startsAt: Date;
  endsBefore: Date;
  /** The day after `to`, for `day < $x` filters on stored Shanghai days. */
  dayAfter: ShanghaiDate;
}

export function periodOf(from: ShanghaiDate, to: ShanghaiDate): ReportPeriod {
  const dayAfter = addDays(to, 1);
  return { from, to, startsAt: shanghaiDayStart(from), endsBefore: shanghaiDayStart(dayAfter), dayAfter };
}

/** A parameter the reports refuse, named so callers (HTTP: 400) can say which one. */
export class InvalidReportParamError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'InvalidReportParamError';
  }
}

function parseDay(field: string, value: unknown): ShanghaiDate {
  if (value === undefined || value === null || value === '') throw new InvalidReportParamError(field, 'is required (YYYY-MM-DD, an Asia/Shanghai natural day)');
  const parsed = ShanghaiDateSchema.safeParse(value);
  if (!parsed.success) throw new InvalidReportParamError(field, parsed.error.issues[0]?.message ?? 'is invalid');
  return parsed.data;
}

export function dailyParams(day: unknown): { day: ShanghaiDate } {
  return { day: parseDay('day', day) };
}

export function weeklyParams(weekStart: unknown): { weekStart: ShanghaiDate } {
  const day = parseDay('weekStart', weekStart);
  if (isoWeekday(day) !== 1) throw new InvalidReportParamError('weekStart', `must be a Monday; ${day} is not (weeks start on Monday, Asia/Shanghai)`);
  return { weekStart: day };
}

export function healthParams(from: unknown, to: unknown): { from: ShanghaiDate; to: ShanghaiDate } {
  const first = parseDay('from', from);
  const last = parseDay('to', to);
  if (last < first) throw new InvalidReportParamError('to', `must not be before from (${first})`);
  if (dayCount(first, last) > MAX_HEALTH_RANGE_DAYS) throw new InvalidReportParamError('to', `range is limited to ${MAX_HEALTH_RANGE_DAYS} days`);
  return { from: first, to: last };
}
