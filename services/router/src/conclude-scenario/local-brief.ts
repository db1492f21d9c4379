import type { EvidenceFactV1, LocalCausalBriefV1, Severity } from '@aoc/contracts';
import type { EvidenceRound } from '../persistence/scenario-thread.entity';
import { fitBrief, MAX_OBSERVATIONS } from './brief-limits';
import { GENERAL_HEALTH, SCENARIO_CATALOG } from '../select-scenarios/scenario-catalog';
import { familyLabel } from '@aoc/metric-ontology';
import { concludeByFamily, emptyFamilies, type FamilyConclusion } from './family-rules';
import { fireRule, type FiredRule } from './mechanism-rules';
import { compareWithHistory, type RefinementRule } from './refinement-rules';
import { hypothesisBrief, hypothesisSummary, missingEvidence, testHypotheses, type HypothesisOutcome } from './hypotheses/hypothesis-brief';
import { openEvidence, type OpenEvidence } from './hypotheses/open-evidence';

export interface ThreadView {
  scenario: string;
  hypothesis: string;
  strongestAlternative: string;
  /** The frozen window; the family rules use it to tell simultaneous changes apart. */
  window?: { from: string; to: string } | null;
  /** When the customer says the problem started (ISO time or Date), or null. */
  reportedOnset?: string | Date | null;
}

/** Families the scenario's playbook needs (none for general health), and whether their absence blocks a conclusion. */
function neededFamilies(scenario: string): { families: string[]; strict: boolean } {
  const playbook = [...SCENARIO_CATALOG, GENERAL_HEALTH].find((p) => p.scenario === scenario);
  return { families: (playbook?.families ?? []).slice(), strict: playbook ? !playbook.generalSymptom : false };
}

/** The family a legacy (query-id) rule is about: that of the first query its conditions read. */
function firedFamily(fired: FiredRule, facts: readonly EvidenceFactV1[]): string | null {
  const first = fired.rule.when[0];
  const query = first && 'query' in first ? first.query : first?.queries[0];
  const family = facts.find((f) => f.queryId === query && typeof f.attributes['family'] === 'string')?.attributes['family'];
  return typeof family === 'string' ? family : null;
}

/** The family rules' conclusion and the failure modes tested against the facts, for one thread. */
function testThread(thread: ThreadView, facts: readonly EvidenceFactV1[]): { byFamily: FamilyConclusion | null; tested: HypothesisOutcome } {
  const needed = neededFamilies(thread.scenario);
  const onset = thread.reportedOnset ? new Date(thread.reportedOnset).getTime() : null;
  const byFamily = concludeByFamily(facts, needed.families, thread.window ?? null, { strict: needed.strict, onset });
  const orderLead = byFamily?.kind === 'cause' ? byFamily.family : null;
  const general = !needed.strict || needed.families.length === 0;
  return { byFamily, tested: testHypotheses({ scenario: thread.scenario, families: needed.families, general, window: thread.window ?? null, onset, orderLead }, facts) };
}

/** What the thread's still-open failure modes need measured next (the hypothesis-driven round), or null. */
export function openHypothesisRequest(thread: ThreadView, facts: readonly EvidenceFactV1[]): OpenEvidence | null {
  const { tested } = testThread(thread, facts);
  return openEvidence(tested.hypotheses, tested.context, emptyFamilies(facts));
}

/** Everything the diagnostic agent consumed over its rounds, in order. */
export interface EvidenceView {
  facts: EvidenceFactV1[];
  observations: string[];
  gaps: string[];
  failures: { queryId: string; code: string; supplemental: boolean }[];
}

export function mergeRounds(rounds: readonly Pick<EvidenceRound, 'facts' | 'observations' | 'gaps' | 'failures'>[]): EvidenceView {
  return {
    facts: rounds.flatMap((r) => r.facts),
    observations: rounds.flatMap((r) => r.observations),
    gaps: rounds.flatMap((r) => r.gaps),
    failures: rounds.flatMap((r) => r.failures),
  };
}

export interface BriefOptions {
  /** The refinement asked in round 1, when there was one. */
  refinement?: RefinementRule | null;
  /** Set when the scenario deadline ended the thread; names what was still pending. */
  deadlinePending?: string | null;
}

/** Robust anomaly score the provider package attached to a metric fact (null when absent). */
function anomalyOf(f: EvidenceFactV1): number | null {
  const score = f.attributes['anomalyScore'];
  return typeof score === 'number' && Number.isFinite(score) ? score : null;
}

const ANOMALY_THRESHOLD = 3.5;

