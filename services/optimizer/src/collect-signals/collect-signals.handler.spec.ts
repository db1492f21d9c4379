import type { HandlerContext } from '@aoc/bus';
import type { EvaluationJudgedV1, RunExecutionRecordedV1, RunPublishedV1, TicketTimelineUpdatedV1, TimelineCommentV1 } from '@aoc/contracts';
import type { DataSource } from 'typeorm';
import { startOptimizerDb } from '../../test/optimizer-db';
import { signals, timelineOf } from '../persistence/signal-store';
import { CollectSignalsHandler } from './collect-signals.handler';

const FP = 'a'.repeat(64);
const published: RunPublishedV1 = {
  runId: 'run-20261120-aaaaaaaa-001',
  ticketKey: 'SUP-7001',
  mode: 'read',
  trigger: 'initial',
  publishedAt: '2026-11-20T10:05:00.000Z',
  cutoff: '2026-11-20T10:00:00.000Z',
  customerReplyMarkdown: 'Most likely cause: CPU saturation.',
  internalHandoffMarkdown: '**Leading mechanism (moderate):** CPU rose.',
  decision: 'human_required',
  answerFingerprint: FP,
  clarificationSimulation: { required: false, requestedContext: [] },
} as unknown as RunPublishedV1;
const comment = (id: string, body: string, createdAt: string, over: Partial<TimelineCommentV1> = {}): TimelineCommentV1 => ({ id, authorRole: 'support', visibility: 'public', createdAt, updatedAt: createdAt, body, visibleToAi: false, feedback: null, ...over });
/** Revisions are epoch-millisecond sized, as the collector numbers them. */
const REV = 1_796_139_206_437;
const timeline = (n: number, comments: TimelineCommentV1[]): TicketTimelineUpdatedV1 => ({ ticketKey: 'SUP-7001', observedAt: '2026-11-20T12:00:00.000Z', revision: REV + n, comments });
const customer = comment('c-1', 'queries are slow since 09:40', '2026-11-20T09:45:00.000Z', { authorRole: 'customer', visibleToAi: true });
const ao = (body: string, updatedAt = '2026-11-20T11:00:00.000Z') => comment('c-3', body, '2026-11-20T11:00:00.000Z', { visibility: 'internal', updatedAt });
const evaluation: EvaluationJudgedV1 = {
  evaluationId: 'ev-1',
  revision: 1,
  supersedesEvaluationId: null,
  runId: published.runId,
  ticketKey: 'SUP-7001',
  answerFingerprint: FP,
  judgedAt: '2026-11-20T12:00:00.000Z',
  judgeEngine: 'rubric-judge-v3',
  verdict: 'human_better',
  abstentionCode: null,
  verdictReason: 'r',
  qualityScore: 0,
  aiGaps: ['the human answer names lock waits on orders'],
  keyDifferences: [],
  aiStrengths: [],
  internalHandoffGaps: [],
  targetHumanCommentIds: ['c-2'],
  referenceComments: [{ id: 'c-2', createdAt: '2026-11-20T10:30:00.000Z', bodyDigest: 'b'.repeat(64) }],
  humanAnswerMarkdown: 'lock waits',
};

