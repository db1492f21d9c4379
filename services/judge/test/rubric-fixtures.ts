import type { TimelineCommentV1, Verdict } from '@aoc/contracts';
import { swapped, verdictFor } from '../src/judge-answer/answer-comparison';
import type { JudgeModelOutputV1 } from '../src/judge-answer/judge-input.schema';
import { planJudgments } from '../src/judge-answer/judge-plan';
import { applyEvent, emptyTicketState } from '../src/judge-answer/ticket-state';
import { rubricJudge } from '../src/rubric-judge/rubric-judge';
import { analysisRequested, runPublished, timeline } from './judge-fixtures';

/** A ticket seen at the fixtures' 11:05 cutoff and the read-mode answer published for it. */
export interface RubricTicket {
  title: string;
  description: string;
  labels?: string[];
  reply: string;
  handoff: string;
}

/**
 * Judges the answer against the later comments with the built-in judge, planned as the service
 * plans it. Both answer orders must agree, as the service requires; a disagreement throws.
 */
export function judgeRubric(t: RubricTicket, comments: TimelineCommentV1[]): { out: JudgeModelOutputV1; verdict: Verdict } {
  const base = analysisRequested().ticket;
  let state = emptyTicketState(base.key);
  state = applyEvent(state, { kind: 'ticket', request: analysisRequested({ ticket: { ...base, title: t.title, description: t.description, labels: t.labels ?? base.labels, comments: [] } }) });
  state = applyEvent(state, { kind: 'answer', run: runPublished({ customerReplyMarkdown: t.reply, internalHandoffMarkdown: t.handoff }) });
  state = applyEvent(state, { kind: 'timeline', timeline: timeline(1, comments) });
  const input = planJudgments(state).plans[0].input;
  const out = rubricJudge(input);
  const verdict = verdictFor(out, 1, false);
  const other = verdictFor(rubricJudge(swapped(input)), 2, false);
  if (other !== verdict) throw new Error(`answer orders disagree: ${verdict} vs ${other}`);
  return { out, verdict };
}
