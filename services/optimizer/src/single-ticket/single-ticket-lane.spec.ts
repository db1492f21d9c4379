import { createTenancy, type Principal } from '@aoc/auth';
import type { EvaluationJudgedV1, RunPublishedV1, TicketTimelineUpdatedV1 } from '@aoc/contracts';
import { answerFor, FocusHarness, ScriptedReplay, timeline, TICKETS } from '../../test/focus-harness';
import { CollectSignalsHandler } from '../collect-signals/collect-signals.handler';
import { OptimizerCandidatesController } from '../dashboard/optimizer-candidates.controller';
import { SingleTicketController } from '../dashboard/single-ticket.controller';
import { allNotifications } from '../persistence/notification-store';
import { allRecords } from '../persistence/record-store';
import { allJobs, openJob, triggersOf } from '../persistence/single-ticket-store';
import type { LaneDeps, RepairPublication } from './ports';
import { SingleTicketLane } from './single-ticket-lane';

/**
 * The single-ticket lane on the embedded Postgres with the Focus bench's scripted replay (answers
 * lead with CPU unless the data says lock waits drive CPU): triggers, dedupe, the feed cursor, a
 * /ticket without an answer, and one repair from trigger to optimized_verified.
 */

const viewer: Principal = { subject: 'token:v', role: 'viewer', tenant: 'default', credential: 'api_token' };

