import type { SignalSource } from '../collect-signals/signal-refs';
import { runFinding, type CaseJudgement, type RunFinding } from '../judge-criteria/criterion-judge';
import type { FocusCandidate, FocusTarget } from '../select-focus/focus-selector';
import { FOCUS_LIMITS } from './focus-limits';

/**
 * Focus creation and re-check. Before anything is replayed the frozen sources are compared with
 * the tickets as they are now: a changed target stops the candidate (its ref suppressed, the
 * others released), a target without a collected timeline is unverifiable (nothing is decided),
 * a changed control is only dropped. Then the fresh baseline decides: every
 * target replayed, at least two blocking gaps and a `gaps_found` finding create the Focus.
 */

export interface CurrentSource {
  ticketDigest: string;
  questionDigest: string | null;
  referenceComments: readonly { id: string; bodyDigest: string }[];
}

const sameSource = (frozen: SignalSource, now: CurrentSource | undefined): boolean => {
  if (!now || now.ticketDigest !== frozen.ticketDigest) return false;
  // An edited title or description; a ref from before question digests were carried has none to compare.
  if (typeof frozen.questionDigest === 'string' && now.questionDigest !== frozen.questionDigest) return false;
  const current = new Map(now.referenceComments.map((c) => [c.id, c.bodyDigest]));
  return frozen.referenceComments.every((c) => current.get(c.id) === c.bodyDigest);
};

export type SourceCheck =
  | { kind: 'unchanged'; droppedControls: string[] }
  | { kind: 'unverifiable'; cases: string[] }
  | { kind: 'changed'; changedRefs: string[]; releasedRefs: string[]; droppedControls: string[] };

/**
 * Compares every case's frozen source with the current one. A target whose current source is
 * unknown (no timeline collected) is unverifiable: nothing is decided on it, not even "changed".
 * A control that changed or cannot be verified is dropped (controls never decide).
 */
export function recheckSources(candidate: Pick<FocusCandidate, 'targets' | 'controls'>, current: ReadonlyMap<string, CurrentSource>): SourceCheck {
  const unverifiable = candidate.targets.filter((t) => !current.has(t.ticketKey)).map((t) => t.ticketKey);
  if (unverifiable.length > 0) return { kind: 'unverifiable', cases: unverifiable };
  const droppedControls = candidate.controls.filter((c) => !sameSource(c.source, current.get(c.ticketKey))).map((c) => c.ticketKey);
  const changed = candidate.targets.filter((t) => !sameSource(t.source, current.get(t.ticketKey)));
  if (changed.length === 0) return { kind: 'unchanged', droppedControls };
  const changedRefs = changed.map((t) => t.ref);
  return { kind: 'changed', changedRefs, releasedRefs: candidate.targets.map((t) => t.ref).filter((r) => !changedRefs.includes(r)), droppedControls };
}

export interface ReplayedCase {
  caseId: string;
  role: 'target' | 'control';
  /** The replay produced an answer to judge (a failed target blocks, a failed control is evidence). */
  executed: boolean;
  judgement: CaseJudgement;
}

export interface BaselineDecision {
  outcome: 'focus_created' | 'focus_candidate_rejected';
  reason: string;
  finding: RunFinding;
  confirmedGapTargets: string[];
}

const blockingStatus = (c: ReplayedCase, blockingId: string) => c.judgement.results.find((r) => r.criterionId === blockingId)?.status ?? 'inconclusive';

