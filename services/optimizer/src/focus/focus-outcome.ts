/**
 * Every outcome an optimizer step can end in, with what it means for problem-signal consumption
 * and the Active Focus slot. One union, so a step cannot report a status the lifecycle does not know.
 */
export const FOCUS_OUTCOMES = [
  'no_active_focus',
  'no_focus_candidate',
  'focus_candidate_selected',
  'focus_candidate_rejected',
  'focus_candidate_source_changed',
  'focus_created',
  'focus_dependency_created',
  'focus_dependency_resolved',
  'focus_case_blocked',
  'focus_human_handoff',
  'daily_attempt_limit_reached',
  'focus_retired',
  'focus_ready_to_close',
  'focus_auto_closed',
  'focus_source_changed',
  'evaluation_inconclusive',
  'candidate_plan_rejected',
  'candidate_rejected',
  'awaiting_authorization',
  'candidate_enqueued',
  'run_in_progress',
] as const;
export type FocusOutcome = (typeof FOCUS_OUTCOMES)[number];

/** What happens to the target refs of the Focus (or candidate) the outcome is about. */
export type RefConsumption =
  /** Nothing is consumed; the refs stay selectable. */
  | 'none'
  /** The refs are consumed by the Focus. */
  | 'consumed'
  /** Changed refs stay suppressed; unchanged refs are released for the next grouping. */
  | 'changed_suppressed_unchanged_released'
  /** Refs the Focus no longer reproduces are released; the rest stay consumed. */
  | 'unreproduced_released';

export interface OutcomeMeaning {
  consumption: RefConsumption;
  /** Whether the Focus holds (or keeps) the one Active Focus slot afterwards. */
  holdsActiveSlot: boolean;
  meaning: string;
}

export const OUTCOME_MEANING: Readonly<Record<FocusOutcome, OutcomeMeaning>> = {
  no_active_focus: { consumption: 'none', holdsActiveSlot: false, meaning: 'selection is off and no Focus is active' },
  no_focus_candidate: { consumption: 'none', holdsActiveSlot: false, meaning: 'fewer than two targets share one narrow problem' },
  focus_candidate_selected: { consumption: 'none', holdsActiveSlot: false, meaning: 'a narrow problem was selected; its fresh baseline decides whether it becomes a Focus' },
  focus_candidate_rejected: { consumption: 'none', holdsActiveSlot: false, meaning: 'a grouping was proposed but the fresh baseline did not confirm the gap on two targets; the same grouping is not proposed again' },
  focus_candidate_source_changed: { consumption: 'changed_suppressed_unchanged_released', holdsActiveSlot: false, meaning: 'a ticket or reference comment changed after selection; no Focus is created' },
  focus_created: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'the baseline confirmed the gap; the Focus and its first checkpoints exist' },
  // Dependency Focuses are part of the vocabulary; this build does not create them yet.
  focus_dependency_created: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'an earlier shared break point passed the dependency gate: a dependency Focus is active and its parent blocked (not produced by this build)' },
  focus_dependency_resolved: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'the dependency Focus closed; its parent is active again and gets a fresh baseline first (not produced by this build)' },
  focus_case_blocked: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'one target is excluded on this base; at least two unblocked targets remain' },
  focus_human_handoff: { consumption: 'consumed', holdsActiveSlot: false, meaning: 'a protected path, a plan across stages or too few unblocked targets: a human takes over; the slot is freed' },
  daily_attempt_limit_reached: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'three attempts already started today; the Focus continues tomorrow' },
  focus_retired: { consumption: 'consumed', holdsActiveSlot: false, meaning: 'no confirmed improvement for long enough (7 days, 10 reviewed attempts, last 6 without one); only new signals reopen the problem' },
  focus_ready_to_close: { consumption: 'consumed', holdsActiveSlot: false, meaning: 'the blocking criterion is met on the current data; the Focus waits to be closed' },
  focus_auto_closed: { consumption: 'unreproduced_released', holdsActiveSlot: false, meaning: 'fewer than two targets still reproduce and a strict majority is met; closed one-way' },
  focus_source_changed: { consumption: 'changed_suppressed_unchanged_released', holdsActiveSlot: false, meaning: "an active Focus's frozen input changed; it is closed and the problem is selected afresh" },
  evaluation_inconclusive: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'the targets could not be judged; nothing is decided' },
  candidate_plan_rejected: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'the proposal was invalid twice (after one re-plan); the Focus stays active without a candidate' },
  candidate_rejected: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'the candidate did not meet the blocking criterion on the targets' },
  awaiting_authorization: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'a protected-path escalation waits for an exact authorization; no new attempt starts (this build hands protected paths to a human instead)' },
  candidate_enqueued: { consumption: 'consumed', holdsActiveSlot: true, meaning: 'the gate accepted the candidate: it is on optimizer.candidate-enqueued and committed on a branch (the seed\'s draft_pr_created), never merged' },
  run_in_progress: { consumption: 'none', holdsActiveSlot: true, meaning: 'another optimizer run holds the lease; this one did nothing' },
};

/** Limits of the lifecycle, in one place (the scheduler, the CLI and the tests read them). */
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
