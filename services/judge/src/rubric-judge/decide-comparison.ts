import type { JudgeAbstentionCode, Verdict } from '@aoc/contracts';
import { fairFindings, incidental, laterFindings, missedTicketFindings, type FactComparison, type HumanFinding } from './fact-comparison';
import type { FeedbackCheck } from './feedback-check';
import { contradicts, states, type Fact } from './facts/facts';
import { EQUIVALENT_COVERAGE } from './judge-rules.data';
import type { FollowUp } from './provenance';
import type { PublishedReading } from './published-answer';

/**
 * The verdict rules of the built-in judge, in order, over typed findings only: the fact
 * comparison (provenance, bearing), the published answer's reading, the customer's follow-ups and
 * the feedback checks. Each decided verdict carries its rule and ground; messages are rendered
 * from them afterwards (`render.ts`). A `human_better` needs a stage-fair ground with weight (a
 * ticket value the human builds the cause, action or decision on; a contradiction the ticket
 * settles; the customer's verdict against a firm claim; an unfixed complaint; an answer that
 * determined nothing and left no next step); an `ai_better` a concrete one. Otherwise the judge
 * abstains.
 */
export interface ComparisonFacts {
  hasReplies: boolean;
  answerIds: readonly string[];
  foreignLanguage: boolean;
  comparison: FactComparison;
  ai: PublishedReading;
  /** Every fact of the human answer beyond the ticket (any provenance). */
  humanFacts: readonly Fact[];
  /** Every fact of the human text (ticket facts included) and whether it states a risk in words. */
  humanAllFacts: readonly Fact[];
  humanNamesRisk: boolean;
  ticketFacts: readonly Fact[];
  follow: readonly FollowUp[];
  feedback: FeedbackCheck;
  /** Support wrote internal notes between the anchor and the human answer: it worked on later information. */
  laterNotes: boolean;
}

export type RuleId =
  | 'feedback_unfixed' | 'no_replies' | 'feedback_unparseable' | 'not_substantive' | 'foreign_language'
  | 'separate_issue_both' | 'separate_issue_ai' | 'separate_issue_withdrawn' | 'customer_refutes_human' | 'customer_refutes_ai'
  | 'customer_confirms_ai' | 'customer_confirms_human' | 'ticket_contradicts_ai' | 'ticket_contradicts_human' | 'evidence_contradicts_human'
  | 'values_disagree' | 'late_only_next_step' | 'late_only_no_step' | 'words_only' | 'risk_missed' | 'covered' | 'ticket_value_ignored'
  | 'same_mechanism' | 'determined_nothing' | 'unavailable_data_no_step' | 'late_mechanism_next_step' | 'different_mechanisms';

/** What a verdict rests on: typed, so the messages are a rendering of it. */
export type GroundFinding =
  | { kind: 'follow_up'; id: string; aiMechanism: Fact[]; humanMechanism: Fact[] }
  | { kind: 'values'; stated: Fact; against: Fact }
  | { kind: 'coverage'; covered: number; of: number }
  | { kind: 'missed'; finding: HumanFinding }
  | { kind: 'risk'; sentence: string }
  | { kind: 'mechanisms'; human: Fact[]; ai: Fact[] }
  | { kind: 'unavailable'; findings: HumanFinding[] };

export interface Ground {
  verdict: Verdict;
  code: JudgeAbstentionCode | null;
  rule: RuleId;
  findings: GroundFinding[];
}

const mechanisms = (facts: readonly Fact[]) => facts.filter((f) => f.kind === 'term' && !f.negated);
const shares = (a: readonly Fact[], b: readonly Fact[]) => a.some((f) => states(b, f));
const decided = (verdict: Verdict, rule: RuleId, findings: GroundFinding[] = []): Ground => ({ verdict, code: null, rule, findings });
const abstain = (code: JudgeAbstentionCode, rule: RuleId, findings: GroundFinding[] = []): Ground => ({ verdict: 'not_compared', code, rule, findings });