function fmt(n: unknown): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return 'n/a';
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 0.001 || abs >= 1e6)) return n.toExponential(2);
  return String(Math.round(n * 1000) / 1000);
}

/** The metric fact deviating most from its own baseline, for metrics no rule knows. */
export function mostAnomalous(facts: readonly EvidenceFactV1[]): EvidenceFactV1 | null {
  let best: EvidenceFactV1 | null = null;
  for (const f of facts) {
    const score = anomalyOf(f);
    if (f.kind !== 'metric_summary' || score === null || score < ANOMALY_THRESHOLD) continue;
    if (!best || score > (anomalyOf(best) ?? 0)) best = f;
  }
  return best;
}

function workloadAttribution(facts: readonly EvidenceFactV1[]): string | null {
  const top = facts.find((f) => f.kind === 'top_item');
  if (!top) return null;
  const unit = top.unit ? ` ${top.unit}` : '';
  return `${top.subject}: ${String(top.value)}${unit}`;
}

const LOWER: Record<Severity, Severity> = { critical: 'high', high: 'medium', medium: 'low', low: 'low', info: 'info' };

/**
 * Builds a local causal brief from the materialised handoffs only. Without observations it says
 * so and leaves the mechanism undetermined instead of guessing; a metric no rule knows can still
 * lead, weakly, when it deviates strongly from its own baseline.
 */
export function buildLocalBrief(thread: ThreadView, evidence: EvidenceView, options: BriefOptions = {}): LocalCausalBriefV1 {
  return fitBrief(composeBrief(thread, evidence, options));
}

/** The brief as the rules conclude it; `fitBrief` makes it fit the contract. */
function composeBrief(thread: ThreadView, evidence: EvidenceView, options: BriefOptions): LocalCausalBriefV1 {
  const failed = evidence.failures.filter((f) => !f.supplemental);
  const deadlineNote = options.deadlinePending ? [`the scenario deadline was reached before ${options.deadlinePending}`] : [];
  const undetermined = [...deadlineNote, ...evidence.gaps, ...failed.map((f) => `query ${f.queryId} failed (${f.code})`)];
  const cap = (items: string[], fallback: string[]) => (items.length > 0 ? items : fallback);
  let observations = evidence.observations.slice(0, MAX_OBSERVATIONS);
  if (observations.length === 0) {
    return {
      observations: [],
      counterObservations: [],
      hypotheses: [], leadingMechanism: { mode: null,
        statement: `Not determined: no evidence was available to test the ${thread.scenario} hypothesis.`,
        strength: 'undetermined',
        openLink: 'no provider fact links the reported symptom to a mechanism',
        family: null,
      },
      strongestAlternative: thread.strongestAlternative,
      workloadAttribution: null,
      mitigationOrHandoff: 'Hand off to Support: collect the evidence listed under "Not determined" before advising the customer.',
      severity: 'medium',
      undetermined: cap(undetermined, ['the evidence batch returned no facts']),
    };
  }
  const fired = fireRule(
    thread.scenario,
    evidence.facts,
    failed.map((f) => f.queryId),
  );
  const counter: string[] = fired?.counterObservation ? [fired.counterObservation] : [];
  let severity: Severity = fired?.rule.severity ?? 'medium';
  let mitigation = fired?.rule.mitigation ?? 'Hand off to Support with the observations above; no mitigation is recommended without an established mechanism.';
  if (options.refinement) {
    const history = compareWithHistory(options.refinement.query, evidence.facts);
    if (history.daysWithData === 0) {
      undetermined.unshift('whether this peak recurs at the same clock on other days: the prior seven days returned no data');
    } else if (history.comparableDays >= 3) {
      counter.push(
        `A comparable peak (at least 80% of today's ${fmt(history.incidentPeak)}) occurred at the same clock on ${history.comparableDays} of the ${history.daysWithData} prior days with data: this load recurs daily rather than being new.`,
      );
      severity = LOWER[severity];
      mitigation = `${mitigation} Because the peak recurs daily, plan capacity for it (scale out or move the recurring job) rather than treat it as a one-off incident.`;
    } else {
      observations = [
        ...observations.slice(0, MAX_OBSERVATIONS - 1),
        `At the same clock on the ${history.daysWithData} prior days with data the peak never exceeded ${fmt(history.highestPrior)} (today ${fmt(history.incidentPeak)}): the load is new.`,
      ];
    }
  }
  if (fired) {
    return {
      observations,
      counterObservations: counter,
      hypotheses: [], leadingMechanism: { mode: null, statement: fired.mechanism, strength: fired.rule.strength, openLink: fired.openLink ?? null, family: firedFamily(fired, evidence.facts) },
      strongestAlternative: thread.strongestAlternative,
      workloadAttribution: workloadAttribution(evidence.facts),
      mitigationOrHandoff: mitigation,
      severity,
      undetermined: cap(undetermined, fired.openLink ? [fired.openLink] : []),
    };
  }
  const empty = emptyFamilies(evidence.facts).map((f) => `no ${familyLabel(f)} data: the query for it returned no series for the window`);
  const { byFamily, tested } = testThread(thread, evidence.facts);
  if (tested.lead && !options.refinement) {
    return hypothesisBrief({ ...tested, lead: tested.lead }, { observations, strongestAlternative: thread.strongestAlternative, workloadAttribution: workloadAttribution(evidence.facts), undetermined: [...empty, ...undetermined] });
  }
  const hypotheses = hypothesisSummary(tested.hypotheses);
  if (byFamily) return { ...familyBrief(thread, evidence, byFamily, { observations, counter, severity, undetermined: [...empty, ...missingEvidence(tested), ...undetermined] }), hypotheses };
  const deviating = mostAnomalous(evidence.facts);
  const statement = deviating
    ? `The strongest deviation from its own baseline is ${deviating.subject}: from a baseline median of ${fmt(deviating.attributes['baselineMedian'])} to ${fmt(deviating.attributes['recentMedian'])} (robust z ${fmt(anomalyOf(deviating))}${typeof deviating.attributes['shiftAt'] === 'string' ? `, from ${deviating.attributes['shiftAt'].slice(11, 16)}Z` : ''}); no mechanism rule of the ${thread.scenario} scenario explains it.`
    : `Observed signals are consistent with the ${thread.scenario} scenario; no mechanism rule matched them and no series deviates strongly from its baseline.`;
  return {
    observations,
    counterObservations: counter,
    hypotheses: [], leadingMechanism: { mode: null,
      statement,
      strength: 'weak',
      openLink: deviating ? 'what links this deviation to the reported symptom' : 'no rule links these observations to a specific mechanism',
      family: deviating && typeof deviating.attributes['family'] === 'string' ? deviating.attributes['family'] : null,
    },
    strongestAlternative: thread.strongestAlternative,
    workloadAttribution: workloadAttribution(evidence.facts),
    mitigationOrHandoff: mitigation,
    severity,
    undetermined: cap(undetermined, ['the causal link between the observations and the symptom']),
  };
}

