import { Topics } from '@aoc/contracts';
import { candidateDigest, checkCandidate, type CandidateDiff } from '@aoc/versioned-data';
import { caseBlockers, recheckSources, reproducibility } from '../focus/baseline';
import { candidateGate, type GateResult } from '../focus/candidate-gate';
import { attemptsStartedToday, FOCUS_LIMITS, shouldRetire, type AttemptRecord } from '../focus/focus-outcome';
import { appendCheckpoint, checkpointsOf, focusesWith, FocusMovedError, mustMoveFocus, releaseLease, takeLease, type Checkpoint, type FocusRow } from '../persistence/focus-store';
import { setSignalState } from '../persistence/signal-store';
import { familiesCounting } from '../judge-criteria/criterion-judge';
import type { CandidateProposer, ProposerInput, TriedCandidate } from '../propose-candidate/builtin-proposer';
import { currentSources, FocusController, type ControllerDeps, type StepResult } from './focus-controller';
import type { CandidateWriter } from './ports';
import { gapTargets, ledFamilies, replayRequests, type JudgedReplay } from './replay-judging';
import { candidateMessage, enqueuedPayload, unifiedDiff } from './candidate-output';

/**
 * One attempt on the active Focus, resumable at every step: case refresh (sources re-checked, a
 * fresh baseline, reproducibility, retirement), proposal (policy-checked, one re-plan), challenger
 * replay on the candidate's data, gate, attempt review, and for an accepted candidate the commit
 * and `optimizer.candidate-enqueued`. A step whose checkpoint exists is read, not run again.
 */

export interface IterationDeps extends ControllerDeps {
  proposer: CandidateProposer;
  writer: CandidateWriter;
  /** The scheduler's zone for the daily attempt limit. */
  timeZone: string;
}

interface ProposalPayload {
  diff: CandidateDiff | null;
  digest: string | null;
  rejected: { code: string; detail: string }[];
}

const LEASE = 'optimizer-iterate';
/** Longer than any attempt (replays included); a crashed holder frees it after this. */
const LEASE_TTL_MS = 30 * 60_000;

const latest = <P>(cps: readonly Checkpoint[], kind: Checkpoint['kind'], attempt: number): Checkpoint<P> | undefined => cps.filter((c) => c.kind === kind && c.attempt === attempt).at(-1) as Checkpoint<P> | undefined;

/** Every candidate this Focus replayed, with its blocking status per target and its review. */
function triedCandidates(cps: readonly Checkpoint[], blockingCriterionId: string): TriedCandidate[] {
  return cps
    .filter((c) => c.kind === 'challenger')
    .flatMap((c) => {
      const diff = cps.find((p) => p.kind === 'proposal' && p.attempt === c.attempt && (p.payload as ProposalPayload).digest === c.candidateDigest)?.payload as ProposalPayload | undefined;
      if (!diff?.diff) return [];
      const cases = (c.payload as { cases: JudgedReplay[] }).cases.filter((x) => x.role === 'target');
      const perCase = Object.fromEntries(cases.map((x) => [x.caseId, x.judgement.results.find((r) => r.criterionId === blockingCriterionId)?.status ?? 'inconclusive']));
      const review = cps.find((r) => r.kind === 'attempt_review' && r.attempt === c.attempt)?.payload as { feedback?: string } | undefined;
      return [{ diff: diff.diff, perCase, feedback: review?.feedback ?? '' }];
    });
}

export class FocusIteration {
  private readonly controller: FocusController;

  constructor(private readonly deps: IterationDeps) {
    this.controller = new FocusController(deps);
  }

