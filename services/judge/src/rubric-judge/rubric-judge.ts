import type { BuiltinRegistry } from '@aoc/agent-runtime';
import type { JudgeAbstentionCode } from '@aoc/contracts';
import { JUDGE_INSTRUCTIONS } from '../judge-answer/judge-instructions';
import { JudgeInputV1, type Comparison, type HumanRepliesV1, type JudgeModelOutputV1, type PublishedAnswerV1 } from '../judge-answer/judge-input.schema';
import { causeClaim } from './cause-claim';
import { decideComparison, type Ground } from './decide-comparison';
import { checkPreviousFeedback } from './feedback-check';
import { factsOf, minusFacts, states, type Fact } from './facts/facts';
import { selectHumanAnswer } from './human-answer';
import { leavesSupportAction, nextActionOf } from './handoff';
import { ACTION_VERB, UNDETERMINED } from './judge-rules.data';
import { followUps, tagProvenance } from './provenance';

export const RUBRIC_JUDGE_MODEL = 'rubric-judge-v3';

const LIST_LIMIT = 10;
const show = (f: Fact) => `"${f.display}"`;

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

function handoffGaps(published: PublishedAnswerV1, ticketIdentifiers: readonly Fact[]): string[] {
  const gaps: string[] = [];
  const handoff = published.internalHandoffMarkdown;
  const action = nextActionOf(handoff);
  if (published.decision !== 'internal_only') {
    if (action === null) gaps.push('the handoff names no next internal action for Support');
    else if (!ACTION_VERB.test(action) && factsOf(action).length === 0) gaps.push(`the handoff's next action names no concrete query, check or escalation for Support ("${action.slice(0, 160)}")`);
  } else if (leavesSupportAction(handoff)) {
    gaps.push('the decision is internal_only, yet the handoff leaves a follow-up action to Support');
  }
  const handoffFacts = factsOf(handoff);
  for (const id of ticketIdentifiers) if (!states(handoffFacts, id)) gaps.push(`the handoff does not name ${show(id)}, which the ticket identifies`);
  return gaps;
}

/** The part of the published answer that reports measurements: its frozen evidence. */
function evidenceText(published: PublishedAnswerV1): string {
  const customer = /what the data shows:?([\s\S]*?)(?:\n\s*\n(?:most likely cause|what we found)|$)/i.exec(published.customerReplyMarkdown)?.[1] ?? '';
  const internal = /\*\*observations:\*\*([\s\S]*?)(?:\n\*\*|$)/i.exec(published.internalHandoffMarkdown)?.[1] ?? '';
  return `${customer}\n${internal}`;
}

/**
 * Built-in rubric judge (deterministic). It decides only what the texts decide — facts compared
 * unit-aware with their provenance, the customer's later confirmations and corrections, the
 * previous version's feedback — and otherwise abstains with a reason code. It never rates the
 * human answer better without a stated, stage-fair ground.
 */