function followUpGround(c: ComparisonFacts, humanMech: readonly Fact[], aiMech: readonly Fact[], aiFirm: boolean): Ground | null {
  for (const f of c.follow) {
    const named = mechanisms(f.facts).filter((m) => !states(c.ticketFacts, m));
    // Naming an answer's author ("as Support said") sides with it whatever mechanisms both share;
    // else a specific term the customer names ("the backup job") outweighs a shared metric family.
    const specific = named.filter((m) => m.key.startsWith('term:') && (states(aiMech, m) !== states(humanMech, m)));
    const deciding = specific.length > 0 ? specific : named;
    const forAi = f.side !== null ? f.side === 'ai' : shares(deciding, aiMech);
    const forHuman = f.side !== null ? f.side === 'human' : shares(deciding, humanMech);
    const ground: GroundFinding = { kind: 'follow_up', id: f.id, aiMechanism: [...aiMech], humanMechanism: [...humanMech] };
    if (f.kind === 'separate_issue') {
      // The clauses that do not set the human's claim aside may name the real cause.
      const cause = mechanisms(f.remaining);
      if (shares(cause, c.ai.facts) && shares(cause.filter((m) => states(c.ai.facts, m)), humanMech)) return decided('equivalent', 'separate_issue_both', [ground]);
      if (shares(cause, c.ai.facts) && !shares(cause.filter((m) => !states(c.ai.facts, m)), humanMech)) return decided('ai_better', 'separate_issue_ai', [ground]);
      return abstain('JUDGE.HUMAN_CLAIM_WITHDRAWN', 'separate_issue_withdrawn', [ground]);
    }
    if (f.kind === 'refutes') {
      if (forAi && !forHuman) return decided('ai_better', 'customer_refutes_human', [ground]);
      if (forHuman && !forAi && aiFirm) return decided('human_better', 'customer_refutes_ai', [ground]);
    }
    if (f.kind === 'confirms') {
      if (forAi && !forHuman) return decided('ai_better', 'customer_confirms_ai', [ground]);
      if (!forAi && humanMech.length > 0 && aiMech.length > 0 && !shares(humanMech, aiMech) && aiFirm) return decided('human_better', 'customer_confirms_human', [ground]);
    }
  }
  return null;
}

function contradictionGround(c: ComparisonFacts): Ground | null {
  // A real disagreement: neither side states the other's value anywhere (answers quote baselines and peaks).
  const humanOnly = c.humanFacts.filter((h) => !states(c.ai.facts, h));
  const aiOnly = c.ai.facts.filter((a) => !states(c.humanFacts, a));
  for (const h of humanOnly) {
    for (const a of aiOnly) {
      if (!contradicts(h, a)) continue;
      if (states(c.ticketFacts, h) && !states(c.ticketFacts, a)) return decided('human_better', 'ticket_contradicts_ai', [{ kind: 'values', stated: a, against: h }]);
      if (states(c.ticketFacts, a) && !states(c.ticketFacts, h)) return decided('ai_better', 'ticket_contradicts_human', [{ kind: 'values', stated: h, against: a }]);
      if (states(c.ai.evidence, a)) return decided('ai_better', 'evidence_contradicts_human', [{ kind: 'values', stated: h, against: a }]);
      return abstain('JUDGE.NEEDS_MODEL', 'values_disagree', [{ kind: 'values', stated: h, against: a }]);
    }
  }
  return null;
}

function preliminaries(c: ComparisonFacts): Ground | null {
  const unfixed = c.feedback.resolution === 'unresolved';
  if (unfixed) return decided('human_better', 'feedback_unfixed');
  if (!c.hasReplies) return abstain('JUDGE.HUMAN_ANSWER_EMPTY', 'no_replies');
  if (c.feedback.resolution === 'undetermined') return abstain('JUDGE.FEEDBACK_UNPARSEABLE', 'feedback_unparseable');
  if (c.answerIds.length === 0) return abstain('JUDGE.HUMAN_ANSWER_NOT_SUBSTANTIVE', 'not_substantive');
  if (c.foreignLanguage) return abstain('JUDGE.NEEDS_MODEL', 'foreign_language');
  return null;
}

