import { readLeadingMechanism } from '@aoc/answers';
import type { Decision } from '@aoc/contracts';
import { familiesInText, familyLabel, firstFamilyInText, isMetricFamilyId, METRIC_FAMILIES } from '@aoc/metric-ontology';
import { z } from 'zod';

/**
 * The criterion judge: per case x criterion `met | gap | inconclusive | not_applicable`, and a
 * run finding over all cases. Typed criteria have a deterministic check; free-text criteria need
 * the OpenAI-compatible judge, so the built-in engine answers them `inconclusive` with the reason.
 * The judge sees the published answer only; execution state is applied afterwards by
 * `withExecutionGuards`, so no check can reason from how the run went.
 */

const Base = {
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
  /** Criteria that can only be met with provider evidence are inconclusive when the capability is unverified. */
  requiredCapabilities: z.array(z.literal('provider_evidence')).max(1).default([]),
  /** Decisions the criterion applies to; any other decision makes it not_applicable. */
  appliesToDecisions: z.array(z.enum(['internal_only', 'human_required', 'clarification_needed'])).max(3).optional(),
};

const Family = z.string().refine(isMetricFamilyId, 'must be a metric family of the ontology');

export const Criterion = z.discriminatedUnion('kind', [
  z.object({ ...Base, kind: z.literal('leading_mechanism_family'), family: Family }).strict(),
  z.object({ ...Base, kind: z.literal('decision'), decision: z.enum(['internal_only', 'human_required', 'clarification_needed']) }).strict(),
  z.object({ ...Base, kind: z.literal('requested_context'), phrase: z.string().min(2).max(200) }).strict(),
  /**
   * `message`: where the fact must be stated. A fact only in the internal handoff was not told to the
   * customer, so a customer-facing fact is checked in the customer reply alone (seed 002 §3).
   */
  z.object({ ...Base, kind: z.literal('fact_stated'), phrase: z.string().min(1).max(200), message: z.enum(['customer_reply', 'internal_handoff', 'either']).default('customer_reply') }).strict(),
  z.object({ ...Base, kind: z.literal('phrase_absent'), phrase: z.string().min(2).max(200) }).strict(),
  z.object({ ...Base, kind: z.literal('evidence_family_queried'), family: Family }).strict(),
  z.object({ ...Base, kind: z.literal('free_text'), text: z.string().min(3).max(1000) }).strict(),
]);
export type Criterion = z.infer<typeof Criterion>;
export type CriterionKind = Criterion['kind'];

export type CriterionStatus = 'met' | 'gap' | 'inconclusive' | 'not_applicable';
export type RunFinding = 'gaps_found' | 'criteria_met' | 'inconclusive';

/** What a replayed (or published) answer version shows, without its execution state. */
export interface JudgedAnswer {
  customerReplyMarkdown: string;
  internalHandoffMarkdown: string;
  decision: Decision;
  requestedContext: readonly string[];
  /** Metric families the answer's evidence plan asked for (what was asked, not how it went). */
  queriedFamilies: readonly string[];
}

/** Execution state, kept apart from the judge and applied after it. */
export interface ExecutionState {
  responseGeneration: 'complete' | 'failed';
  providerCapability: 'verified' | 'unverified';
}

export interface CriterionResult {
  criterionId: string;
  status: CriterionStatus;
  reason: string;
}

const lower = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');

/** The statement of the handoff's leading mechanism, or null when it names none. */
export function leadingMechanism(handoff: string): string | null {
  const line = readLeadingMechanism(handoff);
  if (!line || line.strength === 'undetermined' || /^none\b/i.test(line.statement)) return null;
  return line.statement;
}

/**
 * Families a criterion about `family` accepts: the family itself and the ones whose own name
 * speaks of it ("lock waits" is about locks). A narrower family counts for the broader one,
 * never the other way round.
 */
export function familiesCounting(family: string): string[] {
  return METRIC_FAMILIES.map((f) => f.id as string).filter((id) => id === family || familiesInText(familyLabel(id)).some((m) => m.family === family));
}

/** The most specific ontology family of the leading mechanism (the first mention; at one position the longer phrase). */
export function leadingFamilyOf(handoff: string): string | null {
  const line = leadingMechanism(handoff);
  return line === null ? null : firstFamilyInText(line);
}

