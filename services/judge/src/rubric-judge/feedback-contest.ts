import type { FeedbackAction } from '@aoc/contracts';
import type { JudgeInputV1 } from '../judge-answer/judge-input.schema';
import type { Ground } from './decide-comparison';
import type { FeedbackCheck, FeedbackItem } from './feedback-check';
import { states, type Fact } from './facts/facts';
import { FEEDBACK_CONTESTED_BY } from './judge-rules.data';
import { followUps, type FollowUp } from './provenance';

/**
 * Explicit `/ao` feedback the timeline contests (seed 002 section 3: feedback can be refuted only
 * by explicit facts in the input, with the evidence named). The Judge records the contest instead
 * of silently following or ignoring the feedback; the feedback still owns the quality projection.
 */
export interface FeedbackContest {
  commentId: string;
  action: FeedbackAction;
  scope: 'this_version' | 'previous_version';
  /** The customer comments whose facts contradict the feedback. */
  evidence: string[];
  /** The facts the feedback called wrong and the customer confirmed (previous version only). */
  confirmed: Fact[];
}

/** The claim a failed check still finds in the new version: what the feedback called wrong. */
function claimedWrong(item: FeedbackItem): Fact[] {
  if (item.met) return [];
  if (item.kind === 'corrected') return item.stillWrong;
  if (item.kind === 'removed') return item.still;
  return [];
}

/** A customer confirmation naming a claim the feedback called wrong, unless it sides with the human. */
function confirmationOf(claim: readonly Fact[], follow: readonly FollowUp[]): FollowUp | null {
  const terms = claim.filter((f) => f.kind === 'term' && !f.negated);
  return follow.find((f) => f.kind === 'confirms' && f.side !== 'human' && terms.some((t) => states(f.facts, t))) ?? null;
}

/**
 * Write mode: the previous version's revise|wrong called a claim wrong, the new version keeps it,
 * and a customer comment after the previous version confirms that claim. Such checks are contested,
 * not unfixed; when every failed check is contested the feedback no longer decides the verdict.
 */
export function contestPreviousFeedback(input: JudgeInputV1, check: FeedbackCheck): { check: FeedbackCheck; contest: FeedbackContest | null } {
  const previous = input.previousAnswer;
  const feedback = previous?.latestFeedback;
  if (!previous || !feedback || check.resolution !== 'unresolved') return { check, contest: null };
  const follow = followUps(input.timeline, Date.parse(previous.publishedAt));
  const failed = check.items.filter((i) => !i.met);
  const contested = failed.map((i) => ({ claim: claimedWrong(i), by: confirmationOf(claimedWrong(i), follow) }));
  if (contested.some((c) => c.by === null)) return { check, contest: null };
  const evidence = [...new Set(contested.map((c) => c.by?.id ?? ''))].filter(Boolean);
  const confirmed = contested.flatMap((c) => c.claim.filter((f) => f.kind === 'term' && c.by !== null && states(c.by.facts, f)));
  return {
    check: { ...check, resolution: 'not_applicable', contestedBy: evidence },
    contest: { commentId: feedback.commentId, action: feedback.action, scope: 'previous_version', evidence, confirmed },
  };
}

/**
 * Feedback bound to the judged version (its latest accept|revise|wrong) against a verdict that a
 * customer follow-up decided the other way: revise|wrong while the customer confirmed the published
 * answer's cause, accept while the customer confirmed the human's.
 */
export function contestThisVersion(input: JudgeInputV1, ground: Ground): FeedbackContest | null {
  const explicit = input.feedback
    .filter((f) => f.action === 'accept' || f.action === 'revise' || f.action === 'wrong')
    .sort((a, b) => Date.parse(a.commentUpdatedAt) - Date.parse(b.commentUpdatedAt) || Date.parse(a.commentCreatedAt) - Date.parse(b.commentCreatedAt));
  const latest = explicit[explicit.length - 1];
  if (!latest) return null;
  const rules = latest.action === 'accept' ? FEEDBACK_CONTESTED_BY.accept : FEEDBACK_CONTESTED_BY.complaint;
  if (!rules.includes(ground.rule)) return null;
  const evidence = ground.findings.flatMap((f) => (f.kind === 'follow_up' ? [f.id] : []));
  return evidence.length === 0 ? null : { commentId: latest.commentId, action: latest.action, scope: 'this_version', evidence, confirmed: [] };
}
