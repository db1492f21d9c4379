import { AgentRuntime, BuiltinRegistry } from '@aoc/agent-runtime';
import type { TimelineCommentV1 } from '@aoc/contracts';
import { BASE_COMMENTS, GOOD_HANDOFF, GOOD_REPLY, HUMAN_ANSWER, VAGUE_HANDOFF, VAGUE_REPLY, analysisRequested, comment, runPublished, timeline } from '../../test/judge-fixtures';
import { swapped } from '../judge-answer/answer-comparison';
import { JUDGE_INSTRUCTIONS } from '../judge-answer/judge-instructions';
import { JudgeModelOutputV1, type JudgeInputV1, type PreviousAnswerV1 } from '../judge-answer/judge-input.schema';
import { planJudgments } from '../judge-answer/judge-plan';
import { applyEvent, emptyTicketState, type TicketState } from '../judge-answer/ticket-state';
import { RUBRIC_JUDGE_MODEL, registerRubricJudge, rubricJudge } from './rubric-judge';

function inputFor(options: { reply?: string; handoff?: string; decision?: 'internal_only' | 'human_required'; comments?: TimelineCommentV1[]; previous?: PreviousAnswerV1 | null } = {}): JudgeInputV1 {
  let state: TicketState = emptyTicketState('SUP-1042');
  state = applyEvent(state, { kind: 'ticket', request: analysisRequested() });
  state = applyEvent(state, { kind: 'answer', run: runPublished({ customerReplyMarkdown: options.reply ?? VAGUE_REPLY, internalHandoffMarkdown: options.handoff ?? VAGUE_HANDOFF, decision: options.decision ?? 'human_required' }) });
  state = applyEvent(state, { kind: 'timeline', timeline: timeline(1, options.comments ?? BASE_COMMENTS) });
  const [plan] = planJudgments(state).plans;
  return { ...plan.input, previousAnswer: options.previous ?? null };
}

