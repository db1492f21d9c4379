/**
 * The problem-status machine: the one place that says which optimisation statuses a problem (one
 * problem-signal ref named by an optimisation record) has, which moves are allowed, what event
 * causes each, which timestamp it stamps and what it does to the ref. The record store moves a
 * problem only through `moveProblems` (persistence/record-store.ts), which looks the pair (status,
 * event) up here and refuses one that is not in the table before writing anything; the diagram and
 * the table in docs/optimizer.md are `problemStateDiagram()` and `problemTransitionTable()`.
 *
 * A status belongs to one (record, ref): a ref named again by a later record (its earlier one was
 * ineffective) gets a new row; the latest record's row is the ref's current status.
 */

export const PROBLEM_STATUSES = ['candidate', 'optimized_unverified', 'optimized_verified', 'ineffective'] as const;
export type ProblemStatus = (typeof PROBLEM_STATUSES)[number];

/** What each status means and whether selection may pick its problem again. */
export const PROBLEM_STATUS_MEANING: Readonly<Record<ProblemStatus, { selectable: boolean; final: boolean; meaning: string }>> = {
  candidate: { selectable: false, final: false, meaning: 'an accepted candidate names the problem; its data version is not deployed yet' },
  optimized_unverified: { selectable: false, final: false, meaning: "answers carrying the record's data version were seen (deployed); no verification replay has decided yet" },
  optimized_verified: { selectable: false, final: true, meaning: "the record's target case was replayed at its cutoff on the deployed data and its blocking criterion is met" },
  ineffective: { selectable: true, final: true, meaning: 'the verification replay on the deployed data still shows the gap: the problem is selectable again (the action is not repeated)' },
};

/** What moves a problem. */
export const PROBLEM_EVENTS = ['record_written', 'deployed_version_seen', 'verification_passed', 'verification_failed', 'verification_evidence_missing'] as const;
export type ProblemEvent = (typeof PROBLEM_EVENTS)[number];

/** The timestamp a move sets (the weekly attribution reads them). */
export type ProblemStamp = 'recorded_at' | 'deployed_at' | 'decided_at';

export interface ProblemTransition {
  /** `none`: the transition creates the status row. */
  from: ProblemStatus | 'none';
  event: ProblemEvent;
  to: ProblemStatus;
  /** The ref goes back to selection (its signal state becomes open). */
  releasesRef: boolean;
  stamps: ProblemStamp | null;
  meaning: string;
}

const T = (from: ProblemTransition['from'], event: ProblemEvent, to: ProblemStatus, meaning: string, extra: Partial<Pick<ProblemTransition, 'releasesRef' | 'stamps'>> = {}): ProblemTransition => ({ from, event, to, releasesRef: false, stamps: null, meaning, ...extra });

/** The allowed transitions. A pair (from, event) not listed here is refused. */
export const PROBLEM_TRANSITIONS: readonly ProblemTransition[] = [
  T('none', 'record_written', 'candidate', 'the optimisation record of an accepted candidate names the problem (not deployed; a new answer version alone never moves it)', { stamps: 'recorded_at' }),
  T('candidate', 'deployed_version_seen', 'optimized_unverified', "an answer carrying the record's data version was seen: the change is deployed", { stamps: 'deployed_at' }),
  T('optimized_unverified', 'verification_passed', 'optimized_verified', "the target case replayed at its cutoff on the deployed data meets the blocking criterion", { stamps: 'decided_at' }),
  T('optimized_unverified', 'verification_failed', 'ineffective', 'the replay on the deployed data still shows the gap: the ref is released for selection', { releasesRef: true, stamps: 'decided_at' }),
  T('optimized_unverified', 'verification_evidence_missing', 'optimized_unverified', 'the replay did not execute, could not be judged, or the deployed data could not be rebuilt: nothing is decided, the reason is kept'),
];

export class IllegalProblemTransitionError extends Error {
  constructor(
    readonly from: ProblemStatus | 'none',
    readonly event: ProblemEvent,
  ) {
    super(`a problem that is ${from} cannot take ${event}: not a transition of the problem-status machine`);
  }
}

/** The table's row for (from, event); throws `IllegalProblemTransitionError` when there is none. */
export function problemTransitionFor(from: ProblemStatus | 'none', event: ProblemEvent): ProblemTransition {
  const row = PROBLEM_TRANSITIONS.find((t) => t.from === from && t.event === event);
  if (!row) throw new IllegalProblemTransitionError(from, event);
  return row;
}

/** Whether a problem in this status may be selected again. */
export const selectable = (status: ProblemStatus): boolean => PROBLEM_STATUS_MEANING[status].selectable;

export function isProblemStatus(value: unknown): value is ProblemStatus {
  return PROBLEM_STATUSES.some((s) => s === value);
}

/** The table as markdown rows (docs/optimizer.md shows it under the diagram; a spec keeps them equal). */
export function problemTransitionTable(): string {
  const rows = PROBLEM_TRANSITIONS.map((t) => `| ${t.from} | \`${t.event}\` | ${t.to} | ${t.releasesRef ? 'released' : '—'} | ${t.stamps ?? '—'} | ${t.meaning} |`);
  return ['| From | Event | To | Ref | Stamps | Meaning |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** A mermaid state diagram of the table (what docs/optimizer.md shows; a spec keeps them equal). */
export function problemStateDiagram(): string {
  const name = (s: ProblemStatus | 'none') => (s === 'none' ? '[*]' : s);
  const lines = PROBLEM_TRANSITIONS.map((t) => `  ${name(t.from)} --> ${name(t.to)}: ${[t.event, ...(t.releasesRef ? ['ref released'] : [])].join(' / ')}`);
  const finals = PROBLEM_STATUSES.filter((s) => PROBLEM_STATUS_MEANING[s].final).map((s) => `  ${s} --> [*]`);
  return ['stateDiagram-v2', ...lines, ...finals].join('\n');
}
