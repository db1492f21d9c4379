import type { TimelineCommentV1 } from '@aoc/contracts';
import { analysisRequested, comment, runPublished, timeline } from '../../test/judge-fixtures';
import { swapped, verdictFor } from '../judge-answer/answer-comparison';
import type { JudgeFeedbackV1, JudgeInputV1, PreviousAnswerV1 } from '../judge-answer/judge-input.schema';
import { planJudgments } from '../judge-answer/judge-plan';
import { applyEvent, emptyTicketState } from '../judge-answer/ticket-state';
import { rubricJudge } from './rubric-judge';

/** A connections ticket seen at the 11:05 cutoff; the human answers after it. */
const TITLE = 'Too many connections on cluster pg-orders-1';
const DESCRIPTION = 'Since about 10:40 UTC the app gets "too many connections" from pg-orders-1. The parameter group sets max_connections = 500.';
const AI_REPLY = 'What the data shows:\n- Connections rose from 120 to 497 at 10:41 UTC; CPU stayed at 35%.\n\nMost likely cause: connections hit the limit of 500 because the app pool grew.\n\nSuggested next step: cap the pool size or add PgBouncer.';
const AI_HANDOFF = '**Evidence boundary:** connections via prometheus (complete).\n**Observations:**\n- Connections 497 at 10:41 UTC; CPU 35%.\n**Next internal action:** check pg_stat_activity by application for pg-orders-1.';
const at = (hhmm: string) => `2026-11-20T${hhmm}:00.000Z`;
const support = (id: string, hhmm: string, body: string) => comment(id, 'support', 'public', at(hhmm), body);
const customer = (id: string, hhmm: string, body: string) => comment(id, 'customer', 'public', at(hhmm), body);

function judge(
  comments: TimelineCommentV1[],
  answer: { reply?: string; handoff?: string; decision?: 'internal_only' | 'human_required' } = {},
  previous: PreviousAnswerV1 | null = null,
  feedback: JudgeFeedbackV1[] = [],
) {
  let state = emptyTicketState('SUP-1042');
  state = applyEvent(state, { kind: 'ticket', request: analysisRequested({ ticket: { ...analysisRequested().ticket, title: TITLE, description: DESCRIPTION, comments: [] } }) });
  state = applyEvent(state, { kind: 'answer', run: runPublished({ customerReplyMarkdown: answer.reply ?? AI_REPLY, internalHandoffMarkdown: answer.handoff ?? AI_HANDOFF, decision: answer.decision ?? 'human_required' }) });
  state = applyEvent(state, { kind: 'timeline', timeline: timeline(1, comments) });
  const [plan] = planJudgments(state).plans;
  const input: JudgeInputV1 = { ...plan.input, previousAnswer: previous, feedback };
  const out = rubricJudge(input);
  // Both orders must agree, as the service requires.
  expect(verdictFor(rubricJudge(swapped(input)), 2, previous !== null)).toBe(verdictFor(out, 1, previous !== null));
  return { out, verdict: verdictFor(out, 1, previous !== null) };
}

