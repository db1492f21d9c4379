import { createHash } from 'node:crypto';
import { EvidenceBatchMaterializedV1, MAX_TOOL_CALLS_PER_BATCH, QueryFailureV1, ToolCallAuditV1, maxItemsOf, maxLengthOf, type EvidenceBatchPlannedV1 } from '@aoc/contracts';
import type { AuditRecord, HttpCallRecord, QueryEvidence } from '@aoc/providers';
import type { RecordingEntry } from '../evidence-recordings/evidence-recording';
import { recordsIn, type RecordingPolicy } from '../evidence-recordings/recording-policy';
import type { ExecutorOptions } from '../providers/executor-options';
import type { ProviderRegistry } from '../providers/provider-registry';
import { materializeFacts } from './materialize-facts';
import { isAuthStop, liveEvidence, recordingsOf, replayEvidence, type Gathered, type PlannedQuery, type RecordingStore } from './run-queries';

export type { RecordingStore } from './run-queries';

export interface PriorAttempt {
  queryId: string;
  expressionHash: string;
  attempt: number;
  outcome: string;
  errorCode: string | null;
  detailError: string | null;
}

export interface ExecutionDeps {
  registry: ProviderRegistry;
  mode: ExecutorOptions['mode'];
  recordings: RecordingStore;
  /** Whether live results are kept for replay (on with the defaults when absent). */
  recording?: RecordingPolicy;
  /** Attempts already made for the same evidence request (correction batches). */
  priorAttempts: readonly PriorAttempt[];
  now?: () => Date;
}

export interface AttemptRow {
  queryId: string;
  expressionHash: string;
  attempt: number;
  outcome: 'complete' | 'empty' | 'failed' | 'skipped';
  errorCode: string | null;
  detailError: string | null;
  folded: boolean;
}

export interface ExecutionOutcome {
  materialized: EvidenceBatchMaterializedV1;
  attempts: AttemptRow[];
  /** Sanitised results to keep for replay (live and record modes, unless recording is off). */
  newRecordings: RecordingEntry[];
  httpRecords: { queryId: string; record: HttpCallRecord }[];
}

export function expressionHash(operation: string, expression: string): string {
  return createHash('sha256').update(`${operation}\n${expression.trim().replace(/\s+/g, ' ')}`).digest('hex').slice(0, 32);
}

// Limits of the materialised batch, read from its schema.
const M = EvidenceBatchMaterializedV1.shape;
const EXECUTION = M.execution.unwrap().shape;
const GAP_CHARS = maxLengthOf(M.handoff.shape.gaps.element);
const DETAIL_CHARS = maxLengthOf(QueryFailureV1.shape.detail);
const A = ToolCallAuditV1.shape;

type Materialized = EvidenceBatchMaterializedV1;
type Base = Pick<Materialized, 'runId' | 'scenarioId' | 'requestId' | 'batchId' | 'provider' | 'window'>;
const NO_EXECUTION: Materialized['execution'] = { queryEvents: [], httpAttempts: [], systemEvents: [], toolCalls: [] };

/** A batch with no queries: nothing ran, and the planner's notes say why. */
function emptyPlan(base: Base, plan: EvidenceBatchPlannedV1): ExecutionOutcome {
  const gaps = [(plan.plannerNotes || 'The plan contained no queries.').slice(0, GAP_CHARS)];
  return { materialized: { ...base, status: 'not_executed', queries: [], facts: [], handoff: { observations: [], gaps }, failures: [], execution: NO_EXECUTION }, attempts: [], newRecordings: [], httpRecords: [] };
}

/** A provider this deployment has no connector for: every query skipped, with the reason. */
function notConfigured(base: Base, plan: EvidenceBatchPlannedV1): ExecutionOutcome {
  const detail = `provider ${plan.provider} has no connector configured in this deployment`;
  const n = plan.queries.length;
  const gap = `No connector for provider "${plan.provider}" is configured in this deployment; ${n} planned quer${n === 1 ? 'y was' : 'ies were'} not executed.`;
  return {
    materialized: {
      ...base,
      status: 'not_executed',
      queries: plan.queries.map((q) => ({ queryId: q.id, outcome: 'skipped', attempts: 0 })),
      facts: [],
      handoff: { observations: [], gaps: [gap] },
      failures: plan.queries.map((q) => ({ queryId: q.id, code: 'PROVIDER.NOT_CONFIGURED', detail, supplemental: false })),
      execution: NO_EXECUTION,
    },
    attempts: plan.queries.map((q) => ({ queryId: q.id, expressionHash: expressionHash(q.operation, q.expression), attempt: 1, outcome: 'skipped', errorCode: 'PROVIDER.NOT_CONFIGURED', detailError: detail, folded: false })),
    newRecordings: [],
    httpRecords: [],
  };
}

