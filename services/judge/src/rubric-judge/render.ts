import type { Ground, GroundFinding, RuleId } from './decide-comparison';
import { incidental, laterFindings, missingFindings, type FactComparison, type HumanFinding } from './fact-comparison';
import type { FeedbackCheck, FeedbackItem } from './feedback-check';
import type { FeedbackContest } from './feedback-contest';
import type { Fact } from './facts/facts';
import type { HandoffFinding, PublishedReading } from './published-answer';
import { DATA_KIND_LABEL } from './tier-expectations.data';

/**
 * Messages of the built-in judge, rendered from typed findings after the verdict is decided. No
 * rule reads them back: rewording a message cannot change a verdict.
 */
const LIST_LIMIT = 10;
const quote = (f: Fact) => `"${f.display}"`;
/** Distinct as shown: one token read two ways is listed once. */
const show = (facts: readonly Fact[], n = 4) => [...new Set(facts.map(quote))].slice(0, n).join(', ');

const where = (f: HumanFinding) => (f.source === 'ticket' || f.source === null ? 'the ticket states it' : `comment ${f.source} states it, visible before the cutoff`);
const bearingOf = (f: HumanFinding) => (f.role.bearing === null ? '' : `, which bears on the ${f.role.bearing}`);

export function missedGap(f: HumanFinding): string {
  return `the human answer builds on ${quote(f.fact)} from the ticket (${where(f)}, so the AI had it at its cutoff)${bearingOf(f)}; the published answer does not use it`;
}

export function feedbackNote(check: FeedbackCheck): string | null {
  if (check.action === null) return null;
  const label = `/ao ${check.action} on the previous version`;
  if (check.contestedBy.length > 0) return null; // rendered by contestNote
  if (check.resolution === 'undetermined') return `${label} gives no checkable fact, claim, kind of fact or decision, so whether the new version fixed it is undetermined.`;
  const failed = check.items.filter((i) => !i.met).map(failure);
  if (failed.length > 0) return `${label} is not fixed: ${failed.join('; ')}.`;
  return `${label} is fixed: ${check.items.map(pass).join('; ')}.`;
}

/** The contest of explicit feedback, with its evidence; the feedback itself is kept. */
export function contestNote(c: FeedbackContest): string {
  const which = c.scope === 'previous_version' ? `/ao ${c.action} (${c.commentId}) on the previous version` : `/ao ${c.action} (${c.commentId}) on this version`;
  const evidence = c.evidence.join(', ');
  if (c.scope === 'previous_version') return `${which} is contested by the customer's comment ${evidence}, which confirms ${show(c.confirmed)}, the claim the feedback called wrong; so keeping it is not counted as unfixed.`;
  const side = c.action === 'accept' ? "sides with the human answer against the published one" : "confirms the published answer's cause";
  return `${which} is contested by the customer's comment ${evidence}, which ${side}; the feedback still decides the quality projection.`;
}

function failure(i: FeedbackItem): string {
  switch (i.kind) {
    case 'decision':
      return i.wanted === 'human' ? `the decision is still internal_only${i.leavesSupport ? ' while the handoff asks Support to follow up' : ''}, so a human is still bypassed` : `the decision is still ${i.decision}`;
    case 'corrected':
      return i.stillWrong.length > 0 ? `it still states ${show(i.stillWrong, 8)}, which the feedback called wrong` : `it does not state ${show(i.missingRight, 8)}, the value the feedback gave`;
    case 'removed':
      return `it still states ${show(i.still, 8)}, the claim the feedback asked to drop`;
    case 'added':
      return `it still does not state ${show(i.missing, 8)}`;
    case 'requested':
      return `it names no ${i.requested} the previous version did not, though the feedback asked for one`;
    case 'listed':
      return `it states ${i.stated.length} of ${show(i.wanted, 8)}, which the feedback named`;
  }
}

function pass(i: FeedbackItem): string {
  switch (i.kind) {
    case 'decision':
      return `the decision changed to ${i.decision}`;
    case 'corrected':
      return `it no longer states ${show(i.wrong, 8)}${i.right.length > 0 ? ` and states ${show(i.right, 8)}` : ''}`;
    case 'removed':
      return `the claim ${show(i.claim, 8)} is gone`;
    case 'added':
      return `it now states ${show(i.wanted.filter((w) => !i.missing.includes(w)), 8)}`;
    case 'requested':
      return `it now names the ${i.requested} (${i.named.slice(0, 3).join(', ')})`;
    case 'listed':
      return `it states ${show(i.stated, 8)}, which the feedback named`;
  }
}

export function handoffGap(h: HandoffFinding): string {
  switch (h.kind) {
    case 'no_next_action':
      return 'the handoff names no next internal action for Support';
    case 'vague_next_action':
      return `the handoff's next action names no concrete query, check or escalation for Support ("${h.action}")`;
    case 'internal_only_leaves_support':
      return 'the decision is internal_only, yet the handoff leaves a follow-up action to Support';
    case 'identifier_missing':
      return `the handoff does not name ${quote(h.fact)}, which the ticket identifies`;
  }
}