describe('built-in rubric judge', () => {
  it('prefers the human answer when the published answer determined nothing and left no executable step, and says why', () => {
    const out = rubricJudge(inputFor());
    expect(out.comparison).toBe('answer_2_better');
    expect(out.abstentionCode).toBeNull();
    expect(out.reason).toMatch(/determined nothing and left no executable next step/);
    // "full table scan" first appears in Support's internal TopSQL note after the anchor: later work, not held against the AI.
    expect(out.answer1Gaps.join(' ')).not.toContain('full table scan');
    expect(out.reason).toMatch(/came from later customer comments or manual work/);
    expect(out.answer1Gaps.join(' ')).toContain('orders(created_at)');
    expect(out.answer1Strengths).toContain('says plainly what it could not determine');
    expect(out.keyDifferences.join(' ')).toContain('decision human_required');
  });

  it('picks the minimal human answer: no acknowledgement, no reply restated later, no internal note, no customer text', () => {
    const early = comment('c-2c', 'support', 'public', '2026-11-20T12:00:00.000Z', 'Looks like a full table scan on orders.');
    const out = rubricJudge(inputFor({ comments: [...BASE_COMMENTS, early] }));
    expect(out.humanAnswerCommentIds).toEqual(['c-3']);
  });

  it('keeps an earlier reply that is still needed, in time order', () => {
    const later = comment('c-5', 'support', 'public', '2026-11-20T14:00:00.000Z', 'Also: run ANALYZE TABLE orders once the index exists, so statistics are fresh.');
    expect(rubricJudge(inputFor({ comments: [...BASE_COMMENTS, later] })).humanAnswerCommentIds).toEqual(['c-3', 'c-5']);
  });

  it('finds an answer that states the same facts equivalent', () => {
    const out = rubricJudge(inputFor({ reply: GOOD_REPLY, handoff: GOOD_HANDOFF, decision: 'internal_only' }));
    expect(out.comparison).toBe('equivalent');
    expect(out.answer1Gaps).toEqual([]);
    expect(out.internalHandoffGaps).toEqual([]);
  });

  it('gives a mirrored verdict and the same human answer when the answers are swapped', () => {
    const input = inputFor();
    const a = rubricJudge(input);
    const b = rubricJudge(swapped(input));
    expect(b.comparison).toBe('answer_1_better');
    expect(b.humanAnswerCommentIds).toEqual(a.humanAnswerCommentIds);
    expect(b.answer2Gaps).toEqual(a.answer1Gaps);
  });

  it('does not compare against replies that only acknowledge or report progress', () => {
    const comments = BASE_COMMENTS.filter((c) => c.id !== HUMAN_ANSWER.id);
    const out = rubricJudge(inputFor({ comments }));
    expect(out.comparison).toBe('not_comparable');
    expect(out.humanAnswerCommentIds).toEqual([]);
    expect(out.reason).toMatch(/only acknowledge, report progress or close/);
    expect(out.abstentionCode).toBe('JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE');
  });

  it('does not hold facts the customer supplied after the anchor against the published answer', () => {
    const customerLater = comment('c-2d', 'customer', 'public', '2026-11-20T12:10:00.000Z', 'FYI we deployed a report query on orders at 10:38 that reads 1.2M rows.');
    const out = rubricJudge(inputFor({ comments: [...BASE_COMMENTS, customerLater] }));
    expect(out.reason).toMatch(/came from later customer comments or manual work/);
    expect(out.answer1Gaps.join(' ')).not.toContain('10:38');
  });

  it('names handoff gaps: no concrete next action, no entity', () => {
    const out = rubricJudge(inputFor({ handoff: '**Next internal action:** Hand off to Support with the observations above.' }));
    expect(out.internalHandoffGaps.join(' ')).toMatch(/names no concrete query/);
    expect(out.internalHandoffGaps.join(' ')).toContain('tidb-prod-7f3a');
  });

  it('flags an internal_only decision that still leaves work to Support', () => {
    const out = rubricJudge(inputFor({ reply: GOOD_REPLY, handoff: 'tidb-prod-7f3a. **Next internal action:** Support should check the slow query log tomorrow.', decision: 'internal_only' }));
    expect(out.internalHandoffGaps.join(' ')).toMatch(/internal_only, yet/);
  });

  it('checks whether revise/wrong feedback on the previous version was addressed', () => {
    const previous: PreviousAnswerV1 = {
      runId: 'run-0',
      publishedAt: '2026-11-20T11:10:00.000Z',
      customerReplyMarkdown: VAGUE_REPLY,
      internalHandoffMarkdown: VAGUE_HANDOFF,
      decision: 'human_required',
      latestFeedback: { action: 'wrong', reason: 'The cause is a full table scan; the answer must name the missing index on orders(created_at).', commentId: 'c-ao' },
    };
    const unresolved = rubricJudge(inputFor({ previous }));
    expect(unresolved.previousFeedbackResolved).toBe('unresolved');
    expect(unresolved.comparison).toBe('answer_2_better');
    expect(unresolved.answer1Gaps[0]).toMatch(/not fixed: it still does not state .*orders\(created_at\)/);
    const resolved = rubricJudge(inputFor({ previous, reply: GOOD_REPLY, handoff: GOOD_HANDOFF }));
    expect(resolved.previousFeedbackResolved).toBe('resolved');
    const vague = rubricJudge(inputFor({ previous: { ...previous, latestFeedback: { action: 'revise', reason: 'too vague', commentId: 'c-ao' } } }));
    expect(vague.previousFeedbackResolved).toBe('undetermined');
    expect(vague.comparison).toBe('not_comparable');
    expect(vague.abstentionCode).toBe('JUDGE.FEEDBACK_UNPARSEABLE');
    expect(rubricJudge(inputFor()).previousFeedbackResolved).toBe('not_applicable');
    // Replies without substance do not let a version skip the check on the previous feedback.
    const ackOnly = rubricJudge(inputFor({ previous, comments: BASE_COMMENTS.filter((c) => c.id !== HUMAN_ANSWER.id) }));
    expect(ackOnly.comparison).toBe('answer_2_better');
    expect(ackOnly.humanAnswerCommentIds).toEqual([]);
  });

  it('does not rate the published answer better merely for stating more', () => {
    const out = rubricJudge(inputFor({ reply: `${GOOD_REPLY} CPU peaked at 85% on tikv-3 at 10:41.`, handoff: GOOD_HANDOFF, decision: 'internal_only' }));
    expect(['equivalent', 'different_but_valid']).toContain(out.comparison);
  });

  it('is the built-in engine answer to the Judge instructions', async () => {
    const runtime = new AgentRuntime({ config: {}, builtin: registerRubricJudge(new BuiltinRegistry()) });
    const result = await runtime.invoke({ role: 'judge', instructions: JUDGE_INSTRUCTIONS, input: inputFor(), output: JudgeModelOutputV1 });
    expect(result.engine).toBe('builtin');
    expect(result.model).toBe(`builtin:${RUBRIC_JUDGE_MODEL}`);
    expect(result.output.comparison).toBe('answer_2_better');
  });
});