  /** One attempt under the optimizer lease: a second replica started at the same time does nothing. */
  async iterate(owner = `pid-${process.pid}-${Math.random().toString(36).slice(2, 8)}`): Promise<StepResult> {
    const taken = await this.deps.transact(({ manager: m }) => takeLease(m, LEASE, owner, LEASE_TTL_MS, this.deps.now()));
    if (!taken) return { outcome: 'run_in_progress', reason: 'another optimizer run holds the lease', focusId: null };
    try {
      return await this.iterateOnce();
    } catch (error) {
      // A lease that expired under a slow attempt: the other holder moved the Focus; this run's last transaction rolled back.
      if (error instanceof FocusMovedError) return { outcome: 'run_in_progress', reason: error.message, focusId: error.focusId };
      throw error;
    } finally {
      await this.deps.transact(({ manager: m }) => releaseLease(m, LEASE, owner));
    }
  }

  private async iterateOnce(): Promise<StepResult> {
    const focus = await this.deps.transact(async ({ manager: m }) => (await focusesWith(m, 'active'))[0] ?? null);
    if (!focus) return { outcome: 'no_active_focus', reason: 'no Focus is active', focusId: null };
    const cps = await this.checkpoints(focus);
    const base = this.deps.data.baseVersion();
    if (cps.some((c) => c.kind === 'candidate_enqueued' && c.baseVersion === base)) {
      return { outcome: 'candidate_enqueued', reason: 'an accepted candidate waits to be merged; the next base version re-checks the Focus', focusId: focus.focusId };
    }
    const reviewed = cps.filter((c) => c.kind === 'attempt_review').map((c) => c.attempt);
    const started = [...new Set(cps.filter((c) => c.kind === 'case_refresh').map((c) => c.attempt))];
    // An accepted attempt is finished only once its candidate is out (a crash may fall in between).
    const outputPending = (a: number) => latest<GateResult>(cps, 'gate', a)?.payload.status === 'accepted' && !cps.some((c) => c.attempt === a && c.kind === 'candidate_enqueued');
    const finished = (a: number) => (reviewed.includes(a) && !outputPending(a)) || cps.some((c) => c.attempt === a && (c.kind === 'focus_close' || (c.kind === 'proposal' && (c.payload as ProposalPayload).diff === null)));
    const unfinished = started.find((a) => !finished(a));
    const attempt = unfinished ?? Math.max(0, ...started) + 1;
    if (unfinished === undefined) {
      const attempts: AttemptRecord[] = started.map((a) => ({ startedAt: latest(cps, 'case_refresh', a)?.createdAt ?? '', reviewed: reviewed.includes(a), confirmedImprovement: this.improved(cps, a) }));
      if (attemptsStartedToday(attempts, this.deps.now(), this.deps.timeZone) >= FOCUS_LIMITS.attemptsPerDay) return { outcome: 'daily_attempt_limit_reached', reason: `${FOCUS_LIMITS.attemptsPerDay} attempts already started today`, focusId: focus.focusId };
      const firstBaseline = cps.find((c) => c.kind === 'baseline')?.createdAt ?? focus.createdAt;
      if (shouldRetire(firstBaseline, attempts, this.deps.now())) return this.close(focus, 'retired', 'focus_retired', 'no confirmed improvement over the last attempts', attempt, base);
    }
    return this.runAttempt(focus, attempt, base);
  }

  private improved(cps: readonly Checkpoint[], attempt: number): boolean {
    const gate = latest<GateResult>(cps, 'gate', attempt)?.payload;
    return (gate?.fixedTargets.length ?? 0) > 0;
  }

  private checkpoints(focus: FocusRow): Promise<Checkpoint[]> {
    return this.deps.transact(({ manager: m }) => checkpointsOf(m, focus.focusId));
  }

  private save<P>(focus: FocusRow, kind: Checkpoint['kind'], attempt: number, base: string, candidate: string | null, payload: P): Promise<Checkpoint<P>> {
    return this.deps.transact(({ manager: m }) => appendCheckpoint(m, { focusId: focus.focusId, kind, focusDigest: focus.focusDigest, baseVersion: base, attempt, candidateDigest: candidate, payload }, this.deps.now()));
  }