export function rubricJudge(input: JudgeInputV1): JudgeModelOutputV1 {
  const { published, human, publishedLabel } = sides(input);
  const questionText = [input.ticket.title, input.ticket.description, ...input.ticket.comments.map((c) => c.body), ...input.timeline.filter((c) => c.visibleToAi).map((c) => c.body)].join('\n');
  const ticketFacts = factsOf(questionText);
  const ticketIdentifiers = factsOf(`${input.ticket.title}\n${input.ticket.description}`).filter((f) => f.kind === 'identifier');
  const aiText = `${published.customerReplyMarkdown}\n${published.internalHandoffMarkdown}`;
  const aiFacts = factsOf(aiText);
  const aiOwn = minusFacts(aiFacts, ticketFacts);
  const claim = causeClaim(published.customerReplyMarkdown, published.internalHandoffMarkdown);
  const internalHandoffGaps = handoffGaps(published, ticketIdentifiers);
  const feedback = checkPreviousFeedback(input, published);
  const answer = selectHumanAnswer(human.comments, input.timeline, input.anchor, questionText);
  const selected = human.comments.filter((c) => answer.ids.includes(c.id));
  const anchor = Date.parse(input.anchor);
  const lastSelected = selected.length > 0 ? Math.max(...selected.map((c) => Date.parse(c.createdAt))) : anchor;
  const tagged = selected.length > 0 ? tagProvenance(answer.facts, selected, input.timeline, anchor, input.internalNotes) : [];
  const humanTicketFacts = factsOf(selected.map((c) => c.body).join('\n')).filter((f) => states(ticketFacts, f) && f.kind !== 'identifier');

  const ground: Ground = decideComparison({
    hasReplies: human.comments.length > 0,
    answer,
    tagged,
    aiFacts,
    aiOwn,
    aiEvidence: factsOf(evidenceText(published)),
    aiText,
    aiClaim: claim ? minusFacts(factsOf(claim.text), ticketFacts) : null,
    aiClaimFirm: claim?.firm ?? null,
    humanText: selected.map((c) => c.body).join('\n'),
    ticketFacts,
    humanTicketFacts,
    follow: followUps(input.timeline, lastSelected),
    feedback,
    decision: published.decision,
    nextActionConcrete: !internalHandoffGaps.some((g) => g.startsWith("the handoff's next action") || g.startsWith('the handoff names no next')),
  });

  const humanLabel: 1 | 2 = publishedLabel === 1 ? 2 : 1;
  const comparison: Comparison =
    ground.verdict === 'human_better' ? (humanLabel === 1 ? 'answer_1_better' : 'answer_2_better')
    : ground.verdict === 'ai_better' ? (publishedLabel === 1 ? 'answer_1_better' : 'answer_2_better')
    : ground.verdict === 'not_compared' ? 'not_comparable'
    : ground.verdict;
  const fair = tagged.filter((t) => t.provenance === 'own').map((t) => t.fact);
  const covered = fair.filter((f) => states(aiFacts, f));
  const missing = fair.filter((f) => !states(aiFacts, f));
  const extra = aiOwn.filter((f) => !states(answer.facts, f) && f.kind !== 'identifier');
  const aiGaps = [...ground.aiGaps, ...missing.slice(0, LIST_LIMIT).map((f) => `the human answer states ${show(f)}; the published answer does not`)];
  const aiStrengths = [...ground.aiStrengths, ...covered.slice(0, LIST_LIMIT).map((f) => `states ${show(f)} as the human answer does`), ...(UNDETERMINED.test(aiText) ? ['says plainly what it could not determine'] : [])];
  const humanStrengths = missing.slice(0, LIST_LIMIT).map((f) => `states ${show(f)}`);
  const humanGaps = [...ground.humanGaps, ...(extra.length > 0 ? [`does not mention ${extra.slice(0, 5).map(show).join(', ')}, which the published answer reports`] : [])];
  const labelled =
    publishedLabel === 1
      ? { answer1Gaps: aiGaps, answer1Strengths: aiStrengths, answer2Gaps: humanGaps, answer2Strengths: humanStrengths }
      : { answer1Gaps: humanGaps, answer1Strengths: humanStrengths, answer2Gaps: aiGaps, answer2Strengths: aiStrengths };
  const late = tagged.filter((t) => t.provenance !== 'own');
  const reason = [
    'Built-in rubric judge: facts compared unit-aware with their provenance; it abstains where meaning decides.',
    ground.reason,
    fair.length > 0 ? `The published answer states ${covered.length} of the ${fair.length} facts of the human answer the AI could have had.` : '',
    late.length > 0 ? `${late.length} fact(s) of the human answer came from later customer comments or manual work (internal notes included) and are not held against the published answer.` : '',
    feedback.note ?? '',
  ]
    .filter(Boolean)
    .join(' ');
  const keyDifferences: string[] = [];
  if (missing.length > 0) keyDifferences.push(`only the human answer states ${missing.slice(0, 6).map(show).join(', ')}`);
  if (extra.length > 0) keyDifferences.push(`only the published answer states ${extra.slice(0, 6).map(show).join(', ')}`);
  if (published.decision !== 'internal_only' && answer.ids.length > 0) keyDifferences.push(`the published answer hands the ticket to Support (decision ${published.decision}); the human replies answer it`);
  const code: JudgeAbstentionCode | null = ground.verdict === 'not_compared' ? ground.code : null;
  return {
    comparison,
    reason: reason.slice(0, 2000),
    humanAnswerCommentIds: answer.ids,
    ...labelled,
    answer1Gaps: labelled.answer1Gaps.slice(0, LIST_LIMIT),
    answer2Gaps: labelled.answer2Gaps.slice(0, LIST_LIMIT),
    answer1Strengths: labelled.answer1Strengths.slice(0, LIST_LIMIT),
    answer2Strengths: labelled.answer2Strengths.slice(0, LIST_LIMIT),
    keyDifferences,
    internalHandoffGaps,
    previousFeedbackResolved: feedback.resolution,
    abstentionCode: code,
  };
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
