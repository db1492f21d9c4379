import type { JudgeInputV1, PreviousFeedbackResolution, PublishedAnswerV1 } from '../judge-answer/judge-input.schema';
import { factsOf, minusFacts, states, type Fact } from './facts/facts';
import { leavesSupportAction } from './handoff';
import { FEEDBACK } from './judge-rules.data';

/**
 * Write mode: did the new answer fix what the previous version's `/ao revise|wrong` named? A
 * complaint is read as checks — a value to state instead of another, a claim to drop, a fact to
 * add, a decision to change — and each check reads the new answer, not whether it repeats the
 * complaint's words. Nothing checkable in the reason: undetermined, never acceptable by default.
 */
export interface FeedbackCheck {
  resolution: PreviousFeedbackResolution;
  note: string | null;
}

const show = (facts: readonly Fact[]) => facts.map((f) => `"${f.display}"`).join(', ');
const textOf = (a: Pick<PublishedAnswerV1, 'customerReplyMarkdown' | 'internalHandoffMarkdown'>) => `${a.customerReplyMarkdown}\n${a.internalHandoffMarkdown}`;

export function checkPreviousFeedback(input: JudgeInputV1, published: PublishedAnswerV1): FeedbackCheck {
  const previous = input.previousAnswer;
  const feedback = previous?.latestFeedback;
  if (!previous || !feedback || (feedback.action !== 'revise' && feedback.action !== 'wrong')) return { resolution: 'not_applicable', note: null };
  const reason = feedback.reason;
  const now = factsOf(textOf(published));
  const before = factsOf(textOf(previous));
  const failures: string[] = [];
  const passes: string[] = [];
  let checks = 0;

  if (FEEDBACK.bypassedHuman.test(reason)) {
    checks += 1;
    if (published.decision === 'internal_only') failures.push(`the decision is still internal_only${leavesSupportAction(published.internalHandoffMarkdown) ? ' while the handoff asks Support to follow up' : ''}, so a human is still bypassed`);
    else passes.push(`the decision changed to ${published.decision}`);
  } else if (FEEDBACK.neededNoHuman.test(reason)) {
    checks += 1;
    if (published.decision !== 'internal_only') failures.push(`the decision is still ${published.decision}`);
    else passes.push('the decision changed to internal_only');
  }
  const corrected = FEEDBACK.corrected.exec(reason);
  if (corrected) {
    const right = factsOf(corrected[1]);
    const wrong = factsOf(corrected[2]).filter((f) => !states(right, f));
    if (right.length > 0 || wrong.length > 0) {
      checks += 1;
      const stillWrong = wrong.filter((f) => states(now, f));
      const missingRight = right.filter((f) => !states(now, f));
      if (stillWrong.length > 0) failures.push(`it still states ${show(stillWrong)}, which the feedback called wrong`);
      else if (missingRight.length > 0 && right.some((f) => f.kind === 'quantity' || f.kind === 'identifier')) failures.push(`it does not state ${show(missingRight)}, the value the feedback gave`);
      else passes.push(`it no longer states ${show(wrong)}${right.length > 0 ? ` and states ${show(right)}` : ''}`);
    }
  }
  const removed = FEEDBACK.removed.exec(reason);
  if (removed && !corrected) {
    const claim = minusFacts(factsOf(removed[1]), []).filter((f) => states(before, f));
    if (claim.length > 0) {
      checks += 1;
      const still = claim.filter((f) => states(now, f) && !f.negated);
      if (still.length > 0) failures.push(`it still states ${show(still)}, the claim the feedback asked to drop`);
      else passes.push(`the claim ${show(claim)} is gone`);
    }
  }
  const added = FEEDBACK.added.exec(reason);
  if (added) {
    const wanted = factsOf(added[1]).filter((f) => !states(before, f) || f.kind === 'term');
    if (wanted.length > 0) {
      checks += 1;
      const missing = wanted.filter((f) => !states(now, f));
      if (missing.length === wanted.length || missing.some((f) => f.kind === 'identifier' || f.kind === 'quantity')) failures.push(`it still does not state ${show(missing)}`);
      else passes.push(`it now states ${show(wanted.filter((f) => states(now, f)))}`);
    }
  }
  // A bare list of facts ("connections 500, 10:38") the old version lacked.
  if (checks === 0) {
    const wanted = minusFacts(factsOf(reason), before);
    if (wanted.length > 0) {
      checks += 1;
      const stated = wanted.filter((f) => states(now, f));
      if (stated.length * 2 < wanted.length) failures.push(`it states ${stated.length} of ${show(wanted)}, which the feedback named`);
      else passes.push(`it states ${show(stated)}, which the feedback named`);
    }
  }
  const label = `/ao ${feedback.action} on the previous version`;
  if (checks === 0) return { resolution: 'undetermined', note: `${label} gives no checkable fact, claim or decision, so whether the new version fixed it is undetermined.` };
  if (failures.length > 0) return { resolution: 'unresolved', note: `${label} is not fixed: ${failures.join('; ')}.` };
  return { resolution: 'resolved', note: `${label} is fixed: ${passes.join('; ')}.` };
}