  private async close(focus: FocusRow, status: 'retired' | 'auto_closed' | 'source_changed', outcome: StepResult['outcome'], reason: string, attempt: number, base: string, release: string[] = [], suppress: string[] = []): Promise<StepResult> {
    await this.save(focus, 'focus_close', attempt, base, null, { outcome, reason, released: release, suppressed: suppress });
    await this.deps.transact(async ({ manager: m }) => {
      await setSignalState(m, release, 'open');
      await setSignalState(m, suppress, 'suppressed', focus.focusId);
      await mustMoveFocus(m, focus.focusId, 'active', status, this.deps.now());
    });
    return { outcome, reason, focusId: focus.focusId };
  }

  private async runAttempt(focus: FocusRow, attempt: number, base: string): Promise<StepResult> {
    const candidate = focus.candidate;
    let cps = await this.checkpoints(focus);
    // 1. Case refresh: sources first, then a fresh baseline on the current data.
    let refresh = latest<{ cases: JudgedReplay[] }>(cps, 'case_refresh', attempt);
    if (!refresh) {
      const check = await this.deps.transact(async ({ manager: m }) => recheckSources(candidate, await currentSources(m, candidate)));
      if (check.kind === 'changed') return this.close(focus, 'source_changed', 'focus_source_changed', `${check.changedRefs.length} target(s) changed`, attempt, base, check.releasedRefs, check.changedRefs);
      const cases = await this.controller.replayCases(candidate, check.droppedControls, null);
      refresh = await this.save(focus, 'case_refresh', attempt, base, null, { cases, reproducibility: reproducibility(cases, candidate.blockingCriterionId) });
    }
    const refreshed = refresh.payload.cases;
    // Case blockers on this base first: recorded once (the run ends there), then left out of everything after.
    const recorded = cps.filter((c) => c.kind === 'case_blocked' && c.baseVersion === base).flatMap((c) => (c.payload as { caseIds: string[] }).caseIds);
    const blockers = caseBlockers(refreshed, recorded);
    if (blockers.kind === 'wide') return this.inconclusive(focus, attempt, base, `${blockers.failed.length} of ${candidate.targets.length} targets did not execute (${blockers.failed.join(', ')})`);
    if (blockers.kind === 'insufficient') {
      await this.deps.transact(({ manager: m }) => mustMoveFocus(m, focus.focusId, 'active', 'human_handoff', this.deps.now()));
      return { outcome: 'focus_human_handoff', reason: `insufficient_unblocked_targets: ${blockers.all.join(', ')} blocked on this base; fewer than ${FOCUS_LIMITS.minTargets} targets remain`, focusId: focus.focusId };
    }
    if (blockers.kind === 'blocked' && blockers.newly.length > 0) {
      const errors = blockers.newly.map((id) => `${id}: ${refreshed.find((c) => c.caseId === id)?.error ?? 'did not execute'}`);
      await this.save(focus, 'case_blocked', attempt, base, null, { caseIds: blockers.newly, reason: errors.join('; ').slice(0, 500) });
      return { outcome: 'focus_case_blocked', reason: `${blockers.newly.join(', ')} excluded on this base (${errors.join('; ')})`.slice(0, 500), focusId: focus.focusId };
    }
    const blocked = blockers.kind === 'blocked' ? blockers.all : [];
    const cases = refreshed.filter((c) => !blocked.includes(c.caseId));
    const unblocked = blocked.length === 0 ? candidate : { ...candidate, targets: candidate.targets.filter((t) => !blocked.includes(t.ticketKey)) };
    const repro = reproducibility(cases, candidate.blockingCriterionId);
    if (repro.kind === 'auto_close') {
      const metRefs = unblocked.targets.filter((t) => cases.find((c) => c.caseId === t.ticketKey)?.judgement.results.some((r) => r.criterionId === candidate.blockingCriterionId && r.status === 'met')).map((t) => t.ref);
      return this.close(focus, 'auto_closed', 'focus_auto_closed', `${repro.met} of ${unblocked.targets.length} unblocked targets meet the blocking criterion on this data`, attempt, base, metRefs);
    }
    if (repro.kind === 'inconclusive') return this.inconclusive(focus, attempt, base, `${repro.confirmedGaps} confirmed gap(s); the rest could not be judged`);

    // 2. Proposal: untrusted until the policy admits it; one re-plan, then candidate_plan_rejected.
    cps = await this.checkpoints(focus);
    let proposal = latest<ProposalPayload>(cps, 'proposal', attempt);
    if (!proposal) proposal = await this.save(focus, 'proposal', attempt, base, null, await this.propose(focus, cps, cases));
    const { diff, digest } = proposal.payload;
    if (diff === null || digest === null) {
      const protectedPath = proposal.payload.rejected.find((r) => r.code === 'CANDIDATE.PROTECTED_PATH');
      if (protectedPath) {
        await this.deps.transact(({ manager: m }) => mustMoveFocus(m, focus.focusId, 'active', 'human_handoff', this.deps.now()));
        return { outcome: 'focus_human_handoff', reason: `the plan touches a protected path (${protectedPath.detail})`, focusId: focus.focusId };
      }
      return { outcome: 'candidate_plan_rejected', reason: proposal.payload.rejected.map((r) => `${r.code}: ${r.detail}`).join('; ') || 'no admissible proposal', focusId: focus.focusId };
    }
    const checked = checkCandidate(diff, this.deps.data.manifest, this.deps.data.read);
    if (!checked.ok || !checked.files) return { outcome: 'candidate_plan_rejected', reason: checked.ok ? 'no files' : `${checked.code}: ${checked.detail}`, focusId: focus.focusId };
    // One stage per plan: data of several owners (e.g. router rules and evidence templates) goes to a human.
    const owners = new Set(diff.edits.map((e) => this.deps.data.manifest.files.find((f) => f.path === e.path)?.owner ?? e.path));
    if (owners.size > 1) {
      await this.deps.transact(({ manager: m }) => mustMoveFocus(m, focus.focusId, 'active', 'human_handoff', this.deps.now()));
      return { outcome: 'focus_human_handoff', reason: `the plan spans several stages (${[...owners].join('; ')})`, focusId: focus.focusId };
    }

    // 3. Challenger on the same cases and cutoffs, with the candidate's files in place.
    let challenger = latest<{ cases: JudgedReplay[] }>(cps, 'challenger', attempt);
    if (!challenger) {
      const droppedControls = candidate.controls.filter((c) => !cases.some((x) => x.caseId === c.ticketKey)).map((c) => c.ticketKey);
      challenger = await this.save(focus, 'challenger', attempt, base, digest, { cases: await this.controller.replayCases(unblocked, droppedControls, checked.files) });
    }
    // 4. Gate and 5. attempt review.
    const gate = candidateGate(cases, challenger.payload.cases, candidate.blockingCriterionId);
    await this.save(focus, 'gate', attempt, base, digest, gate);
    const exercised = challenger.payload.cases.some((c) => c.role === 'target' && c.leadingFamily !== cases.find((b) => b.caseId === c.caseId)?.leadingFamily);
    await this.save(focus, 'attempt_review', attempt, base, digest, {
      gate: gate.status,
      transitions: gate.table.map((r) => ({ caseId: r.caseId, criterionId: r.criterionId, transition: r.transition })),
      mechanismNotExercised: !exercised,
      feedback: exercised ? gate.reason : `mechanism_not_exercised: the leading mechanism did not change on any target (${[...new Set(cases.map((c) => c.leadingFamily ?? 'none'))].join(', ')})`,
    });
    if (gate.status === 'rejected') return { outcome: 'candidate_rejected', reason: gate.reason, focusId: focus.focusId };
    if (gate.status === 'inconclusive') return { outcome: 'evaluation_inconclusive', reason: gate.reason, focusId: focus.focusId };

    // 6. Output: a branch and commit in the operator's working copy, then the topic.
    const files = checked.files;
    const texts = new Map([...files].map(([path]) => [path, this.deps.data.read(path)]));
    const commit = await this.deps.writer.write({ focusId: focus.focusId, attempt, files, message: candidateMessage(candidate, diff, gate) });
    await this.deps.transact(async (uow) => {
      await appendCheckpoint(uow.manager, { focusId: focus.focusId, kind: 'candidate_enqueued', focusDigest: focus.focusDigest, baseVersion: base, attempt, candidateDigest: digest, payload: { commit } }, this.deps.now());
      await uow.publish(Topics.optimizerCandidateEnqueued, enqueuedPayload({ focus, attempt, base, digest, diff, gate, proposer: this.deps.proposer.engine, unified: unifiedDiff(texts, files), commit, at: this.deps.now() }));
    });
    return { outcome: 'candidate_enqueued', reason: gate.reason, focusId: focus.focusId };
  }