describe('collect signals (embedded Postgres)', () => {
  let stop: () => Promise<void>;
  let ds: DataSource;
  const handler = new CollectSignalsHandler();
  const ctx = () => ({ manager: ds.manager }) as unknown as HandlerContext;

  beforeAll(async () => {
    ({ ds, stop } = await startOptimizerDb());
  }, 120000);
  afterAll(async () => {
    await stop?.();
  });

  it('derives one ref per gap, per bound /ao and per degradation, whatever the topic order, and never twice', async () => {
    // The /ao arrives before the answer version it evaluates is known: it binds once the version is.
    await handler.onTimeline(timeline(1, [customer, ao('/ao wrong it was lock contention on orders')]), ctx());
    expect(await signals(ds.manager)).toEqual([]);
    await handler.onPublished(published, ctx());
    await handler.onJudged(evaluation, ctx());
    await handler.onJudged({ ...evaluation, evaluationId: 'ev-2', revision: 2, supersedesEvaluationId: 'ev-1' }, ctx());
    const record = { runId: published.runId, ticketKey: 'SUP-7001', responseGeneration: { status: 'succeeded', engine: 'builtin' }, evidenceAcquisition: { status: 'degraded', capability: 'partial', providers: ['clinic'] }, failureCodes: ['PROVIDER.HTTP_5XX'] } as unknown as RunExecutionRecordedV1;
    await handler.onExecution(record, ctx());
    await handler.onExecution(record, ctx());
    const all = await signals(ds.manager);
    expect(all.map((s) => [s.kind, s.signature, s.state]).sort()).toEqual([
      ['ai_gap', 'quality:lock_waits', 'open'],
      ['explicit_feedback', 'quality:lock_waits', 'open'],
      ['runtime', 'runtime:evidence:clinic:PROVIDER.HTTP_5XX', 'open'],
    ]);
    for (const s of all) expect(s.source).toMatchObject({ runId: published.runId, answerFingerprint: FP, cutoff: '2026-11-20T10:00:00.000Z', ticketDigest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(all.find((s) => s.kind === 'ai_gap')?.source.referenceComments).toEqual([{ id: 'c-2', bodyDigest: 'b'.repeat(64) }]);
    expect(all.find((s) => s.kind === 'explicit_feedback')?.source.referenceComments).toEqual([{ id: 'c-3', bodyDigest: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
  }, 60000);

  it('parks an execution record that arrives before its run.published, and derives its runtime signal when the answer is known', async () => {
    const run = { ...published, runId: 'run-20261120-aaaaaaaa-003', ticketKey: 'SUP-7003' } as RunPublishedV1;
    const record = { runId: run.runId, ticketKey: 'SUP-7003', responseGeneration: { status: 'succeeded', engine: 'builtin' }, evidenceAcquisition: { status: 'failed', capability: 'none', providers: ['prometheus'] }, failureCodes: ['PROVIDER.TIMEOUT'] } as unknown as RunExecutionRecordedV1;
    await handler.onExecution(record, ctx());
    await handler.onExecution(record, ctx());
    expect(await signals(ds.manager, { ticketKey: 'SUP-7003' })).toEqual([]);
    await handler.onPublished(run, ctx());
    const derived = await signals(ds.manager, { ticketKey: 'SUP-7003' });
    expect(derived.map((s) => [s.kind, s.signature, s.coverage])).toEqual([['runtime', 'runtime:evidence:prometheus:PROVIDER.TIMEOUT', 'failed']]);
    expect(derived[0].source).toMatchObject({ runId: run.runId, answerFingerprint: FP });
    // Nothing is left parked, and a redelivery of either message changes nothing.
    expect(await ds.query(`SELECT * FROM "optimizer"."parked_executions" WHERE "run_id" = $1`, [run.runId])).toEqual([]);
    await handler.onPublished(run, ctx());
    await handler.onExecution(record, ctx());
    expect((await signals(ds.manager, { ticketKey: 'SUP-7003' })).map((s) => s.ref)).toEqual(derived.map((s) => s.ref));
  }, 60000);

  it('binds a ref to the question its answer was given, so an edit between answer and judgement is a change', async () => {
    const run = { ...published, runId: 'run-20261120-aaaaaaaa-004', ticketKey: 'SUP-7004' } as RunPublishedV1;
    await handler.onTimeline({ ...timeline(1, [customer]), ticketKey: 'SUP-7004', questionDigest: 'a'.repeat(64) }, ctx());
    await handler.onPublished(run, ctx());
    await handler.onTimeline({ ...timeline(2, [customer]), ticketKey: 'SUP-7004', questionDigest: 'b'.repeat(64) }, ctx());
    await handler.onJudged({ ...evaluation, evaluationId: 'ev-4', runId: run.runId, ticketKey: 'SUP-7004' }, ctx());
    const [ref] = await signals(ds.manager, { ticketKey: 'SUP-7004' });
    expect(ref.source.questionDigest).toBe('a'.repeat(64));
    expect((await timelineOf(ds.manager, 'SUP-7004'))?.questionDigest).toBe('b'.repeat(64));
  }, 60000);

  it('fills the conversation digest of a ref judged before its ticket\'s first timeline arrived', async () => {
    const run = { ...published, runId: 'run-20261120-aaaaaaaa-002', ticketKey: 'SUP-7002' } as RunPublishedV1;
    await handler.onPublished(run, ctx());
    await handler.onJudged({ ...evaluation, evaluationId: 'ev-9', runId: run.runId, ticketKey: 'SUP-7002' }, ctx());
    expect((await signals(ds.manager, { ticketKey: 'SUP-7002' }))[0].source.ticketDigest).toBe('unknown');
    await handler.onTimeline({ ...timeline(1, [customer]), ticketKey: 'SUP-7002' }, ctx());
    expect((await signals(ds.manager, { ticketKey: 'SUP-7002' }))[0].source.ticketDigest).toMatch(/^[0-9a-f]{64}$/);
  }, 60000);

  it('ignores an older timeline revision, and an edited /ao keeps its ref with the new reason', async () => {
    const before = await signals(ds.manager, { ticketKey: 'SUP-7001' });
    await handler.onTimeline(timeline(1, [customer]), ctx());
    expect((await timelineOf(ds.manager, 'SUP-7001'))?.comments.map((c) => c.id)).toEqual(['c-1', 'c-3']);
    await handler.onTimeline(timeline(2, [customer, ao('/ao revise blocked sessions behind a long transaction', '2026-11-20T11:30:00.000Z')]), ctx());
    const after = await signals(ds.manager, { ticketKey: 'SUP-7001' });
    expect(after.map((s) => s.ref)).toEqual(before.map((s) => s.ref));
    expect(after.find((s) => s.kind === 'explicit_feedback')?.statement).toBe('/ao revise: blocked sessions behind a long transaction');
  }, 60000);
});
