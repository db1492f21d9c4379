import { createTenancy, type Principal } from '@aoc/auth';
import type { EvaluationJudgedV1 } from '@aoc/contracts';
import type { EntityManager } from 'typeorm';
import { answerFor, FocusHarness, ScriptedReplay, TICKETS } from '../../test/focus-harness';
import { CollectSignalsHandler, type PublishedAnswer } from '../collect-signals/collect-signals.handler';
import { RecordsController } from '../dashboard/records.controller';
import { checkpointsOf } from '../persistence/checkpoint-store';
import { focusesWith } from '../persistence/focus-store';
import { transition } from '../persistence/focus-transition';
import { allRecords, saveRecord, settleRecords, type StoredRecord } from '../persistence/record-store';
import { setSignalState, signals } from '../persistence/signal-store';
import { ScheduleConfig } from '../schedule/optimizer-schedule';
import { OptimizerScheduler } from '../schedule/optimizer-scheduler';
import { FocusController } from './focus-controller';
import { FocusIteration, type IterationDeps } from './focus-iteration';
import type { ReplayPort } from './ports';
import { decideProblem, RecordVerifier } from './record-verification';

/**
 * Optimisation records on the embedded Postgres with the scripted replay engine of the Focus
 * lifecycle (test/focus-harness.ts: answers lead with CPU unless the data says lock waits drive
 * CPU): from an accepted candidate to its record, its deployment, its verification, and what
 * selection does with its problems.
 */

/** An engine the candidate does not help: every answer still leads with CPU. */
const stubborn: ReplayPort = { replay: async (cases) => cases.map((c) => ({ caseId: c.caseId, answer: answerFor('cpu'), execution: { responseGeneration: 'complete', providerCapability: 'verified' }, error: null })) };
const viewer: Principal = { subject: 'token:v', role: 'viewer', tenant: 'default', credential: 'api_token' };

