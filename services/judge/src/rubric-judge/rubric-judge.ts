import type { BuiltinRegistry } from '@aoc/agent-runtime';
import { JUDGE_INSTRUCTIONS } from '../judge-answer/judge-instructions';
import { JudgeInputV1, type Comparison, type HumanRepliesV1, type JudgeModelOutputV1, type PublishedAnswerV1 } from '../judge-answer/judge-input.schema';
import { decideComparison, type Ground, type RuleId } from './decide-comparison';
import { compareFacts, type Source } from './fact-comparison';
import { checkPreviousFeedback } from './feedback-check';
import { contestPreviousFeedback, contestThisVersion, type FeedbackContest } from './feedback-contest';
import { factsOf } from './facts/facts';
import { selectHumanAnswer } from './human-answer';
import { RISK } from './judge-rules.data';
import { followUps, tagProvenance } from './provenance';
import { readPublished } from './published-answer';
import { tierOf } from './tier';
import { contestNote, feedbackNote, handoffGap, reasonOf, renderComparison } from './render';

export const RUBRIC_JUDGE_MODEL = 'rubric-judge-v4';

const LIST_LIMIT = 10;

interface Sides {
  published: PublishedAnswerV1;
  human: HumanRepliesV1;
  publishedLabel: 1 | 2;
}

function sides(input: JudgeInputV1): Sides {
  if (input.answer1.kind === 'published_answer' && input.answer2.kind === 'human_replies') return { published: input.answer1, human: input.answer2, publishedLabel: 1 };
  if (input.answer2.kind === 'published_answer' && input.answer1.kind === 'human_replies') return { published: input.answer2, human: input.answer1, publishedLabel: 2 };
  throw new Error('judge input needs one published answer and one set of human replies');
}

/** What the AI could see at its cutoff: the ticket and the comments visible to it. */
function sourcesOf(input: JudgeInputV1): Source[] {
  return [
    { id: 'ticket', text: `${input.ticket.title}\n${input.ticket.description}` },
    ...input.ticket.comments.map((c) => ({ id: c.id, text: c.body })),
    ...input.timeline.filter((c) => c.visibleToAi).map((c) => ({ id: c.id, text: c.body })),
  ];
}

function toComparison(verdict: Ground['verdict'], publishedLabel: 1 | 2): Comparison {
  const humanLabel: 1 | 2 = publishedLabel === 1 ? 2 : 1;
  if (verdict === 'human_better') return humanLabel === 1 ? 'answer_1_better' : 'answer_2_better';
  if (verdict === 'ai_better') return publishedLabel === 1 ? 'answer_1_better' : 'answer_2_better';
  return verdict === 'not_compared' ? 'not_comparable' : verdict;
}

/**
 * Built-in rubric judge (deterministic). It decides only what the texts decide — one fact
 * comparison with provenance and bearing, the customer's later confirmations and corrections, the
 * previous version's feedback — and otherwise abstains with a reason code. It never rates the
 * human answer better without a stated, stage-fair ground that bears on the cause, the action or
 * the decision.
 */
export function rubricJudge(input: JudgeInputV1): JudgeModelOutputV1 {
  return rubricJudgment(input).output;
}

/** The rubric judge's output and the rule that decided it (`decide-comparison.ts`; a code, no text). */
export function rubricJudgment(input: JudgeInputV1): { output: JudgeModelOutputV1; rule: RuleId } {
  const { published, human, publishedLabel } = sides(input);
  const sources = sourcesOf(input);
  const questionText = sources.map((s) => s.text).join('\n');
  const ticketFacts = factsOf(questionText);
  const ai = readPublished(published, ticketFacts, factsOf(sources[0].text).filter((f) => f.kind === 'identifier'));
  const previous = contestPreviousFeedback(input, checkPreviousFeedback(input, published));
  const feedback = previous.check;
  const answer = selectHumanAnswer(human.comments, input.timeline, input.anchor, questionText);
  const selected = human.comments.filter((c) => answer.ids.includes(c.id));
  const humanText = selected.map((c) => c.body).join('\n');
  const anchor = Date.parse(input.anchor);
  const lastSelected = selected.length > 0 ? Math.max(...selected.map((c) => Date.parse(c.createdAt))) : anchor;
  const tier = tierOf(input.ticket, sources.slice(1).map((s) => s.text).join('\n'));
  // Each fact is anchored on the reply that first states it, among all Support replies after the anchor.
  const tagged = selected.length > 0 ? tagProvenance({ humanFacts: answer.facts, replies: human.comments, timeline: input.timeline, anchor, internalNotes: input.internalNotes, tier }) : [];
  const humanAllFacts = factsOf(humanText);
  const comparison = compareFacts({ humanFacts: humanAllFacts, humanText, tagged: new Map(tagged.map((t) => [t.fact.key, t])), sources, ticketFacts, aiFacts: ai.facts });

  const ground = decideComparison({
    hasReplies: human.comments.length > 0,
    answerIds: answer.ids,
    foreignLanguage: answer.foreignLanguage,
    comparison,
    ai,
    humanFacts: answer.facts,
    humanAllFacts,
    humanNamesRisk: RISK.test(humanText),
    ticketFacts,
    follow: followUps(input.timeline, lastSelected),
    feedback,
    laterNotes: input.internalNotes.some((n) => Date.parse(n.createdAt) > anchor && Date.parse(n.createdAt) < lastSelected),
  });

  const contest: FeedbackContest | null = previous.contest ?? contestThisVersion(input, ground);
  const r = renderComparison(comparison, ai, ground, feedback, answer.ids.length > 0);
  const labelled =
    publishedLabel === 1
      ? { answer1Gaps: r.aiGaps, answer1Strengths: r.aiStrengths, answer2Gaps: r.humanGaps, answer2Strengths: r.humanStrengths }
      : { answer1Gaps: r.humanGaps, answer1Strengths: r.humanStrengths, answer2Gaps: r.aiGaps, answer2Strengths: r.aiStrengths };
  const reason = ['Built-in rubric judge: facts compared unit-aware with their provenance and bearing; it abstains where meaning decides.', reasonOf(ground), ...r.summary, feedbackNote(feedback) ?? '', contest ? contestNote(contest) : ''].filter(Boolean).join(' ');
  const output: JudgeModelOutputV1 = {
    comparison: toComparison(ground.verdict, publishedLabel),
    reason: reason.slice(0, 2000),
    humanAnswerCommentIds: answer.ids,
    answer1Gaps: labelled.answer1Gaps.slice(0, LIST_LIMIT),
    answer2Gaps: labelled.answer2Gaps.slice(0, LIST_LIMIT),
    answer1Strengths: labelled.answer1Strengths.slice(0, LIST_LIMIT),
    answer2Strengths: labelled.answer2Strengths.slice(0, LIST_LIMIT),
    keyDifferences: r.keyDifferences,
    internalHandoffGaps: ai.handoff.map(handoffGap),
    previousFeedbackResolved: feedback.resolution,
    abstentionCode: ground.verdict === 'not_compared' ? ground.code : null,
    feedbackContest: contest ? { commentId: contest.commentId, scope: contest.scope, evidenceCommentIds: contest.evidence } : null,
  };
  return { output, rule: ground.rule };
}

/** Registers the rubric judge as the built-in engine's answer to the Judge instructions. */
export function registerRubricJudge(registry: BuiltinRegistry): BuiltinRegistry {
  return registry.register({
    role: 'judge',
    instructionsId: JUDGE_INSTRUCTIONS.id,
    model: RUBRIC_JUDGE_MODEL,
    run: (input) => rubricJudge(JudgeInputV1.parse(input)),
  });
}
