import type { EvidenceBatchMaterializedV1, EvidenceBatchPlannedV1 } from '@aoc/contracts';

/** Providers with a connector in this build. None yet: connectors arrive with the providers work. */
export const CONFIGURED_PROVIDERS: ReadonlySet<string> = new Set<string>();

/**
 * Deterministic execution step. Without a configured connector nothing is sent anywhere: every
 * query is reported as skipped with a bounded failure, and the handoff says what is missing.
 */
export function executeBatch(plan: EvidenceBatchPlannedV1, configured: ReadonlySet<string> = CONFIGURED_PROVIDERS): EvidenceBatchMaterializedV1 {
  const base = {
    runId: plan.runId,
    scenarioId: plan.scenarioId,
    requestId: plan.requestId,
    batchId: plan.batchId,
    provider: plan.provider,
    window: plan.window,
    facts: [],
    execution: { queryEvents: [], httpAttempts: [], systemEvents: [] },
  };
  if (plan.queries.length === 0) {
    return {
      ...base,
      status: 'not_executed',
      queries: [],
      handoff: { observations: [], gaps: [plan.plannerNotes || 'The plan contained no queries.'] },
      failures: [],
    };
  }
  if (!configured.has(plan.provider)) {
    return {
      ...base,
      status: 'not_executed',
      queries: plan.queries.map((q) => ({ queryId: q.id, outcome: 'skipped', attempts: 0 })),
      handoff: {
        observations: [],
        gaps: [`No connector for provider "${plan.provider}" is configured in this deployment; ${plan.queries.length} planned quer${plan.queries.length === 1 ? 'y was' : 'ies were'} not executed.`],
      },
      failures: plan.queries.map((q) => ({ queryId: q.id, code: 'PROVIDER.NOT_CONFIGURED', detail: `provider ${plan.provider} has no connector in this build`, supplemental: false })),
    };
  }
  throw new Error(`provider ${plan.provider} is marked configured but has no connector`);
}