/** A number-tolerant phrase match: "2.5 s" matches "2.50 s"; words match case- and space-insensitively. */
function states(text: string, phrase: string): boolean {
  const hay = lower(text);
  const needle = lower(phrase).trim();
  if (hay.includes(needle)) return true;
  const num = /^(-?\d+(?:\.\d+)?)\s*(.*)$/.exec(needle);
  if (!num) return false;
  const want = Number(num[1]);
  const unit = num[2].trim();
  const re = new RegExp(`(-?\\d[\\d,]*(?:\\.\\d+)?)\\s*${unit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'g');
  for (const m of hay.matchAll(re)) {
    const got = Number(m[1].replace(/,/g, ''));
    if (Math.abs(got - want) <= Math.max(Math.abs(want) * 0.02, 1e-9)) return true;
  }
  return false;
}

const result = (c: Criterion, status: CriterionStatus, reason: string): CriterionResult => ({ criterionId: c.id, status, reason: reason.slice(0, 300) });

const MESSAGE_WORDS = { customer_reply: 'the customer reply', internal_handoff: 'the internal handoff', either: 'the answer' } as const;

/** A fact is stated in the message the criterion names; stated only in the other one, the reason says so. */
function factStated(c: Extract<Criterion, { kind: 'fact_stated' }>, answer: JudgedAnswer): CriterionResult {
  const inReply = states(answer.customerReplyMarkdown, c.phrase);
  const inHandoff = states(answer.internalHandoffMarkdown, c.phrase);
  const where = MESSAGE_WORDS[c.message];
  const ok = c.message === 'customer_reply' ? inReply : c.message === 'internal_handoff' ? inHandoff : inReply || inHandoff;
  if (ok) return result(c, 'met', `states "${c.phrase}" in ${where}`);
  if (c.message === 'customer_reply' && inHandoff) return result(c, 'gap', `states "${c.phrase}" in the internal handoff only: the customer was not told`);
  return result(c, 'gap', `does not state "${c.phrase}" in ${where}`);
}

/** One criterion on one answer. */
export function judgeCriterion(c: Criterion, answer: JudgedAnswer): CriterionResult {
  if (c.appliesToDecisions && !c.appliesToDecisions.includes(answer.decision)) return result(c, 'not_applicable', `applies to ${c.appliesToDecisions.join('/')}; the answer decided ${answer.decision}`);
  const both = `${answer.customerReplyMarkdown}\n${answer.internalHandoffMarkdown}`;
  switch (c.kind) {
    case 'leading_mechanism_family': {
      const line = leadingMechanism(answer.internalHandoffMarkdown);
      if (line === null) return result(c, 'gap', 'the answer names no leading mechanism');
      const families = familiesInText(line).map((f) => f.family as string);
      return families.includes(c.family) ? result(c, 'met', `the leading mechanism is about ${c.family}`) : result(c, 'gap', `the leading mechanism is about ${families.join(', ') || 'no known family'}, not ${c.family}`);
    }
    case 'decision':
      return answer.decision === c.decision ? result(c, 'met', `decision ${c.decision}`) : result(c, 'gap', `decision ${answer.decision}, expected ${c.decision}`);
    case 'requested_context':
      return answer.requestedContext.some((r) => lower(r).includes(lower(c.phrase))) ? result(c, 'met', `asks for "${c.phrase}"`) : result(c, 'gap', `does not ask for "${c.phrase}"`);
    case 'fact_stated':
      return factStated(c, answer);
    case 'phrase_absent':
      return lower(both).includes(lower(c.phrase)) ? result(c, 'gap', `still says "${c.phrase}"`) : result(c, 'met', `does not say "${c.phrase}"`);
    case 'evidence_family_queried':
      return answer.queriedFamilies.some((f) => familiesCounting(c.family).includes(f)) ? result(c, 'met', `queried ${c.family}`) : result(c, 'gap', `did not query ${c.family}`);
    case 'free_text':
      return result(c, 'inconclusive', 'a free-text criterion needs the model judge; the built-in engine does not decide meaning');
  }
}

/**
 * Execution state applied after judging: a failed response generation makes every criterion but
 * not_applicable inconclusive; an unverified provider capability does so for criteria that need
 * provider evidence.
 */
export function withExecutionGuards(results: readonly CriterionResult[], criteria: readonly Criterion[], state: ExecutionState): CriterionResult[] {
  const byId = new Map(criteria.map((c) => [c.id, c]));
  return results.map((r) => {
    if (r.status === 'not_applicable') return r;
    if (state.responseGeneration === 'failed') return { ...r, status: 'inconclusive', reason: 'response generation failed: nothing to judge' };
    if (state.providerCapability === 'unverified' && byId.get(r.criterionId)?.requiredCapabilities.includes('provider_evidence')) {
      return { ...r, status: 'inconclusive', reason: 'needs provider evidence, and the provider capability is unverified' };
    }
    return r;
  });
}

export interface CaseJudgement {
  caseId: string;
  results: CriterionResult[];
}

/** Run finding: a gap on a blocking criterion anywhere is `gaps_found`; all applicable met is `criteria_met`. */
export function runFinding(cases: readonly CaseJudgement[], blockingCriterionId: string): RunFinding {
  const blocking = cases.flatMap((c) => c.results.filter((r) => r.criterionId === blockingCriterionId));
  if (blocking.some((r) => r.status === 'gap')) return 'gaps_found';
  const applicable = cases.flatMap((c) => c.results.filter((r) => r.status !== 'not_applicable'));
  if (applicable.length > 0 && applicable.every((r) => r.status === 'met')) return 'criteria_met';
  return applicable.some((r) => r.status === 'gap') ? 'gaps_found' : 'inconclusive';
}

/** Judges every criterion of a case, then applies its execution state. */
export function judgeCase(caseId: string, criteria: readonly Criterion[], answer: JudgedAnswer, state: ExecutionState): CaseJudgement {
  return { caseId, results: withExecutionGuards(criteria.map((c) => judgeCriterion(c, answer)), criteria, state) };
}
