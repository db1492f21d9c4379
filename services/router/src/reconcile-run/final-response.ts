import { formatLeadingMechanism } from '@aoc/answers';
import type { Decision, LocalCausalBriefV1, RunExecutionRecordedV1 } from '@aoc/contracts';
import type { Targeting } from '../persistence/run.entity';
import type { EvidenceRecord } from '../persistence/scenario-thread.entity';
import { failureMode } from '../conclude-scenario/hypotheses/failure-modes.data';
import { rankBriefs, strengthRank } from './rank-briefs';

export interface ConcludedScenario {
  scenarioId: string;
  scenario: string;
  provider: string;
  target: string | null;
  evidenceStatus: string | null;
  brief: LocalCausalBriefV1;
}

export interface TicketDiagnosis {
  primary: ConcludedScenario | null;
  alternatives: string[];
  observations: string[];
  undetermined: string[];
  determined: boolean;
  /** Strong mechanism with no open link. */
  confident: boolean;
  /** The leading finding is that the database was healthy. */
  healthy: boolean;
  needsCustomerContext: string[];
}


const MAX_NAMED = 5;

/** The one detail the customer is asked for when no single target could be used. */
export function targetRequest(targeting: Targeting | null): string {
  if (targeting && targeting.candidates.length > 1) return `which of these is the affected cluster or instance: ${targeting.candidates.slice(0, MAX_NAMED).join(', ')}`;
  if (targeting && targeting.tried.length > 0) return `the exact name of the affected cluster or instance (we found none of ${targeting.tried.slice(0, MAX_NAMED).join(', ')} among the targets we monitor)`;
  return 'the ID of the affected cluster';
}

/** A confirmed failure mode whose next step is the customer's own: the answer needs no human before it goes out. */
function customersMove(mode: string | null): boolean {
  return mode !== null && failureMode(mode)?.nextStep === 'customer';
}

/** Router reconciliation: one ticket-level diagnosis from the local briefs. */
export function reconcile(scenarios: ConcludedScenario[], targeting: Targeting | null = null, title = ''): TicketDiagnosis {
  const ranked = rankBriefs(scenarios, title);
  const primary = ranked[0] ?? null;
  const dedupe = (items: string[]) => [...new Set(items)];
  const determined = primary !== null && strengthRank(primary.brief) >= 2;
  const needsCustomerContext = scenarios.some((s) => s.target === null) ? [targetRequest(targeting), 'when the problem started (with time zone)'] : [];
  const lead = primary?.brief.leadingMechanism;
  return {
    confident: lead !== undefined && (lead.strength === 'strong' || lead.strength === 'confirmed') && (lead.openLink === null || customersMove(lead.mode)),
    healthy: primary?.brief.severity === 'info' && lead?.strength === 'strong',
    primary,
    alternatives: dedupe(ranked.map((s) => s.brief.strongestAlternative)),
    observations: dedupe(ranked.flatMap((s) => s.brief.observations)).slice(0, 6),
    undetermined: dedupe(ranked.flatMap((s) => s.brief.undetermined)).slice(0, 8),
    determined,
    needsCustomerContext,
  };
}

export interface FinalResponse {
  customerReplyMarkdown: string;
  internalHandoffMarkdown: string;
  decision: Decision;
  clarificationSimulation: { required: boolean; requestedContext: string[] };
}

export type PublicationDecision = Pick<FinalResponse, 'decision' | 'clarificationSimulation'>;

/**
 * The router's typed decision: a reply that asks the customer anything needs a human and carries
 * the focused request; otherwise only a strong, fully linked mechanism (or a clean bill of health)
 * goes out without one.
 */
export function decidePublication(diagnosis: TicketDiagnosis): PublicationDecision {
  if (diagnosis.needsCustomerContext.length > 0) return { decision: 'human_required', clarificationSimulation: { required: true, requestedContext: diagnosis.needsCustomerContext } };
  return { decision: diagnosis.confident ? 'internal_only' : 'human_required', clarificationSimulation: { required: false, requestedContext: [] } };
}

/**
 * What the customer reads when no observation was materialised: "no data" when the provider
 * answered with no series, "could not be retrieved" only when it failed to answer.
 */
