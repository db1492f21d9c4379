import { candidateDigest, checkCandidate } from '@aoc/versioned-data';
import type { CheckpointPayload } from '../persistence/checkpoint-payloads';
import { ofKind, type Checkpoint } from '../persistence/checkpoint-store';
import type { FocusRow } from '../persistence/focus-store';
import { familiesCounting } from '../judge-criteria/criterion-judge';
import type { CandidateProposer, ProposerInput } from '../propose-candidate/builtin-proposer';
import { triedCandidates } from './attempt-log';
import type { DataAccess, ReplayPort } from './ports';
import { gapTargets, ledFamilies, replayRequests, type JudgedReplay } from './replay-judging';

/**
 * The proposal step: asks the proposer and admits the first proposal the policy accepts, with one
 * re-plan when none is admitted. A protected path stops at once (the Focus goes to a human).
 */

export type ProposalPayload = CheckpointPayload<'proposal'>;

interface ProposalDeps {
  proposer: CandidateProposer;
  replay: ReplayPort;
  data: DataAccess;
}

/** What the failing targets' tickets say and whether their plans asked for the wanted family: the word search's guidance. */
function ticketFeedback(replay: ReplayPort, focus: FocusRow, cases: readonly JudgedReplay[], wantedFamily: string): Pick<ProposerInput, 'ticketTexts' | 'wantedQueried'> {
  const failing = gapTargets(cases, focus.candidate.blockingCriterionId);
  const requests = replayRequests(focus.candidate);
  const ticketTexts = failing.map((c) => requests.find((r) => r.caseId === c.caseId)).flatMap((r) => (r && replay.ticketText ? [replay.ticketText(r)] : [])).filter((t): t is string => t !== null);
  const wanted = familiesCounting(wantedFamily);
  const known = failing.filter((c) => c.queriedFamilies !== undefined);
  return { ticketTexts, ...(known.length > 0 ? { wantedQueried: known.some((c) => (c.queriedFamilies ?? []).some((f) => wanted.includes(f))) } : {}) };
}

/** `recorded`: digests of candidates optimisation records already hold for this problem (never proposed again). */
export async function proposeCandidate(deps: ProposalDeps, focus: FocusRow, cps: readonly Checkpoint[], cases: readonly JudgedReplay[], recorded: ReadonlySet<string> = new Set()): Promise<ProposalPayload> {
  const { criteria, blockingCriterionId } = focus.candidate;
  const blocking = criteria.find((c) => c.id === blockingCriterionId);
  const wantedFamily = blocking && 'family' in blocking ? blocking.family : 'unknown';
  const tried = new Set([...recorded, ...ofKind(cps, 'proposal').flatMap((c) => (c.payload.digest === null ? [] : [c.payload.digest]))]);
  const rejected: ProposalPayload['rejected'] = [];
  for (let round = 0; round < 2; round += 1) {
    let raw: unknown[];
    try {
      raw = await deps.proposer.propose({ wantedFamily, ledFamilies: ledFamilies(cases, blockingCriterionId), manifest: deps.data.manifest, read: deps.data.read, tried, limit: 8, history: triedCandidates(cps, blockingCriterionId), ...ticketFeedback(deps.replay, focus, cases, wantedFamily) });
    } catch (error) {
      rejected.push({ code: 'CANDIDATE.INVALID', detail: `the proposer failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300) });
      continue;
    }
    for (const p of Array.isArray(raw) ? raw : [raw]) {
      const verdict = checkCandidate(p, deps.data.manifest, deps.data.read);
      if (verdict.ok && verdict.diff) return { diff: verdict.diff, digest: candidateDigest(verdict.diff), rejected };
      if (!verdict.ok) rejected.push({ code: verdict.code, detail: verdict.detail });
      if (!verdict.ok && verdict.code === 'CANDIDATE.PROTECTED_PATH') return { diff: null, digest: null, rejected };
    }
  }
  return { diff: null, digest: null, rejected: rejected.slice(-10) };
}
