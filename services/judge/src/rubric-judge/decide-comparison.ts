import type { Decision, JudgeAbstentionCode, Verdict } from '@aoc/contracts';
import type { FeedbackCheck } from './feedback-check';
import { contradicts, factsOf, states, type Fact } from './facts/facts';
import type { HumanAnswer } from './human-answer';
import { EQUIVALENT_COVERAGE, RISK, UNDETERMINED } from './judge-rules.data';
import type { FollowUp, TaggedFact } from './provenance';

/**
 * The verdict rules of the built-in judge, in order; each decided verdict states its ground. A
 * `human_better` needs a stage-fair ground (a fact the AI could see, a contradiction the ticket
 * settles, the customer's confirmation against a firm claim, an unfixed complaint, an answer that
 * determined nothing and left no next step); an `ai_better` needs a concrete one (the human's
 * claim refuted or contradicted by the frozen evidence, a risk the human missed). Otherwise the
 * judge abstains (`JUDGE.NEEDS_MODEL`).
 */
export interface ComparisonFacts {
  hasReplies: boolean;
  answer: HumanAnswer;
  tagged: readonly TaggedFact[];
  aiFacts: readonly Fact[];
  /** Facts of the published answer beyond the ticket. */
  aiOwn: readonly Fact[];
  /** Facts of the published answer's measurements ("What the data shows", observations). */
  aiEvidence: readonly Fact[];
  aiText: string;
  /** Facts of the cause the published answer claims (its cause line), beyond the ticket; null without one. */
  aiClaim: readonly Fact[] | null;
  /** Whether that claim is firm (not weak or undetermined); null without a claim. */
  aiClaimFirm: boolean | null;
  humanText: string;
  ticketFacts: readonly Fact[];
  /** Ticket facts (not names) the human answer builds on. */
  humanTicketFacts: readonly Fact[];
  follow: readonly FollowUp[];
  feedback: FeedbackCheck;
  decision: Decision;
  nextActionConcrete: boolean;
}

export interface Ground {
  verdict: Verdict;
  code: JudgeAbstentionCode | null;
  reason: string;
  aiGaps: string[];
  aiStrengths: string[];
  humanGaps: string[];
}

const show = (facts: readonly Fact[]) => facts.slice(0, 4).map((f) => `"${f.display}"`).join(', ');
const mechanisms = (facts: readonly Fact[]) => facts.filter((f) => f.kind === 'term' && !f.negated);
const shares = (a: readonly Fact[], b: readonly Fact[]) => a.some((f) => states(b, f));

const decided = (verdict: Verdict, reason: string, extra: Partial<Ground> = {}): Ground => ({ verdict, code: null, reason, aiGaps: [], aiStrengths: [], humanGaps: [], ...extra });
const abstain = (code: JudgeAbstentionCode, reason: string): Ground => ({ verdict: 'not_compared', code, reason, aiGaps: [], aiStrengths: [], humanGaps: [] });

function writeModeGround(c: ComparisonFacts): Ground | null {
  if (c.feedback.resolution === 'unresolved') return decided('human_better', 'The previous version\'s revise/wrong problem is still present in this version.', { aiGaps: [c.feedback.note ?? 'the previous feedback is not addressed'] });
  if (c.feedback.resolution === 'undetermined') return abstain('JUDGE.FEEDBACK_UNPARSEABLE', 'The previous version\'s revise/wrong reason states nothing checkable, so whether this version fixed it cannot be told.');
  return null;
}

