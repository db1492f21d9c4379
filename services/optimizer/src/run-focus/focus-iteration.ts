import { Topics } from '@aoc/contracts';
import { checkCandidate } from '@aoc/versioned-data';
import { caseBlockers, recheckSources, reproducibility, unmetRefs } from '../focus/baseline';
import { candidateGate } from '../focus/candidate-gate';
import { attemptsStartedToday, FOCUS_LIMITS, shouldRetire } from '../focus/focus-limits';
import type { RefSets, TransitionOutcome } from '../focus/focus-machine';
import type { CheckpointKind, CheckpointPayload } from '../persistence/checkpoint-payloads';
import { appendCheckpoint, checkpointsOf, latest, ofKind, type Checkpoint, type CheckpointOf } from '../persistence/checkpoint-store';
import { focusesWith, FocusMovedError, releaseLease, takeLease, type FocusRow } from '../persistence/focus-store';
import { transition } from '../persistence/focus-transition';
import { recordedCandidates, saveRecord, settleRecord } from '../persistence/record-store';
import { kindsOf } from '../persistence/signal-store';
import { buildRecord } from '../records/optimization-record';
import type { CandidateProposer } from '../propose-candidate/builtin-proposer';
import type { FocusCandidate } from '../select-focus/focus-selector';
import { attemptRecords, enqueuedOn, nextAttempt } from './attempt-log';
import { candidateMessage, enqueuedPayload, unifiedDiff } from './candidate-output';
import { currentSources, FocusController, type ControllerDeps, type StepResult } from './focus-controller';
import type { CandidateWriter } from './ports';
import { proposeCandidate } from './proposal-step';
import type { JudgedReplay } from './replay-judging';

/**
 * One attempt on the active Focus, resumable at every step: case refresh (sources re-checked, a
 * fresh baseline, reproducibility, retirement), proposal (policy-checked, one re-plan), challenger
 * replay on the candidate's data, gate, attempt review, and for an accepted candidate the commit,
 * `optimizer.candidate-enqueued` and its optimisation record. A step whose checkpoint exists is read, not run again. Every
 * outcome is a transition of the Focus state machine, applied by `transition`.
 */

export interface IterationDeps extends ControllerDeps {
  proposer: CandidateProposer;
  writer: CandidateWriter;
  /** The scheduler's zone for the daily attempt limit. */
  timeZone: string;
}

type ClosingOutcome = CheckpointPayload<'focus_close'>['outcome'];

/** The cases an attempt works on after its refresh: blocked targets left out. */
interface Refreshed {
  cases: JudgedReplay[];
  unblocked: FocusCandidate;
}

