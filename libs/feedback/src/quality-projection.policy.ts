import { expectedQualityScore, type Verdict } from '@aoc/contracts';
import type { FeedbackAction } from './feedback.types';
import { compareEditTimes } from './instant.util';

export interface QualityProjection {
  score: 0 | 1 | null;
  source: 'feedback' | 'judge' | 'none';
  judgeReviewRequested: boolean;
}

/**
 * Quality projection of one answer version.
 * - The latest explicit `accept|revise|wrong` (by edit time) owns it: accept -> 1, revise|wrong -> 0;
 *   no Judge verdict overrides it. Explicit commands edited at the same instant resolve to 0: an
 *   explicit complaint is never hidden by a simultaneous accept.
 * - `human` never sets a score; it asks for a Judge review (`judgeReviewRequested`), and until the
 *   Judge has a verdict the projection stays pending (null, source none).
 * - Otherwise the verdict maps ai_better|equivalent|different_but_valid -> 1, human_better -> 0,
 *   not_compared -> null (source judge); no verdict -> null (source none).
 */
export function qualityProjection(
  feedback: readonly { action: FeedbackAction; commentUpdatedAt: string }[],
  verdict: Verdict | null,
): QualityProjection {
  const judgeReviewRequested = feedback.some((f) => f.action === 'human');
  let latest: { action: FeedbackAction; commentUpdatedAt: string } | null = null;
  for (const entry of feedback) {
    if (entry.action === 'human') continue;
    const order = latest === null ? 1 : compareEditTimes(entry.commentUpdatedAt, latest.commentUpdatedAt);
    if (order > 0 || (order === 0 && latest !== null && scoreOf(entry.action) < scoreOf(latest.action))) latest = entry;
  }
  if (latest !== null) return { score: scoreOf(latest.action), source: 'feedback', judgeReviewRequested };
  if (verdict === null) return { score: null, source: 'none', judgeReviewRequested };
  return { score: expectedQualityScore(verdict), source: 'judge', judgeReviewRequested };
}

function scoreOf(action: FeedbackAction): 0 | 1 {
  return action === 'accept' ? 1 : 0;
}
