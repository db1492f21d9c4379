import type { EvidenceFactV1, LocalCausalBriefV1 } from '@aoc/contracts';
import { familyLabel } from '@aoc/metric-ontology';
import { buildContext, type EvidenceContext } from './evidence-context';
import { evaluateModes, type Hypothesis } from './evaluate-modes';
import { fitBrief, MAX_OBSERVATIONS } from '../brief-limits';
import { leadObservations } from './lead-observations';
import { FAILURE_MODES, type Condition, type FailureMode } from './failure-modes.data';

/**
 * A scenario thread's conclusion from its failure modes: the modes the scenario tests are each
 * confirmed, refuted or left undetermined against the evidence; the best-ranked confirmed mode
 * leads, its refuted look-alikes are named with the line that ruled them out, and undetermined
 * ones say what would settle them. Returns null when no mode (not even "healthy") is confirmed,
 * so the caller can fall back to its family rules.
 */
export interface HypothesisThread {
  scenario: string;
  /** The scenario's own families (what the ticket is about). */
  families: readonly string[];
  /** A general symptom (latency, errors) or the health check: every mode is a candidate. */
  general: boolean;
  window: { from: string; to: string } | null;
  onset: number | null;
  /** The family the family rules' order puts first (earliest sustained change), when they name a cause. */
  orderLead?: string | null;
}

export interface HypothesisOutcome {
  hypotheses: Hypothesis[];
  lead: Hypothesis | null;
  context: EvidenceContext;
  /** The scenario's own families (the symptom it asks about). */
  asked: readonly string[];
}

const clock = (ms: number | null) => (ms === null ? null : `${new Date(ms).toISOString().slice(11, 16)} UTC`);

/** The modes a scenario tests: its own, or all of them for a general symptom. */
export function modesFor(thread: Pick<HypothesisThread, 'scenario' | 'general'>, modes: readonly FailureMode[] = FAILURE_MODES): FailureMode[] {
  if (thread.general) return [...modes];
  const own = modes.filter((m) => m.scenarios.includes(thread.scenario));
  // The modes an own mode is told apart from are tested too, so they can be ruled out by name.
  const looks = new Set(own.flatMap((m) => m.lookAlikes.map((l) => l.mode)));
  return modes.filter((m) => own.includes(m) || looks.has(m.id) || m.id === 'healthy');
}

/** The conditions of a mode's signature, alternatives and conjunctions flattened. */
function signatureConditions(mode: FailureMode): Condition[] {
  return mode.signature.flatMap((clause) => ('anyOf' in clause ? clause.anyOf.flatMap((alt) => ('allOf' in alt ? alt.allOf : [alt])) : [clause]));
}

/** Whether the evidence shows a log pattern or an event a condition names (enough lines to stand out). */
function shows(c: Condition, context: EvidenceContext): boolean {
  if (c.kind !== 'log' && c.kind !== 'event') return false;
  const floor = c.kind === 'log' ? (c.atLeast ?? 1) : 1;
  if (c.patterns.some((p) => (context.logPatterns.get(p)?.count ?? 0) >= floor)) return true;
  return c.kind === 'event' && context.events.some((e) => (c.events as readonly string[]).includes(e.kind));
}

/**
 * Modes outside the scenario's own whose mechanism the evidence names outright (a log line, an
 * event): an engineer who sees "temporary file" lines in the log tests the spill although the
 * ticket only said "slow". They are tested on the evidence in hand only (see testHypotheses).
 */
export function surfacedModes(tested: readonly FailureMode[], context: EvidenceContext, modes: readonly FailureMode[] = FAILURE_MODES): FailureMode[] {
  return modes.filter((m) => !tested.includes(m) && signatureConditions(m).some((c) => shows(c, context)));
}

export function testHypotheses(thread: HypothesisThread, facts: readonly EvidenceFactV1[]): HypothesisOutcome {
  const context = buildContext(facts, thread.window, thread.onset);
  const own = modesFor(thread);
  const surfaced = surfacedModes(own, context);
  // A surfaced mode counts when the evidence in hand confirms it; left open, it would steer the
  // next round away from the scenario's own questions.
  const hypotheses = evaluateModes([...own, ...surfaced], context, thread.families, thread.orderLead ?? null).filter((h) => !surfaced.includes(h.mode) || h.verdict === 'confirmed');
  return { hypotheses, lead: chooseLead(hypotheses, thread.orderLead ?? null, thread.families), context, asked: thread.families };
}

/** A state leads on its own only when its onset fits the symptom's (not far before or after it). */
const MIN_STATE_FIT = 0.6;