const LEASE = 'optimizer-iterate';
/** Longer than any attempt (replays included); a crashed holder frees it after this. */
const LEASE_TTL_MS = 30 * 60_000;

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
    // A close whose checkpoint was stored but whose move was lost (a crash in between): complete it, never replay the old Focus.
    const pendingClose = ofKind(cps, 'focus_close').at(-1);
    if (pendingClose) return this.completeClose(focus, pendingClose);
    const base = this.deps.data.baseVersion();
    const { attempt, resuming } = nextAttempt(cps);
    if (!resuming) {
      const attempts = attemptRecords(cps);
      if (attemptsStartedToday(attempts, this.deps.now(), this.deps.timeZone) >= FOCUS_LIMITS.attemptsPerDay) return this.end(focus, 'daily_attempt_limit_reached', `${FOCUS_LIMITS.attemptsPerDay} attempts already started today`);
      const firstBaseline = ofKind(cps, 'baseline')[0]?.createdAt ?? focus.createdAt;
      if (shouldRetire(firstBaseline, attempts, this.deps.now())) return this.close(focus, 'focus_retired', 'no confirmed improvement over the last attempts', attempt, base, {});
    }
    return this.runAttempt(focus, attempt, base);
  }

  private checkpoints(focus: FocusRow): Promise<Checkpoint[]> {
    return this.deps.transact(({ manager: m }) => checkpointsOf(m, focus.focusId));
  }

  private save<K extends CheckpointKind>(focus: FocusRow, kind: K, attempt: number, base: string, candidate: string | null, payload: CheckpointPayload<K>): Promise<CheckpointOf<K>> {
    return this.deps.transact(({ manager: m }) => appendCheckpoint(m, { focusId: focus.focusId, kind, focusDigest: focus.focusDigest, baseVersion: base, attempt, candidateDigest: candidate, payload }, this.deps.now()));
  }

  /** Ends the run in `outcome`, through the state machine (which refuses an outcome the Focus's status does not allow). */
  private async end(focus: FocusRow, outcome: TransitionOutcome, reason: string, refs: RefSets = {}): Promise<StepResult> {
    await this.deps.transact(({ manager: m }) => transition(m, focus, outcome, refs, this.deps.now(), reason));
    return { outcome, reason, focusId: focus.focusId };
  }

  /** A close is durable first (its checkpoint names the outcome and the refs), then applied. */
  private async close(focus: FocusRow, outcome: ClosingOutcome, reason: string, attempt: number, base: string, refs: RefSets): Promise<StepResult> {
    return this.completeClose(focus, await this.save(focus, 'focus_close', attempt, base, null, { outcome, reason, refs }));
  }

  private completeClose(focus: FocusRow, close: CheckpointOf<'focus_close'>): Promise<StepResult> {
    return this.end(focus, close.payload.outcome, close.payload.reason, close.payload.refs);
  }

  private async runAttempt(focus: FocusRow, attempt: number, base: string): Promise<StepResult> {
    const refreshed = await this.refresh(focus, attempt, base);
    if ('outcome' in refreshed) return refreshed;
    const { cases, unblocked } = refreshed;
    const candidate = focus.candidate;
    const cps = await this.checkpoints(focus);
    // An accepted candidate holds back new proposals on its base, but not the refresh above.
    const enqueued = enqueuedOn(cps, base);
    if (enqueued) return this.hold(focus, attempt, base, enqueued);

    // 2. Proposal: untrusted until the policy admits it; one re-plan, then candidate_plan_rejected.
    // Candidates already recorded for this problem (an ineffective one among them) are not proposed again.
    const proposed = latest(cps, 'proposal', attempt);
    const recorded = proposed ? new Set<string>() : await this.deps.transact(({ manager: m }) => recordedCandidates(m, candidate.signature, candidate.targets.map((t) => t.ticketKey)));
    const proposal = proposed ?? (await this.save(focus, 'proposal', attempt, base, null, await proposeCandidate(this.deps, focus, cps, cases, recorded)));
    const { diff, digest } = proposal.payload;
    if (diff === null || digest === null) {
      const protectedPath = proposal.payload.rejected.find((r) => r.code === 'CANDIDATE.PROTECTED_PATH');
      if (protectedPath) return this.end(focus, 'focus_human_handoff', `the plan touches a protected path (${protectedPath.detail})`);
      return this.end(focus, 'candidate_plan_rejected', proposal.payload.rejected.map((r) => `${r.code}: ${r.detail}`).join('; ') || 'no admissible proposal');
    }
    const checked = checkCandidate(diff, this.deps.data.manifest, this.deps.data.read);
    if (!checked.ok || !checked.files) return this.end(focus, 'candidate_plan_rejected', checked.ok ? 'no files' : `${checked.code}: ${checked.detail}`);
    // One stage per plan: data of several owners (e.g. router rules and evidence templates) goes to a human.
    const owners = new Set(diff.edits.map((e) => this.deps.data.manifest.files.find((f) => f.path === e.path)?.owner ?? e.path));
    if (owners.size > 1) return this.end(focus, 'focus_human_handoff', `the plan spans several stages (${[...owners].join('; ')})`);

    // 3. Challenger on the same cases and cutoffs, with the candidate's files in place.
    const droppedControls = candidate.controls.filter((c) => !cases.some((x) => x.caseId === c.ticketKey)).map((c) => c.ticketKey);
    const challenger = latest(cps, 'challenger', attempt) ?? (await this.save(focus, 'challenger', attempt, base, digest, { cases: await this.controller.replayCases(unblocked, droppedControls, checked.files) }));
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
    if (gate.status === 'rejected') return this.end(focus, 'candidate_rejected', gate.reason);
    if (gate.status === 'inconclusive') return this.end(focus, 'evaluation_inconclusive', gate.reason);

    // 6. Output: a branch and commit in the operator's working copy, then the topic and the optimisation record.
    const files = checked.files;
    const texts = new Map([...files].map(([path]) => [path, this.deps.data.read(path)]));
    const commit = await this.deps.writer.write({ focusId: focus.focusId, attempt, files, message: candidateMessage(candidate, diff, gate) });
    const unified = unifiedDiff(texts, files);
    await this.deps.transact(async (uow) => {
      const at = this.deps.now();
      await appendCheckpoint(uow.manager, { focusId: focus.focusId, kind: 'candidate_enqueued', focusDigest: focus.focusDigest, baseVersion: base, attempt, candidateDigest: digest, payload: { commit } }, at);
      await uow.publish(Topics.optimizerCandidateEnqueued, enqueuedPayload({ focus, attempt, base, digest, diff, gate, proposer: this.deps.proposer.engine, unified, commit, at }));
      // The record, then its problems' statuses: both keyed by the record id, so a resumed or repeated output writes neither twice.
      const kinds = await kindsOf(uow.manager, candidate.targets.map((t) => t.ref));
      const record = await saveRecord(uow.manager, buildRecord({ focus, attempt, proposer: this.deps.proposer.engine, baseVersion: base, candidateDigest: digest, diff, before: texts, after: files, manifest: this.deps.data.manifest, read: this.deps.data.read, unifiedDiff: unified, gate, commit, kinds, at }), focus.tenants, at);
      await settleRecord(uow.manager, record, at);
      await transition(uow.manager, focus, 'candidate_enqueued', {}, at, gate.reason);
    });
    return { outcome: 'candidate_enqueued', reason: gate.reason, focusId: focus.focusId };
  }

  /**
   * 1. Case refresh: sources first (unverifiable: nothing happens; changed: the Focus closes), a
   * fresh baseline on the current data, case blockers of this base, then reproducibility.
   */
  private async refresh(focus: FocusRow, attempt: number, base: string): Promise<StepResult | Refreshed> {
    const candidate = focus.candidate;
    const cps = await this.checkpoints(focus);
    let refresh = latest(cps, 'case_refresh', attempt);
    if (!refresh) {
      const check = await this.deps.transact(async ({ manager: m }) => recheckSources(candidate, await currentSources(m, candidate)));
      if (check.kind === 'unverifiable') return this.end(focus, 'source_unverifiable', `no timeline collected for ${check.cases.join(', ')}: the sources cannot be verified, so nothing is replayed or judged`);
      if (check.kind === 'changed') return this.close(focus, 'focus_source_changed', `${check.changedRefs.length} target(s) changed`, attempt, base, { changed: check.changedRefs, unchanged: check.releasedRefs });
      const cases = await this.controller.replayCases(candidate, check.droppedControls, null);
      refresh = await this.save(focus, 'case_refresh', attempt, base, null, { cases, reproducibility: reproducibility(cases, candidate.blockingCriterionId) });
    }
    const refreshed = refresh.payload.cases;
    // Case blockers on this base first: recorded once (the run ends there), then left out of everything after.
    const recorded = ofKind(cps, 'case_blocked').filter((c) => c.baseVersion === base).flatMap((c) => c.payload.caseIds);
    const blockers = caseBlockers(refreshed, recorded);
    if (blockers.kind === 'wide') return this.inconclusive(focus, attempt, base, `${blockers.failed.length} of ${candidate.targets.length} targets did not execute (${blockers.failed.join(', ')})`);
    if (blockers.kind === 'insufficient') return this.end(focus, 'focus_human_handoff', `insufficient_unblocked_targets: ${blockers.all.join(', ')} blocked on this base; fewer than ${FOCUS_LIMITS.minTargets} targets remain`);
    if (blockers.kind === 'blocked' && blockers.newly.length > 0) {
      const errors = blockers.newly.map((id) => `${id}: ${refreshed.find((c) => c.caseId === id)?.error ?? 'did not execute'}`);
      await this.save(focus, 'case_blocked', attempt, base, null, { caseIds: blockers.newly, reason: errors.join('; ').slice(0, 500) });
      return this.end(focus, 'focus_case_blocked', `${blockers.newly.join(', ')} excluded on this base (${errors.join('; ')})`.slice(0, 500));
    }
    const blocked = blockers.kind === 'blocked' ? blockers.all : [];
    const cases = refreshed.filter((c) => !blocked.includes(c.caseId));
    const unblocked = blocked.length === 0 ? candidate : { ...candidate, targets: candidate.targets.filter((t) => !blocked.includes(t.ticketKey)) };
    const repro = reproducibility(cases, candidate.blockingCriterionId);
    // Targets not met (blocked ones included) go back to selection; met ones stay consumed.
    if (repro.kind === 'auto_close') return this.close(focus, 'focus_auto_closed', `${repro.met} of ${unblocked.targets.length} unblocked targets meet the blocking criterion on this data`, attempt, base, { unmet: unmetRefs(candidate.targets, cases, candidate.blockingCriterionId) });
    if (repro.kind === 'inconclusive') return this.inconclusive(focus, attempt, base, `${repro.confirmedGaps} confirmed gap(s); the rest could not be judged`);
    return { cases, unblocked };
  }

  /** The attempt ends without a gate; the next run refreshes the cases again. */
  private async inconclusive(focus: FocusRow, attempt: number, base: string, reason: string): Promise<StepResult> {
    await this.save(focus, 'attempt_review', attempt, base, null, { gate: 'not_run', transitions: [], mechanismNotExercised: false, feedback: reason });
    return this.end(focus, 'evaluation_inconclusive', reason);
  }

  /** The attempt ends after its refresh: the candidate enqueued on this base is still the answer until the base changes. */
  private async hold(focus: FocusRow, attempt: number, base: string, enqueued: CheckpointOf<'candidate_enqueued'>): Promise<StepResult> {
    const reason = `the candidate accepted in attempt ${enqueued.attempt} waits on optimizer.candidate-enqueued; the cases were refreshed and nothing new is proposed on this base`;
    await this.save(focus, 'attempt_review', attempt, base, null, { gate: 'not_run', transitions: [], mechanismNotExercised: false, feedback: reason, heldBy: enqueued.candidateDigest ?? 'unknown' });
    return this.end(focus, 'candidate_enqueued', reason);
  }
}