export function noEvidenceSentence(scenarios: readonly ConcludedScenario[]): string {
  if (scenarios.some((s) => s.evidenceStatus === 'no_data')) {
    return 'The monitoring data source answered, but it holds no data for this cluster in the reported window for what we looked at, so we cannot confirm a cause from metrics.';
  }
  if (scenarios.some((s) => s.evidenceStatus === 'failed' || s.evidenceStatus === 'partial')) return 'We could not retrieve metrics for this cluster yet, so we cannot confirm a cause.';
  return 'We found no metric that bears on the reported problem for this cluster, so we cannot confirm a cause.';
}

/** Internal statistics vocabulary the customer reply leaves out: values, times and plain comparisons only. */
export function plainWords(text: string): string {
  return text
    .replace(/\s*\((?:highest\s+)?robust z[^)]*\)/gi, '')
    .replace(/;?\s*(?:highest\s+)?robust z\s*-?[\d.]+/gi, '')
    .replace(/\bbaseline median\b/gi, 'usual level')
    .replace(/\brecent median\b/gi, 'recent level')
    .replace(/\bMAD\b/g, 'spread')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** The look-alikes the lead's scenario ruled out, with the line that did it. */
export function ruledOutLines(brief: LocalCausalBriefV1): string[] {
  return brief.counterObservations.filter((c) => c.startsWith('Ruled out') || c.includes('not a separate cause'));
}

/** "connection-exhaustion confirmed; lock-contention not tested; cpu-load ruled out" for the handoff. */
export function modesTested(brief: LocalCausalBriefV1): string {
  const words = { confirmed: 'confirmed', refuted: 'ruled out', undetermined: 'not tested' } as const;
  return brief.hypotheses
    .slice(0, 8)
    .map((h) => `${h.mode} ${h.explainedBy ? `(an effect of ${h.explainedBy})` : words[h.verdict]}`)
    .join('; ');
}

/** Final Response: writes the two messages from the diagnosis and changes nothing in it. */
export function writeFinalResponse(title: string, diagnosis: TicketDiagnosis, scenarios: ConcludedScenario[]): FinalResponse {
  const list = (items: string[]) => items.map((i) => `- ${i}`).join('\n');
  const checked = scenarios.map((s) => s.scenario).join(', ');
  if (diagnosis.needsCustomerContext.length > 0) {
    return {
      customerReplyMarkdown: [
        `Thanks for reporting "${title}".`,
        '',
        'To look at the right cluster we need one detail from you:',
        list(diagnosis.needsCustomerContext),
        '',
        'Once we have it we will check the cluster metrics for the reported time.',
      ].join('\n'),
      internalHandoffMarkdown: [
        '**Evidence boundary:** no provider was queried; the ticket does not identify a usable target.',
        `**Scenarios considered:** ${checked}.`,
        '**Gap owner:** customer (target identification).',
        '**Next internal action:** wait for the cluster ID, then re-run the analysis.',
        '**Escalate if:** the customer reports impact on several clusters or data loss.',
      ].join('\n'),
      ...decidePublication(diagnosis),
    };
  }
  const target = scenarios.find((s) => s.target)?.target ?? 'the cluster';
  const customer = [
    `Thanks for reporting "${title}". We looked at ${target} for: ${checked}.`,
    '',
    diagnosis.observations.length > 0 ? `What the data shows:\n${list(diagnosis.observations.map(plainWords))}` : noEvidenceSentence(scenarios),
    '',
    diagnosis.determined && diagnosis.primary
      ? `${diagnosis.healthy ? 'What we found' : 'Most likely cause'}: ${plainWords(diagnosis.primary.brief.leadingMechanism.statement)}${ruledOutLines(diagnosis.primary.brief).length > 0 ? `\n\nWhat we ruled out:\n${list(ruledOutLines(diagnosis.primary.brief).map(plainWords))}` : ''}${diagnosis.primary.brief.leadingMechanism.openLink ? `\n\nStill to confirm: ${diagnosis.primary.brief.leadingMechanism.openLink}.` : ''}\n\nSuggested next step: ${diagnosis.primary.brief.mitigationOrHandoff}`
      : 'A support engineer is reviewing this and will follow up with findings.',
  ].join('\n');
  const internal = [
    `**Evidence boundary:** ${scenarios.map((s) => `${s.scenario} via ${s.provider} (${s.evidenceStatus ?? 'unknown'})`).join('; ')}.`,
    diagnosis.observations.length > 0 ? `**Observations:**\n${list(diagnosis.observations)}` : '**Observations:** none materialised.',
    `**Not determined:**\n${list(diagnosis.undetermined)}`,
    `**Alternatives still open:**\n${list(diagnosis.alternatives)}`,
    formatLeadingMechanism(diagnosis.primary?.brief.leadingMechanism.strength ?? 'undetermined', diagnosis.primary?.brief.leadingMechanism.statement ?? 'none'),
    ...(diagnosis.primary?.brief.leadingMechanism.openLink ? [`**Open link:** ${diagnosis.primary.brief.leadingMechanism.openLink}`] : []),
    ...(diagnosis.primary && diagnosis.primary.brief.hypotheses.length > 0 ? [`**Failure modes tested:** ${modesTested(diagnosis.primary.brief)}`] : []),
    ...(diagnosis.primary && ruledOutLines(diagnosis.primary.brief).length > 0 ? [`**Ruled out:**\n${list(ruledOutLines(diagnosis.primary.brief))}`] : []),
    `**Gap owner:** ${diagnosis.confident ? 'none' : diagnosis.determined ? 'Support (confirm the open link)' : 'Support (evidence acquisition)'}.`,
    `**Next internal action:** ${diagnosis.primary?.brief.mitigationOrHandoff ?? 'review the ticket manually'}`,
    '**Escalate if:** the symptom persists after the reported window or affects availability.',
  ].join('\n');
  return {
    customerReplyMarkdown: customer,
    internalHandoffMarkdown: internal,
    ...decidePublication(diagnosis),
  };
}