  /** The attempt ends without a gate; the next run refreshes the cases again. */
  private async inconclusive(focus: FocusRow, attempt: number, base: string, reason: string): Promise<StepResult> {
    await this.save(focus, 'attempt_review', attempt, base, null, { gate: 'not_run', transitions: [], mechanismNotExercised: false, feedback: reason });
    return { outcome: 'evaluation_inconclusive', reason, focusId: focus.focusId };
  }

  /** What the failing targets' tickets say and whether their plans asked for the wanted family: the word search's guidance. */
  private ticketFeedback(focus: FocusRow, cases: readonly JudgedReplay[], wantedFamily: string): Pick<ProposerInput, 'ticketTexts' | 'wantedQueried'> {
    const failing = gapTargets(cases, focus.candidate.blockingCriterionId);
    const requests = replayRequests(focus.candidate);
    const ticketTexts = failing.map((c) => requests.find((r) => r.caseId === c.caseId)).flatMap((r) => (r && this.deps.replay.ticketText ? [this.deps.replay.ticketText(r)] : [])).filter((t): t is string => t !== null);
    const wanted = familiesCounting(wantedFamily);
    const known = failing.filter((c) => c.queriedFamilies !== undefined);
    return { ticketTexts, ...(known.length > 0 ? { wantedQueried: known.some((c) => (c.queriedFamilies ?? []).some((f) => wanted.includes(f))) } : {}) };
  }