/**
 * Queries folded into an earlier attempt: an unchanged entry that already failed for this
 * request is not re-run, so the first error and the peers' evidence stay as they were.
 */
function foldedQueries(plan: EvidenceBatchPlannedV1, priorAttempts: readonly PriorAttempt[]): Map<string, PriorAttempt[]> {
  const folded = new Map<string, PriorAttempt[]>();
  for (const q of plan.queries) {
    const hash = expressionHash(q.operation, q.expression);
    const prior = priorAttempts.filter((p) => p.queryId === q.id && p.expressionHash === hash);
    if (prior.length > 0 && prior.every((p) => p.outcome === 'failed' || p.outcome === 'skipped')) folded.set(q.id, prior);
  }
  return folded;
}

/** Per query in plan order: its attempt row, its query entry, its failure (if any) and the evidence facts are made from. */
interface QueryRows {
  attempts: AttemptRow[];
  queries: Materialized['queries'];
  failures: Materialized['failures'];
  ordered: QueryEvidence[];
}

function foldedRow(rows: QueryRows, q: PlannedQuery, hash: string, prior: readonly PriorAttempt[]): void {
  const first = prior[0];
  const attempt = Math.max(...prior.map((p) => p.attempt)) + 1;
  const code = first.errorCode ?? 'PROVIDER.FAILED';
  rows.attempts.push({ queryId: q.id, expressionHash: hash, attempt, outcome: 'failed', errorCode: first.errorCode, detailError: first.detailError, folded: true });
  rows.queries.push({ queryId: q.id, outcome: 'failed', attempts: attempt });
  rows.failures.push({ queryId: q.id, code, detail: `unchanged retry folded into the first attempt: ${first.detailError ?? 'failed'}`.slice(0, DETAIL_CHARS), supplemental: false });
  rows.ordered.push({ id: q.id, status: 'failed', error_code: code, detail_error: first.detailError ?? undefined });
}

function ranRow(rows: QueryRows, q: PlannedQuery, hash: string, e: QueryEvidence): void {
  rows.attempts.push({ queryId: q.id, expressionHash: hash, attempt: 1, outcome: e.status, errorCode: e.error_code ?? null, detailError: e.detail_error ?? null, folded: false });
  rows.queries.push({ queryId: q.id, outcome: e.status, attempts: 1 });
  if (e.status === 'failed') rows.failures.push({ queryId: q.id, code: e.error_code ?? 'PROVIDER.FAILED', detail: (e.detail_error ?? '').slice(0, DETAIL_CHARS), supplemental: e.supplemental ?? false });
  rows.ordered.push(e);
}

function queryRows(plan: EvidenceBatchPlannedV1, folded: ReadonlyMap<string, PriorAttempt[]>, evidence: ReadonlyMap<string, QueryEvidence>): QueryRows {
  const rows: QueryRows = { attempts: [], queries: [], failures: [], ordered: [] };
  for (const q of plan.queries) {
    const hash = expressionHash(q.operation, q.expression);
    const prior = folded.get(q.id);
    if (prior) foldedRow(rows, q, hash, prior);
    else ranRow(rows, q, hash, evidence.get(q.id) ?? { id: q.id, status: 'failed', error_code: 'PROVIDER.BUDGET_EXHAUSTED', detail_error: 'query did not run' });
  }
  return rows;
}

/** Complete, partial or failed, from the primary (non-supplemental) queries; an authentication stop fails it. */
function batchStatus(rows: QueryRows, authFailed: boolean): Materialized['status'] {
  const primary = rows.queries.filter((q) => !rows.failures.some((f) => f.queryId === q.queryId && f.supplemental));
  const primaryFailed = primary.filter((q) => q.outcome === 'failed').length;
  if (authFailed) return 'failed';
  return primaryFailed === 0 ? 'complete' : primaryFailed === primary.length ? 'failed' : 'partial';
}