/** Execution state of the run for run.execution-recorded (never part of run.published). */
export function executionRecord(
  scenarios: ConcludedScenario[],
  records: EvidenceRecord[],
): Pick<RunExecutionRecordedV1, 'evidenceAcquisition' | 'failureCodes' | 'providerAttempts' | 'providerQueryEvents' | 'providerHttpAttempts' | 'providerSystemEvents' | 'providerToolCalls'> {
  const statuses = scenarios.map((s) => s.evidenceStatus);
  const providers = [...new Set(scenarios.map((s) => s.provider))].filter((p): p is 'clinic' | 'manus' | 'wetech' | 'prometheus' | 'none' => ['clinic', 'manus', 'wetech', 'prometheus', 'none'].includes(p));
  const status: RunExecutionRecordedV1['evidenceAcquisition']['status'] = providers.every((p) => p === 'none')
    ? 'not_attempted'
    : statuses.every((s) => s === 'complete')
      ? 'complete'
      : statuses.some((s) => s === 'complete' || s === 'partial' || s === 'no_data')
        ? 'degraded'
        : 'failed';
  const noData = statuses.includes('no_data') ? ['EVIDENCE.NO_DATA'] : [];
  const failureCodes = [...new Set([...noData, ...records.flatMap((r) => r.failures.filter((f) => !f.supplemental).map((f) => f.code))])];
  const providerAttempts = scenarios.flatMap((s, i) =>
    (records[i]?.queries ?? []).map((q) => ({
      scenarioId: s.scenarioId,
      queryId: q.queryId,
      attempt: Math.max(1, q.attempts),
      outcome: q.outcome as 'complete' | 'empty' | 'failed' | 'skipped',
      errorCode: (records[i]?.failures ?? []).find((f) => f.queryId === q.queryId)?.code ?? null,
    })),
  );
  const providerOf = (i: number) => providers.find((p) => p === scenarios[i].provider) ?? 'none';
  return {
    evidenceAcquisition: { status, capability: status === 'complete' ? 'full' : status === 'not_attempted' ? 'none' : 'partial', providers },
    failureCodes,
    providerAttempts,
    providerQueryEvents: scenarios.flatMap((s, i) => (records[i]?.execution?.queryEvents ?? []).map((e) => ({ scenarioId: s.scenarioId, provider: providerOf(i), ...e }))),
    providerHttpAttempts: scenarios.flatMap((s, i) => (records[i]?.execution?.httpAttempts ?? []).map((h) => ({ scenarioId: s.scenarioId, provider: providerOf(i), ...h }))),
    providerSystemEvents: scenarios.flatMap((s, i) => (records[i]?.execution?.systemEvents ?? []).map((e) => ({ scenarioId: s.scenarioId, provider: providerOf(i), ...e }))),
    providerToolCalls: scenarios.flatMap((s, i) => (records[i]?.execution?.toolCalls ?? []).map((c) => ({ scenarioId: s.scenarioId, provider: providerOf(i), ...c }))).slice(0, 200),
  };
}