/**
 * A state that names its mechanism may begin a while after the symptom the customer noticed (the
 * pool fills, then connections are refused): only one far after it (the timing floor) is set aside.
 */
const MIN_NAMED_FIT = 0.3;

/** Scores this close are a tie that the evidence naming a mechanism breaks. */
const CLOSE = 0.1;

/** A plain change this much smaller than the best-ranked mode's does not take the lead on order alone. */
const DWARFED = 0.4;

/**
 * The mode that leads. The best-ranked mode leads when a state shows it (a limit reached, a level at
 * capacity, an event, a log line, a statement) that is new (not held in the hour before the window
 * too) and whose onset fits the symptom's; below it, the best-ranked mode whose state names its
 * mechanism outright (a log line, an event, a limit) leads over modes that rest on changes only. When the best-ranked mode rests on changes only, the
 * order of those changes is the better guide (a sharp cause precedes its effects): the confirmed
 * mode whose evidence includes the earliest sustained change leads, unless its change is dwarfed;
 * when no mode contains that change, the best-ranked mode leads only if it shows in the families the
 * scenario asks about, else no mode leads and the family rules conclude.
 */
export function chooseLead(hypotheses: readonly Hypothesis[], orderLead: string | null, asked: readonly string[] = []): Hypothesis | null {
  const confirmed = hypotheses.filter((h) => h.verdict === 'confirmed' && !h.explainedBy);
  const top = confirmed[0] ?? null;
  if (!top || top.mode.id === 'healthy') return top;
  // Two modes that rank about the same on the same symptom: the one whose evidence names its mechanism tells them apart.
  const namedRival = top.named ? undefined : confirmed.find((h) => h.named && top.score - h.score <= CLOSE && h.fit >= MIN_NAMED_FIT);
  if (namedRival) return namedRival;
  if (top.state && top.fit >= MIN_STATE_FIT) return top;
  // A mechanism the evidence names outright (a limit reached, a log line, an event) beats a resource that merely changed.
  const named = confirmed.find((h) => h.named && h.fit >= MIN_NAMED_FIT);
  if (named) return named;
  if (orderLead === null) return top;
  // A mode whose deciding lines did not read the earliest change (a log line named it) still explains it when the change is of a family the mode reads.
  const ordered = confirmed.find((h) => h.families.includes(orderLead)) ?? confirmed.find((h) => (h.mode.evidence.families as readonly string[]).includes(orderLead));
  // The earliest change is in no confirmed mode: no mode explains it, and the family rules conclude,
  // unless the best-ranked mode shows in the very families the scenario asks about (its own symptom).
  if (!ordered) return top.families.some((f) => asked.includes(f)) ? top : null;
  if (top.magnitude - ordered.magnitude > DWARFED) return top;
  // Led by its order, the mode is reported under the change that came first.
  const reads = new Set<string>([...ordered.mode.evidence.families, ...ordered.mode.symptoms]);
  return reads.has(orderLead) ? { ...ordered, family: orderLead } : ordered;
}

/** The lines the brief reports per mode, bounded by the contract. */
export function hypothesisSummary(hypotheses: readonly Hypothesis[]): NonNullable<LocalCausalBriefV1['hypotheses']> {
  const shown = [...hypotheses.filter((h) => h.verdict !== 'refuted'), ...hypotheses.filter((h) => h.verdict === 'refuted')];
  return shown.map((h) => ({
    mode: h.mode.id,
    verdict: h.verdict,
    score: Math.round(Math.max(0, Math.min(1, h.score)) * 1000) / 1000,
    explainedBy: h.explainedBy,
    evidence: h.verdict === 'undetermined' ? h.missing : h.deciding,
  }));
}

