import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { analysedDigest, bodyDigest } from '../collect-signals/signal-refs';
import { decideBaseline, recheckSources, type CurrentSource } from '../focus/baseline';
import { SLOT_STATUSES, type FocusOutcome } from '../focus/focus-machine';
import { REJECTION_LOOKBACK_DAYS } from '../schedule/optimizer-schedule';
import { appendCheckpoint, checkpointsOf, ofKind, type Checkpoint } from '../persistence/checkpoint-store';
import { focusById, focusesWith, focusesWithCheckpoints, FocusMovedError, recordRejection, rejectionsSince, type FocusRow } from '../persistence/focus-store';
import { openFocus, transition } from '../persistence/focus-transition';
import { recordBlockedRefs } from '../persistence/record-store';
import { answerVersionsOf, judgedVersions, signals, timelineOf } from '../persistence/signal-store';
import type { ControlCandidate, FocusCandidate } from '../select-focus/focus-selector';
import { builtinSelector, type FocusSelector, type SelectionInput } from '../select-focus/model-selector';
import type { FreeTextJudge } from '../judge-criteria/model-criterion-judge';
import type { DataAccess, ReplayPort, Transact } from './ports';
import { judgeReplays, replayRequests, type JudgedReplay } from './replay-judging';

/**
 * Focus selection and creation. `select` proposes one narrow problem from the open signals;
 * `baseline` re-checks its frozen sources, replays every case on the current data and creates the
 * Focus only on two confirmed blocking gaps. Each step is its own short transaction and leaves a
 * checkpoint, so a crash between them resumes where it stopped. Every move of the Focus goes
 * through the state machine's `transition`.
 */

export interface StepResult {
  outcome: FocusOutcome;
  reason: string;
  focusId: string | null;
}

export interface ControllerDeps {
  transact: Transact;
  replay: ReplayPort;
  data: DataAccess;
  now: () => Date;
  /** Free-text criteria through the model judge; without it they stay inconclusive. */
  freeTextJudge?: FreeTextJudge;
  /** The Focus selector (the built-in signature grouping when absent). */
  selector?: FocusSelector;
  /** Days a rejected grouping stays out of selection (`AOC_OPTIMIZER_REJECTION_LOOKBACK_DAYS`, 14 when absent). */
  rejectionLookbackDays?: number;
}

const digestOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
export const focusIdOf = (candidate: FocusCandidate) => `focus-${candidate.groupingDigest.slice(0, 12)}`;

/** A grouping offered again after its rejection expired is a new Focus: the first free `focus-<digest>[-n]`. */
async function freshFocusId(m: EntityManager, candidate: FocusCandidate): Promise<string> {
  const base = focusIdOf(candidate);
  for (let n = 1; n < 1000; n += 1) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (!(await focusById(m, id))) return id;
  }
  throw new Error(`${base} was offered 1000 times`);
}
export const focusDigestOf = (candidate: FocusCandidate) => `focus:${digestOf([candidate.targets, candidate.controls, candidate.criteria, candidate.blockingCriterionId]).slice(0, 32)}`;

/** Control candidates: judged versions as good as the human's, without gaps, with their leading family. */
async function controlCandidates(m: EntityManager): Promise<ControlCandidate[]> {
  const versions = await judgedVersions(m);
  const latest = new Map(versions.map((v) => [v.ticketKey, v]));
  const out: ControlCandidate[] = [];
  for (const v of latest.values()) {
    const timeline = await timelineOf(m, v.ticketKey);
    out.push({
      ticketKey: v.ticketKey,
      verdict: (v.verdict ?? 'not_compared') as ControlCandidate['verdict'],
      aiGapCount: v.aiGapCount ?? 0,
      leadingFamily: v.leadingFamily,
      source: { runId: v.runId, answerFingerprint: v.answerFingerprint, cutoff: v.cutoff, ticketDigest: analysedDigest(timeline?.comments ?? null, v.cutoff ?? v.publishedAt), questionDigest: v.questionDigest ?? timeline?.questionDigest ?? null, referenceComments: [] },
    });
  }
  return out;
}

