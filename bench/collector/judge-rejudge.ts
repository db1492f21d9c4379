import type { TicketTimelineUpdatedV1, TimelineCommentV1 } from '@aoc/contracts';
import type { Logger } from '@aoc/telemetry';
import { BASE_COMMENTS, HUMAN_ANSWER, analysisRequested, fakeBus, runPublished, startJudgeDb } from '../../services/judge/test/judge-fixtures';
import { compareBothOrders } from '../../services/judge/src/judge-answer/answer-comparison';
import { JudgeAnswerHandler } from '../../services/judge/src/judge-answer/judge-answer.handler';
import { createJudgeModel } from '../../services/judge/src/judge-answer/judge-model.provider';
import { planJudgments } from '../../services/judge/src/judge-answer/judge-plan';
import { applyEvent, emptyTicketState } from '../../services/judge/src/judge-answer/ticket-state';
import { RecordInputsHandler } from '../../services/judge/src/record-inputs/record-inputs.handler';

const silent: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * `cases` tickets, each with a published answer judged once against progress-only replies; then
 * each gets a substantive human answer and is re-judged (timed). Floor: the pure comparison (both
 * orders, built-in engine) of the same re-judgment inputs.
 */
export async function judgeBench(cases: number): Promise<{ cases: number; handlerMs: number; floorMs: number }> {
  const db = await startJudgeDb();
  const { model } = createJudgeModel({});
  const handler = new JudgeAnswerHandler(new RecordInputsHandler(), model, db.dataSource, silent);
  const bus = fakeBus(db.dataSource);
  const progress = BASE_COMMENTS.filter((c) => c.id !== HUMAN_ANSWER.id && c.id !== 'c-4');
  const timeline = (ticketKey: string, revision: number, comments: TimelineCommentV1[]): TicketTimelineUpdatedV1 => ({ ticketKey, observedAt: '2026-11-29T10:00:00.000Z', revision, comments });
  const keys = Array.from({ length: cases }, (_, i) => `BENCH-${i + 1}`);
  for (const key of keys) {
    const request = analysisRequested({ runId: `run-${key}`, ticketKey: key, ticket: { ...analysisRequested().ticket, key } });
    for (const event of [
      { kind: 'ticket' as const, request },
      { kind: 'answer' as const, run: runPublished({ runId: `run-${key}`, ticketKey: key }) },
      { kind: 'timeline' as const, timeline: timeline(key, 1, progress) },
    ]) {
      await bus.run((ctx) => handler.handle(event, ctx));
    }
  }
  const before = bus.published.length;
  const start = performance.now();
  for (const key of keys) await bus.run((ctx) => handler.handle({ kind: 'timeline', timeline: timeline(key, 2, [...progress, HUMAN_ANSWER]) }, ctx));
  const handlerMs = performance.now() - start;
  if (bus.published.length - before !== cases) throw new Error(`expected ${cases} re-evaluations, got ${bus.published.length - before}`);

  const plans = keys.map((key) => {
    let state = emptyTicketState(key);
    state = applyEvent(state, { kind: 'ticket', request: analysisRequested({ runId: `run-${key}`, ticketKey: key, ticket: { ...analysisRequested().ticket, key } }) });
    state = applyEvent(state, { kind: 'answer', run: runPublished({ runId: `run-${key}`, ticketKey: key }) });
    state = applyEvent(state, { kind: 'timeline', timeline: timeline(key, 2, [...progress, HUMAN_ANSWER]) });
    return planJudgments(state).plans[0];
  });
  const floorStart = performance.now();
  for (const plan of plans) await compareBothOrders(model, plan);
  const floorMs = performance.now() - floorStart;
  await db.stop();
  return { cases, handlerMs, floorMs };
}