describe('single-ticket lane (embedded Postgres, scripted replay)', () => {
  const h = new FocusHarness();
  const published: RepairPublication[] = [];
  const deps = (replay = new ScriptedReplay()): LaneDeps => ({ ...h.deps(replay), publisher: { target: 'test', publish: async (p) => (published.push(p), { publicationId: `pub-${p.jobId}`, detail: 'stored' }) } });
  const count = async (table: string) => Number(((await h.ds.query(`SELECT count(*) AS n FROM "optimizer"."${table}"`)) as { n: string }[])[0].n);

  /** A staff comment on a ticket's timeline (a newer revision), as the collector publishes it. */
  async function comment(ticketKey: string, id: string, body: string, revision = 2): Promise<void> {
    const t = timeline(ticketKey, revision);
    const next: TicketTimelineUpdatedV1 = { ...t, comments: [...t.comments, { id, authorRole: 'support', visibility: 'internal', createdAt: '2026-12-01T03:00:00.000Z', updatedAt: '2026-12-01T03:00:00.000Z', body, visibleToAi: false, feedback: null }] };
    await new CollectSignalsHandler().onTimeline(next, h.ctx());
  }

  beforeAll(async () => {
    await h.start();
  }, 120000);
  afterAll(async () => {
    await h.stop();
  });
  beforeEach(async () => {
    await h.seed();
    published.length = 0;
    await h.ds.query(`TRUNCATE "optimizer"."single_ticket_jobs", "optimizer"."single_ticket_triggers", "optimizer"."single_ticket_cursors"`);
  });

  it('starts at the feed head on first activation (no backfill), then takes new signals and resumes after a restart', async () => {
    const first = await new SingleTicketLane(deps()).collect();
    expect(first).toEqual({ created: 0, joined: 0, redelivered: 0, activated: true });
    expect(await count('single_ticket_jobs')).toBe(0);
    // A new human_better evaluation of one ticket: two signals (a gap and a difference) -> one job, the other joins it.
    const runId = 'run-20261201-00000000-001';
    await new CollectSignalsHandler().onJudged({ evaluationId: 'ev-new', revision: 2, supersedesEvaluationId: null, runId, ticketKey: TICKETS[0], answerFingerprint: 'f'.repeat(64), judgedAt: '2026-12-01T01:00:00.000Z', judgeEngine: 'rubric-judge-v3', verdict: 'human_better', abstentionCode: null, verdictReason: 'r', qualityScore: 0, aiGaps: ['missed the blocked sessions'], keyDifferences: ['the human answer names lock waits'], aiStrengths: [], internalHandoffGaps: [], targetHumanCommentIds: [], referenceComments: [], humanAnswerMarkdown: 'locks' } as EvaluationJudgedV1, h.ctx());
    expect(await new SingleTicketLane(deps()).collect()).toEqual({ created: 1, joined: 1, redelivered: 0, activated: false });
    // A new lane (a restart) resumes from the persisted cursor: nothing is taken twice.
    expect(await new SingleTicketLane(deps()).collect()).toEqual({ created: 0, joined: 0, redelivered: 0, activated: false });
    const [job] = await allJobs(h.ds.manager);
    expect((await triggersOf(h.ds.manager, job.jobId)).map((t) => t.joined)).toEqual([false, true]);

    const api = new OptimizerCandidatesController(h.ds, createTenancy(undefined));
    const head = (await api.candidates({}, viewer)) as { cursor: string; items: unknown[] };
    expect(head).toEqual({ cursor: expect.stringMatching(/^c\d+$/), items: [] });
    const page = (await api.candidates({ cursor: 'c0', limit: '2' }, viewer)) as { cursor: string; items: { ticketKey: string }[] };
    expect(page.items).toHaveLength(2);
    expect(((await api.candidates({ cursor: page.cursor }, viewer)) as { items: unknown[] }).items.length).toBeGreaterThan(0);
    await expect(api.candidates({ cursor: 'nope' }, viewer)).rejects.toMatchObject({ status: 400, response: { field: 'cursor' } });
    await expect(api.candidates({ limit: '0' }, viewer)).rejects.toMatchObject({ status: 400, response: { field: 'limit' } });
  }, 60000);

  it('gives two triggers for one ticket at once one job, and a redelivery nothing', async () => {
    const t = (id: string) => ({ kind: 'ticket_command' as const, commentId: id, description: null, at: '2026-12-01T00:00:00.000Z' });
    const open = (id: string) => h.transact(({ manager: m }) => openJob(m, TICKETS[1], 'default', t(id), new Date()));
    const results = await Promise.all([open('c-a'), open('c-b')]);
    expect(results.map((r) => r.kind).sort()).toEqual(['created', 'joined']);
    expect(new Set(results.map((r) => r.jobId)).size).toBe(1);
    expect((await open('c-a')).kind).toBe('redelivered');
    expect([await count('single_ticket_jobs'), await count('single_ticket_triggers')]).toEqual([1, 2]);
  }, 60000);

  it('ends a /ticket on a ticket with no answer yet failed (no_answer_yet), with its notification, and loses nothing', async () => {
    await comment('SUP-9999', 'c-9', '/ticket please look again', 1);
    const report = await new SingleTicketLane(deps()).run();
    expect(report.jobs).toEqual([expect.objectContaining({ ticketKey: 'SUP-9999', status: 'failed', outcome: 'no_answer_yet', reason: expect.stringMatching(/^no_answer_yet: SUP-9999 has no persisted answer/) })]);
    const notes = await allNotifications(h.ds.manager);
    expect(notes.map((n) => [n.kind, n.subject])).toEqual([['single_ticket.result', report.jobs[0].jobId]]);
    expect(notes[0].payload).toMatchObject({ job: { status: 'failed', outcome: 'no_answer_yet' }, links: { json: `/v1/single-ticket-jobs/${report.jobs[0].jobId}` } });
    // Running again moves and writes nothing more.
    await new SingleTicketLane(deps()).run();
    expect(await count('notifications')).toBe(1);
  }, 60000);

  it('repairs a /ticket end to end: investigation, gated repair, record, deployment, verification, publication', async () => {
    const replay = new ScriptedReplay();
    await comment(TICKETS[0], 'c-7', '/ticket the customer confirmed lock waits');
    // The output transaction dies after the record is written, at its first status: both roll back.
    const dying = h.crashingAt('INSERT INTO "optimizer"."problem_statuses"', 'killed between the record and the status');
    await expect(new SingleTicketLane({ ...deps(replay), transact: dying }).run()).rejects.toThrow('killed');
    expect([await count('optimization_records'), (await allJobs(h.ds.manager))[0].status]).toEqual([0, 'repairing']);
    const waiting = await new SingleTicketLane(deps(replay)).run();
    expect(waiting.jobs).toEqual([expect.objectContaining({ status: 'verifying', reason: expect.stringContaining('is candidate') })]);
    const [job] = await allJobs(h.ds.manager);
    expect(job.investigation).toMatchObject({ answerReview: { original: { leadingFamily: 'cpu' }, human: { source: 'ticket_command', family: 'lock_waits' }, fresh: { executed: true, leadingFamily: 'cpu', blocking: 'gap' } }, finding: { kind: 'local_repair' } });
    const [stored] = await allRecords(h.ds.manager);
    expect(stored.record).toMatchObject({ lane: 'single_ticket', focus: { focusId: job.jobId }, problems: [{ ticketKey: TICKETS[0], kind: 'ticket_command' }] });
    expect(stored.record.data.changes[0]).toMatchObject({ pointer: '/drives/lock_waits' });
    // Running again before the deployment writes nothing twice.
    await new SingleTicketLane(deps(replay)).run();
    expect([await count('optimization_records'), await count('problem_statuses')]).toEqual([1, 1]);

    // Deployed: an answer carrying the record's data version is seen; the verification replays on it, then the answer is re-published.
    const run = { runId: 'run-20261201-deployed-001', ticketKey: TICKETS[1], tenant: 'default', mode: 'read', trigger: 'initial', publishedAt: '2026-12-01T05:00:00.000Z', cutoff: '2026-12-01T04:55:00.000Z', customerReplyMarkdown: 'x', internalHandoffMarkdown: answerFor('locks').internalHandoffMarkdown, decision: 'human_required', answerFingerprint: 'e'.repeat(64), clarificationSimulation: { required: false, requestedContext: [] }, dataVersion: stored.record.data.dataVersion } as RunPublishedV1;
    await new CollectSignalsHandler().onPublished(run, h.ctx());
    const done = await new SingleTicketLane(deps(replay)).run();
    expect(done.jobs).toEqual([expect.objectContaining({ status: 'optimized_verified', outcome: 'optimized_verified' })]);
    expect(published).toEqual([expect.objectContaining({ jobId: job.jobId, ticketKey: TICKETS[0], dataVersion: stored.record.data.dataVersion })]);
    expect(published[0].answer.internalHandoffMarkdown).toContain('lock waits');
    const notes = (await allNotifications(h.ds.manager)).filter((n) => n.kind === 'single_ticket.result');
    expect(notes.map((n) => n.payload)).toEqual([expect.objectContaining({ job: expect.objectContaining({ jobId: job.jobId, status: 'succeeded', outcome: 'optimized_verified' }) })]);
    // No Focus was created or consumed.
    expect(await count('focuses')).toBe(0);

    const api = new SingleTicketController(h.ds, createTenancy(undefined));
    expect(await api.detailJson(job.jobId, viewer)).toMatchObject({ jobId: job.jobId, status: 'optimized_verified', triggers: [{ joined: false }], notifications: [{ notificationId: notes[0].notificationId }] });
    expect(await api.list(viewer)).toContain(job.jobId);
    expect(await api.detail(job.jobId, viewer)).toContain('optimized_verified');
    await expect(api.detailJson('stj-<script>', viewer)).rejects.toMatchObject({ status: 404 });
    const acme = new SingleTicketController(h.ds, createTenancy({ acme: { ticketProjects: ['ACME'], targets: ['*'] } }));
    expect(await acme.listJson({ ...viewer, tenant: 'acme' })).toEqual({ jobs: [] });
    await expect(acme.detailJson(job.jobId, { ...viewer, tenant: 'acme' })).rejects.toMatchObject({ status: 404 });
  }, 120000);
});