/** The sources of a candidate's cases as the tickets are now (latest timeline seen); a case without one is left out (unverifiable). */
export async function currentSources(m: EntityManager, candidate: Pick<FocusCandidate, 'targets' | 'controls'>): Promise<Map<string, CurrentSource>> {
  const out = new Map<string, CurrentSource>();
  for (const c of [...candidate.targets, ...candidate.controls]) {
    const timeline = await timelineOf(m, c.ticketKey);
    if (!timeline) continue;
    const version = (await answerVersionsOf(m, c.ticketKey)).find((v) => v.runId === c.source.runId);
    const anchor = c.source.cutoff ?? version?.publishedAt ?? null;
    if (anchor === null) continue;
    out.set(c.ticketKey, { ticketDigest: analysedDigest(timeline.comments, anchor), questionDigest: timeline.questionDigest, referenceComments: timeline.comments.map((x) => ({ id: x.id, bodyDigest: bodyDigest(x.body) })) });
  }
  return out;
}

export class FocusController {
  constructor(private readonly deps: ControllerDeps) {}

  /** Proposes one narrow problem when no Focus is active or waiting for its baseline. */
  async select(): Promise<StepResult & { candidate: FocusCandidate | null }> {
    const busyNow = async (m: EntityManager) => (await Promise.all(SLOT_STATUSES.map((s) => focusesWith(m, s)))).flat()[0];
    const read = await this.deps.transact(async ({ manager: m }): Promise<{ busy: FocusRow } | { input: SelectionInput; held: number }> => {
      const busy = await busyNow(m);
      if (busy) return { busy };
      // Only rejections inside the lookback keep a grouping out (seed §5): an old miss is tried again.
      const since = new Date(this.deps.now().getTime() - (this.deps.rejectionLookbackDays ?? REJECTION_LOOKBACK_DAYS) * 86_400_000);
      const rejections = await rejectionsSince(m, since);
      // Optimisation records keep their problems out (candidate, deployed or verified); an ineffective one lets them back in.
      const recorded = await recordBlockedRefs(m);
      const all = await signals(m);
      return {
        input: { signals: all.map((s) => ({ ...s, unavailable: s.state !== 'open' || recorded.has(s.ref) })), controls: await controlCandidates(m), rejected: rejections.groupings, rejectedTargets: rejections.targetSets, rejectedRefs: rejections.refs },
        held: all.filter((s) => s.state === 'open' && recorded.has(s.ref)).length,
      };
    });
    if ('busy' in read) return { outcome: 'no_focus_candidate', reason: `${read.busy.focusId} is ${read.busy.status}`, focusId: read.busy.focusId, candidate: null };
    // The selector (possibly a model) runs outside any transaction; the write re-checks the slot.
    const selection = await (this.deps.selector ?? builtinSelector).select(read.input);
    if (selection.kind === 'none') return { outcome: 'no_focus_candidate', reason: read.held > 0 ? `${selection.reason}; ${read.held} open ref(s) held by optimisation records` : selection.reason, focusId: null, candidate: null };
    const candidate = selection.candidate;
    return this.deps.transact(async ({ manager: m }) => {
      const busy = await busyNow(m);
      if (busy) return { outcome: 'no_focus_candidate', reason: `${busy.focusId} is ${busy.status}`, focusId: busy.focusId, candidate: null };
      // Refs consumed or suppressed while the selector ran make the choice stale.
      const recorded = await recordBlockedRefs(m);
      const open = new Set((await signals(m, { state: 'open' })).map((s) => s.ref).filter((ref) => !recorded.has(ref)));
      const stale = candidate.targets.filter((t) => !open.has(t.ref)).map((t) => t.ref);
      if (stale.length > 0) return { outcome: 'no_focus_candidate', reason: `${stale.join(', ')} stopped being open while the selector ran`, focusId: null, candidate: null };
      const focus = await openFocus(m, { focusId: await freshFocusId(m, candidate), focusDigest: focusDigestOf(candidate), signature: candidate.signature, candidate }, this.deps.now());
      await appendCheckpoint(m, { focusId: focus.focusId, kind: 'selection', focusDigest: focus.focusDigest, baseVersion: this.deps.data.baseVersion(), attempt: 0, candidateDigest: null, payload: candidate }, this.deps.now());
      return { outcome: 'focus_candidate_selected', reason: selection.note ? `${candidate.problemStatement} (${selection.note})` : candidate.problemStatement, focusId: focus.focusId, candidate };
    });
  }