describe('optimisation records (embedded Postgres, scripted replay)', () => {
  const h = new FocusHarness();
  const deps = (replay: ReplayPort): IterationDeps => h.deps(replay);
  const statuses = async () => (await allRecords(h.ds.manager)).flatMap((r) => r.statuses.map((s) => s.status));
  const count = async (table: string) => Number(((await h.ds.query(`SELECT count(*) AS n FROM "optimizer"."${table}"`)) as { n: string }[])[0].n);

  /** A Focus whose first attempt enqueued a candidate, and its record. */
  async function enqueued(replay: ReplayPort = new ScriptedReplay()): Promise<{ stored: StoredRecord; focusId: string }> {
    const controller = new FocusController(deps(replay));
    await controller.select();
    await controller.baseline();
    const result = await new FocusIteration(deps(replay)).iterate();
    expect(result.outcome).toBe('candidate_enqueued');
    const [stored] = await allRecords(h.ds.manager);
    return { stored, focusId: result.focusId ?? '' };
  }

  /** An answer of a ticket as run.published brings it, with the data version the run read when the contract carries one. */
  async function answered(ticketKey: string, runId: string, dataVersion?: string, m: EntityManager = h.ds.manager): Promise<void> {
    const run = { runId, ticketKey, tenant: 'default', mode: 'read', trigger: 'initial', publishedAt: '2026-12-01T05:00:00.000Z', cutoff: '2026-12-01T04:55:00.000Z', customerReplyMarkdown: 'x', internalHandoffMarkdown: answerFor('cpu').internalHandoffMarkdown, decision: 'human_required', answerFingerprint: 'e'.repeat(64), clarificationSimulation: { required: false, requestedContext: [] }, ...(dataVersion ? { dataVersion } : {}) } as PublishedAnswer;
    await new CollectSignalsHandler().onPublished(run, { manager: m } as never);
  }

  /** The record's change is deployed: an answer carrying its data version is seen. */
  const deploy = (stored: StoredRecord) => answered(TICKETS[0], 'run-20261201-deployed-001', stored.record.data.dataVersion);

  /** The Focus leaves the slot (it is handed over), so selection may run again. */
  async function endFocus(focusId: string): Promise<void> {
    const [focus] = await focusesWith(h.ds.manager, 'active');
    expect(focus.focusId).toBe(focusId);
    await h.transact(({ manager: m }) => transition(m, focus, 'focus_human_handoff', {}, new Date()));
  }

  beforeAll(async () => {
    await h.start();
  }, 120000);
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    await h.seed();
  });

  it('writes one record per accepted candidate with its problems candidate, and serves it and its week as JSON', async () => {
    const { stored, focusId } = await enqueued();
    const { record } = stored;
    expect(record.focus).toMatchObject({ focusId, attempt: 1 });
    expect(record.problems.map((p) => p.ticketKey)).toEqual(TICKETS);
    expect(record.data.changes).toEqual([expect.objectContaining({ path: 'services/router/data/family-rules.json', pointer: '/drives/lock_waits', surface: 'family_edges /drives' })]);
    expect(record.gate.rows.filter((r) => r.blocking).map((r) => r.transition)).toEqual(['fixed', 'fixed', 'fixed']);
    expect(stored.statuses.map((s) => s.status)).toEqual(['candidate', 'candidate', 'candidate']);
    // A later run (held by the enqueued candidate) writes nothing more.
    expect((await new FocusIteration(deps(new ScriptedReplay())).iterate()).outcome).toBe('candidate_enqueued');
    expect([await count('optimization_records'), await count('problem_statuses')]).toEqual([1, 3]);

    const api = new RecordsController(h.ds, createTenancy(undefined));
    expect(await api.list(viewer)).toMatchObject({ records: [{ recordId: record.recordId, statuses: [{ status: 'candidate' }, { status: 'candidate' }, { status: 'candidate' }] }] });
    expect(await api.detail(record.recordId, viewer)).toMatchObject({ recordId: record.recordId, data: { dataVersion: record.data.dataVersion } });
    await expect(api.detail('opt-<script>', viewer)).rejects.toMatchObject({ status: 404 });
    expect((await api.weekly('2026-11-30', viewer)).totals).toEqual({ recorded: 3, deployed: 0, verified: 0, ineffective: 0, pendingAtWeekEnd: 3 });
    await expect(api.weekly('2026-12-01', viewer)).rejects.toMatchObject({ status: 400, response: { code: 'OPTIMIZER.INVALID_PARAM', field: 'weekStart' } });
    // A record gathers many tickets: a credential of another tenant neither lists nor reads it.
    const acme = new RecordsController(h.ds, createTenancy({ acme: { ticketProjects: ['ACME'], targets: ['*'] } }));
    expect(await acme.list({ ...viewer, tenant: 'acme' })).toEqual({ records: [] });
    await expect(acme.detail(record.recordId, { ...viewer, tenant: 'acme' })).rejects.toMatchObject({ status: 404 });
  }, 60000);

  it('takes a record for deployed only when an answer carries its data version, never for a new answer version alone', async () => {
    const { stored } = await enqueued();
    await answered(TICKETS[0], 'run-20261201-next-001');
    await answered(TICKETS[1], 'run-20261201-other-001', `data:${'0'.repeat(32)}`);
    expect(await statuses()).toEqual(['candidate', 'candidate', 'candidate']);
    await deploy(stored);
    const [deployed] = await allRecords(h.ds.manager);
    expect(deployed.statuses.map((s) => s.status)).toEqual(['optimized_unverified', 'optimized_unverified', 'optimized_unverified']);
    expect(deployed.statuses[0].reason).toContain(`carries ${stored.record.data.dataVersion}`);
    // A redelivered run.published moves nothing again.
    await deploy(stored);
    expect((await allRecords(h.ds.manager))[0].statuses).toEqual(deployed.statuses);
  }, 60000);

  it('verifies a deployed record by replaying its target cases at their cutoffs on the deployed data', async () => {
    const replay = new ScriptedReplay();
    const { stored } = await enqueued(replay);
    // Not deployed: nothing to verify.
    expect((await new RecordVerifier(deps(replay)).verify()).outcome).toBe('nothing_to_verify');
    await deploy(stored);
    const scheduler = new OptimizerScheduler(deps(replay), ScheduleConfig.parse({}));
    const before = replay.calls.length;
    const slot = await scheduler.runSlot({ at: new Date(), slot: '12:30', selects: false });
    expect(slot.verification).toMatchObject({ outcome: 'records_verified', reason: '1 record(s): 3 verified, 0 ineffective, 0 with evidence missing' });
    // The slot verifies first. This process still reads the base: the deployed data is the record's edits on top of it.
    expect(replay.calls.slice(before)[0]).toEqual({ cases: TICKETS, overlay: true });
    const [verified] = await allRecords(h.ds.manager);
    expect(verified.statuses.map((s) => s.status)).toEqual(['optimized_verified', 'optimized_verified', 'optimized_verified']);
    expect(verified.statuses[0].verification).toMatchObject({ source: 'replay', executed: true, blocking: 'met', leadingFamily: 'lock_waits', dataVersion: stored.record.data.dataVersion });
    expect((await new RecordVerifier(deps(replay)).verify()).outcome).toBe('nothing_to_verify');
    const week = await new RecordsController(h.ds, createTenancy(undefined)).weekly('2026-11-30', viewer);
    expect(week.improvements.map((p) => [p.recordId, p.ticketKey])).toEqual(TICKETS.map((t) => [stored.record.recordId, t]));
  }, 60000);

  it('keeps a problem optimized_unverified with the reason when the replay evidence is missing, and decides once it is there', async () => {
    const replay = new ScriptedReplay();
    const { stored } = await enqueued(replay);
    await deploy(stored);
    replay.failing = new Set(TICKETS);
    expect(await new RecordVerifier(deps(replay)).verify()).toMatchObject({ outcome: 'records_verified', reason: expect.stringContaining('3 with evidence missing') });
    const [missing] = await allRecords(h.ds.manager);
    expect(missing.statuses.map((s) => s.status)).toEqual(['optimized_unverified', 'optimized_unverified', 'optimized_unverified']);
    expect(missing.statuses[0]).toMatchObject({ reason: `evidence missing: the replay of ${TICKETS[0]} did not execute (replay failed: provider timeout)`, decidedAt: null, verification: { executed: false, blocking: null } });
    // Deployed data this process cannot rebuild (it reads neither the record's base nor its version): nothing is replayed or decided.
    const elsewhere = { ...deps(replay), data: { ...h.deps(replay).data, baseVersion: () => `data:${'9'.repeat(32)}` } };
    const calls = replay.calls.length;
    await new RecordVerifier(elsewhere).verify();
    expect(replay.calls.length).toBe(calls);
    expect((await allRecords(h.ds.manager))[0].statuses[0].reason).toMatch(/^evidence missing: this process reads data:9+, neither the deployed/);
    replay.failing = new Set();
    await new RecordVerifier(deps(replay)).verify();
    expect(await statuses()).toEqual(['optimized_verified', 'optimized_verified', 'optimized_verified']);
  }, 60000);

  it('marks a record ineffective when the deployed data still shows the gap, and lets selection pick its problem again without repeating the action', async () => {
    const replay = new ScriptedReplay();
    const { stored, focusId } = await enqueued(replay);
    await deploy(stored);
    expect((await new RecordVerifier(deps(stubborn)).verify()).reason).toContain('3 ineffective');
    const [ineffective] = await allRecords(h.ds.manager);
    expect(ineffective.statuses.map((s) => s.status)).toEqual(['ineffective', 'ineffective', 'ineffective']);
    expect(ineffective.statuses[0].reason).toMatch(/^ineffective: lead-lock-waits is gap on SUP-9101/);
    const refs = stored.record.problems.map((p) => p.ref);
    expect((await signals(h.ds.manager)).filter((s) => refs.includes(s.ref)).map((s) => s.state)).toEqual(['open', 'open', 'open']);
    await endFocus(focusId);
    const again = await new FocusController(deps(replay)).select();
    expect(again).toMatchObject({ outcome: 'focus_candidate_selected', focusId: `${focusId}-2` });
    expect(again.candidate?.targets.map((t) => t.ref).sort()).toEqual([...refs].sort());
    await new FocusController(deps(replay)).baseline();
    await new FocusIteration(deps(replay)).iterate();
    const proposal = (await checkpointsOf(h.ds.manager, `${focusId}-2`)).find((c) => c.kind === 'proposal');
    const digest = proposal?.kind === 'proposal' ? proposal.payload.digest : null;
    expect(digest).toMatch(/^cand:/);
    expect(digest).not.toBe(stored.record.data.candidateDigest);
  }, 90000);

  it('keeps problems a record holds out of selection, the same problem under a newer ref included', async () => {
    const { stored, focusId } = await enqueued();
    await endFocus(focusId);
    // Even released by their Focus, the refs stay with the record.
    await setSignalState(h.ds.manager, stored.record.problems.map((p) => p.ref), 'open');
    // The same tickets answered again (on the old data) and judged with the same gap: new refs, the same problem.
    const handler = new CollectSignalsHandler();
    for (const [i, ticketKey] of TICKETS.entries()) {
      const runId = `run-20261201-again-00${i}`;
      await answered(ticketKey, runId);
      await handler.onJudged({ evaluationId: `ev-again-${i}`, revision: 1, supersedesEvaluationId: null, runId, ticketKey, answerFingerprint: 'e'.repeat(64), judgedAt: '2026-12-01T06:00:00.000Z', judgeEngine: 'rubric-judge-v3', verdict: 'human_better', abstentionCode: null, verdictReason: 'r', qualityScore: 0, aiGaps: ['named "CPU utilisation"; the customer confirmed "lock waits"'], keyDifferences: [], aiStrengths: [], internalHandoffGaps: [], targetHumanCommentIds: [], referenceComments: [], humanAnswerMarkdown: 'locks' } as EvaluationJudgedV1, h.ctx());
    }
    expect((await signals(h.ds.manager, { state: 'open' })).length).toBe(6);
    expect(await new FocusController(deps(new ScriptedReplay())).select()).toMatchObject({ outcome: 'no_focus_candidate', reason: expect.stringContaining('6 open ref(s) held by optimisation records') });
  }, 60000);

  it('loses and doubles nothing when a crash falls between writing the record and moving its statuses', async () => {
    const replay = new ScriptedReplay();
    const controller = new FocusController(deps(replay));
    await controller.select();
    await controller.baseline();
    // The output transaction dies after the record is written, at its first status.
    const dying = h.crashingAt('INSERT INTO "optimizer"."problem_statuses"', 'killed between the record and its statuses');
    await expect(new FocusIteration({ ...deps(replay), transact: dying }).iterate()).rejects.toThrow('killed');
    expect([await count('optimization_records'), await count('problem_statuses')]).toEqual([0, 0]);
    expect(await new FocusIteration(deps(replay)).iterate()).toMatchObject({ outcome: 'candidate_enqueued' });
    expect([await count('optimization_records'), await count('problem_statuses')]).toEqual([1, 3]);
    const [stored] = await allRecords(h.ds.manager);
    expect((await checkpointsOf(h.ds.manager, stored.record.focus.focusId)).filter((c) => c.kind === 'candidate_enqueued')).toHaveLength(1);

    // A record whose statuses were never written (written apart, the step between lost): the next run settles it, once.
    await h.ds.query(`DELETE FROM "optimizer"."problem_statuses"`);
    expect(await saveRecord(h.ds.manager, stored.record, ['default'], new Date())).toEqual(stored.record);
    await deploy(stored);
    expect(await settleRecords(h.ds.manager, new Date())).toBe(0);
    expect(await statuses()).toEqual(['optimized_unverified', 'optimized_unverified', 'optimized_unverified']);
    await h.ds.query(`DELETE FROM "optimizer"."problem_statuses"`);
    expect(await settleRecords(h.ds.manager, new Date())).toBe(1);
    expect(await settleRecords(h.ds.manager, new Date())).toBe(0);
    expect([await count('optimization_records'), await count('problem_statuses')]).toEqual([1, 3]);
    expect(await statuses()).toEqual(['optimized_unverified', 'optimized_unverified', 'optimized_unverified']);

    // A verification that dies before its decisions are written decides them once, on the next run.
    const failingWrite = h.crashingAt('UPDATE "optimizer"."problem_statuses"', 'killed before the decisions');
    await expect(new RecordVerifier({ ...deps(replay), transact: failingWrite }).verify('replica-a')).rejects.toThrow('killed');
    expect(await statuses()).toEqual(['optimized_unverified', 'optimized_unverified', 'optimized_unverified']);
    await h.ds.query(`DELETE FROM "optimizer"."leases"`);
    const report = await new RecordVerifier(deps(replay)).verify('replica-b');
    expect(report.records[0].problems.map((p) => [p.event, p.moved])).toEqual(TICKETS.map(() => ['verification_passed', true]));
    expect(await statuses()).toEqual(['optimized_verified', 'optimized_verified', 'optimized_verified']);
  }, 90000);

  it('decides a problem only on a judged blocking criterion', () => {
    const record = { criteria: { blockingCriterionId: 'lead' }, data: { dataVersion: `data:${'d'.repeat(32)}` } } as never;
    const judged = (status: 'met' | 'gap' | 'inconclusive' | 'not_applicable', executed = true) => [{ caseId: 'A', role: 'target' as const, executed, judgement: { caseId: 'A', results: [{ criterionId: 'lead', status, reason: 'why' }] }, leadingFamily: null, error: executed ? null : 'timeout' }];
    expect(decideProblem(record, 'A', judged('met'), null).event).toBe('verification_passed');
    expect(decideProblem(record, 'A', judged('gap'), null).event).toBe('verification_failed');
    for (const status of ['inconclusive', 'not_applicable'] as const) expect(decideProblem(record, 'A', judged(status), null)).toMatchObject({ event: 'verification_evidence_missing', reason: expect.stringContaining(`lead is ${status} on A`) });
    expect(decideProblem(record, 'A', judged('met', false), null)).toMatchObject({ event: 'verification_evidence_missing', reason: 'evidence missing: the replay of A did not execute (timeout)' });
    expect(decideProblem(record, 'B', judged('met'), null)).toMatchObject({ event: 'verification_evidence_missing', reason: 'evidence missing: B was not replayed' });
    expect(decideProblem(record, 'A', null, 'no recording')).toMatchObject({ event: 'verification_evidence_missing', reason: 'evidence missing: no recording' });
  });
});
