import { judgeCase, leadingFamilyOf, type Criterion } from '../judge-criteria/criterion-judge';
import { judgeCaseWithModel, type FreeTextJudge } from '../judge-criteria/model-criterion-judge';
import type { ReplayedCase } from '../focus/baseline';
import type { FocusCandidate } from '../select-focus/focus-selector';
import type { ReplayRequest, ReplayResult } from './ports';

/** A judged replay as a checkpoint keeps it: the case, its criteria results and the family it led with. */
export interface JudgedReplay extends ReplayedCase {
  leadingFamily: string | null;
  /** Families the answer's evidence plan asked for (absent on checkpoints written before it was kept). */
  queriedFamilies?: readonly string[];
  error: string | null;
}

/** The cases of a Focus candidate to replay: targets, then the controls still in it. */
export function replayRequests(candidate: Pick<FocusCandidate, 'targets' | 'controls'>, droppedControls: readonly string[] = []): ReplayRequest[] {
  return [
    ...candidate.targets.map((t) => ({ caseId: t.ticketKey, role: 'target' as const, ticketKey: t.ticketKey, cutoff: t.source.cutoff, runId: t.source.runId })),
    ...candidate.controls.filter((c) => !droppedControls.includes(c.ticketKey)).map((c) => ({ caseId: c.ticketKey, role: 'control' as const, ticketKey: c.ticketKey, cutoff: c.source.cutoff, runId: c.source.runId })),
  ];
}

/**
 * Judges each replay on the Focus criteria (the criterion judge sees the answer only; execution
 * state is applied after it). A case the replay did not return counts as not executed.
 */
export async function judgeReplays(requests: readonly ReplayRequest[], results: readonly ReplayResult[], criteria: readonly Criterion[], freeText?: FreeTextJudge): Promise<JudgedReplay[]> {
  const byId = new Map(results.map((r) => [r.caseId, r]));
  const out: JudgedReplay[] = [];
  for (const req of requests) {
    out.push(await judgeOne(req, byId.get(req.caseId), criteria, freeText));
  }
  return out;
}

async function judgeOne(req: ReplayRequest, r: ReplayResult | undefined, criteria: readonly Criterion[], freeText?: FreeTextJudge): Promise<JudgedReplay> {
  if (!r || r.answer === null) {
    const failed = criteria.map((c) => ({ criterionId: c.id, status: 'inconclusive' as const, reason: `the replay did not execute: ${r?.error ?? 'no result'}` }));
    return { caseId: req.caseId, role: req.role, executed: false, judgement: { caseId: req.caseId, results: failed }, leadingFamily: null, error: r?.error ?? 'no result' };
  }
  const judgement = freeText ? await judgeCaseWithModel(req.caseId, criteria, r.answer, r.execution, freeText) : judgeCase(req.caseId, criteria, r.answer, r.execution);
  return { caseId: req.caseId, role: req.role, executed: r.execution.responseGeneration === 'complete', judgement, leadingFamily: leadingFamilyOf(r.answer.internalHandoffMarkdown), queriedFamilies: [...r.answer.queriedFamilies], error: r.error };
}

/** The targets where the blocking criterion is a gap. */
export function gapTargets(cases: readonly JudgedReplay[], blockingCriterionId: string): JudgedReplay[] {
  return cases.filter((c) => c.role === 'target' && c.judgement.results.some((r) => r.criterionId === blockingCriterionId && r.status === 'gap'));
}

/** Families the answers led with where the blocking criterion is a gap, most frequent first. */
export function ledFamilies(cases: readonly JudgedReplay[], blockingCriterionId: string): string[] {
  const counts = new Map<string, number>();
  for (const c of gapTargets(cases, blockingCriterionId)) if (c.leadingFamily) counts.set(c.leadingFamily, (counts.get(c.leadingFamily) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([f]) => f);
}
