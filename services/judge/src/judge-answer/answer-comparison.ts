import { createHash } from 'node:crypto';
import type { ModelEngineKind, ModelPort, TokenUsage } from '@aoc/agent-runtime';
import { expectedQualityScore, type EvaluationJudgedV1, type JudgeAbstentionCode, type Verdict } from '@aoc/contracts';
import { eligibilityOfJudgment } from './eligibility';
import { JUDGE_INSTRUCTIONS } from './judge-instructions';
import { JudgeModelOutputV1, type JudgeInputV1 } from './judge-input.schema';
import type { JudgmentPlan } from './judge-plan';

export type AnswerOrder = 'published_first' | 'human_first';

/** One raw model result, kept in the judge's schema whatever the outcome. */
export interface OrderedResult {
  order: AnswerOrder;
  engine: ModelEngineKind;
  model: string;
  attempts: number;
  usage: TokenUsage | null;
  /** Verdict this order implies for the published answer (after the service's rules). */
  verdict: Verdict;
  output: JudgeModelOutputV1;
}

export type JudgedFields = Pick<
  EvaluationJudgedV1,
  'judgeEngine' | 'verdict' | 'abstentionCode' | 'verdictReason' | 'qualityScore' | 'aiGaps' | 'keyDifferences' | 'aiStrengths' | 'internalHandoffGaps' | 'targetHumanCommentIds' | 'referenceComments' | 'humanAnswerMarkdown' | 'eligibility' | 'feedbackContest' | 'crossCheck'
>;

export interface ComparisonOutcome {
  results: [OrderedResult, OrderedResult];
  ordersAgree: boolean;
  fields: JudgedFields;
}

const LIST_MAX = 20;
const ITEM_MAX = 500;
const REASON_MAX = 2000;
const HUMAN_ANSWER_MAX = 20000;

/** Lists as the topic accepts them: trimmed, non-empty, at most 20 items of 500 characters. */
export function clampList(items: readonly string[]): string[] {
  return items
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0)
    .map((s) => (s.length > ITEM_MAX ? `${s.slice(0, ITEM_MAX - 1)}…` : s))
    .slice(0, LIST_MAX);
}

function clampText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The same input with the two answers swapped. */
export function swapped(input: JudgeInputV1): JudgeInputV1 {
  return { ...input, answer1: input.answer2, answer2: input.answer1 };
}

/** Verdict for the published answer from a label-based comparison. */
export function verdictFor(output: JudgeModelOutputV1, publishedLabel: 1 | 2, previousComplaint: boolean): Verdict {
  if (previousComplaint && output.previousFeedbackResolved === 'unresolved') return 'human_better';
  switch (output.comparison) {
    case 'answer_1_better':
      return publishedLabel === 1 ? 'ai_better' : 'human_better';
    case 'answer_2_better':
      return publishedLabel === 2 ? 'ai_better' : 'human_better';
    case 'not_comparable':
      return 'not_compared';
    default:
      return output.comparison;
  }
}

