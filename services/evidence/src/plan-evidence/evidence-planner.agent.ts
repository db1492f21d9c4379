import { BuiltinRegistry, createAgentRuntime, type AgentRuntime, type Instructions, type ModelPort } from '@aoc/agent-runtime';
import type { EvidenceBatchPlannedV1, EvidenceRequestedV1, PlannedQueryV1 } from '@aoc/contracts';
import { AocError, errorCodeOf } from '@aoc/errors';
import { BUILTIN_PLANNER_MODEL, EvidencePlanInputV1, EvidencePlanOutputV1, builtinPlan, type DraftQuery } from './plan-evidence';
import type { PlanningCatalogV1 } from './planning-catalog';
import { validatePlan, type PlanError } from './plan-validator';
import { QUERY_TEMPLATES_VERSION } from './query-templates';

/** Injection token of the Evidence Agent's model port. */
export const EVIDENCE_MODEL = Symbol('EVIDENCE_MODEL');

export const EVIDENCE_PLANNER_INSTRUCTIONS: Instructions = {
  id: 'evidence.plan-batch',
  version: '2026-12-01.2',
  text: [
    'You plan one bounded, read-only evidence batch for a database support investigation. The input holds one neutral',
    'question, its observable stop condition, the provider, the frozen target and the absolute window. Plan at most 12',
    'queries that answer the question, each with a unique lower-case slug id, an operation the provider serves, the',
    'expression (PromQL for promql_* operations, a single read-only SELECT for sql, JSON parameters for the others), a',
    'short neutral purpose, and window/stepSeconds set to null unless a narrower window inside the frozen one is needed.',
    'When "catalog" is present it lists the metric names the provider actually holds for the target in the window, each with',
    'its ontology family, kind (counter/gauge/histogram), suggested aggregation and label keys: plan only names from it,',
    'rate() counters, histogram_quantile() histogram buckets, and bind every selector with catalog.targetLabel="<target>".',
    'catalog.operations lists what else the target offers: sql (one SELECT over PostgreSQL statistics views such as',
    'pg_stat_activity, pg_locks with pg_blocking_pids, pg_stat_replication, pg_settings, pg_stat_statements; it reads the',
    'current state, not the window) and logs (one LogQL log query, no metric function, whose stream selector carries',
    '{catalog.logsLabel="<target>"}); plan them only when listed.',
    'Without a catalog, bind every PromQL selector to cluster="<target>". Never plan writes, never change the target or the window, and',
    'do not judge causes, severity or who should act. When "rewrite" is present, the previous plan failed validation with',
    'the listed codes: fix only the structure of the rejected queries (or drop them); keep the objective, target and window.',
    'Put anything you could not cover in plannerNotes.',
  ].join('\n'),
};

export function registerBuiltinPlanner(registry: BuiltinRegistry): BuiltinRegistry {
  return registry.register({
    role: 'evidence',
    instructionsId: EVIDENCE_PLANNER_INSTRUCTIONS.id,
    model: BUILTIN_PLANNER_MODEL,
    run: (input) => builtinPlan(EvidencePlanInputV1.parse(input)),
  });
}

/** The Evidence Agent's model port (built-in templates by default; `AOC_MODEL_ENGINE_EVIDENCE=openai` switches). */
export function createEvidenceModel(env: Record<string, string | undefined> = process.env): AgentRuntime {
  return createAgentRuntime({ env, roles: ['evidence'], builtin: registerBuiltinPlanner(new BuiltinRegistry()) });
}

const toPlanned = (q: DraftQuery): unknown => ({
  id: q.id,
  operation: q.operation,
  expression: q.expression,
  purpose: q.purpose,
  ...(q.window ? { window: q.window } : {}),
  ...(q.stepSeconds !== null ? { stepSeconds: q.stepSeconds } : {}),
});

const describeErrors = (errors: readonly PlanError[]) =>
  errors
    .slice(0, 4)
    .map((e) => `${e.code} at ${e.field}`)
    .join('; ');

/** The request as the planner model sees it: without the ticket key. */
function neutralRequest(request: EvidenceRequestedV1): EvidencePlanInputV1['request'] {
  const { ticketKey: _ticketKey, ...neutral } = request;
  return neutral;
}

/**
 * One evidence round of the Evidence Agent: plan, validate deterministically, and on a
 * structural error allow exactly one rewrite in the same round (same objective, target and
 * window) before anything runs. A second invalid plan ends the round with the original error;
 * a model that produces nothing usable ends it with the model's error code. Either way a
 * batch is published, so the scenario never waits for an answer that will not come.
 */
export async function planEvidenceRound(model: ModelPort, request: EvidenceRequestedV1, catalog: PlanningCatalogV1 | null = null): Promise<EvidenceBatchPlannedV1> {
  const ask = async (rewrite: EvidencePlanInputV1['rewrite']) =>
    (
      await model.invoke({
        role: 'evidence',
        instructions: EVIDENCE_PLANNER_INSTRUCTIONS,
        input: { request: neutralRequest(request), templatesVersion: QUERY_TEMPLATES_VERSION, catalog, rewrite } satisfies EvidencePlanInputV1,
        output: EvidencePlanOutputV1,
      })
    ).output;
  const base = { runId: request.runId, ticketKey: request.ticketKey, scenarioId: request.scenarioId, requestId: request.requestId, provider: request.provider, target: request.target, window: request.window };
  const plan = (revision: 0 | 1, queries: PlannedQueryV1[], notes: string): EvidenceBatchPlannedV1 => ({ ...base, batchId: `${request.requestId}:b${revision}`, planRevision: revision, queries, plannerNotes: notes.slice(0, 1000) });
  let first: EvidencePlanOutputV1;
  try {
    first = await ask(null);
  } catch (error) {
    if (error instanceof AocError && error.retryable) throw error;
    return plan(0, [], `The evidence planner produced no usable plan (${errorCodeOf(error, 'MODEL.UNEXPECTED')}); nothing was queried.`);
  }
  const checks = { targetLabel: catalog?.targetLabel ?? null, logsLabel: catalog?.logsLabel ?? null, operations: catalog?.operations ?? null };
  const checked = validatePlan(request, first.queries.map(toPlanned), checks);
  if (checked.errors.length === 0) return plan(0, checked.queries, first.plannerNotes);
  let second: EvidencePlanOutputV1;
  try {
    second = await ask({ previousQueries: first.queries, errors: checked.errors });
  } catch (error) {
    if (error instanceof AocError && error.retryable) throw error;
    return plan(1, [], `The plan failed validation (${describeErrors(checked.errors)}) and the rewrite produced no usable plan; nothing was queried.`);
  }
  const rechecked = validatePlan(request, second.queries.map(toPlanned), checks);
  if (rechecked.errors.length > 0) {
    return plan(1, [], `The plan failed validation twice; ending this round with the original error: ${describeErrors(checked.errors)}.`);
  }
  return plan(1, rechecked.queries, second.plannerNotes);
}
