import { createTenancy, type Principal } from '@aoc/auth';
import { OptimizerCandidateEnqueuedV2, type EvaluationJudgedV1, type RunPublishedV1, type TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { CollectSignalsHandler } from '../collect-signals/collect-signals.handler';
import { answerFor, FocusHarness, FP, QUESTION, ScriptedReplay, TICKETS } from '../../test/focus-harness';
import { checkpointsOf } from '../persistence/checkpoint-store';
import { focusesWith, moveFocus, rejectionsSince } from '../persistence/focus-store';
import { targetSetKey } from '../select-focus/focus-selector';
import { builtinSelector, type FocusSelector } from '../select-focus/model-selector';
import { saveTimeline, signals, timelineOf } from '../persistence/signal-store';
import type { CandidateProposer } from '../propose-candidate/builtin-proposer';
import { FocusController } from './focus-controller';
import { FocusIteration, type IterationDeps } from './focus-iteration';
import { localDataAccess } from './data-access';
import { FocusDashboardController } from '../dashboard/focus-dashboard.controller';
import { ScheduleConfig } from '../schedule/optimizer-schedule';
import { OptimizerScheduler } from '../schedule/optimizer-scheduler';
import type { CandidateWriter, ReplayPort, ReplayRequest, ReplayResult } from './ports';

/**
 * The Focus lifecycle on the embedded Postgres with a scripted replay engine (test/focus-harness.ts):
 * the engine leads with CPU unless the data it replays on says lock waits drive CPU. Everything
 * else (signals, selector, criterion judge, checkpoints, gate, policy, output) is the real code.
 */

/**
 * A second scripted engine: the tickets name lock waits by the MySQL variable, which no scenario
 * signal matches, so the plans never ask for lock families and the answers lead with CPU, unless
 * the replayed catalogue lets that word select the lock-contention scenario.
 */
class UnmatchedWordReplay implements ReplayPort {
  ticketText(): string {
    return 'Orders API: innodb_lock_wait_timeout exceeded on every checkout since 14:05';
  }
  async replay(cases: readonly ReplayRequest[], overlay: ReadonlyMap<string, string> | null): Promise<ReplayResult[]> {
    const catalog = overlay?.get('services/router/data/scenario-catalog.json');
    const selects = catalog !== undefined && (JSON.parse(catalog) as { scenarios: Record<string, { signals: string[] }> }).scenarios['lock-contention'].signals.includes('innodb_lock_wait_timeout');
    return cases.map((c) => ({ caseId: c.caseId, answer: { ...answerFor(selects ? 'locks' : 'cpu'), queriedFamilies: selects ? ['cpu', 'lock_waits'] : ['cpu'] }, execution: { responseGeneration: 'complete', providerCapability: 'verified' }, error: null }));
  }
}

describe('Focus lifecycle (embedded Postgres, scripted replay)', () => {
  const h = new FocusHarness();
  const published = h.published;
  const transact = h.transact;
  const writer = h.writer;
  const deps = (replay: ReplayPort, proposer?: CandidateProposer): IterationDeps => h.deps(replay, proposer);
  const ctx = () => h.ctx();
  let ds = h.ds;

  /** An active Focus whose proposer's candidate never fixes the targets, so attempts end rejected and new ones start. */
  async function activeWithFruitlessProposer(): Promise<{ replay: ScriptedReplay; iteration: FocusIteration }> {
    const replay = new ScriptedReplay();
    const threshold: CandidateProposer = { engine: 'test-threshold', propose: async () => [{ edits: [{ path: 'services/router/data/family-rules.json', pointer: '/deviationThreshold', value: 3, because: 'one step down' }] }] };
    const controller = new FocusController(deps(replay, threshold));
    await controller.select();
    await controller.baseline();
    return { replay, iteration: new FocusIteration(deps(replay, threshold)) };
  }

  beforeAll(async () => {
    await h.start();
    ds = h.ds;
  }, 120000);
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    await h.seed();
  });

  it('selects, confirms on a fresh baseline, finds a data change, gates it and enqueues it once', async () => {
    const replay = new ScriptedReplay();
    const controller = new FocusController(deps(replay));
    expect((await controller.select()).outcome).toBe('focus_candidate_selected');
    expect((await controller.select()).outcome).toBe('no_focus_candidate');
    expect(await controller.baseline()).toMatchObject({ outcome: 'focus_created' });
    expect((await signals(ds.manager, { state: 'consumed' })).map((s) => s.ticketKey).sort()).toEqual(TICKETS);
    const iteration = new FocusIteration(deps(replay));
    const first = await iteration.iterate();
    expect(first).toMatchObject({ outcome: 'candidate_enqueued' });
    expect(h.writes).toBe(1);
    const [msg] = published;
    const payload = OptimizerCandidateEnqueuedV2.parse(msg.payload);
    expect(payload.edits).toEqual([expect.objectContaining({ path: 'services/router/data/family-rules.json', pointer: '/drives/lock_waits' })]);
    expect(JSON.parse(payload.edits[0].valueJson)).toContain('cpu');
    expect(payload.gate.rows.filter((r) => r.blocking).map((r) => r.transition)).toEqual(['fixed', 'fixed', 'fixed']);
    expect(payload.diff).toMatch(/\+\s+"cpu"/);
    expect((await checkpointsOf(ds.manager, first.focusId ?? '')).map((c) => c.kind)).toEqual(['selection', 'baseline', 'case_refresh', 'proposal', 'challenger', 'gate', 'attempt_review', 'candidate_enqueued']);
    // Waiting for the merge: a second run re-checks the sources and refreshes the cases (a replay on
    // the current data), but proposes and enqueues nothing new on this base.
    const replays = replay.calls.length;
    expect((await iteration.iterate()).outcome).toBe('candidate_enqueued');
    expect(replay.calls.slice(replays)).toEqual([{ cases: TICKETS, overlay: false }]);
    expect(published).toHaveLength(1);
    const cps = await checkpointsOf(ds.manager, first.focusId ?? '');
    expect(cps.slice(8).map((c) => `${c.kind}#${c.attempt}`)).toEqual(['case_refresh#2', 'attempt_review#2']);
    const held = cps.at(-1);
    expect(held?.kind === 'attempt_review' && held.payload.heldBy).toBe(payload.candidateId);
    // The pages show the Focus, its cases, checkpoints and gate table.
    const pages = new FocusDashboardController(ds, createTenancy(undefined));
    const platform: Principal = { subject: 'token:p', role: 'viewer', tenant: 'default', credential: 'api_token' };
    expect(await pages.list(platform)).toContain(`href="/focuses/${first.focusId}"`);
    // A Focus gathers many tickets' cases: a credential of another tenant neither lists nor reads it.
    const tenants = createTenancy({ acme: { ticketProjects: ['ACME'], targets: ['acme-*'] } });
    const acmePages = new FocusDashboardController(ds, tenants);
    expect(await acmePages.list({ ...platform, tenant: 'acme' })).not.toContain(first.focusId ?? 'no focus');
    await expect(acmePages.detail(first.focusId ?? '', { ...platform, tenant: 'acme' })).rejects.toMatchObject({ status: 404 });
    const detail = await pages.detail(first.focusId ?? '', platform);
    for (const text of ['Creation baseline', 'Attempt 1', 'candidate_enqueued', 'Gate <strong>accepted</strong>', '/drives/lock_waits', ...TICKETS]) expect(detail).toContain(text);
    expect(detail).toContain('&quot;');
    await expect(pages.detail('focus-<script>', platform)).rejects.toThrow(/focusId/);
  }, 60000);

  it('adds the tickets\' own word to the scenario catalogue when no target even asked for the wanted family', async () => {
    const replay = new UnmatchedWordReplay();
    const controller = new FocusController(deps(replay));
    await controller.select();
    expect(await controller.baseline()).toMatchObject({ outcome: 'focus_created' });
    expect(await new FocusIteration(deps(replay)).iterate()).toMatchObject({ outcome: 'candidate_enqueued' });
    const payload = OptimizerCandidateEnqueuedV2.parse(published[0].payload);
    expect(payload.edits).toEqual([expect.objectContaining({ path: 'services/router/data/scenario-catalog.json', pointer: '/scenarios/lock-contention/signals' })]);
    expect(JSON.parse(payload.edits[0].valueJson)).toContain('innodb_lock_wait_timeout');
    expect(payload.gate.rows.filter((r) => r.blocking).map((r) => r.transition)).toEqual(['fixed', 'fixed', 'fixed']);
  }, 60000);

  it('records a target that alone fails as a case blocker, leaves it out on this base, and hands over when too few targets remain', async () => {
    const replay = new ScriptedReplay();
    const controller = new FocusController(deps(replay));
    await controller.select();
    await controller.baseline();
    replay.failing.add(TICKETS[2]);
    const iteration = new FocusIteration(deps(replay));
    expect(await iteration.iterate()).toMatchObject({ outcome: 'focus_case_blocked', reason: expect.stringContaining(`${TICKETS[2]} excluded on this base`) });
    const enqueued = await iteration.iterate();
    expect(enqueued.outcome).toBe('candidate_enqueued');
    // The challenger ran without the blocked target, and the gate is over the unblocked ones only.
    expect(replay.calls.at(-1)).toEqual({ cases: [TICKETS[0], TICKETS[1]], overlay: true });
    const payload = OptimizerCandidateEnqueuedV2.parse(published[0].payload);
    expect(payload.gate.rows.filter((r) => r.blocking).map((r) => [r.caseId, r.transition])).toEqual([[TICKETS[0], 'fixed'], [TICKETS[1], 'fixed']]);
    const kinds = (await checkpointsOf(ds.manager, enqueued.focusId ?? '')).map((c) => c.kind);
    expect(kinds.filter((k) => k === 'case_blocked')).toHaveLength(1);
    expect(await new FocusDashboardController(ds, createTenancy(undefined)).detail(enqueued.focusId ?? '', { subject: 'token:p', role: 'viewer', tenant: '*', credential: 'api_token' })).toContain(`Case blocked on this base: ${TICKETS[2]} (${TICKETS[2]}: replay failed: provider timeout)`);
  }, 60000);

  it('drops a selection whose refs stopped being open while the selector ran', async () => {
    const suppressing: FocusSelector = {
      engine: 'test-slow',
      select: async (input) => {
        await ds.query(`UPDATE "optimizer"."signal_refs" SET "state" = 'suppressed' WHERE "ticket_key" = $1`, [TICKETS[0]]);
        return builtinSelector.select(input);
      },
    };
    expect(await new FocusController({ ...deps(new ScriptedReplay()), selector: suppressing }).select()).toMatchObject({ outcome: 'no_focus_candidate', reason: expect.stringContaining('stopped being open') });
    expect(await focusesWith(ds.manager, 'selected')).toEqual([]);
  }, 60000);

  it('rolls back a baseline whose Focus another run moved meanwhile: nothing consumed, the step says so', async () => {
    const replay = new ScriptedReplay();
    const controller = new FocusController(deps(replay));
    const { focusId } = await controller.select();
    // While this baseline replays, another optimizer run finishes the same candidate first.
    const racing: ReplayPort = { replay: async (cases, overlay) => (await ds.query(`UPDATE "optimizer"."focuses" SET "status" = 'rejected' WHERE "focus_id" = $1`, [focusId]), replay.replay(cases, overlay)) };
    expect(await new FocusController(deps(racing)).baseline()).toMatchObject({ outcome: 'run_in_progress', reason: expect.stringContaining('no longer selected') });
    expect((await signals(ds.manager, { state: 'consumed' })).length).toBe(0);
    expect(await focusesWith(ds.manager, 'active')).toEqual([]);
  }, 60000);

  it('keeps a blocker out on its base even once it runs again, so it never counts as met there', async () => {
    const { replay, iteration } = await activeWithFruitlessProposer();
    replay.failing = new Set([TICKETS[2]]);
    expect((await iteration.iterate()).outcome).toBe('focus_case_blocked');
    expect((await iteration.iterate()).outcome).toBe('candidate_rejected');
    replay.failing = new Set();
    expect((await iteration.iterate()).outcome).toBe('candidate_rejected');
    // The refresh replayed every target; the challenger and the gate only the unblocked ones.
    expect(replay.calls.slice(-2)).toEqual([{ cases: TICKETS, overlay: false }, { cases: [TICKETS[0], TICKETS[1]], overlay: true }]);
  }, 60000);

  it('treats wide failure as inconclusive, and hands the Focus to a human when blockers leave fewer than two targets', async () => {
    const { replay, iteration } = await activeWithFruitlessProposer();
    replay.failing = new Set(TICKETS.slice(0, 2));
    expect((await iteration.iterate()).outcome).toBe('evaluation_inconclusive');
    replay.failing = new Set([TICKETS[2]]);
    expect((await iteration.iterate()).outcome).toBe('focus_case_blocked');
    expect((await iteration.iterate()).outcome).toBe('candidate_rejected');
    // The next attempt on the same base: another target fails alone; one unblocked target would remain.
    replay.failing = new Set([TICKETS[1]]);
    const handoff = await iteration.iterate();
    expect(handoff).toMatchObject({ outcome: 'focus_human_handoff', reason: expect.stringContaining('insufficient_unblocked_targets') });
    expect((await focusesWith(ds.manager, 'human_handoff')).map((f) => f.focusId)).toEqual([handoff.focusId]);
    // A second mover (another replica) finds it no longer active.
    expect(await moveFocus(ds.manager, handoff.focusId ?? '', 'active', 'retired', new Date())).toBe(false);
    expect(await moveFocus(ds.manager, handoff.focusId ?? '', 'human_handoff', 'human_handoff', new Date())).toBe(true);
  }, 60000);

  it('resumes after a crash between challenger and gate without replaying the challenger again', async () => {
    const replay = new ScriptedReplay();
    const controller = new FocusController(deps(replay));
    await controller.select();
    await controller.baseline();
    // The process dies at the first transaction after the challenger was stored: the gate's.
    let crash = true;
    const dying: IterationDeps['transact'] = async (work) => {
      const kinds = ((await ds.query(`SELECT "kind" FROM "optimizer"."checkpoints"`)) as { kind: string }[]).map((r) => r.kind);
      if (crash && kinds.includes('challenger') && !kinds.includes('gate')) {
        crash = false;
        throw new Error('killed between challenger and gate');
      }
      return transact(work);
    };
    await expect(new FocusIteration({ ...deps(replay), transact: dying }).iterate('replica-a')).rejects.toThrow('killed');
    const replaysBefore = replay.calls.length;
    // The lease of the dead run expires; a restarted run resumes the attempt from its checkpoints.
    await ds.query(`DELETE FROM "optimizer"."leases"`);
    expect(await new FocusIteration(deps(replay)).iterate('replica-b')).toMatchObject({ outcome: 'candidate_enqueued' });
    expect(replay.calls.length).toBe(replaysBefore);
    expect(published).toHaveLength(1);
    const kinds = (await checkpointsOf(ds.manager, (await focusesWith(ds.manager, 'active'))[0]?.focusId ?? '')).map((c) => c.kind);
    expect(kinds.filter((k) => k === 'challenger')).toHaveLength(1);
  }, 60000);

  it('resumes after a crash while writing the commit, writing it once', async () => {
    const replay = new ScriptedReplay();
    const controller = new FocusController(deps(replay));
    await controller.select();
    await controller.baseline();
    let crash = true;
    const crashing: CandidateWriter = { write: async (c) => (crash ? ((crash = false), Promise.reject(new Error('killed'))) : writer.write(c)) };
    await expect(new FocusIteration({ ...deps(replay), writer: crashing }).iterate()).rejects.toThrow('killed');
    expect(await new FocusIteration({ ...deps(replay), writer: crashing }).iterate()).toMatchObject({ outcome: 'candidate_enqueued' });
    expect(h.writes).toBe(1);
    expect(published).toHaveLength(1);
  }, 60000);

  it('stops before judging when a target ticket changed: its ref suppressed, the others released, the grouping not proposed again', async () => {
    const replay = new ScriptedReplay();
    const controller = new FocusController(deps(replay));
    await controller.select();
    const edited = { ticketKey: TICKETS[0], revision: 2, comments: [{ id: 'c-1', authorRole: 'customer' as const, visibility: 'public' as const, createdAt: '2026-11-30T09:50:00.000Z', updatedAt: '2026-11-30T13:00:00.000Z', body: 'timeouts on checkout, edited', visibleToAi: true, feedback: null }], bindings: [], questionDigest: QUESTION };
    await saveTimeline(ds.manager, edited, new Date());
    expect(await controller.baseline()).toMatchObject({ outcome: 'focus_candidate_source_changed' });
    expect(replay.calls).toHaveLength(0);
    const states = Object.fromEntries((await signals(ds.manager)).map((s) => [s.ticketKey, s.state]));
    expect(states).toEqual({ [TICKETS[0]]: 'suppressed', [TICKETS[1]]: 'open', [TICKETS[2]]: 'open' });
    const rejectedRefs = (await signals(ds.manager)).map((s) => s.ref);
    expect((await rejectionsSince(ds.manager, new Date(0))).targetSets).toEqual(new Set([targetSetKey(rejectedRefs)]));
    expect(await controller.select()).toMatchObject({ outcome: 'focus_candidate_selected' });
  }, 60000);

  it('treats an edited title or description as a changed ticket, with the comments untouched', async () => {
    const replay = new ScriptedReplay();
    const controller = new FocusController(deps(replay));
    await controller.select();
    const current = await timelineOf(ds.manager, TICKETS[1]);
    const revision: TicketTimelineUpdatedV1 = { ticketKey: TICKETS[1], observedAt: '2026-11-30T14:00:00.000Z', revision: (current?.revision ?? 1) + 1, comments: current?.comments ?? [], questionDigest: 'b'.repeat(64) };
    // A revision from a router that does not carry the digest yet changes nothing about it.
    const { questionDigest: _q, ...older } = revision;
    await new CollectSignalsHandler().onTimeline(older, ctx());
    expect((await timelineOf(ds.manager, TICKETS[1]))?.questionDigest).toBe(QUESTION);
    await new CollectSignalsHandler().onTimeline({ ...revision, revision: revision.revision + 1 }, ctx());
    expect(await controller.baseline()).toMatchObject({ outcome: 'focus_candidate_source_changed' });
    const states = Object.fromEntries((await signals(ds.manager)).map((s) => [s.ticketKey, s.state]));
    expect(states).toEqual({ [TICKETS[0]]: 'open', [TICKETS[1]]: 'suppressed', [TICKETS[2]]: 'open' });
  }, 60000);

  it('survives a proposer that returns garbage (one re-plan, then candidate_plan_rejected) and hands a protected path to a human', async () => {
    const replay = new ScriptedReplay();
    await new FocusController(deps(replay)).select();
    await new FocusController(deps(replay)).baseline();
    let calls = 0;
    const garbage: CandidateProposer = { engine: 'garbage', propose: async () => ((calls += 1), ['rewrite the router', { edits: [{ path: '../../etc/passwd', pointer: '/x', value: 1, because: 'x' }] }]) };
    expect(await new FocusIteration(deps(replay, garbage)).iterate()).toMatchObject({ outcome: 'candidate_plan_rejected', reason: expect.stringContaining('CANDIDATE.INVALID') });
    expect(calls).toBe(2);
    const protectedPlan: CandidateProposer = { engine: 'protected', propose: async () => [{ edits: [{ path: 'libs/contracts/src/common.ts', pointer: '/x', value: 1, because: 'widen the contract' }] }] };
    expect(await new FocusIteration(deps(replay, protectedPlan)).iterate()).toMatchObject({ outcome: 'focus_human_handoff' });
    expect(await focusesWith(ds.manager, 'human_handoff')).toHaveLength(1);
  }, 60000);

  it('hands a plan that spans two stages to a human', async () => {
    const base = localDataAccess();
    const templates = 'services/evidence/data/templates.json';
    const data = {
      ...base,
      manifest: { ...base.manifest, files: [...base.manifest.files, { path: templates, owner: 'evidence: query templates', maxBytes: 4096, tunables: [{ kind: 'number' as const, pointer: '/limit', min: 1, max: 20, step: 1, about: 'rows' }] }] },
      read: (path: string) => (path === templates ? '{"limit": 5}\n' : base.read(path)),
    };
    const replay = new ScriptedReplay();
    await new FocusController({ ...deps(replay), data }).select();
    await new FocusController({ ...deps(replay), data }).baseline();
    const twoStages: CandidateProposer = {
      engine: 'two-stages',
      propose: async () => [{ edits: [{ path: 'services/router/data/family-rules.json', pointer: '/deviationThreshold', value: 3, because: 'a' }, { path: templates, pointer: '/limit', value: 6, because: 'b' }] }],
    };
    expect(await new FocusIteration({ ...deps(replay, twoStages), data }).iterate()).toMatchObject({ outcome: 'focus_human_handoff', reason: expect.stringContaining('several stages') });
    expect(replay.calls).toHaveLength(2);
  }, 60000);

  it('records a control the candidate regresses, without letting it block the gate', async () => {
    const handler = new CollectSignalsHandler();
    const runId = 'run-20261201-00000009-001';
    // The verdict arrives before the answer version it judges: it is kept for control selection.
    await handler.onJudged({ evaluationId: 'ev-c', revision: 1, supersedesEvaluationId: null, runId, ticketKey: 'SUP-9104', answerFingerprint: FP, judgedAt: '2026-11-30T12:00:00.000Z', judgeEngine: 'rubric-judge-v3', verdict: 'equivalent', abstentionCode: null, verdictReason: 'r', qualityScore: 1, aiGaps: [], keyDifferences: [], aiStrengths: [], internalHandoffGaps: [], targetHumanCommentIds: [], referenceComments: [], humanAnswerMarkdown: null } as EvaluationJudgedV1, ctx());
    await handler.onPublished({ runId, ticketKey: 'SUP-9104', mode: 'read', trigger: 'initial', publishedAt: '2026-11-30T10:05:00.000Z', cutoff: '2026-11-30T10:00:00.000Z', customerReplyMarkdown: 'x', internalHandoffMarkdown: answerFor('locks').internalHandoffMarkdown, decision: 'human_required', answerFingerprint: FP, clarificationSimulation: { required: false, requestedContext: [] } } as unknown as RunPublishedV1, ctx());
    await handler.onTimeline({ ticketKey: 'SUP-9104', observedAt: '2026-11-30T12:00:00.000Z', revision: 1, comments: [] }, ctx());
    const replay = new ScriptedReplay();
    replay.failControlsWith = 'regress';
    const controller = new FocusController(deps(replay));
    const selected = await controller.select();
    expect(selected.candidate?.controls.map((c) => c.ticketKey)).toEqual(['SUP-9104']);
    await controller.baseline();
    expect(await new FocusIteration(deps(replay)).iterate()).toMatchObject({ outcome: 'candidate_enqueued' });
    const payload = OptimizerCandidateEnqueuedV2.parse(published[0].payload);
    expect(payload.gate.controlRegressions).toBe(1);
    expect(payload.gate.rows.find((r) => r.role === 'control' && r.blocking)).toMatchObject({ caseId: 'SUP-9104', baseline: 'met', challenger: 'gap', transition: 'regression' });
  }, 60000);

  it('runs slots: only the selection slot selects, every slot continues the active Focus', async () => {
    const replay = new ScriptedReplay();
    const scheduler = new OptimizerScheduler(deps(replay), ScheduleConfig.parse({}));
    const morning = await scheduler.runSlot({ at: new Date(), slot: '12:30', selects: false });
    expect(morning.steps.map((s) => `${s.step}:${s.outcome}`)).toEqual(['iterate:no_active_focus']);
    // The slot that creates the Focus ends there; its first attempt starts at the next slot.
    const evening = await scheduler.runSlot({ at: new Date(), slot: '20:30', selects: true });
    expect(evening.steps.map((s) => `${s.step}:${s.outcome}`)).toEqual(['select:focus_candidate_selected', 'baseline:focus_created']);
    expect(replay.calls).toHaveLength(1);
    const next = await scheduler.runSlot({ at: new Date(), slot: '12:30', selects: false });
    expect(next.steps.map((s) => `${s.step}:${s.outcome}`)).toEqual(['iterate:candidate_enqueued']);
  }, 60000);

  it('lets one of two replicas run an attempt at a time', async () => {
    const replay = new ScriptedReplay();
    await new FocusController(deps(replay)).select();
    await new FocusController(deps(replay)).baseline();
    await transact(({ manager: m }) => m.query(`INSERT INTO "optimizer"."leases" VALUES ('optimizer-iterate', 'other-replica', now() + interval '5 minutes')`));
    expect(await new FocusIteration(deps(replay)).iterate('this-replica')).toMatchObject({ outcome: 'run_in_progress' });
    expect(replay.calls).toHaveLength(1);
  }, 60000);
});
