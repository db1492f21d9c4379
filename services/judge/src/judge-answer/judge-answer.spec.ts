import { AgentRuntime, BuiltinRegistry, type ModelPort, type ModelRequest, type ModelResult } from '@aoc/agent-runtime';
import { chatCompletion, startFakeChatCompletionsServer } from '@aoc/agent-runtime/testing';
import { PermanentError, TransientError } from '@aoc/errors';
import type { Logger } from '@aoc/telemetry';
import {
  BASE_COMMENTS,
  GOOD_REPLY,
  HUMAN_ANSWER,
  analysisRequested,
  comment,
  fakeBus,
  runPublished,
  startJudgeDb,
  timeline,
  type JudgeDb,
} from '../../test/judge-fixtures';
import { AnswerEntity, EvaluationEntity, EvaluationFailureEntity, FeedbackBindingEntity, FeedbackCommentEntity, FrozenTicketEntity, JudgeDisagreementEntity } from '../persistence/judge.entities';
import { RecordInputsHandler } from '../record-inputs/record-inputs.handler';
import { registerRubricJudge } from '../rubric-judge/rubric-judge';
import { JudgeAnswerHandler, PreparedJudgments } from './judge-answer.handler';
import type { JudgeInputV1, JudgeModelOutputV1 } from './judge-input.schema';
import type { JudgeEvent } from './ticket-state';

const silent: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** The built-in engine, with a call counter and an optional failure injected. */
function builtinModel(): ModelPort & { calls: number; fail: Error | null } {
  const runtime = new AgentRuntime({ config: {}, builtin: registerRubricJudge(new BuiltinRegistry()) });
  const port = {
    calls: 0,
    fail: null as Error | null,
    invoke: async <T>(request: ModelRequest<T>): Promise<ModelResult<T>> => {
      port.calls += 1;
      if (port.fail) throw port.fail;
      return runtime.invoke(request);
    },
  };
  return port;
}

/** A model output with nothing in it but what a test sets. */
const modelReply = (o: Partial<JudgeModelOutputV1>): JudgeModelOutputV1 => ({
  comparison: 'equivalent',
  reason: 'model reason',
  humanAnswerCommentIds: ['c-3'],
  answer1Gaps: [],
  answer2Gaps: [],
  answer1Strengths: [],
  answer2Strengths: [],
  keyDifferences: [],
  internalHandoffGaps: [],
  previousFeedbackResolved: 'not_applicable',
  abstentionCode: null,
  feedbackContest: null,
  ...o,
});

