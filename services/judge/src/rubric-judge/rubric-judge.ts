import type { BuiltinRegistry } from '@aoc/agent-runtime';
import { JUDGE_INSTRUCTIONS } from '../judge-answer/judge-instructions';
import {
  JudgeInputV1,
  type Comparison,
  type HumanRepliesV1,
  type JudgeModelOutputV1,
  type PreviousFeedbackResolution,
  type PublishedAnswerV1,
} from '../judge-answer/judge-input.schema';
import { factKeys, keyFacts, type KeyFact } from './key-facts';

export const RUBRIC_JUDGE_MODEL = 'rubric-judge-v2';

/** Share of the human answer's facts the published answer must state to count as equivalent. */
const EQUIVALENT_COVERAGE = 0.6;
/** Below this share the human answer is better; in between both are different but valid. */
const VALID_COVERAGE = 0.3;
/** Share of the facts a revise/wrong reason added that a new version must state to count as fixed. */
const FEEDBACK_RESOLVED_COVERAGE = 0.5;
const LIST_LIMIT = 10;

const ACTION_VERB = /\b(query|queries|check|run|verify|inspect|compare|collect|retry|re-run|rerun|escalate|ask|read|open|review|confirm|measure|look up|pull|export|restart|apply|add)\b/i;
const UNDETERMINED = /could not|cannot confirm|can't confirm|not determined|undetermined|unable to (?:determine|confirm)/i;

const show = (f: KeyFact) => `"${f.key}"`;
const minus = (facts: KeyFact[], remove: Set<string>) => facts.filter((f) => !remove.has(f.key));

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

/**
 * The minimal ordered set of human replies forming the answer: walking from the latest reply
 * back, a reply is kept only when it states a fact (beyond the ticket's own) that no later kept
 * reply states. Greetings, progress notes and replies restated later drop out.
 */
export function minimalHumanAnswer(replies: HumanRepliesV1['comments'], ticketFacts: Set<string>): { ids: string[]; facts: KeyFact[] } {
  const ordered = [...replies].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id.localeCompare(b.id));
  const own = new Map(ordered.map((r) => [r.id, minus(keyFacts(r.body), ticketFacts)]));
  const covered = new Set<string>();
  const kept = new Set<string>();
  for (const reply of [...ordered].reverse()) {
    const facts = own.get(reply.id) ?? [];
    if (!facts.some((f) => !covered.has(f.key))) continue;
    kept.add(reply.id);
    for (const f of facts) covered.add(f.key);
  }
  const ids = ordered.filter((r) => kept.has(r.id)).map((r) => r.id);
  const seen = new Set<string>();
  const facts = ids.flatMap((id) => own.get(id) ?? []).filter((f) => (seen.has(f.key) ? false : (seen.add(f.key), true)));
  return { ids, facts };
}

function handoffGaps(published: PublishedAnswerV1, ticketIdentifiers: KeyFact[]): string[] {
  const gaps: string[] = [];
  const handoff = published.internalHandoffMarkdown;
  const actionLine = /next (?:internal )?action[^:]*:\**\s*(.*)/i.exec(handoff)?.[1]?.trim() ?? null;
  if (published.decision !== 'internal_only') {
    if (actionLine === null) gaps.push('the handoff names no next internal action for Support');
    else if (!ACTION_VERB.test(actionLine) && keyFacts(actionLine).length === 0) {
      gaps.push(`the handoff's next action names no concrete query, check or escalation for Support ("${actionLine.slice(0, 160)}")`);
    }
  } else if (/\bsupport\b/i.test(handoff) && actionLine !== null && ACTION_VERB.test(actionLine) && !/^none\b/i.test(actionLine)) {
    gaps.push('the decision is internal_only, yet the handoff leaves a follow-up action to Support');
  }
  const handoffFacts = factKeys(handoff);
  for (const id of ticketIdentifiers) if (!handoffFacts.has(id.key)) gaps.push(`the handoff does not name ${show(id)}, which the ticket identifies`);
  return gaps;
}