const find = <K extends GroundFinding['kind']>(g: Ground, kind: K) => g.findings.find((f): f is Extract<GroundFinding, { kind: K }> => f.kind === kind);

const REASONS: Record<RuleId, (g: Ground) => string> = {
  feedback_unfixed: () => "The previous version's revise/wrong problem is still present in this version.",
  no_replies: () => 'No public Support reply exists after the anchor.',
  feedback_unparseable: () => "The previous version's revise/wrong reason states nothing checkable, so whether this version fixed it cannot be told.",
  not_substantive: () => 'The Support replies after the anchor only acknowledge, report progress or close the ticket.',
  foreign_language: () => 'The human answer is not in English; the built-in judge compares English texts only.',
  separate_issue_both: (g) => `The customer set the human's extra suspicion aside as a separate issue (${find(g, 'follow_up')?.id}); both answers name the cause the customer confirms.`,
  separate_issue_ai: (g) => `The customer called the human's suspicion a separate issue (${find(g, 'follow_up')?.id}) and named the mechanism the published answer gave.`,
  separate_issue_withdrawn: (g) => `The customer called the human's suspicion a separate issue (${find(g, 'follow_up')?.id}); with it removed nothing of the human answer is left to compare.`,
  customer_refutes_human: (g) => `The customer's later comment (${find(g, 'follow_up')?.id}) refutes the human answer and names the published answer's mechanism.`,
  customer_refutes_ai: (g) => `The customer's later comment (${find(g, 'follow_up')?.id}) names the human's mechanism as the cause; the published answer firmly named another.`,
  customer_confirms_ai: (g) => `The customer's later comment (${find(g, 'follow_up')?.id}) confirms the published answer's mechanism, which the human answer did not give.`,
  customer_confirms_human: (g) => `The customer confirmed the human answer (${find(g, 'follow_up')?.id}); the published answer firmly named a different mechanism (${show(find(g, 'follow_up')?.aiMechanism ?? [])}).`,
  ticket_contradicts_ai: (g) => `The published answer states ${values(g)[0]}, which the ticket contradicts (${values(g)[1]}, as the human answer says).`,
  ticket_contradicts_human: (g) => `The human answer states ${values(g)[0]}, which the ticket contradicts (${values(g)[1]}, as the published answer says).`,
  evidence_contradicts_human: (g) => `The human answer states ${values(g)[0]}, which the published answer's measurements contradict (${values(g)[1]}).`,
  values_disagree: (g) => `The answers disagree on a value (${values(g)[0]} vs ${values(g)[1]}) and nothing in the ticket settles which is right.`,
  late_only_next_step: () =>
    "The human answer rests on information the AI could not have had (customer comments, internal notes or manual work after the cutoff and before the reply that states it, or data the ticket's tier does not provide); the published answer kept its uncertainty and gave an executable next step.",
  late_only_no_step: () => 'The human answer rests on later information and the published answer gave no executable next step; weighing them needs a reading of meaning.',
  words_only: () => 'The human answer states no fact the built-in judge can compare (it argues in words).',
  risk_missed: (g) => `Both state the same facts, and the published answer also names a risk the human answer misses ("${(find(g, 'risk')?.sentence ?? '').slice(0, 160)}").`,
  covered: (g) => `The published answer states ${percent(g)}% of the human answer's facts that carry a finding.`,
  ticket_value_ignored: (g) =>
    `The human answer builds on ${show(g.findings.flatMap((f) => (f.kind === 'missed' ? [f.finding.fact] : [])))} from the ticket, which the published answer does not use; the ticket gave it to the AI at its cutoff and the human uses it for the ${[...new Set(g.findings.flatMap((f) => (f.kind === 'missed' && f.finding.role.bearing ? [f.finding.role.bearing] : [])))].join(' and ')}.`,
  same_mechanism: () => 'Both name the same mechanism; the human answer adds details the published answer does not state.',
  determined_nothing: () => 'The published answer determined nothing and left no executable next step; the human answer names the mechanism.',
  unavailable_data_no_step: (g) =>
    `The human answer rests on ${kinds(find(g, 'unavailable')?.findings ?? [])}, which the ticket's service tier does not provide, so the AI could not have had it; the published answer left no executable next step, and weighing the rest needs a reading of meaning.`,
  late_mechanism_next_step: () => "The human answer's mechanism rests partly on later information; the published answer kept its uncertainty and gave an executable next step.",
  different_mechanisms: (g) => `The answers name different mechanisms (${show(find(g, 'mechanisms')?.human ?? [])} vs ${(find(g, 'mechanisms')?.ai.length ?? 0) > 0 ? show(find(g, 'mechanisms')?.ai ?? []) : 'none'}) and the texts do not settle which is right.`,
};

function values(g: Ground): [string, string] {
  const v = find(g, 'values');
  return v ? [quote(v.stated), quote(v.against)] : ['', ''];
}

function percent(g: Ground): number {
  const c = find(g, 'coverage');
  return c && c.of > 0 ? Math.round((c.covered / c.of) * 100) : 0;
}

