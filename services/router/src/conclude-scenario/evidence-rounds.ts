import { createHash } from 'node:crypto';
import type { EvidenceBatchMaterializedV1 } from '@aoc/contracts';
import type { EvidenceRecord, EvidenceRound, ScenarioThreadEntity } from '../persistence/scenario-thread.entity';
import type { DiagnosticInputV1 } from './diagnostic.agent';
import { OPEN_HYPOTHESES_KIND } from './hypotheses/open-evidence';
import { MECHANISM_RULES_VERSION } from './mechanism-rules';
import { REFINEMENT_RULES, REFINEMENT_RULES_VERSION } from './refinement-rules';

/** Evidence request id of a thread's round; hashed when a long run id would pass the contract's 96 characters. */
export function evidenceRequestId(runId: string, scenarioId: string, round: number): string {
  const plain = `${runId}:${scenarioId}:${round}`;
  return plain.length <= 96 ? plain : `rq-${createHash('sha256').update(`${runId}\n${scenarioId}`).digest('hex').slice(0, 40)}:${round}`;
}

/** The compact part of a materialised batch the diagnostic agent keeps in its thread. */
export function toRound(batch: EvidenceBatchMaterializedV1, round: number, question: string): EvidenceRound {
  return {
    round,
    batchId: batch.batchId,
    status: batch.status,
    question,
    facts: batch.facts,
    observations: batch.handoff.observations,
    gaps: batch.handoff.gaps,
    failures: batch.failures.map((f) => ({ queryId: f.queryId, code: f.code, supplemental: f.supplemental })),
  };
}

/** Execution state over all rounds of a thread (feeds run.execution-recorded only). */
export function mergeRecord(previous: EvidenceRecord | null, batch: EvidenceBatchMaterializedV1): EvidenceRecord {
  const failures = batch.failures.map((f) => ({ queryId: f.queryId, code: f.code, supplemental: f.supplemental }));
  if (!previous) return { provider: batch.provider, queries: batch.queries, failures, execution: batch.execution };
  const empty = { queryEvents: [], httpAttempts: [], systemEvents: [], toolCalls: [] };
  const a = previous.execution ?? empty;
  return {
    provider: previous.provider,
    queries: [...previous.queries, ...batch.queries],
    failures: [...previous.failures, ...failures],
    execution: {
      queryEvents: [...a.queryEvents, ...batch.execution.queryEvents],
      httpAttempts: [...a.httpAttempts, ...batch.execution.httpAttempts],
      systemEvents: [...a.systemEvents, ...batch.execution.systemEvents],
      toolCalls: [...(a.toolCalls ?? []), ...batch.execution.toolCalls],
    },
  };
}

/**
 * Scenario evidence status over its rounds: complete only when every round was, and `no_data`
 * when the provider answered every query with no series: that is degraded evidence, never a
 * complete one and never a failure to retrieve.
 */
export function scenarioStatus(rounds: readonly EvidenceRound[], record: EvidenceRecord | null): string {
  const status = combinedStatus(rounds);
  const primary = (record?.queries ?? []).filter((q) => !(record?.failures ?? []).some((f) => f.queryId === q.queryId && f.supplemental));
  return status === 'complete' && primary.length > 0 && primary.every((q) => q.outcome === 'empty') ? 'no_data' : status;
}

/** An open-hypotheses round that planned nothing (the target has none of the series it named): it added nothing and degrades nothing. */
const idleOpenRound = (r: Pick<EvidenceRound, 'round' | 'status' | 'question'>) => r.round > 0 && r.status === 'not_executed' && !REFINEMENT_RULES.some((rule) => rule.question === r.question);

/** Status over rounds alone: complete only when every round was. */
export function combinedStatus(rounds: readonly EvidenceRound[]): string {
  const statuses = rounds.filter((r) => !idleOpenRound(r)).map((r) => r.status);
  if (statuses.length === 0) return 'failed';
  if (statuses.every((s) => s === 'complete')) return 'complete';
  if (statuses.every((s) => s === statuses[0])) return statuses[0];
  return statuses.some((s) => s === 'complete' || s === 'partial') ? 'partial' : 'failed';
}

export function diagnosticInput(thread: ScenarioThreadEntity, rounds: EvidenceRound[]): DiagnosticInputV1 {
  return {
    scenario: thread.scenario,
    hypothesis: thread.hypothesis,
    strongestAlternative: thread.strongestAlternative,
    window: thread.window ?? { from: new Date(0).toISOString(), to: new Date(1).toISOString() },
    reportedOnset: thread.reportedOnset ? new Date(thread.reportedOnset).toISOString() : null,
    round: thread.round,
    refinementAvailable: thread.round === 0 && thread.provider !== 'none' && thread.window !== null,
    refinementKinds: [...new Set<string>([...REFINEMENT_RULES.filter((r) => r.scenario === thread.scenario).map((r) => r.kind), OPEN_HYPOTHESES_KIND])],
    rounds: rounds.map((r) => ({ round: r.round, status: r.status, question: r.question, facts: r.facts, observations: r.observations, gaps: r.gaps, failures: r.failures })),
    rulesVersion: `${MECHANISM_RULES_VERSION}+${REFINEMENT_RULES_VERSION}`,
  };
}