export function decideComparison(c: ComparisonFacts): Ground {
  const first = preliminaries(c);
  if (first) return first;
  const fairFound = fairFindings(c.comparison);
  const fair = fairFound.map((f) => f.fact);
  const later = laterFindings(c.comparison);
  const humanMech = mechanisms(fair);
  // The mechanism the answer blames is its claim; the observations name every family that moved.
  const claimed = c.ai.claim ? mechanisms(c.ai.claim) : [];
  const aiMech = claimed.length > 0 ? claimed : mechanisms(c.ai.own);
  const aiUncertain = c.ai.undetermined || c.ai.decision !== 'internal_only';
  // An open link still to confirm does not make a stated cause less firm; a weak claim does.
  const aiFirm = c.ai.claimFirm ?? !c.ai.undetermined;
  const nextStep = c.ai.nextAction === 'concrete' || c.ai.nextAction === 'not_required';

  // The customer judges the mechanism the human named, wherever the human learned it.
  const humanNamed = mechanisms(c.comparison.human.filter((f) => !incidental(f)).map((f) => f.fact));
  const ground = followUpGround(c, humanNamed, aiMech, aiFirm) ?? contradictionGround(c);
  if (ground) return ground;
  if (fair.length === 0) {
    // A human answer in words after internal work rests on that work as much as one that quotes it.
    if (later.length > 0 || c.laterNotes) return aiUncertain && nextStep ? decided('different_but_valid', 'late_only_next_step') : abstain('JUDGE.NEEDS_MODEL', 'late_only_no_step');
    return abstain('JUDGE.NEEDS_MODEL', 'words_only');
  }
  // A ticket value the human builds on and the AI ignored: a stage-fair omission with weight.
  const missed = missedTicketFindings(c.comparison);
  if (missed.length > 0) return decided('human_better', 'ticket_value_ignored', missed.map((finding) => ({ kind: 'missed', finding })));
  // Coverage from the one comparison, so the verdict and the rendered gaps agree.
  const covered = fairFound.filter((f) => f.stated).length;
  const coverage: GroundFinding = { kind: 'coverage', covered, of: fair.length };
  if (covered / fair.length >= EQUIVALENT_COVERAGE) {
    const risk = c.ai.risk;
    // Missed only when the human states neither risk words nor any fact of the risk.
    if (risk && !c.humanNamesRisk && !shares(risk.facts, c.humanAllFacts)) return decided('ai_better', 'risk_missed', [coverage, { kind: 'risk', sentence: risk.sentence }]);
    return decided('equivalent', 'covered', [coverage]);
  }
  const mechanismsGround: GroundFinding = { kind: 'mechanisms', human: humanMech, ai: aiMech };
  if (humanMech.length === 0 || shares(humanMech, aiMech)) return decided('different_but_valid', 'same_mechanism', [coverage]);
  if (aiMech.length === 0 && c.ai.undetermined && !nextStep) {
    // On a tier without that data the human's finding rests on something the AI could not have read:
    // missing it is no ground (seed 002 §3), and what is left needs a reading of meaning.
    const unavailable = later.filter((f) => f.provenance === 'unavailable_data' && !incidental(f));
    if (unavailable.length > 0) return abstain('JUDGE.NEEDS_MODEL', 'unavailable_data_no_step', [mechanismsGround, { kind: 'unavailable', findings: unavailable }]);
    return decided('human_better', 'determined_nothing', [mechanismsGround]);
  }
  if (aiUncertain && nextStep && later.length > 0) return decided('different_but_valid', 'late_mechanism_next_step', [mechanismsGround]);
  return abstain('JUDGE.NEEDS_MODEL', 'different_mechanisms', [mechanismsGround]);
}