function previousFeedback(input: JudgeInputV1, publishedFacts: Set<string>): { resolution: PreviousFeedbackResolution; note: string | null } {
  const previous = input.previousAnswer;
  const feedback = previous?.latestFeedback;
  if (!previous || !feedback || (feedback.action !== 'revise' && feedback.action !== 'wrong')) return { resolution: 'not_applicable', note: null };
  const before = factKeys(`${previous.customerReplyMarkdown}\n${previous.internalHandoffMarkdown}`);
  const asked = minus(keyFacts(feedback.reason), before);
  if (asked.length === 0) {
    return { resolution: 'undetermined', note: `The previous version had /ao ${feedback.action} feedback whose reason states no key fact the rubric can check, so whether it was addressed is undetermined.` };
  }
  const stated = asked.filter((f) => publishedFacts.has(f.key));
  const resolved = stated.length / asked.length >= FEEDBACK_RESOLVED_COVERAGE;
  return {
    resolution: resolved ? 'resolved' : 'unresolved',
    note: `The previous version had /ao ${feedback.action} feedback naming ${asked.map(show).join(', ')}; this version states ${stated.length} of them, so the feedback is ${resolved ? 'addressed' : 'not addressed'}.`,
  };
}

/**
 * Built-in rubric judge (deterministic). It compares stated key facts — quantities with units,
 * clock times, identifiers and technical terms — in both directions, and says so: it does not
 * understand meaning, and it never calls the published answer better than a human's (that needs
 * evidence of a factual error in the human answer, which a fact comparison cannot show).
 */