/** The creation decision of a fresh baseline over targets and controls (controls never decide it). */
export function decideBaseline(cases: readonly ReplayedCase[], blockingCriterionId: string): BaselineDecision {
  const targets = cases.filter((c) => c.role === 'target');
  const finding = runFinding(
    targets.map((t) => t.judgement),
    blockingCriterionId,
  );
  const confirmedGapTargets = targets.filter((t) => t.executed && blockingStatus(t, blockingCriterionId) === 'gap').map((t) => t.caseId);
  const failed = targets.filter((t) => !t.executed).map((t) => t.caseId);
  const reject = (reason: string): BaselineDecision => ({ outcome: 'focus_candidate_rejected', reason, finding, confirmedGapTargets });
  if (failed.length > 0) return reject(`target replay failed: ${failed.join(', ')}`);
  if (confirmedGapTargets.length < FOCUS_LIMITS.minTargets) return reject(`the blocking criterion is a gap on ${confirmedGapTargets.length} target(s); a Focus needs ${FOCUS_LIMITS.minTargets}`);
  if (finding !== 'gaps_found') return reject(`the baseline finding is ${finding}`);
  return { outcome: 'focus_created', reason: `the blocking criterion is a gap on ${confirmedGapTargets.length} of ${targets.length} targets`, finding, confirmedGapTargets };
}

export type Reproducibility = { kind: 'active'; confirmedGaps: number } | { kind: 'auto_close'; confirmedGaps: number; met: number } | { kind: 'inconclusive'; confirmedGaps: number };

/**
 * An active Focus re-checked on a fresh baseline: two confirmed gaps keep it active; fewer, with a
 * strict majority of targets met and no target failure, close it (one-way); anything else is inconclusive.
 */
export function reproducibility(cases: readonly ReplayedCase[], blockingCriterionId: string): Reproducibility {
  const targets = cases.filter((c) => c.role === 'target');
  const confirmedGaps = targets.filter((t) => t.executed && blockingStatus(t, blockingCriterionId) === 'gap').length;
  if (confirmedGaps >= FOCUS_LIMITS.minTargets) return { kind: 'active', confirmedGaps };
  const met = targets.filter((t) => t.executed && blockingStatus(t, blockingCriterionId) === 'met').length;
  if (targets.every((t) => t.executed) && met * 2 > targets.length) return { kind: 'auto_close', confirmedGaps, met };
  return { kind: 'inconclusive', confirmedGaps };
}

/**
 * The refs an auto-close releases: targets not met on the fresh baseline (a gap, not judged, not
 * executed or blocked) go back to selection; met ones stay consumed, their problem being solved.
 */
export function unmetRefs(targets: readonly Pick<FocusTarget, 'ticketKey' | 'ref'>[], cases: readonly ReplayedCase[], blockingCriterionId: string): string[] {
  const met = (ticketKey: string) => cases.some((c) => c.caseId === ticketKey && c.role === 'target' && c.executed && blockingStatus(c, blockingCriterionId) === 'met');
  return targets.filter((t) => !met(t.ticketKey)).map((t) => t.ref);
}

export type CaseBlockers =
  | { kind: 'none' }
  | { kind: 'blocked'; newly: string[]; all: string[] }
  | { kind: 'insufficient'; all: string[] }
  | { kind: 'wide'; failed: string[] };

/**
 * Case blockers of an active Focus on one base version. A target that alone fails to execute (the
 * others ran) is a blocker: it is recorded, left out of reproducibility, proposal, challenger and
 * gate on this base, and never counts as met. Failures of half the targets or more are not
 * blockers but an evaluation that could not be done (`wide`). Too few unblocked targets left means
 * a human takes over.
 */
export function caseBlockers(cases: readonly ReplayedCase[], recorded: readonly string[]): CaseBlockers {
  const targets = cases.filter((c) => c.role === 'target');
  const failed = targets.filter((t) => !t.executed).map((t) => t.caseId);
  if (failed.length > 0 && failed.length * 2 >= targets.length) return { kind: 'wide', failed };
  const all = [...new Set([...recorded.filter((id) => targets.some((t) => t.caseId === id)), ...failed])];
  if (all.length === 0) return { kind: 'none' };
  if (targets.length - all.length < FOCUS_LIMITS.minTargets) return { kind: 'insufficient', all };
  return { kind: 'blocked', newly: failed.filter((id) => !recorded.includes(id)), all };
}