const auditOf = (r: AuditRecord): ToolCallAuditV1 => ({
  callId: r.callId.slice(0, maxLengthOf(A.callId)),
  tool: r.tool.slice(0, maxLengthOf(A.tool)),
  operations: r.operations.slice(0, maxItemsOf(A.operations)),
  target: r.target,
  window: r.window,
  outcome: r.outcome,
  errorCode: r.errorCode ? r.errorCode.slice(0, maxLengthOf(A.errorCode)) : null,
  durationMs: Math.max(0, Math.round(r.durationMs)),
  outputBytes: r.outputBytes,
  startedAt: r.startedAt,
});

/** The execution state run.execution-recorded carries (the diagnosis never reasons over it). */
function executionOf(rows: QueryRows, gathered: Gathered, stamp: string): Materialized['execution'] {
  const supplemental = (queryId: string) => rows.failures.some((f) => f.queryId === queryId && f.supplemental);
  const { httpRecords, toolCalls } = gathered;
  return {
    queryEvents: rows.queries.filter((q) => q.outcome !== 'skipped').map((q) => ({ queryId: q.queryId, outcome: q.outcome as 'complete' | 'empty' | 'failed', supplemental: supplemental(q.queryId), at: stamp })),
    httpAttempts: httpRecords.flatMap((r) => r.record.attempts.map((a) => ({ queryId: r.queryId, statusClass: a.statusClass, at: a.at }))).slice(0, maxItemsOf(EXECUTION.httpAttempts)),
    systemEvents: httpRecords
      .filter((r) => r.record.systemEvent)
      .map((r) => ({ queryId: r.queryId, ...(r.record.systemEvent as NonNullable<HttpCallRecord['systemEvent']>), at: r.record.attempts[0]?.at ?? stamp }))
      .slice(0, maxItemsOf(EXECUTION.systemEvents)),
    toolCalls: toolCalls.slice(0, MAX_TOOL_CALLS_PER_BATCH).map(auditOf),
  };
}

/** The materialised batch: facts, the handoff (with the planner's notes as gaps) and the execution state. */
function materialize(base: Base, plan: EvidenceBatchPlannedV1, rows: QueryRows, gathered: Gathered, stamp: string): Materialized {
  const authFailed = [...gathered.evidence.values()].some((e) => isAuthStop(e.error_code));
  const { facts, observations, gaps } = materializeFacts(plan.queries, rows.ordered);
  const stopped = authFailed ? ["Provider authentication failed or did not finish in time; this scenario's evidence pipeline stopped."] : [];
  // The planner's own notes (what it could not cover) are gaps the diagnostic agent must see.
  const notes = plan.plannerNotes ? [plan.plannerNotes.slice(0, GAP_CHARS)] : [];
  return {
    ...base,
    status: batchStatus(rows, authFailed),
    queries: rows.queries,
    facts,
    handoff: { observations, gaps: [...stopped, ...notes, ...gaps].slice(0, maxItemsOf(M.handoff.shape.gaps)) },
    failures: rows.failures.slice(0, maxItemsOf(M.failures)),
    execution: executionOf(rows, gathered, stamp),
  };
}

/**
 * The Provider Executor's deterministic step: validate-and-run through the package (or replay
 * recorded results), fold unchanged duplicate attempts, and materialise compact facts.
 */
export async function executePlan(plan: EvidenceBatchPlannedV1, deps: ExecutionDeps): Promise<ExecutionOutcome> {
  const now = deps.now ?? (() => new Date());
  const base: Base = { runId: plan.runId, scenarioId: plan.scenarioId, requestId: plan.requestId, batchId: plan.batchId, provider: plan.provider, window: plan.window };
  if (plan.queries.length === 0) return emptyPlan(base, plan);
  const pkg = deps.mode === 'replay' ? undefined : deps.registry.get(plan.provider);
  if (deps.mode !== 'replay' && !pkg) return notConfigured(base, plan);
  const folded = foldedQueries(plan, deps.priorAttempts);
  const toRun = plan.queries.filter((q) => !folded.has(q.id));
  const gathered: Gathered =
    deps.mode === 'replay' ? await replayEvidence(plan, toRun, deps.recordings) : pkg && toRun.length > 0 ? await liveEvidence(plan, toRun, pkg) : { evidence: new Map(), httpRecords: [], toolCalls: [] };
  const live = deps.mode !== 'replay' && pkg !== undefined && toRun.length > 0;
  const newRecordings = live && recordsIn(deps.mode, deps.recording) ? recordingsOf(plan, toRun, gathered.evidence) : [];
  const rows = queryRows(plan, folded, gathered.evidence);
  return { materialized: materialize(base, plan, rows, gathered, now().toISOString()), attempts: rows.attempts, newRecordings, httpRecords: gathered.httpRecords };
}
