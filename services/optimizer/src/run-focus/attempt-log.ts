import type { AttemptRecord } from '../focus/focus-limits';
import type { TriedCandidate } from '../propose-candidate/builtin-proposer';
import { latest, ofKind, type Checkpoint } from '../persistence/checkpoint-store';

/**
 * What a Focus's checkpoint log says about its attempts: which one is unfinished (a crash left
 * it), which number comes next, the records the daily limit and retirement read, and the
 * candidates already tried (the proposer's history).
 */

/** An attempt held back by an enqueued candidate: its cases were refreshed, nothing was proposed. */
const held = (cps: readonly Checkpoint[], attempt: number) => latest(cps, 'attempt_review', attempt)?.payload.heldBy !== undefined;

/** An accepted attempt is finished only once its candidate is out (a crash may fall in between). */
function outputPending(cps: readonly Checkpoint[], attempt: number): boolean {
  return latest(cps, 'gate', attempt)?.payload.status === 'accepted' && ofKind(cps, 'candidate_enqueued', attempt).length === 0;
}

function finished(cps: readonly Checkpoint[], attempt: number): boolean {
  if (ofKind(cps, 'attempt_review', attempt).length > 0 && !outputPending(cps, attempt)) return true;
  return ofKind(cps, 'focus_close', attempt).length > 0 || ofKind(cps, 'proposal', attempt).some((p) => p.payload.diff === null);
}

const startedAttempts = (cps: readonly Checkpoint[]) => [...new Set(ofKind(cps, 'case_refresh').map((c) => c.attempt))];

/** The attempt to resume (a started one not finished) or, when none, the next number to start. */
export function nextAttempt(cps: readonly Checkpoint[]): { attempt: number; resuming: boolean } {
  const started = startedAttempts(cps);
  const unfinished = started.find((a) => !finished(cps, a));
  return unfinished === undefined ? { attempt: Math.max(0, ...started) + 1, resuming: false } : { attempt: unfinished, resuming: true };
}

/** Whether the gate confirmed an improvement of the blocking criterion on a target in this attempt. */
const improved = (cps: readonly Checkpoint[], attempt: number) => (latest(cps, 'gate', attempt)?.payload.fixedTargets.length ?? 0) > 0;

/** Every started attempt; a held one counts towards the daily limit (it replayed) but was not reviewed. */
export function attemptRecords(cps: readonly Checkpoint[]): AttemptRecord[] {
  return startedAttempts(cps).map((a) => ({
    startedAt: latest(cps, 'case_refresh', a)?.createdAt ?? '',
    reviewed: ofKind(cps, 'attempt_review', a).length > 0 && !held(cps, a),
    confirmedImprovement: improved(cps, a),
  }));
}

/** The candidate enqueued on this base, if any: it holds back new proposals until the base version changes. */
export const enqueuedOn = (cps: readonly Checkpoint[], base: string) => ofKind(cps, 'candidate_enqueued').find((c) => c.baseVersion === base);

/** Every candidate this Focus replayed, with its blocking status per target and its review. */
export function triedCandidates(cps: readonly Checkpoint[], blockingCriterionId: string): TriedCandidate[] {
  return ofKind(cps, 'challenger').flatMap((c) => {
    const diff = ofKind(cps, 'proposal', c.attempt).find((p) => p.payload.digest === c.candidateDigest)?.payload.diff;
    if (!diff) return [];
    const cases = c.payload.cases.filter((x) => x.role === 'target');
    const perCase = Object.fromEntries(cases.map((x) => [x.caseId, x.judgement.results.find((r) => r.criterionId === blockingCriterionId)?.status ?? 'inconclusive']));
    return [{ diff, perCase, feedback: ofKind(cps, 'attempt_review', c.attempt)[0]?.payload.feedback ?? '' }];
  });
}
