import type { ProblemStatus } from '../focus/problem-status-machine';
import type { OptimizationRecord, ProblemStatusEntry } from './optimization-record';

/**
 * The weekly attribution of improvements to optimisation records, served as JSON by the optimizer
 * (`GET /v1/attribution/weekly?weekStart=YYYY-MM-DD`) for whoever builds the weekly report: the
 * reporter reads it over HTTP, never the optimizer's tables. Weeks are the reporter's: seven
 * Asia/Shanghai natural days (UTC+8, no daylight saving) from a Monday.
 */

const SHANGHAI_OFFSET_MS = 8 * 3600_000;
const DAY_MS = 86_400_000;

/** A weekStart the attribution refuses, naming the parameter. */
export class InvalidWeekError extends Error {
  readonly field = 'weekStart';
  constructor(message: string) {
    super(`weekStart: ${message}`);
    this.name = 'InvalidWeekError';
  }
}

/** The week starting on `weekStart` (a Monday, YYYY-MM-DD): its days and its instants [startsAt, endsBefore). */
export function weekOf(weekStart: unknown): { from: string; to: string; startsAt: Date; endsBefore: Date } {
  if (typeof weekStart !== 'string' || weekStart === '') throw new InvalidWeekError('is required (YYYY-MM-DD, a Monday in Asia/Shanghai)');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(weekStart)) throw new InvalidWeekError('must be a date YYYY-MM-DD');
  const midnight = Date.parse(`${weekStart}T00:00:00Z`);
  if (Number.isNaN(midnight) || new Date(midnight).toISOString().slice(0, 10) !== weekStart) throw new InvalidWeekError('must be a real calendar date');
  if (new Date(midnight).getUTCDay() !== 1) throw new InvalidWeekError(`must be a Monday; ${weekStart} is not (weeks start on Monday, Asia/Shanghai)`);
  const startsAt = new Date(midnight - SHANGHAI_OFFSET_MS);
  return { from: weekStart, to: new Date(midnight + 6 * DAY_MS).toISOString().slice(0, 10), startsAt, endsBefore: new Date(startsAt.getTime() + 7 * DAY_MS) };
}

/** One problem's part in the week. */
export interface AttributedProblem {
  recordId: string;
  focusId: string;
  ref: string;
  ticketKey: string;
  signature: string;
  /** The data version the record produces (the deployed change). */
  dataVersion: string;
  /** The tunables it moved (`<surface> <path> <pointer>`). */
  changes: string[];
  /** The status now, and as it was at the end of the week. */
  status: ProblemStatus;
  statusAtWeekEnd: ProblemStatus;
  recordedAt: string;
  deployedAt: string | null;
  decidedAt: string | null;
  reason: string;
}

export interface WeeklyAttribution {
  period: { kind: 'weekly'; from: string; to: string };
  /** The tenant the figures are confined to; null: every tenant's. */
  tenant: string | null;
  generatedAt: string;
  totals: { recorded: number; deployed: number; verified: number; ineffective: number; pendingAtWeekEnd: number };
  /** Problems verified in the week, each attributed to the record whose change fixed it. */
  improvements: AttributedProblem[];
  /** Problems whose verification in the week showed the change did not fix them. */
  ineffective: AttributedProblem[];
  /** Problems recorded or deployed in the week that are not decided (yet). */
  pending: AttributedProblem[];
}

/** A problem's status at an instant, from its stamps (decided, else deployed, else recorded). */
function statusAt(s: ProblemStatusEntry, at: number): ProblemStatus {
  if (s.decidedAt !== null && Date.parse(s.decidedAt) < at) return s.status;
  return s.deployedAt !== null && Date.parse(s.deployedAt) < at ? 'optimized_unverified' : 'candidate';
}

const inWeek = (at: string | null, w: { startsAt: Date; endsBefore: Date }) => at !== null && Date.parse(at) >= w.startsAt.getTime() && Date.parse(at) < w.endsBefore.getTime();

/** The week's attribution over the records a principal sees (their statuses as stored now). */
export function weeklyAttribution(records: readonly { record: OptimizationRecord; statuses: readonly ProblemStatusEntry[] }[], weekStart: unknown, tenant: string | null, now: Date): WeeklyAttribution {
  const week = weekOf(weekStart);
  const end = week.endsBefore.getTime();
  const rows: AttributedProblem[] = records.flatMap(({ record, statuses }) =>
    statuses.flatMap((s) => {
      const problem = record.problems.find((p) => p.ref === s.ref);
      if (!problem) return [];
      return [
        {
          recordId: record.recordId,
          focusId: record.focus.focusId,
          ref: s.ref,
          ticketKey: problem.ticketKey,
          signature: problem.signature,
          dataVersion: record.data.dataVersion,
          changes: record.data.changes.map((c) => `${c.surface} ${c.path} ${c.pointer}`),
          status: s.status,
          statusAtWeekEnd: statusAt(s, end),
          recordedAt: s.recordedAt,
          deployedAt: s.deployedAt,
          decidedAt: s.decidedAt,
          reason: s.reason,
        },
      ];
    }),
  );
  const decidedIn = (status: ProblemStatus) => rows.filter((r) => r.status === status && inWeek(r.decidedAt, week));
  const improvements = decidedIn('optimized_verified');
  const ineffective = decidedIn('ineffective');
  const pending = rows.filter((r) => (inWeek(r.recordedAt, week) || inWeek(r.deployedAt, week)) && (r.decidedAt === null || Date.parse(r.decidedAt) >= end));
  return {
    period: { kind: 'weekly', from: week.from, to: week.to },
    tenant,
    generatedAt: now.toISOString(),
    totals: {
      recorded: rows.filter((r) => inWeek(r.recordedAt, week)).length,
      deployed: rows.filter((r) => inWeek(r.deployedAt, week)).length,
      verified: improvements.length,
      ineffective: ineffective.length,
      pendingAtWeekEnd: rows.filter((r) => Date.parse(r.recordedAt) < end && (r.decidedAt === null || Date.parse(r.decidedAt) >= end)).length,
    },
    improvements,
    ineffective,
    pending,
  };
}