export function rubricJudge(input: JudgeInputV1): JudgeModelOutputV1 {
  const { published, human, publishedLabel } = sides(input);
  const humanLabel: 1 | 2 = publishedLabel === 1 ? 2 : 1;
  const ticketText = [input.ticket.title, input.ticket.description, ...input.ticket.comments.map((c) => c.body)].join('\n');
  const ticketFacts = factKeys(ticketText);
  const ticketIdentifiers = keyFacts(`${input.ticket.title}\n${input.ticket.description}`).filter((f) => f.kind === 'identifier');
  const publishedText = `${published.customerReplyMarkdown}\n${published.internalHandoffMarkdown}`;
  const publishedFacts = factKeys(publishedText);
  const publishedOwn = minus(keyFacts(publishedText), ticketFacts);
  const feedback = previousFeedback(input, publishedFacts);
  const internalHandoffGaps = handoffGaps(published, ticketIdentifiers);
  const labelled = (aiGaps: string[], aiStrengths: string[], humanGaps: string[], humanStrengths: string[]) =>
    publishedLabel === 1
      ? { answer1Gaps: aiGaps, answer1Strengths: aiStrengths, answer2Gaps: humanGaps, answer2Strengths: humanStrengths }
      : { answer1Gaps: humanGaps, answer1Strengths: humanStrengths, answer2Gaps: aiGaps, answer2Strengths: aiStrengths };
  const method = 'Built-in rubric: compares stated key facts (quantities, times, identifiers, technical terms), not meaning.';

  const { ids, facts: humanFacts } = minimalHumanAnswer(human.comments, ticketFacts);
  if (ids.length === 0) {
    const why = human.comments.length === 0 ? 'no public Support reply exists after the anchor' : 'the Support replies after the anchor state no key fact beyond the ticket (acknowledgements or progress only)';
    // A version that left the previous version's revise/wrong problem in place is worse whatever the human replies hold.
    const unresolved = feedback.resolution === 'unresolved';
    return {
      comparison: unresolved ? (humanLabel === 1 ? 'answer_1_better' : 'answer_2_better') : 'not_comparable',
      reason: `${method} ${unresolved ? 'No human answer to compare' : 'Not compared'}: ${why}.${feedback.note ? ` ${feedback.note}` : ''}`,
      humanAnswerCommentIds: [],
      ...labelled([], [], [], []),
      keyDifferences: [],
      internalHandoffGaps,
      previousFeedbackResolved: feedback.resolution,
    };
  }

  // Stage fairness: facts the customer only supplied after the anchor (and before the human answer
  // was complete) cannot count against the published answer.
  const anchor = Date.parse(input.anchor);
  const answeredAt = Math.max(...human.comments.filter((c) => ids.includes(c.id)).map((c) => Date.parse(c.createdAt)));
  const lateCustomerFacts = new Set(
    input.timeline
      .filter((c) => c.authorRole === 'customer' && !c.visibleToAi && Date.parse(c.createdAt) > anchor && Date.parse(c.createdAt) < answeredAt)
      .flatMap((c) => [...factKeys(c.body)]),
  );
  const fair = humanFacts.filter((f) => !lateCustomerFacts.has(f.key));
  const late = humanFacts.filter((f) => lateCustomerFacts.has(f.key));
  const compact = publishedText.toLowerCase().replace(/\s+/g, '');
  const states = (f: KeyFact) => publishedFacts.has(f.key) || (f.kind === 'identifier' && compact.includes(f.key.replace(/\s+/g, '')));
  const covered = fair.filter(states);
  const missing = fair.filter((f) => !states(f));
  const humanFactKeys = new Set(humanFacts.map((f) => f.key));
  const confirmed = publishedOwn.filter((f) => humanFactKeys.has(f.key));
  const extra = publishedOwn.filter((f) => !humanFactKeys.has(f.key));
  const coverage = fair.length === 0 ? null : covered.length / fair.length;

  let comparison: Comparison;
  const notes: string[] = [];
  if (coverage === null) {
    comparison = 'different_but_valid';
    notes.push('Every fact of the human answer came from customer comments after the anchor, so the answers differ by stage rather than quality.');
  } else if (coverage >= EQUIVALENT_COVERAGE) comparison = 'equivalent';
  else if (coverage >= VALID_COVERAGE) comparison = 'different_but_valid';
  else comparison = humanLabel === 1 ? 'answer_1_better' : 'answer_2_better';
  if (feedback.resolution === 'unresolved') comparison = humanLabel === 1 ? 'answer_1_better' : 'answer_2_better';

  const pct = coverage === null ? 'n/a' : `${Math.round(coverage * 100)}%`;
  const reason = [
    method,
    `The published answer states ${covered.length} of ${fair.length} key facts of the human answer (${pct}); ${confirmed.length} of its own ${publishedOwn.length} facts beyond the ticket appear in the human answer.`,
    late.length > 0 ? `${late.length} fact(s) of the human answer came from customer comments after the anchor and are not held against the published answer.` : '',
    ...notes,
    feedback.note ?? '',
    'A fact comparison cannot show that the human answer is wrong, so this rubric never rates the published answer better.',
  ]
    .filter(Boolean)
    .join(' ');

  const aiGaps = missing.slice(0, LIST_LIMIT).map((f) => `the human answer states ${show(f)}; the published answer does not`);
  if (feedback.resolution === 'unresolved' && input.previousAnswer?.latestFeedback) aiGaps.unshift(`the problem named by /ao ${input.previousAnswer.latestFeedback.action} feedback on the previous version is still there`);
  const aiStrengths = covered.slice(0, LIST_LIMIT).map((f) => `states ${show(f)} as the human answer does`);
  if (UNDETERMINED.test(publishedText)) aiStrengths.push('says plainly what it could not determine');
  const humanStrengths = missing.slice(0, LIST_LIMIT).map((f) => `states ${show(f)}`);
  const humanGaps = extra.length > 0 ? [`does not mention ${extra.slice(0, 5).map(show).join(', ')}, which the published answer reports`] : [];
  const keyDifferences: string[] = [];
  if (missing.length > 0) keyDifferences.push(`only the human answer states ${missing.slice(0, 6).map(show).join(', ')}`);
  if (extra.length > 0) keyDifferences.push(`only the published answer states ${extra.slice(0, 6).map(show).join(', ')}`);
  if (published.decision !== 'internal_only') keyDifferences.push(`the published answer hands the ticket to Support (decision ${published.decision}); the human replies answer it`);

  return {
    comparison,
    reason: reason.slice(0, 2000),
    humanAnswerCommentIds: ids,
    ...labelled(aiGaps.slice(0, LIST_LIMIT), aiStrengths.slice(0, LIST_LIMIT), humanGaps, humanStrengths),
    keyDifferences,
    internalHandoffGaps,
    previousFeedbackResolved: feedback.resolution,
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
