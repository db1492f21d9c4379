import type { Decision } from '@aoc/contracts';
import type { JudgeInputV1, PreviousFeedbackResolution, PublishedAnswerV1 } from '../judge-answer/judge-input.schema';
import { factsOf, minusFacts, states, type Fact } from './facts/facts';
import { newNames, requestedKinds } from './feedback-requests';
import { leavesSupportAction } from './handoff';
import { FEEDBACK, REQUEST_HUMAN, type RequestedKind } from './judge-rules.data';

/**
 * Write mode: did the new answer fix what the previous version's `/ao revise|wrong` named? A
 * complaint is read as typed checks — a value to state instead of another, a claim to drop, a fact
 * to add, a kind of fact to name, a decision to change — and each check reads the new answer, not
 * whether it repeats the complaint's words. Nothing checkable: undetermined, never acceptable by
 * default. Messages are rendered from the checks (`render.ts`).
 */
export type FeedbackItem =
  | { kind: 'decision'; wanted: 'human' | 'internal_only'; decision: Decision; leavesSupport: boolean; met: boolean }
  | { kind: 'corrected'; right: Fact[]; wrong: Fact[]; stillWrong: Fact[]; missingRight: Fact[]; met: boolean }
  | { kind: 'removed'; claim: Fact[]; still: Fact[]; met: boolean }
  | { kind: 'added'; wanted: Fact[]; missing: Fact[]; met: boolean }
  | { kind: 'requested'; requested: RequestedKind; named: string[]; met: boolean }
  | { kind: 'listed'; wanted: Fact[]; stated: Fact[]; met: boolean };

export interface FeedbackCheck {
  resolution: PreviousFeedbackResolution;
  action: 'revise' | 'wrong' | null;
  items: FeedbackItem[];
  /** Customer comments that confirm what the feedback called wrong (`feedback-contest.ts`): it no longer decides. */
  contestedBy: string[];
}

const textOf = (a: Pick<PublishedAnswerV1, 'customerReplyMarkdown' | 'internalHandoffMarkdown'>) => `${a.customerReplyMarkdown}\n${a.internalHandoffMarkdown}`;

function decisionItem(reason: string, published: PublishedAnswerV1): FeedbackItem | null {
  const leavesSupport = leavesSupportAction(published.internalHandoffMarkdown);
  if (FEEDBACK.bypassedHuman.test(reason) || REQUEST_HUMAN.test(reason)) return { kind: 'decision', wanted: 'human', decision: published.decision, leavesSupport, met: published.decision !== 'internal_only' };
  if (FEEDBACK.neededNoHuman.test(reason)) return { kind: 'decision', wanted: 'internal_only', decision: published.decision, leavesSupport, met: published.decision === 'internal_only' };
  return null;
}

function correctedItem(reason: string, now: readonly Fact[]): FeedbackItem | null {
  const corrected = FEEDBACK.corrected.exec(reason);
  if (!corrected) return null;
  const right = factsOf(corrected[1]);
  const wrong = factsOf(corrected[2]).filter((f) => !states(right, f));
  if (right.length === 0 && wrong.length === 0) return null;
  const stillWrong = wrong.filter((f) => states(now, f));
  const missingRight = right.filter((f) => !states(now, f));
  // A value the feedback gave must now be stated; a term it gave need not be.
  const rightMissing = missingRight.some((f) => f.kind === 'quantity' || f.kind === 'identifier');
  return { kind: 'corrected', right, wrong, stillWrong, missingRight, met: stillWrong.length === 0 && !rightMissing };
}

function removedItem(reason: string, now: readonly Fact[], before: readonly Fact[]): FeedbackItem | null {
  const removed = FEEDBACK.removed.exec(reason);
  if (!removed || FEEDBACK.corrected.test(reason)) return null;
  const claim = factsOf(removed[1]).filter((f) => states(before, f));
  if (claim.length === 0) return null;
  const still = claim.filter((f) => states(now, f) && !f.negated);
  return { kind: 'removed', claim, still, met: still.length === 0 };
}

function addedItem(reason: string, now: readonly Fact[], before: readonly Fact[]): FeedbackItem | null {
  const added = FEEDBACK.added.exec(reason);
  if (!added) return null;
  const wanted = factsOf(added[1]).filter((f) => !states(before, f) || f.kind === 'term');
  if (wanted.length === 0) return null;
  const missing = wanted.filter((f) => !states(now, f));
  return { kind: 'added', wanted, missing, met: missing.length < wanted.length && !missing.some((f) => f.kind === 'identifier' || f.kind === 'quantity') };
}

function requestItems(reason: string, now: string, before: string): FeedbackItem[] {
  return requestedKinds(reason).map((requested) => {
    const named = newNames(requested, now, before);
    return { kind: 'requested', requested, named, met: named.length > 0 };
  });
}

/** A bare list of facts ("connections 500, 10:38") the old version lacked. */
function listedItem(reason: string, now: readonly Fact[], before: readonly Fact[]): FeedbackItem | null {
  const wanted = minusFacts(factsOf(reason), before);
  if (wanted.length === 0) return null;
  const stated = wanted.filter((f) => states(now, f));
  return { kind: 'listed', wanted, stated, met: stated.length * 2 >= wanted.length };
}

export function checkPreviousFeedback(input: JudgeInputV1, published: PublishedAnswerV1): FeedbackCheck {
  const previous = input.previousAnswer;
  const feedback = previous?.latestFeedback;
  if (!previous || !feedback || (feedback.action !== 'revise' && feedback.action !== 'wrong')) return { resolution: 'not_applicable', action: null, items: [], contestedBy: [] };
  const reason = feedback.reason;
  const now = factsOf(textOf(published));
  const before = factsOf(textOf(previous));
  const items = [decisionItem(reason, published), correctedItem(reason, now), removedItem(reason, now, before), addedItem(reason, now, before), ...requestItems(reason, textOf(published), textOf(previous))].filter(
    (i): i is FeedbackItem => i !== null,
  );
  if (items.length === 0) {
    const listed = listedItem(reason, now, before);
    if (listed) items.push(listed);
  }
  const resolution: PreviousFeedbackResolution = items.length === 0 ? 'undetermined' : items.some((i) => !i.met) ? 'unresolved' : 'resolved';
  return { resolution, action: feedback.action, items, contestedBy: [] };
}