  /** Asks the proposer, admits the first proposal the policy accepts; one re-plan when none is admitted. */
  private async propose(focus: FocusRow, cps: readonly Checkpoint[], cases: readonly JudgedReplay[]): Promise<ProposalPayload> {
    const { criteria, blockingCriterionId } = focus.candidate;
    const blocking = criteria.find((c) => c.id === blockingCriterionId);
    const wantedFamily = blocking && 'family' in blocking ? blocking.family : 'unknown';
    const tried = new Set(cps.filter((c) => c.kind === 'proposal').map((c) => (c.payload as ProposalPayload).digest).filter((d): d is string => d !== null));
    const rejected: ProposalPayload['rejected'] = [];
    for (let round = 0; round < 2; round += 1) {
      let raw: unknown[];
      try {
        raw = await this.deps.proposer.propose({ wantedFamily, ledFamilies: ledFamilies(cases, blockingCriterionId), manifest: this.deps.data.manifest, read: this.deps.data.read, tried, limit: 8, history: triedCandidates(cps, blockingCriterionId), ...this.ticketFeedback(focus, cases, wantedFamily) });
      } catch (error) {
        rejected.push({ code: 'CANDIDATE.INVALID', detail: `the proposer failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300) });
        continue;
      }
      for (const p of Array.isArray(raw) ? raw : [raw]) {
        const verdict = checkCandidate(p, this.deps.data.manifest, this.deps.data.read);
        if (verdict.ok && verdict.diff) return { diff: verdict.diff, digest: candidateDigest(verdict.diff), rejected };
        if (!verdict.ok) rejected.push({ code: verdict.code, detail: verdict.detail });
        if (!verdict.ok && verdict.code === 'CANDIDATE.PROTECTED_PATH') return { diff: null, digest: null, rejected };
      }
    }
    return { diff: null, digest: null, rejected: rejected.slice(-10) };
  }
}
