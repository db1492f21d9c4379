/** Limits of the Focus lifecycle, in one place (the scheduler, the CLI and the tests read them); its states and transitions are in focus-machine.ts. */
export const FOCUS_LIMITS = {
  attemptsPerDay: 3,
  retireAfterDays: 7,
  retireAfterReviewedAttempts: 10,
  retireAfterAttemptsWithoutImprovement: 6,
  minTargets: 2,
  maxTargets: 5,
  maxControls: 2,
} as const;

export interface AttemptRecord {
  startedAt: string;
  /** A challenger ran and the gate reviewed it. */
  reviewed: boolean;
  /** The gate confirmed an improvement of the blocking criterion on at least one target. */
  confirmedImprovement: boolean;
}

/** Attempts started on the calendar day of `now` in the scheduler's zone (resuming one is not a new start). */
export function attemptsStartedToday(attempts: readonly AttemptRecord[], now: Date, timeZone: string): number {
  const day = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
  const today = day(now);
  return attempts.filter((a) => day(new Date(a.startedAt)) === today).length;
}

/** Retirement needs all three: age, enough reviewed attempts, and the last six without a confirmed improvement. */
export function shouldRetire(firstBaselineAt: string, attempts: readonly AttemptRecord[], now: Date): boolean {
  const ageDays = (now.getTime() - Date.parse(firstBaselineAt)) / 86_400_000;
  const reviewed = attempts.filter((a) => a.reviewed);
  const recent = reviewed.slice(-FOCUS_LIMITS.retireAfterAttemptsWithoutImprovement);
  return (
    ageDays >= FOCUS_LIMITS.retireAfterDays &&
    reviewed.length >= FOCUS_LIMITS.retireAfterReviewedAttempts &&
    recent.length === FOCUS_LIMITS.retireAfterAttemptsWithoutImprovement &&
    recent.every((a) => !a.confirmedImprovement)
  );
}