/** "Ruled out X: <line>" for the lead's look-alikes (and any other refuted mode the scenario named). */
export function ruledOut(lead: Hypothesis, hypotheses: readonly Hypothesis[]): string[] {
  const looks = new Map(lead.mode.lookAlikes.map((l) => [l.mode, l.tell]));
  return hypotheses
    .filter((h) => h !== lead && looks.has(h.mode.id) && (h.verdict === 'refuted' || h.explainedBy === lead.mode.id))
    .map((h) =>
      h.explainedBy === lead.mode.id
        ? `${capital(h.mode.name)} is an effect of the ${lead.mode.name}, not a separate cause: ${h.deciding[0] ?? ''}.`
        : `Ruled out ${h.mode.name}: ${h.deciding[0] ?? looks.get(h.mode.id)}.`,
    );
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What would settle the modes left open. */
export function toSettle(hypotheses: readonly Hypothesis[]): string[] {
  return hypotheses
    .filter((h) => h.verdict === 'undetermined')
    .slice(0, 4)
    .map((h) => `${h.mode.name} not tested: ${h.missing[0] ?? 'its evidence was not available'}; it would be settled by ${h.mode.confirmsWith}`);
}

/** Says what shows the incident is over: the families back at their usual level, or findings that stopped. */
export function recoveryText(lead: Pick<Hypothesis, 'recovered' | 'recoveredFamilies'>): string {
  if (!lead.recovered) return '';
  const names = lead.recoveredFamilies.map((f) => familyLabel(f));
  const what =
    names.length === 0
      ? 'None of it was seen in the last minutes of the window'
      : names.length === 1
        ? `${capital(names[0])} was back near its usual level by the end of the window`
        : `${capital(names.slice(0, -1).join(', '))} and ${names[names.length - 1]} were back near their usual levels by the end of the window`;
  return ` ${what}: the incident has recovered and is not active now.`;
}

export function leadStatement(lead: Hypothesis): string {
  const when = clock(lead.at);
  const state = recoveryText(lead);
  const since = when && !lead.deciding.some((d) => d.includes(when)) ? ` (from about ${when})` : '';
  return `${lead.mode.headline}${since}: ${lead.deciding.join('; ')}.${state}`;
}

/**
 * The lead's own per-family lines first; then what the provider observed on other channels
 * (statements, log lines), whose text names no measured series. Without a line of its own the
 * provider's observations stand as they are.
 */
function observationsFor(outcome: HypothesisOutcome & { lead: Hypothesis }, provided: readonly string[]): string[] {
  const own = leadObservations(outcome.lead, outcome.context, outcome.asked);
  if (own.length === 0) return [...provided];
  const metrics = [...outcome.context.byFamily.values()].flat().map((st) => st.signal.metric);
  const other = provided.filter((o) => !metrics.some((m) => o.includes(m)));
  // Another channel's observation keeps one place when there is one.
  return [...own.slice(0, other.length > 0 ? MAX_OBSERVATIONS - 1 : MAX_OBSERVATIONS), ...other];
}

/** The brief of a thread whose lead mode is confirmed; the caller supplies the observations and what its other rules found. */
export function hypothesisBrief(outcome: HypothesisOutcome & { lead: Hypothesis }, parts: { observations: string[]; strongestAlternative: string; workloadAttribution: string | null; undetermined: string[] }): LocalCausalBriefV1 {
  const { lead, hypotheses } = outcome;
  const healthy = lead.mode.id === 'healthy';
  const ruled = ruledOut(lead, hypotheses);
  const settle = toSettle(hypotheses);
  const support = lead.support.map((s) => `${capital(s)}.`);
  return fitBrief({
    observations: observationsFor(outcome, parts.observations),
    counterObservations: [...ruled, ...(healthy ? [] : support)],
    leadingMechanism: {
      statement: healthy ? `${lead.mode.headline}: ${lead.deciding.join('; ')}.` : leadStatement(lead),
      strength: healthy ? 'strong' : lead.support.length > 0 && lead.deciding.length > 1 ? 'confirmed' : 'strong',
      openLink: healthy ? null : lead.mode.openQuestion,
      family: healthy ? null : lead.family,
      mode: lead.mode.id,
    },
    strongestAlternative: lead.mode.lookAlikes[0]?.tell ?? parts.strongestAlternative,
    workloadAttribution: parts.workloadAttribution,
    mitigationOrHandoff: lead.mode.mitigation,
    severity: healthy ? 'info' : lead.recovered ? 'medium' : 'high',
    undetermined: [...settle, ...parts.undetermined],
    hypotheses: hypothesisSummary(hypotheses),
  });
}

/** Families of the missing channels, in words, for a brief that could not confirm any mode. */
export function missingEvidence(outcome: HypothesisOutcome): string[] {
  const channels = [...outcome.context.notConfigured].map((c) => `${c === 'logs' ? 'the database log' : c === 'statements' ? 'statement statistics' : c} is not configured for this target, so the modes it would confirm stay untested`);
  const families = outcome.hypotheses
    .filter((h) => h.verdict === 'undetermined')
    .flatMap((h) => h.mode.evidence.families.filter((f) => !outcome.context.byFamily.has(f)))
    .filter((f, i, all) => all.indexOf(f) === i)
    .slice(0, 4)
    .map((f) => `no ${familyLabel(f)} data for this target`);
  return [...channels, ...families];
}