function followUpGround(c: ComparisonFacts, humanMech: readonly Fact[], aiMech: readonly Fact[], aiFirm: boolean): Ground | null {
  for (const f of c.follow) {
    const named = mechanisms(f.facts).filter((m) => !states(c.ticketFacts, m));
    const forAi = shares(named, aiMech);
    const forHuman = shares(named, humanMech);
    if (f.kind === 'separate_issue') {
      // The clauses that do not set the human's claim aside may name the real cause.
      const cause = mechanisms(f.remaining);
      // Both named the cause the customer confirms; the human's extra suspicion is set aside.
      if (shares(cause, c.aiFacts) && shares(cause.filter((m) => states(c.aiFacts, m)), humanMech)) {
        return decided('equivalent', `The customer set the human's extra suspicion aside as a separate issue (${f.id}); both answers name the cause the customer confirms.`);
      }
      if (shares(cause, c.aiFacts) && !shares(cause.filter((m) => !states(c.aiFacts, m)), humanMech)) return decided('ai_better', `The customer called the human's suspicion a separate issue (${f.id}) and named the mechanism the published answer gave.`, { humanGaps: [`the customer said the human's suspicion was a separate issue (${f.id})`] });
      return abstain('JUDGE.HUMAN_CLAIM_WITHDRAWN', `The customer called the human's suspicion a separate issue (${f.id}); with it removed nothing of the human answer is left to compare.`);
    }
    if (f.kind === 'refutes') {
      if (forAi && !forHuman) return decided('ai_better', `The customer's later comment (${f.id}) refutes the human answer and names the published answer's mechanism.`, { humanGaps: [`refuted by the customer in ${f.id}`] });
      if (forHuman && !forAi && aiFirm) return decided('human_better', `The customer's later comment (${f.id}) names the human's mechanism as the cause; the published answer firmly named another.`, { aiGaps: [`named a cause the customer's ${f.id} contradicts`] });
    }
    if (f.kind === 'confirms') {
      if (forAi && !forHuman) return decided('ai_better', `The customer's later comment (${f.id}) confirms the published answer's mechanism, which the human answer did not give.`);
      if (!forAi && humanMech.length > 0 && aiMech.length > 0 && !shares(humanMech, aiMech) && aiFirm) {
        return decided('human_better', `The customer confirmed the human answer (${f.id}); the published answer firmly named a different mechanism (${show(aiMech)}).`, { aiGaps: [`named ${show(aiMech)}; the customer confirmed ${show(humanMech)}`] });
      }
    }
  }
  return null;
}

function contradictionGround(c: ComparisonFacts, humanAll: readonly Fact[]): Ground | null {
  // A real disagreement: neither side states the other's value anywhere (answers quote baselines and peaks).
  const humanOnly = humanAll.filter((h) => !states(c.aiFacts, h));
  const aiOnly = c.aiFacts.filter((a) => !states(humanAll, a));
  for (const h of humanOnly) {
    for (const a of aiOnly) {
      if (!contradicts(h, a)) continue;
      if (states(c.ticketFacts, h) && !states(c.ticketFacts, a)) return decided('human_better', `The published answer states ${show([a])}, which the ticket contradicts (${show([h])}, as the human answer says).`, { aiGaps: [`states ${show([a])}; the ticket says ${show([h])}`] });
      if (states(c.ticketFacts, a) && !states(c.ticketFacts, h)) return decided('ai_better', `The human answer states ${show([h])}, which the ticket contradicts (${show([a])}, as the published answer says).`, { humanGaps: [`states ${show([h])}; the ticket says ${show([a])}`] });
      if (states(c.aiEvidence, a)) return decided('ai_better', `The human answer states ${show([h])}, which the published answer's measurements contradict (${show([a])}).`, { humanGaps: [`states ${show([h])}; the measurements show ${show([a])}`] });
      return abstain('JUDGE.NEEDS_MODEL', `The answers disagree on a value (${show([h])} vs ${show([a])}) and nothing in the ticket settles which is right.`);
    }
  }
  return null;
}

