import { createHash } from 'node:crypto';
import type { EvaluationJudgedV1, TimelineCommentV1, Verdict } from '@aoc/contracts';

export interface JudgeInput {
  customerReply: string;
  internalHandoff: string;
  decision: string;
  /** Human comments later than this instant form the human answer. */
  anchor: Date;
  timeline: TimelineCommentV1[];
}

export type RubricResult = Pick<
  EvaluationJudgedV1,
  'verdict' | 'verdictReason' | 'aiGaps' | 'keyDifferences' | 'aiStrengths' | 'internalHandoffGaps' | 'targetHumanCommentIds' | 'referenceComments' | 'humanAnswerMarkdown'
>;

const STOP = new Set(
  'about after again against because before being below between could doing during every further having other should their there these those through under until where which while would your yours please thanks thank hello support customer issue problem cluster check checked looking looked'.split(' '),
);

/** Key points of a text: numbers with units, identifiers and long content words. */
export function keyPoints(text: string): string[] {
  const tokens = text.toLowerCase().match(/[a-z0-9][a-z0-9_.%-]*[a-z0-9%]/g) ?? [];
  const points = tokens.filter((t) => /\d/.test(t) || (t.length >= 6 && !STOP.has(t)));
  return [...new Set(points)];
}

export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The human answer: public comments by Support or engineers after the anchor, in order. */
export function humanAnswer(timeline: TimelineCommentV1[], anchor: Date): TimelineCommentV1[] {
  return timeline
    .filter((c) => c.visibility === 'public' && (c.authorRole === 'support' || c.authorRole === 'engineer') && Date.parse(c.createdAt) > anchor.getTime() && c.feedback === null)
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id.localeCompare(b.id));
}

/**
 * Built-in rubric judge: measures how many key points of the human answer the AI answer covers.
 * It compares words, not meaning, and says so in its reason.
 */
export function rubricJudge(input: JudgeInput): RubricResult | null {
  const human = humanAnswer(input.timeline, input.anchor);
  if (human.length === 0) return null;
  const humanText = human.map((c) => c.body).join('\n\n');
  const aiText = `${input.customerReply}\n${input.internalHandoff}`.toLowerCase();
  const points = keyPoints(humanText);
  const covered = points.filter((p) => aiText.includes(p));
  const missing = points.filter((p) => !aiText.includes(p));
  const coverage = points.length === 0 ? 1 : covered.length / points.length;
  const verdict: Verdict = coverage >= 0.6 ? 'equivalent' : coverage >= 0.35 ? 'different_but_valid' : 'human_better';
  return {
    verdict,
    verdictReason: `Built-in rubric: the AI answer covers ${covered.length} of ${points.length} key points of the human answer (${Math.round(coverage * 100)}%); word overlap, not semantic comparison.`,
    aiGaps: missing.slice(0, 10).map((p) => `the human answer relies on "${p}", which the AI answer does not mention`),
    keyDifferences: input.decision === 'internal_only' ? [] : [`the AI answer handed the ticket to a human (decision ${input.decision})`],
    aiStrengths: covered.slice(0, 10).map((p) => `mentions "${p}" as the human answer does`),
    internalHandoffGaps: /not determined|could not/i.test(input.internalHandoff) ? ['the handoff leaves the cause undetermined'] : [],
    targetHumanCommentIds: human.map((c) => c.id),
    referenceComments: human.map((c) => ({ id: c.id, createdAt: c.createdAt, bodyDigest: digest(c.body) })),
    humanAnswerMarkdown: humanText,
  };
}