/** The contest an engine reported, kept only for feedback the input really holds, with its action. */
function contestOf(plan: JudgmentPlan, out: JudgeModelOutputV1): JudgedFields['feedbackContest'] {
  const c = out.feedbackContest;
  if (!c || c.evidenceCommentIds.length === 0) return null;
  const previous = plan.input.previousAnswer?.latestFeedback;
  const action = c.scope === 'previous_version' ? (previous?.commentId === c.commentId ? previous.action : null) : (plan.input.feedback.find((f) => f.commentId === c.commentId)?.action ?? null);
  const known = new Set(plan.input.timeline.map((t) => t.id));
  const evidence = [...new Set(c.evidenceCommentIds.filter((id) => known.has(id)))].slice(0, 10);
  return action === null || evidence.length === 0 ? null : { commentId: c.commentId, action, scope: c.scope, evidenceCommentIds: evidence };
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Asks the model in both orders (published answer as Answer 1, then as Answer 2) through the
 * same instructions and keeps a verdict only when both orders imply the same one; otherwise the
 * evaluation is `not_compared` and says why. Both raw results are returned for storage.
 */
export async function compareBothOrders(model: ModelPort, plan: JudgmentPlan): Promise<ComparisonOutcome> {
  const ask = async (order: AnswerOrder): Promise<OrderedResult> => {
    const input = order === 'published_first' ? plan.input : swapped(plan.input);
    const result = await model.invoke({ role: 'judge', instructions: JUDGE_INSTRUCTIONS, input, output: JudgeModelOutputV1 });
    const publishedLabel: 1 | 2 = order === 'published_first' ? 1 : 2;
    return {
      order,
      engine: result.engine,
      model: result.model,
      attempts: result.attempts,
      usage: result.usage,
      verdict: verdictFor(result.output, publishedLabel, plan.previousComplaint),
      output: result.output,
    };
  };
  const first = await ask('published_first');
  const second = await ask('human_first');
  return combineOrders(plan, first, second);
}

/** Builds the published fields from the two ordered results (pure). */
export function combineOrders(plan: JudgmentPlan, first: OrderedResult, second: OrderedResult): ComparisonOutcome {
  const ordersAgree = first.verdict === second.verdict;
  const out = first.output;
  // Only replies that were offered, each once, in time order.
  const chosen = new Set(out.humanAnswerCommentIds.filter((id) => plan.candidates.has(id)));
  const targets = [...plan.candidates.values()].filter((c) => chosen.has(c.id)).slice(0, LIST_MAX);
  const notes: string[] = [];
  let verdict: Verdict = first.verdict;
  let abstentionCode: JudgeAbstentionCode | null = verdict === 'not_compared' ? (out.abstentionCode ?? 'JUDGE.NEEDS_MODEL') : null;
  if (!ordersAgree) {
    verdict = 'not_compared';
    abstentionCode = 'JUDGE.ORDER_DISAGREEMENT';
    notes.push(`Position-bias guard: the two answer orders disagreed (published answer first: ${first.verdict}; human answer first: ${second.verdict}), so no verdict is given.`);
  } else if (verdict !== 'not_compared' && targets.length === 0 && !(plan.previousComplaint && out.previousFeedbackResolved === 'unresolved')) {
    verdict = 'not_compared';
    abstentionCode = 'JUDGE.NO_REFERENCE_SELECTED';
    notes.push('The judge named no human reply forming the human answer, so the answers were not compared.');
  }
  if (ordersAgree && verdict === 'human_better' && plan.previousComplaint && out.previousFeedbackResolved === 'unresolved') {
    notes.push('The problem named by revise/wrong feedback on the previous version is still present, so the human answer is better.');
  }
  const publishedGaps = out.answer1Gaps;
  const publishedStrengths = out.answer1Strengths;
  const judgeEngine = clampText(first.engine === 'builtin' ? first.model : `${first.engine}:${first.model}`, 64);
  const fields: JudgedFields = {
    judgeEngine,
    verdict,
    abstentionCode,
    verdictReason: clampText([...notes, out.reason].join(' '), REASON_MAX),
    qualityScore: expectedQualityScore(verdict),
    aiGaps: clampList(publishedGaps),
    keyDifferences: clampList(out.keyDifferences),
    aiStrengths: clampList(publishedStrengths),
    internalHandoffGaps: clampList(out.internalHandoffGaps),
    targetHumanCommentIds: targets.map((c) => c.id),
    referenceComments: targets.map((c) => ({ id: c.id, createdAt: new Date(c.createdAt).toISOString(), bodyDigest: digest(c.body) })),
    humanAnswerMarkdown: targets.length === 0 ? null : clampText(targets.map((c) => c.body).join('\n\n'), HUMAN_ANSWER_MAX),
    eligibility: eligibilityOfJudgment(verdict, abstentionCode, plan.input),
    feedbackContest: ordersAgree ? contestOf(plan, out) : null,
  };
  return { results: [first, second], ordersAgree, fields };
}