  /** The creation baseline of the selected candidate; a Focus another run moved first ends it as `run_in_progress`. */
  async baseline(): Promise<StepResult> {
    try {
      return await this.baselineOnce();
    } catch (error) {
      if (error instanceof FocusMovedError) return { outcome: 'run_in_progress', reason: error.message, focusId: error.focusId };
      throw error;
    }
  }

  private async baselineOnce(): Promise<StepResult> {
    const selected = await this.deps.transact(async ({ manager: m }) => (await focusesWith(m, 'selected'))[0] ?? null);
    if (!selected) return { outcome: 'no_focus_candidate', reason: 'no selected candidate waits for its baseline', focusId: null };
    const candidate = selected.candidate;
    const check = await this.deps.transact(async ({ manager: m }) => recheckSources(candidate, await currentSources(m, candidate)));
    if (check.kind === 'unverifiable') {
      const reason = `no timeline collected for ${check.cases.join(', ')}: the source cannot be verified yet`;
      await this.deps.transact(({ manager: m }) => transition(m, selected, 'source_unverifiable', {}, this.deps.now(), reason));
      return { outcome: 'source_unverifiable', reason, focusId: selected.focusId };
    }
    if (check.kind === 'changed') {
      const reason = `${check.changedRefs.length} target(s) changed since selection; ${check.releasedRefs.length} ref(s) released`;
      await this.deps.transact(async ({ manager: m }) => {
        await recordRejection(m, candidate, 'focus_candidate_source_changed', `changed: ${check.changedRefs.join(', ')}`, null, this.deps.now());
        await transition(m, selected, 'focus_candidate_source_changed', { changed: check.changedRefs }, this.deps.now(), reason);
      });
      return { outcome: 'focus_candidate_source_changed', reason, focusId: selected.focusId };
    }
    const base = this.deps.data.baseVersion();
    const existing = ofKind(await this.deps.transact(({ manager: m }) => checkpointsOf(m, selected.focusId)), 'baseline').find((c) => c.baseVersion === base);
    const cases = existing?.payload.cases ?? (await this.replayCases(candidate, check.droppedControls, null));
    const decision = decideBaseline(cases, candidate.blockingCriterionId);
    return this.deps.transact(async ({ manager: m }) => {
      await appendCheckpoint(m, { focusId: selected.focusId, kind: 'baseline', focusDigest: selected.focusDigest, baseVersion: base, attempt: 0, candidateDigest: null, payload: { cases, decision, droppedControls: check.droppedControls } }, this.deps.now());
      if (decision.outcome === 'focus_candidate_rejected') {
        await recordRejection(m, candidate, decision.outcome, decision.reason, { cases }, this.deps.now());
        await transition(m, selected, decision.outcome, {}, this.deps.now(), decision.reason);
        return { outcome: decision.outcome, reason: decision.reason, focusId: selected.focusId };
      }
      // The one-active index refuses a second active Focus (another replica got there first).
      const active = await m.query(`SELECT 1 FROM "optimizer"."focuses" WHERE "status" = 'active'`);
      if ((active as unknown[]).length > 0) return { outcome: 'no_focus_candidate', reason: 'another Focus became active first', focusId: selected.focusId };
      await transition(m, selected, 'focus_created', { targets: candidate.targets.map((t) => t.ref) }, this.deps.now(), decision.reason);
      return { outcome: 'focus_created', reason: decision.reason, focusId: selected.focusId };
    });
  }

  async replayCases(candidate: FocusCandidate, droppedControls: readonly string[], overlay: ReadonlyMap<string, string> | null): Promise<JudgedReplay[]> {
    const requests = replayRequests(candidate, droppedControls);
    const results = await this.deps.replay.replay(requests, overlay);
    return judgeReplays(requests, results, candidate.criteria, this.deps.freeTextJudge);
  }

  /** Every Focus with its checkpoints, newest first. */
  async status(): Promise<{ focus: FocusRow; checkpoints: Checkpoint[] }[]> {
    return this.deps.transact(({ manager: m }) => focusesWithCheckpoints(m));
  }
}
