import type { CriterionStatus } from '../judge-criteria/criterion-judge';
import type { ReplayedCase } from './baseline';

/**
 * The candidate gate, case x criterion, baseline against challenger. The blocking criterion must
 * be met on every target; an inconclusive one makes the gate inconclusive; other gaps are
 * follow-ups and met -> gap anywhere is a regression. Controls are observed, never gating.
 */

export type Transition = 'regression' | 'preexisting_unresolved' | 'fixed' | 'inconclusive' | 'preserved' | 'not_applicable';

export interface CriterionTransition {
  caseId: string;
  role: 'target' | 'control';
  criterionId: string;
  blocking: boolean;
  baseline: CriterionStatus;
  challenger: CriterionStatus;
  transition: Transition;
}

export interface GateResult {
  status: 'accepted' | 'rejected' | 'inconclusive';
  reason: string;
  table: CriterionTransition[];
  followUpGaps: CriterionTransition[];
  regressions: CriterionTransition[];
  /** Controls that regressed: recorded, and shown with the candidate, but not a gate. */
  controlRegressions: CriterionTransition[];
  fixedTargets: string[];
}

export function transitionOf(baseline: CriterionStatus, challenger: CriterionStatus): Transition {
  if (baseline === 'not_applicable' && challenger === 'not_applicable') return 'not_applicable';
  if (challenger === 'inconclusive' || baseline === 'inconclusive') return 'inconclusive';
  if (baseline === 'met' && challenger === 'gap') return 'regression';
  if (baseline === 'gap' && challenger === 'met') return 'fixed';
  if (baseline === 'gap' && challenger === 'gap') return 'preexisting_unresolved';
  if (baseline === 'met' && challenger === 'met') return 'preserved';
  // One side not applicable, the other decided: the criterion moved in or out of scope.
  return challenger === 'gap' ? 'regression' : 'not_applicable';
}

const statusOf = (c: ReplayedCase | undefined, criterionId: string): CriterionStatus => (c && c.executed ? (c.judgement.results.find((r) => r.criterionId === criterionId)?.status ?? 'inconclusive') : 'inconclusive');

export function candidateGate(baseline: readonly ReplayedCase[], challenger: readonly ReplayedCase[], blockingCriterionId: string): GateResult {
  const after = new Map(challenger.map((c) => [c.caseId, c]));
  const table: CriterionTransition[] = [];
  for (const b of baseline) {
    const a = after.get(b.caseId);
    const ids = [...new Set([...b.judgement.results.map((r) => r.criterionId), ...(a?.judgement.results.map((r) => r.criterionId) ?? [])])];
    for (const criterionId of ids) {
      const before = statusOf(b, criterionId);
      const now = statusOf(a, criterionId);
      table.push({ caseId: b.caseId, role: b.role, criterionId, blocking: criterionId === blockingCriterionId, baseline: before, challenger: now, transition: transitionOf(before, now) });
    }
  }
  const targetRows = table.filter((r) => r.role === 'target');
  const blocking = targetRows.filter((r) => r.blocking);
  const followUpGaps = targetRows.filter((r) => !r.blocking && r.challenger === 'gap');
  const regressions = targetRows.filter((r) => r.transition === 'regression');
  const controlRegressions = table.filter((r) => r.role === 'control' && r.transition === 'regression');
  const fixedTargets = blocking.filter((r) => r.transition === 'fixed').map((r) => r.caseId);
  const base = { table, followUpGaps, regressions, controlRegressions, fixedTargets };
  if (blocking.length === 0) return { ...base, status: 'inconclusive', reason: 'no target carries the blocking criterion' };
  const unmet = blocking.filter((r) => r.challenger === 'gap');
  if (unmet.length > 0) return { ...base, status: 'rejected', reason: `the blocking criterion is still a gap on ${unmet.map((r) => r.caseId).join(', ')}` };
  if (blocking.some((r) => r.challenger === 'inconclusive' || r.challenger === 'not_applicable')) return { ...base, status: 'inconclusive', reason: 'the blocking criterion could not be judged on every target' };
  return { ...base, status: 'accepted', reason: `the blocking criterion is met on all ${blocking.length} targets (${fixedTargets.length} fixed)` };
}