export function decideComparison(c: ComparisonFacts): Ground {
  const write = writeModeGround(c);
  if (write && write.verdict === 'human_better') return write;
  if (!c.hasReplies) return abstain('JUDGE.HUMAN_ANSWER_EMPTY', 'No public Support reply exists after the anchor.');
  if (write) return write;
  if (c.answer.ids.length === 0) return abstain('JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE', 'The Support replies after the anchor only acknowledge, report progress or close the ticket.');
  if (c.answer.foreignLanguage) return abstain('JUDGE.NEEDS_MODEL', 'The human answer is not in English; the built-in judge compares English texts only.');

  const fair = c.tagged.filter((t) => t.provenance === 'own').map((t) => t.fact);
  const later = c.tagged.filter((t) => t.provenance !== 'own').map((t) => t.fact);
  const humanMech = mechanisms(fair);
  // The mechanism the answer blames is its claim; the observations name every family that moved.
  const claimed = c.aiClaim ? mechanisms(c.aiClaim) : [];
  const aiMech = claimed.length > 0 ? claimed : mechanisms(c.aiOwn);
  const aiUncertain = UNDETERMINED.test(c.aiText) || c.decision !== 'internal_only';
  // An open link still to confirm does not make a stated cause less firm; a weak claim does.
  const aiFirm = c.aiClaimFirm ?? !UNDETERMINED.test(c.aiText);
  const aiDeterminedNothing = aiMech.length === 0 && UNDETERMINED.test(c.aiText);

  const follow = followUpGround(c, humanMech, aiMech, aiFirm);
  if (follow) return follow;
  const contradiction = contradictionGround(c, c.answer.facts);
  if (contradiction) return contradiction;

  if (fair.length === 0) {
    if (later.length > 0) {
      return aiUncertain && c.nextActionConcrete
        ? decided('different_but_valid', 'Every fact of the human answer came from later customer comments or manual work; the published answer kept its uncertainty and gave an executable next step.')
        : abstain('JUDGE.NEEDS_MODEL', 'The human answer rests on later information and the published answer gave no executable next step; weighing them needs a reading of meaning.');
    }
    return abstain('JUDGE.NEEDS_MODEL', 'The human answer states no fact the built-in judge can compare (it argues in words).');
  }
  const covered = fair.filter((f) => states(c.aiFacts, f));
  const coverage = covered.length / fair.length;
  if (coverage >= EQUIVALENT_COVERAGE) {
    const risk = c.aiText.split(/(?<=[.!?])\s+|\n+/).find((s) => RISK.test(s));
    // Missed only when the human states neither risk words nor any fact of the risk (`full in 2 days` vs `lasts about 2 days`).
    const riskFacts = risk ? factsOf(risk).filter((f) => f.kind !== 'identifier' && !states(c.ticketFacts, f)) : [];
    if (risk && !RISK.test(c.humanText) && !shares(riskFacts, c.answer.facts) && !shares(riskFacts, factsOf(c.humanText))) {
      return decided('ai_better', `Both state the same facts, and the published answer also names a risk the human answer misses ("${risk.trim().slice(0, 160)}").`, { humanGaps: ['does not mention the risk the published answer names'] });
    }
    return decided('equivalent', `The published answer states ${Math.round(coverage * 100)}% of the human answer's facts.`);
  }
  // A fact the AI could see in the ticket, used by the human and ignored by the AI: a stage-fair omission.
  const ignored = c.humanTicketFacts.filter((f) => !states(c.aiFacts, f) && f.kind !== 'time');
  if (ignored.length > 0) {
    return decided('human_better', `The human answer builds on ${show(ignored)} from the ticket, which the published answer does not use; the human answer covers more of what the ticket shows.`, { aiGaps: [`does not use ${show(ignored)}, which the ticket states`] });
  }
  if (humanMech.length === 0 || shares(humanMech, aiMech)) {
    return decided('different_but_valid', 'Both name the same mechanism; the human answer adds details the published answer does not state.');
  }
  // The two name different mechanisms (or the AI named none).
  if (aiDeterminedNothing && !c.nextActionConcrete) {
    return decided('human_better', 'The published answer determined nothing and left no executable next step; the human answer names the mechanism.', { aiGaps: ['determined nothing and gave no executable next step'] });
  }
  if (aiUncertain && c.nextActionConcrete && later.length > 0) {
    return decided('different_but_valid', 'The human answer\'s mechanism rests partly on later information; the published answer kept its uncertainty and gave an executable next step.');
  }
  return abstain('JUDGE.NEEDS_MODEL', `The answers name different mechanisms (${show(humanMech)} vs ${aiMech.length > 0 ? show(aiMech) : 'none'}) and the texts do not settle which is right.`);
}
