import { comment } from '../../test/judge-fixtures';
import { applyEvent, emptyTicketState } from '../judge-answer/ticket-state';
import { planJudgments } from '../judge-answer/judge-plan';
import { analysisRequested, runPublished, timeline } from '../../test/judge-fixtures';
import { causeClaim } from './cause-claim';
import { rubricJudge } from './rubric-judge';

/** An answer in the built-in engine's format: observations name every family that moved, the cause line blames one. */
const REPLY = [
  'What the data shows:',
  '- CPU utilisation (process_cpu_seconds_total) rose from a usual level of 1.2 to 1.9; peak 1.908 at 11:12Z.',
  '- lock waits (mysql_global_status_innodb_row_lock_current_waits) rose above its usual level of 1.5; peak 7.2 at 11:16Z.',
  '',
  'Most likely cause: CPU utilisation rose from its usual level of 1.2 s to 1.9 s, starting at 11:05 UTC.',
  '',
  'Still to confirm: which statements consume the CPU.',
].join('\n');
const HANDOFF = '**Evidence boundary:** latency via prometheus (complete).\n**Leading mechanism (moderate):** CPU utilisation rose from its usual level of 1.2 s to 1.9 s.\n**Next internal action:** Find the statements with the most CPU time and throttle them.';

describe('the cause a published answer claims', () => {
  it('reads the cause line and the leading mechanism, firm unless weak or undetermined', () => {
    expect(causeClaim(REPLY, HANDOFF)).toEqual({ text: expect.stringMatching(/^CPU utilisation rose[\s\S]*\nCPU utilisation rose/), firm: true });
    expect(causeClaim(REPLY, HANDOFF.replace('(moderate)', '(weak)'))?.firm).toBe(false);
    expect(causeClaim('We could not determine the cause.', '**Leading mechanism (undetermined):** none')).toBeNull();
  });

  it('judges the human better when the customer confirms the human cause and the answer blamed another, though its observations mention it', () => {
    let state = applyEvent(emptyTicketState('SUP-1042'), { kind: 'ticket', request: analysisRequested() });
    state = applyEvent(state, { kind: 'answer', run: runPublished({ customerReplyMarkdown: REPLY, internalHandoffMarkdown: HANDOFF, decision: 'human_required' }) });
    const comments = [
      comment('c-3', 'support', 'public', '2026-11-20T12:30:00.000Z', 'A reporting transaction held row locks on orders and every checkout session waited on those locks. Kill the blocking transaction.'),
      comment('c-4', 'customer', 'public', '2026-11-20T13:10:00.000Z', 'Confirmed, we killed it and checkout works now.'),
    ];
    state = applyEvent(state, { kind: 'timeline', timeline: timeline(1, comments) });
    const out = rubricJudge(planJudgments(state).plans[0].input);
    expect(out.comparison).toBe('answer_2_better');
    expect(out.reason).toMatch(/customer confirmed the human answer \(c-4\); the published answer firmly named a different mechanism \("CPU utilisation"\)/);
    expect(out.answer1Gaps[0]).toMatch(/^named "CPU utilisation"; the customer confirmed .*lock/);
  });
});