export const reasonOf = (g: Ground) => REASONS[g.rule](g);

/** The kinds of data the tier does not provide that these findings rest on ("TopSQL and node_* metrics"). */
function kinds(findings: readonly HumanFinding[]): string {
  const named = [...new Set(findings.flatMap((f) => (f.unavailable ? [DATA_KIND_LABEL[f.unavailable]] : [])))];
  return named.length > 0 ? named.join(' and ') : 'data';
}

/** Gaps and strengths the ground itself names (beyond the fact comparison). */
export function groundLists(g: Ground, feedback: FeedbackCheck): { aiGaps: string[]; humanGaps: string[] } {
  const follow = find(g, 'follow_up');
  const v = values(g);
  switch (g.rule) {
    case 'feedback_unfixed':
      return { aiGaps: [feedbackNote(feedback) ?? 'the previous feedback is not addressed'], humanGaps: [] };
    case 'customer_confirms_human':
      return { aiGaps: [`named ${show(follow?.aiMechanism ?? [])}; the customer confirmed ${show(follow?.humanMechanism ?? [])}`], humanGaps: [] };
    case 'customer_refutes_ai':
      return { aiGaps: [`named a cause the customer's ${follow?.id} contradicts`], humanGaps: [] };
    case 'customer_refutes_human':
      return { aiGaps: [], humanGaps: [`refuted by the customer in ${follow?.id}`] };
    case 'separate_issue_ai':
      return { aiGaps: [], humanGaps: [`the customer said the human's suspicion was a separate issue (${follow?.id})`] };
    case 'ticket_contradicts_ai':
      return { aiGaps: [`states ${v[0]}; the ticket says ${v[1]}`], humanGaps: [] };
    case 'ticket_contradicts_human':
      return { aiGaps: [], humanGaps: [`states ${v[0]}; the ticket says ${v[1]}`] };
    case 'evidence_contradicts_human':
      return { aiGaps: [], humanGaps: [`states ${v[0]}; the measurements show ${v[1]}`] };
    case 'risk_missed':
      return { aiGaps: [], humanGaps: ['does not mention the risk the published answer names'] };
    case 'determined_nothing':
      return { aiGaps: ['determined nothing and gave no executable next step'], humanGaps: [] };
    default:
      return { aiGaps: [], humanGaps: [] };
  }
}

export interface Rendered {
  aiGaps: string[];
  aiStrengths: string[];
  humanGaps: string[];
  humanStrengths: string[];
  keyDifferences: string[];
  summary: string[];
}

/** Gaps, strengths and key differences, all from the one fact comparison. */
export function renderComparison(c: FactComparison, ai: PublishedReading, g: Ground, feedback: FeedbackCheck, answered: boolean): Rendered {
  const ground = groundLists(g, feedback);
  const missing = missingFindings(c);
  const covered = c.human.filter((f) => f.stated && f.provenance === 'own' && !incidental(f));
  const later = laterFindings(c).filter((f) => f.provenance !== 'unavailable_data');
  const unavailable = laterFindings(c).filter((f) => f.provenance === 'unavailable_data');
  const extra = c.aiOnly.filter((f) => f.kind !== 'identifier');
  const gap = (f: HumanFinding) => (f.provenance === 'ticket' ? missedGap(f) : `the human answer states ${quote(f.fact)}${bearingOf(f)}; the published answer does not`);
  const keyDifferences = [
    ...(missing.length > 0 ? [`only the human answer states ${show(missing.map((f) => f.fact), 6)}`] : []),
    ...(extra.length > 0 ? [`only the published answer states ${show(extra, 6)}`] : []),
    ...(ai.decision !== 'internal_only' && answered ? [`the published answer hands the ticket to Support (decision ${ai.decision}); the human replies answer it`] : []),
  ];
  const fairCount = covered.length + missing.filter((f) => f.provenance === 'own').length;
  return {
    aiGaps: [...ground.aiGaps, ...missing.slice(0, LIST_LIMIT).map(gap)],
    aiStrengths: [...covered.slice(0, LIST_LIMIT).map((f) => `states ${quote(f.fact)} as the human answer does`), ...(ai.undetermined ? ['says plainly what it could not determine'] : [])],
    humanGaps: [...ground.humanGaps, ...(extra.length > 0 ? [`does not mention ${show(extra, 5)}, which the published answer reports`] : [])],
    humanStrengths: missing.slice(0, LIST_LIMIT).map((f) => `states ${quote(f.fact)}`),
    keyDifferences,
    summary: [
      fairCount > 0 ? `The published answer states ${covered.length} of the ${fairCount} facts of the human answer the AI could have had.` : '',
      later.length > 0 ? `${later.length} fact(s) of the human answer came from later customer comments or manual work (internal notes included) before the reply that first states them, and are not held against the published answer.` : '',
      unavailable.length > 0 ? `${unavailable.length} fact(s) of the human answer rest on ${kinds(unavailable)}, which the ticket's service tier does not provide, and are not held against the published answer.` : '',
    ].filter(Boolean),
  };
}