interface BriefParts {
  observations: string[];
  counter: string[];
  severity: Severity;
  undetermined: string[];
}

/** A brief from the family rules: a cause, a healthy reading, or the evidence still missing. */
function familyBrief(thread: ThreadView, evidence: EvidenceView, c: FamilyConclusion, parts: BriefParts): LocalCausalBriefV1 {
  const cap = (items: string[], fallback: string[]) => (items.length > 0 ? items : fallback);
  const base = { observations: parts.observations, strongestAlternative: thread.strongestAlternative, workloadAttribution: workloadAttribution(evidence.facts) };
  if (c.kind === 'missing') {
    return {
      ...base,
      counterObservations: parts.counter,
      hypotheses: [], leadingMechanism: { mode: null, statement: c.statement, strength: 'undetermined', openLink: `the ${c.missing.map(familyLabel).join(' and ')} of this target`, family: null },
      mitigationOrHandoff: `Hand off to Support: read ${c.missing.map(familyLabel).join(' and ')} for this target from another source (the provider console, the database's own views) before advising the customer.`,
      severity: 'medium',
      undetermined: cap([`missing evidence: ${c.missing.map(familyLabel).join(', ')} (no such metric for this target in the window)`, ...parts.undetermined], []),
    };
  }
  if (c.kind === 'healthy') {
    return {
      ...base,
      counterObservations: parts.counter,
      hypotheses: [], leadingMechanism: { mode: null, statement: c.statement, strength: 'strong', openLink: null, family: null },
      mitigationOrHandoff: 'No database action is needed; if the symptom repeats, check the client, the network or the alert threshold.',
      severity: 'info',
      undetermined: cap(parts.undetermined, []),
    };
  }
  return {
    ...base,
    counterObservations: [...c.counter, ...parts.counter],
    hypotheses: [], leadingMechanism: { mode: null, statement: c.statement, strength: c.strength, openLink: c.openLink, family: c.family },
    mitigationOrHandoff: c.mitigation,
    severity: parts.severity === 'medium' ? c.severity : parts.severity,
    undetermined: cap([...c.unmeasured.map((f) => `no ${familyLabel(f)} data for this target: the link to the reported symptom is not measured`), ...parts.undetermined], [c.openLink]),
  };
}