describe('rubric judge rules', () => {
  it('same facts in other words and units are equivalent', () => {
    const { verdict } = judge([support('s1', '11:30', 'You reached about 500 connections (497 at 10:41), the max_connections limit; the app pool grew. Put PgBouncer in front or cap the pool.')]);
    expect(verdict).toBe('equivalent');
  });

  it('a ticket fact the AI ignored, used by the human, is a stage-fair ground for human_better', () => {
    const { out, verdict } = judge([support('s1', '11:30', 'Your limit is max_connections = 500 and a deploy at 10:38 doubled the pods, so the pools open 600 connections. Scale the pool down.')], {
      reply: 'What the data shows:\n- CPU stayed at 35%.\n\nMost likely cause: a burst of long queries.\n\nSuggested next step: check slow queries.',
      handoff: '**Next internal action:** check the slow query log for pg-orders-1.',
    });
    expect(verdict).toBe('human_better');
    expect(out.reason).toMatch(/from the ticket/);
  });

  it('facts the customer supplied later are not held against the AI (different but valid)', () => {
    const { verdict, out } = judge(
      [customer('u1', '11:20', 'FYI the billing-batch job started 60 workers at 10:39.'), support('s1', '11:40', 'The billing-batch job with its 60 workers opened the extra sessions; stop it or lower its pool.')],
      { reply: `${AI_REPLY}\n\nStill to confirm: which client opened the extra connections.` },
    );
    expect(verdict).toBe('different_but_valid');
    expect(out.reason).toMatch(/later customer comments or manual work/);
  });

  it('facts Support found in its own internal note after the anchor are not held against the AI', () => {
    const note = comment('n1', 'support', 'internal', at('11:20'), 'pg_stat_activity: billing-batch holds 380 connections.');
    const reply = support('s1', '11:40', 'billing-batch holds 380 connections; cap its pool.');
    const withNote = judge([note, reply], { reply: `${AI_REPLY}\n\nStill to confirm: which client opened the extra connections.` });
    expect(withNote.out.reason).toMatch(/came from later customer comments or manual work/);
    expect(withNote.verdict).not.toBe('human_better');
  });

  it('a human value the measurements contradict is a concrete ground for ai_better', () => {
    const { verdict } = judge([support('s1', '11:30', 'CPU was at 95% during the incident, which slowed the connection handshakes; the pool grew too.')]);
    expect(verdict).toBe('ai_better');
  });

  it('a risk the AI named and the human missed is a concrete ground for ai_better; without it the same facts are equivalent', () => {
    const reply = `${AI_REPLY}\n\nAt this rate the next deploy will exhaust the reserved superuser slots too.`;
    expect(judge([support('s1', '11:30', 'Connections hit the max_connections limit of 500 (497 at 10:41) because the app pool grew; add PgBouncer.')], { reply }).verdict).toBe('ai_better');
    expect(judge([support('s1', '11:30', 'Connections hit the max_connections limit of 500 (497 at 10:41) because the app pool grew; add PgBouncer.')]).verdict).toBe('equivalent');
  });

  it('replies that only acknowledge, report progress or close abstain with a code', () => {
    const { out, verdict } = judge([support('s1', '11:20', 'Thanks, we are looking into it.'), support('s2', '12:00', 'Closing this ticket, feel free to reopen.')]);
    expect(verdict).toBe('not_compared');
    expect(out.abstentionCode).toBe('JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE');
    expect(out.humanAnswerCommentIds).toEqual([]);
  });

  it('a correction supersedes the earlier reply; a reply to a later, different question is left out', () => {
    const { out } = judge([
      support('s1', '11:20', 'It might be the autovacuum on orders using the connections.'),
      support('s2', '11:40', 'Correction: it is the app pool — connections hit the limit of 500 at 10:41. Add PgBouncer.'),
      customer('u1', '12:00', 'Thanks. Separately, can you tell us how to upgrade to Postgres 16 on pg-orders-2?'),
      support('s3', '12:30', 'For the upgrade to 16, use a blue/green deployment on pg-orders-2.'),
    ]);
    expect(out.humanAnswerCommentIds).toEqual(['s2']);
  });

  it('the customer calling the human suspicion a separate issue and naming the AI mechanism favours the AI', () => {
    const { verdict } = judge([
      support('s1', '11:30', 'The cause is a checkpoint storm: WAL writes spiked at 10:40.'),
      customer('u1', '12:10', 'The checkpoint thing was a separate issue from last week; the connection pool growth was the problem here.'),
    ]);
    expect(verdict).toBe('ai_better');
  });

  it('a human answer in another language is left to the model judge', () => {
    const { out } = judge([support('s1', '11:30', '连接数在 10:41 达到了 500 的上限，原因是应用连接池扩大了。请使用 PgBouncer。')]);
    expect(out.abstentionCode).toBe('JUDGE.NEEDS_MODEL');
  });

  describe('bad input', () => {
    it('no Support reply at all abstains with HUMAN_ANSWER_EMPTY', () => {
      let state = emptyTicketState('SUP-1042');
      state = applyEvent(state, { kind: 'ticket', request: analysisRequested() });
      state = applyEvent(state, { kind: 'answer', run: runPublished() });
      state = applyEvent(state, { kind: 'timeline', timeline: timeline(1, [support('s1', '11:30', 'We found it: the pool grew.')]) });
      const input: JudgeInputV1 = { ...planJudgments(state).plans[0].input };
      const empty = rubricJudge({ ...input, answer2: { kind: 'human_replies', comments: [] } });
      expect(empty.abstentionCode).toBe('JUDGE.HUMAN_ANSWER_EMPTY');
    });

    it('a thousand-comment ticket is bounded and judged', () => {
      const many = Array.from({ length: 1000 }, (_, i) => comment(`n-${i}`, i % 2 ? 'customer' : 'support', 'public', new Date(Date.parse(at('11:10')) + i * 1000).toISOString(), i % 2 ? 'Any update?' : 'Still looking into it.'));
      const { out } = judge([...many, support('s1', '12:00', 'Connections hit the max_connections limit of 500 (497 at 10:41) because the app pool grew; add PgBouncer.')]);
      expect(out.comparison).toBeDefined();
      expect(out.humanAnswerCommentIds.length).toBeLessThanOrEqual(100);
    });

    it('a human reply that pastes the AI answer, or quotes it and agrees, never blames the AI', () => {
      const pasted = judge([support('s1', '11:30', `Sending you our analysis:\n\n${AI_REPLY}`)]);
      expect(pasted.verdict).not.toBe('human_better');
      const quoted = judge([support('s1', '11:30', `${AI_REPLY.split('\n').map((l) => `> ${l}`).join('\n')}\n\nAgreed, that is what we see too.`)]);
      expect(quoted.verdict).not.toBe('human_better');
    });

    it('a reply that is only a code block or a table is read by its content', () => {
      const code = support('s1', '11:30', '| application_name | connections |\n|---|---|\n| billing-batch | 380 |\n| web-frontend | 110 |');
      expect(judge([code]).out.humanAnswerCommentIds).toEqual(['s1']);
      expect(judge([support('s2', '11:30', '```\n\n```')]).out.abstentionCode).toBe('JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE');
    });

    it('an edit that turns the substantive reply into "Resolved." leaves nothing to compare', () => {
      const edited = { ...support('s1', '11:30', 'Resolved.'), updatedAt: at('13:00') };
      expect(judge([edited]).out.abstentionCode).toBe('JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE');
    });
  });

  describe('write mode', () => {
    const previous = (reason: string, decision: 'internal_only' | 'human_required' = 'human_required'): PreviousAnswerV1 => ({
      runId: 'run-0',
      publishedAt: at('11:06'),
      customerReplyMarkdown: 'Most likely cause: connections hit the limit of 200.',
      internalHandoffMarkdown: '**Next internal action:** none.',
      decision,
      latestFeedback: { action: 'revise', reason, commentId: 'c-ao' },
    });
    const human = [support('s1', '11:30', 'Connections hit the max_connections limit of 500 (497 at 10:41) because the app pool grew; add PgBouncer.')];

    it('a corrected value now stated is fixed; the old value still stated is not, even when the complaint is quoted', () => {
      expect(judge(human, {}, previous('the limit is 500, not 200')).out.previousFeedbackResolved).toBe('resolved');
      const mentioned = judge(human, { reply: `${AI_REPLY.replace('limit of 500', 'limit of 200')} (feedback said 500)` }, previous('the limit is 500, not 200'));
      expect(mentioned.out.previousFeedbackResolved).toBe('unresolved');
      expect(mentioned.verdict).toBe('human_better');
    });

    it('a reason with nothing checkable abstains instead of passing', () => {
      const { out, verdict } = judge(human, {}, previous('please improve this'));
      expect(verdict).toBe('not_compared');
      expect(out.abstentionCode).toBe('JUDGE.FEEDBACK_UNPARSEABLE');
    });

    it('a complaint that a human was bypassed is fixed only by a decision that hands over', () => {
      const handoff = `${AI_HANDOFF}\nSupport will continue to check the pool.`;
      expect(judge(human, { decision: 'internal_only', handoff }, previous('this bypassed a human; it should have gone to Support', 'internal_only')).out.previousFeedbackResolved).toBe('unresolved');
      expect(judge(human, { decision: 'human_required' }, previous('this bypassed a human; it should have gone to Support', 'internal_only')).out.previousFeedbackResolved).toBe('resolved');
    });
  });

  describe('explicit /ao feedback contested by the timeline', () => {
    const ao = (action: JudgeFeedbackV1['action']): JudgeFeedbackV1 => ({
      commentId: 'c-ao',
      action,
      reason: 'wrong cause',
      authorRole: 'support',
      visibility: 'internal',
      commentCreatedAt: at('11:10'),
      commentUpdatedAt: at('11:10'),
      inherited: false,
    });
    const checkpoint = support('s1', '11:30', 'The cause is a checkpoint storm: WAL writes spiked at 10:40.');
    const confirmsPool = customer('u1', '12:10', 'We capped the app pool as the first analysis suggested; the first analysis was right, connections are back to normal.');

    it('/ao wrong on this version while the customer confirms the published cause is recorded as contested, with its evidence', () => {
      const { out, verdict } = judge([checkpoint, confirmsPool], {}, null, [ao('wrong')]);
      expect(verdict).toBe('ai_better');
      expect(out.feedbackContest).toEqual({ commentId: 'c-ao', scope: 'this_version', evidenceCommentIds: ['u1'] });
      expect(out.reason).toMatch(/\/ao wrong \(c-ao\) on this version is contested by the customer's comment u1/);
    });

    it('no contest without the confirming comment, nor for an accept the customer agrees with', () => {
      expect(judge([checkpoint], {}, null, [ao('wrong')]).out.feedbackContest).toBeNull();
      expect(judge([checkpoint, confirmsPool], {}, null, [ao('accept')]).out.feedbackContest).toBeNull();
    });

    it("write mode: a claim the previous version's feedback called wrong, confirmed later by the customer, is contested instead of unfixed", () => {
      const previous: PreviousAnswerV1 = {
        runId: 'run-0',
        publishedAt: at('11:06'),
        customerReplyMarkdown: 'Most likely cause: the connection pool grew until connections hit the limit.',
        internalHandoffMarkdown: '**Next internal action:** check pg_stat_activity.',
        decision: 'human_required',
        latestFeedback: { action: 'wrong', reason: 'remove the claim about the connection pool', commentId: 'c-ao' },
      };
      const human = support('s1', '11:30', 'Connections hit the max_connections limit of 500 (497 at 10:41) because the connection pool grew; add PgBouncer.');
      const reply = AI_REPLY.replace('app pool', 'connection pool');
      const unfixed = judge([human], { reply }, previous);
      expect(unfixed.verdict).toBe('human_better');
      expect(unfixed.out.feedbackContest).toBeNull();
      const contested = judge([customer('u0', '11:20', 'Confirmed: it was indeed the connection pool, it grew after our deploy.'), human], { reply }, previous);
      expect(contested.out.previousFeedbackResolved).toBe('not_applicable');
      expect(contested.verdict).not.toBe('human_better');
      expect(contested.out.feedbackContest).toEqual({ commentId: 'c-ao', scope: 'previous_version', evidenceCommentIds: ['u0'] });
      expect(contested.out.reason).toMatch(/on the previous version is contested by the customer's comment u0/);
    });
  });
});