describe('judge use case (embedded Postgres)', () => {
  let db: JudgeDb;

  beforeAll(async () => {
    db = await startJudgeDb();
  }, 120000);

  afterAll(async () => {
    await db?.stop();
  });

  beforeEach(async () => {
    await db.truncate();
  });

  function setup(model: ModelPort = builtinModel()) {
    const handler = new JudgeAnswerHandler(new RecordInputsHandler(), model, db.dataSource, silent);
    const bus = fakeBus(db.dataSource);
    const deliver = (event: JudgeEvent, options: { attempt?: number; prepared?: unknown } = {}) => bus.run((ctx) => handler.handle(event, ctx), options);
    return { handler, bus, deliver };
  }

  const ticket: JudgeEvent = { kind: 'ticket', request: analysisRequested() };
  const answer: JudgeEvent = { kind: 'answer', run: runPublished() };
  const tl = (revision: number, comments = BASE_COMMENTS): JudgeEvent => ({ kind: 'timeline', timeline: timeline(revision, comments) });

  it('judges the example once, whatever the arrival order, and stores its inputs', async () => {
    for (const order of [[ticket, answer, tl(1)], [tl(1), answer, ticket], [answer, tl(1), ticket]]) {
      await db.truncate();
      const { bus, deliver } = setup();
      for (const event of order) await deliver(event);
      expect(bus.published).toHaveLength(1);
      const [evaluation] = bus.published;
      expect(evaluation).toMatchObject({ runId: 'run-1', verdict: 'human_better', qualityScore: 0, targetHumanCommentIds: ['c-3'], judgeEngine: 'builtin:rubric-judge-v4' });
      expect(evaluation.humanAnswerMarkdown).toBe(HUMAN_ANSWER.body);
      // No model judge configured: nothing was cross-checked, and the message says nothing about it.
      expect('crossCheck' in evaluation).toBe(false);
    }
    const frozen = await db.dataSource.manager.findOneByOrFail(FrozenTicketEntity, { runId: 'run-1' });
    expect(frozen).toMatchObject({ title: analysisRequested().ticket.title, customerComments: analysisRequested().ticket.comments, trigger: 'replay' });
    const stored = await db.dataSource.manager.findOneByOrFail(AnswerEntity, { runId: 'run-1' });
    expect(stored).toMatchObject({ mode: 'read', trigger: 'replay', decision: 'human_required', latestVerdict: 'human_better', qualityScore: 0, qualitySource: 'judge' });
    const row = await db.dataSource.manager.findOneByOrFail(EvaluationEntity, { runId: 'run-1' });
    expect(row.ordersAgree).toBe(true);
    expect(row.rawResults).toHaveLength(2);
    expect(row.rawResults.map((r) => (r as { order: string }).order)).toEqual(['published_first', 'human_first']);
    expect(row.judgeTrigger).toBe('human_answer');
  });

  it('never publishes the same evaluation twice and re-judges only when the human answer changes', async () => {
    const { bus, deliver } = setup();
    await deliver(ticket);
    await deliver(answer);
    await deliver(tl(5));
    await deliver(tl(5));
    await deliver(tl(4, [...BASE_COMMENTS, comment('c-x', 'support', 'public', '2026-11-20T15:00:00.000Z', 'Old revision: TiKV region split on tikv-9.')]));
    await deliver(tl(6, [...BASE_COMMENTS, comment('c-9', 'customer', 'public', '2026-11-21T09:00:00.000Z', 'thanks again')]));
    await deliver(answer);
    expect(bus.published).toHaveLength(1);
    const edited = BASE_COMMENTS.map((c) => (c.id === HUMAN_ANSWER.id ? { ...c, body: GOOD_REPLY, updatedAt: '2026-11-20T12:50:00.000Z' } : c));
    await deliver(tl(7, edited));
    expect(bus.published).toHaveLength(2);
    expect(bus.published[1].evaluationId).not.toBe(bus.published[0].evaluationId);
    expect(new Set(bus.published.map((e) => e.runId))).toEqual(new Set(['run-1']));
    expect(await db.dataSource.manager.count(EvaluationEntity)).toBe(2);
  });

  it('judges on a trusted /ao human request; explicit feedback owns the projection but never the verdict', async () => {
    const { bus, deliver } = setup();
    const live = runPublished({ trigger: 'initial', cutoff: null, publishedAt: '2026-11-20T11:10:00.000Z' });
    await deliver({ kind: 'ticket', request: analysisRequested({ trigger: 'initial', cutoff: null }) });
    await deliver({ kind: 'answer', run: live });
    const review = comment('c-ao', 'support', 'internal', '2026-11-20T11:20:00.000Z', '/ao human: please check');
    await deliver(tl(1, [BASE_COMMENTS[0], review]));
    expect(bus.published).toHaveLength(1);
    expect(bus.published[0]).toMatchObject({ verdict: 'not_compared', qualityScore: null, targetHumanCommentIds: [] });
    let stored = await db.dataSource.manager.findOneByOrFail(AnswerEntity, { runId: 'run-1' });
    expect(stored).toMatchObject({ judgeReviewRequested: true, qualityScore: null, qualitySource: 'judge' });
    expect((await db.dataSource.manager.findOneByOrFail(EvaluationEntity, { runId: 'run-1' })).judgeTrigger).toBe('review_requested');

    // The human answer arrives: a new evaluation; then Support accepts the answer explicitly.
    const accept = comment('c-ok', 'support', 'internal', '2026-11-20T14:00:00.000Z', '/ao accept: good enough for the first reply');
    await deliver(tl(2, [BASE_COMMENTS[0], review, HUMAN_ANSWER, accept]));
    expect(bus.published.map((e) => e.verdict)).toEqual(['not_compared', 'human_better']);
    stored = await db.dataSource.manager.findOneByOrFail(AnswerEntity, { runId: 'run-1' });
    expect(stored).toMatchObject({ latestVerdict: 'human_better', qualityScore: 1, qualitySource: 'feedback', judgeReviewRequested: true });
    const bindings = await db.dataSource.manager.find(FeedbackBindingEntity, { order: { commentId: 'ASC' } });
    expect(bindings.map((b) => [b.commentId, b.runId, b.action])).toEqual([
      ['c-ao', 'run-1', 'human'],
      ['c-ok', 'run-1', 'accept'],
    ]);

    // An edit changes action and reason of the binding; every raw version is kept.
    const edited = { ...accept, body: '/ao wrong: the cause was the report query', updatedAt: '2026-11-20T15:00:00.000Z' };
    await deliver(tl(3, [BASE_COMMENTS[0], review, HUMAN_ANSWER, edited]));
    expect(await db.dataSource.manager.findOneByOrFail(FeedbackBindingEntity, { commentId: 'c-ok' })).toMatchObject({ action: 'wrong', reason: 'the cause was the report query', runId: 'run-1' });
    expect((await db.dataSource.manager.find(FeedbackCommentEntity, { where: { commentId: 'c-ok' } })).map((c) => c.body).sort()).toEqual([edited.body, accept.body].sort());
    expect(await db.dataSource.manager.findOneByOrFail(AnswerEntity, { runId: 'run-1' })).toMatchObject({ qualityScore: 0, qualitySource: 'feedback' });
    // Bindings never move, even when the comment disappears from a later timeline.
    await deliver(tl(4, [BASE_COMMENTS[0], HUMAN_ANSWER]));
    expect(await db.dataSource.manager.count(FeedbackBindingEntity)).toBe(2);
  });

  it('judges a write-mode answer that replaced an answer with wrong feedback and finds the problem unresolved', async () => {
    const { bus, deliver } = setup();
    const first = runPublished({ runId: 'run-0', trigger: 'initial', mode: 'write', cutoff: null, publishedAt: '2026-11-20T11:06:00.000Z' });
    const wrong = comment('c-ao', 'support', 'internal', '2026-11-20T11:30:00.000Z', '/ao wrong: it is a full table scan; name the index on orders(created_at)');
    const second = runPublished({ runId: 'run-2', trigger: 'replay', mode: 'write', customerReplyMarkdown: 'Since 10:38 a new report query does a full table scan on orders.', internalHandoffMarkdown: '**Next internal action:** verify the plan of the report query on tidb-prod-7f3a.', publishedAt: '2026-11-29T10:05:00.000Z' });
    await deliver({ kind: 'ticket', request: analysisRequested({ runId: 'run-0', trigger: 'initial', mode: 'write', cutoff: null }) });
    await deliver({ kind: 'ticket', request: analysisRequested({ runId: 'run-2', mode: 'write' }) });
    await deliver({ kind: 'answer', run: first });
    await deliver({ kind: 'answer', run: second });
    await deliver(tl(1, [...BASE_COMMENTS, wrong]));
    const forSecond = bus.published.find((e) => e.runId === 'run-2');
    expect(forSecond?.verdict).toBe('human_better');
    const row = await db.dataSource.manager.findOneByOrFail(EvaluationEntity, { runId: 'run-2' });
    expect((row.rawResults[0] as { output: JudgeModelOutputV1 }).output.previousFeedbackResolved).toBe('unresolved');
    // The evaluation keeps the version it replaced and that version's latest feedback.
    expect(row).toMatchObject({ previousRunId: 'run-0', previousFingerprint: first.answerFingerprint, previousFeedbackId: 'c-ao' });
    // The old /ao stays on the old version's projection.
    expect(await db.dataSource.manager.findOneByOrFail(AnswerEntity, { runId: 'run-0' })).toMatchObject({ qualityScore: 0, qualitySource: 'feedback' });
    expect(await db.dataSource.manager.findOneByOrFail(AnswerEntity, { runId: 'run-2' })).toMatchObject({ qualitySource: 'judge' });
  });

  it('reuses a result prepared outside the transaction when the input is unchanged', async () => {
    const model = builtinModel();
    const { handler, bus, deliver } = setup(model);
    await deliver(ticket);
    await deliver(answer);
    const event = tl(1);
    const prepared = await handler.prepare(event);
    expect(prepared.entries.size).toBe(1);
    expect(model.calls).toBe(2);
    await deliver(event, { prepared });
    expect(model.calls).toBe(2);
    expect(bus.published).toHaveLength(1);
  });

  it('asks again inside the transaction when the prepared input is stale', async () => {
    const model = builtinModel();
    const { handler, bus, deliver } = setup(model);
    await deliver(ticket);
    await deliver(answer);
    const stale = await handler.prepare(tl(1, BASE_COMMENTS.map((c) => (c.id === HUMAN_ANSWER.id ? { ...c, body: GOOD_REPLY } : c))));
    await deliver(tl(1), { prepared: new PreparedJudgments(stale.entries) });
    expect(model.calls).toBe(4);
    expect(bus.published[0].humanAnswerMarkdown).toBe(HUMAN_ANSWER.body);
  });

  it('leaves transient model failures to the bus, then parks them without losing the inputs', async () => {
    const model = builtinModel();
    const { bus, deliver } = setup(model);
    await deliver(ticket);
    await deliver(answer);
    model.fail = new TransientError('MODEL.UPSTREAM_UNAVAILABLE', 'HTTP 503');
    await expect(deliver(tl(1), { attempt: 1 })).rejects.toMatchObject({ code: 'MODEL.UPSTREAM_UNAVAILABLE' });
    expect(await db.dataSource.manager.count(EvaluationFailureEntity)).toBe(0);
    await deliver(tl(1), { attempt: 3 });
    expect(bus.published).toHaveLength(0);
    expect(await db.dataSource.manager.findOneByOrFail(EvaluationFailureEntity, { runId: 'run-1' })).toMatchObject({ code: 'MODEL.UPSTREAM_UNAVAILABLE', retryable: true, blocking: false, failures: 1 });
    // The timeline was kept; the next event for the ticket judges it.
    model.fail = null;
    await deliver(answer);
    expect(bus.published).toHaveLength(1);
  });

  it('does not retry an input the model refused until the input changes', async () => {
    const model = builtinModel();
    const { bus, deliver } = setup(model);
    await deliver(ticket);
    await deliver(answer);
    model.fail = new PermanentError('MODEL.REFUSED', 'the model refused to answer');
    await deliver(tl(1));
    expect(await db.dataSource.manager.findOneByOrFail(EvaluationFailureEntity, { runId: 'run-1' })).toMatchObject({ code: 'MODEL.REFUSED', blocking: true });
    const calls = model.calls;
    model.fail = null;
    await deliver(answer);
    expect(model.calls).toBe(calls);
    const edited = BASE_COMMENTS.map((c) => (c.id === HUMAN_ANSWER.id ? { ...c, body: `${c.body} Also check tikv-2.` } : c));
    await deliver(tl(2, edited));
    expect(bus.published).toHaveLength(1);
  });

  it('re-judges when a substantive human answer arrives (a new revision), and publishes nothing when the human answer did not change', async () => {
    const { bus, deliver } = setup();
    const progress = BASE_COMMENTS.filter((c) => c.id !== HUMAN_ANSWER.id && c.id !== 'c-4');
    await deliver(ticket);
    await deliver(answer);
    await deliver(tl(1, progress));
    expect(bus.published).toHaveLength(1);
    expect(bus.published[0]).toMatchObject({ verdict: 'not_compared', abstentionCode: 'JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE', revision: 1, supersedesEvaluationId: null });
    // Another progress note changes the replies, not the human answer: no new evaluation.
    const chased = [...progress, comment('c-2c', 'support', 'public', '2026-11-20T12:00:00.000Z', 'Still looking into it, thanks for your patience.')];
    await deliver(tl(2, chased));
    expect(bus.published).toHaveLength(1);
    await deliver(tl(3, [...chased, HUMAN_ANSWER]));
    expect(bus.published).toHaveLength(2);
    expect(bus.published[1]).toMatchObject({ verdict: 'human_better', revision: 2, supersedesEvaluationId: bus.published[0].evaluationId, targetHumanCommentIds: ['c-3'] });
    // A redelivered or older revision changes nothing.
    await deliver(tl(3, [...chased, HUMAN_ANSWER]));
    await deliver(tl(2, chased));
    expect(bus.published).toHaveLength(2);
    const rows = await db.dataSource.manager.find(EvaluationEntity, { where: { runId: 'run-1' }, order: { judgedAt: 'ASC' } });
    expect(rows.map((r) => [r.revision, r.published])).toEqual([
      [1, true],
      [1, false],
      [2, true],
    ]);
  });

  /** A Support answer in another language: the built-in judge abstains with JUDGE.NEEDS_MODEL. */
  const foreign = BASE_COMMENTS.map((c) => (c.id === 'c-3' ? { ...c, body: '原因：10:38 起新的报表查询对 orders 表做全表扫描，每次约 120 万行。在 orders(created_at) 上加索引即可消除扫描。' } : c));
  const openai = (server: { baseUrl: string }, model: string, apiKey: string | null = null) =>
    new AgentRuntime({ config: { judge: { engine: 'openai', baseUrl: server.baseUrl, model, apiKey, timeoutMs: 5000, maxRetries: 0 } }, builtin: registerRubricJudge(new BuiltinRegistry()) });

  it('with an OpenAI-compatible judge configured, a case the built-in judge decides keeps its verdict; the model cross-checks it (local server, no network)', async () => {
    const key = 'sk-judge-openai-test-7777777';
    const server = await startFakeChatCompletionsServer((request) => {
      const input = JSON.parse(request.body.messages[1].content) as JudgeInputV1;
      const humanLabel = input.answer1.kind === 'human_replies' ? 1 : 2;
      const reply = modelReply({ comparison: humanLabel === 1 ? 'answer_1_better' : 'answer_2_better', reason: 'Only the human reply identifies the full table scan.' });
      return { status: 200, json: chatCompletion(JSON.stringify(reply), { usage: { prompt: 900, completion: 120 }, model: 'judge-xl' }) };
    });
    try {
      const { bus, deliver } = setup(openai(server, 'judge-xl', key));
      await deliver(ticket);
      await deliver(answer);
      await deliver(tl(1));
      expect(server.requests).toHaveLength(2);
      expect(server.requests.map((r) => (JSON.parse(r.body.messages[1].content) as JudgeInputV1).answer1.kind)).toEqual(['published_answer', 'human_replies']);
      expect(server.requests[0].body.messages[0].content).toContain('"Answer 1" and "Answer 2"');
      expect(server.requests[0].headers['authorization']).toBe(`Bearer ${key}`);
      expect(server.requests[0].body.messages[1].content).not.toMatch(/"(execution|failureCodes|evidenceAcquisition|providerQueryAttempts)"/);
      expect(bus.published).toHaveLength(1);
      expect(bus.published[0]).toMatchObject({ verdict: 'human_better', judgeEngine: 'builtin:rubric-judge-v4', eligibility: 'compared', targetHumanCommentIds: ['c-3'] });
      expect(bus.published[0].crossCheck).toEqual({ engine: 'openai:judge-xl', verdict: 'human_better', agrees: true, reasonCode: 'determined_nothing' });
      // Both engines agree: nothing to record.
      expect(await db.dataSource.manager.count(JudgeDisagreementEntity)).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('a built-in abstention with JUDGE.NEEDS_MODEL goes to the configured model, whose verdict is published and says so', async () => {
    const server = await startFakeChatCompletionsServer((request) => {
      const input = JSON.parse(request.body.messages[1].content) as JudgeInputV1;
      const humanLabel = input.answer1.kind === 'human_replies' ? 1 : 2;
      const reply = modelReply({ comparison: humanLabel === 1 ? 'answer_1_better' : 'answer_2_better', reason: 'Only the human reply names the scan and the index.', answer1Gaps: humanLabel === 1 ? [] : ['does not identify the report query'], answer2Gaps: humanLabel === 2 ? [] : ['does not identify the report query'] });
      return { status: 200, json: chatCompletion(JSON.stringify(reply), { usage: { prompt: 900, completion: 120 }, model: 'judge-xl' }) };
    });
    try {
      const { bus, deliver } = setup(openai(server, 'judge-xl'));
      await deliver(ticket);
      await deliver(answer);
      await deliver(tl(1, foreign));
      expect(bus.published[0]).toMatchObject({ verdict: 'human_better', judgeEngine: 'openai:judge-xl', eligibility: 'compared', aiGaps: ['does not identify the report query'], targetHumanCommentIds: ['c-3'] });
      expect(bus.published[0].verdictReason).toMatch(/^The built-in judge abstained \(JUDGE\.NEEDS_MODEL\); the model judged\./);
      // The model's own verdict is published: nothing was cross-checked.
      expect(bus.published[0].crossCheck).toBeNull();
      const row = await db.dataSource.manager.findOneByOrFail(EvaluationEntity, { runId: 'run-1' });
      expect(row.rawResults).toEqual([
        expect.objectContaining({ order: 'published_first', engine: 'openai', model: 'judge-xl', usage: { promptTokens: 900, completionTokens: 120 } }),
        expect.objectContaining({ order: 'human_first', engine: 'openai', model: 'judge-xl' }),
      ]);
      expect(await db.dataSource.manager.count(JudgeDisagreementEntity)).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('records where a model verdict differs from what the built-in judge decides; the built-in verdict is published', async () => {
    const server = await startFakeChatCompletionsServer(() => {
      const reply = modelReply({ comparison: 'equivalent', reason: 'Both answers say the same.' });
      return { status: 200, json: chatCompletion(JSON.stringify(reply), { model: 'lenient' }) };
    });
    try {
      const { bus, deliver } = setup(openai(server, 'lenient'));
      await deliver(ticket);
      await deliver(answer);
      await deliver(tl(1));
      expect(bus.published[0]).toMatchObject({ verdict: 'human_better', judgeEngine: 'builtin:rubric-judge-v4' });
      // The disagreement travels on evaluation.judged (codes only), for the reporter's dashboard.
      expect(bus.published[0].crossCheck).toEqual({ engine: 'openai:lenient', verdict: 'equivalent', agrees: false, reasonCode: 'determined_nothing' });
      const row = await db.dataSource.manager.findOneByOrFail(JudgeDisagreementEntity, { runId: 'run-1' });
      expect(row).toMatchObject({ modelEngine: 'openai:lenient', modelVerdict: 'equivalent', builtinVerdict: 'human_better' });
      expect(row.builtinReason).toMatch(/determined nothing/);
    } finally {
      await server.close();
    }
  });

  it('a model abstention on a decided case is a cross-check without agreement or disagreement', async () => {
    const server = await startFakeChatCompletionsServer(() => {
      const reply = modelReply({ comparison: 'not_comparable', abstentionCode: 'JUDGE.NEEDS_MODEL', humanAnswerCommentIds: [], reason: 'Cannot tell.' });
      return { status: 200, json: chatCompletion(JSON.stringify(reply), { model: 'shy' }) };
    });
    try {
      const { bus, deliver } = setup(openai(server, 'shy'));
      await deliver(ticket);
      await deliver(answer);
      await deliver(tl(1));
      expect(bus.published[0]).toMatchObject({ verdict: 'human_better', crossCheck: { engine: 'openai:shy', verdict: 'not_compared', agrees: null, reasonCode: 'determined_nothing' } });
      expect(await db.dataSource.manager.count(JudgeDisagreementEntity)).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('records a not_compared verdict and both raw results when a first-position-biased model disagrees with itself on a case left to it', async () => {
    const server = await startFakeChatCompletionsServer(() => {
      const reply = modelReply({ comparison: 'answer_1_better', reason: 'Answer 1 is better.' });
      return { status: 200, json: chatCompletion(JSON.stringify(reply)) };
    });
    try {
      const { bus, deliver } = setup(openai(server, 'biased'));
      await deliver(ticket);
      await deliver(answer);
      await deliver(tl(1, foreign));
      expect(bus.published[0]).toMatchObject({ verdict: 'not_compared', qualityScore: null, abstentionCode: 'JUDGE.ORDER_DISAGREEMENT', eligibility: 'undecided' });
      expect(bus.published[0].verdictReason).toMatch(/Position-bias guard/);
      expect(bus.published[0].crossCheck).toBeNull();
      const row = await db.dataSource.manager.findOneByOrFail(EvaluationEntity, { runId: 'run-1' });
      expect(row.ordersAgree).toBe(false);
      expect(row.rawResults.map((r) => (r as { verdict: string }).verdict)).toEqual(['ai_better', 'human_better']);
      // A model abstention on a case the built-in judge left open is no disagreement.
      expect(await db.dataSource.manager.count(JudgeDisagreementEntity)).toBe(0);
    } finally {
      await server.close();
    }
  });
});
