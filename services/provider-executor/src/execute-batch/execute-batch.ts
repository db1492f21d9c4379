import { createHash } from 'node:crypto';
import { MAX_TOOL_CALLS_PER_BATCH, type EvidenceBatchMaterializedV1, type EvidenceBatchPlannedV1, type ToolCallAuditV1 } from '@aoc/contracts';
import type { AuditRecord, HttpCallRecord, PlannedProviderQuery, QueryEvidence } from '@aoc/providers';
import { providerMetrics } from '@aoc/telemetry';
import { recordingEntry, recordingKey, type RecordingEntry } from '../evidence-recordings/evidence-recording';
import { recordsIn, type RecordingPolicy } from '../evidence-recordings/recording-policy';
import type { ExecutorOptions } from '../providers/executor-options';
import type { ProviderRegistry } from '../providers/provider-registry';
import { materializeFacts } from './materialize-facts';

export interface PriorAttempt {
  queryId: string;
  expressionHash: string;
  attempt: number;
  outcome: string;
  errorCode: string | null;
  detailError: string | null;
}

export interface RecordingStore {
  get(key: string): Promise<RecordingEntry | undefined>;
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

/**
 * The Provider Executor's deterministic step: validate-and-run through the package (or replay
 * recorded results), fold unchanged duplicate attempts, and materialise compact facts.
 */
export async function executePlan(plan: EvidenceBatchPlannedV1, deps: ExecutionDeps): Promise<ExecutionOutcome> {
  const now = deps.now ?? (() => new Date());
  const at = () => now().toISOString();
  const base = {
    runId: plan.runId,
    scenarioId: plan.scenarioId,
    requestId: plan.requestId,
    batchId: plan.batchId,
    provider: plan.provider,
    window: plan.window,
  };
  const empty = { queryEvents: [], httpAttempts: [], systemEvents: [], toolCalls: [] };
  if (plan.queries.length === 0) {
    return {
      materialized: { ...base, status: 'not_executed', queries: [], facts: [], handoff: { observations: [], gaps: [(plan.plannerNotes || 'The plan contained no queries.').slice(0, 500)] }, failures: [], execution: empty },
      attempts: [],
      newRecordings: [],
      httpRecords: [],
    };
  }
  const pkg = deps.mode === 'replay' ? undefined : deps.registry.get(plan.provider);
  if (deps.mode !== 'replay' && !pkg) {
    const detail = `provider ${plan.provider} has no connector configured in this deployment`;
    return {
      materialized: {
        ...base,
        status: 'not_executed',
        queries: plan.queries.map((q) => ({ queryId: q.id, outcome: 'skipped', attempts: 0 })),
        facts: [],
        handoff: { observations: [], gaps: [`No connector for provider "${plan.provider}" is configured in this deployment; ${plan.queries.length} planned quer${plan.queries.length === 1 ? 'y was' : 'ies were'} not executed.`] },
        failures: plan.queries.map((q) => ({ queryId: q.id, code: 'PROVIDER.NOT_CONFIGURED', detail, supplemental: false })),
        execution: empty,
      },
      attempts: plan.queries.map((q) => ({ queryId: q.id, expressionHash: expressionHash(q.operation, q.expression), attempt: 1, outcome: 'skipped', errorCode: 'PROVIDER.NOT_CONFIGURED', detailError: detail, folded: false })),
      newRecordings: [],
      httpRecords: [],
    };
  }

  // An unchanged entry that already failed for this request is folded, not re-run: the first
  // error and the peers' evidence stay as they were.
  const folded = new Map<string, PriorAttempt[]>();
  for (const q of plan.queries) {
    const hash = expressionHash(q.operation, q.expression);
    const prior = deps.priorAttempts.filter((p) => p.queryId === q.id && p.expressionHash === hash);
    if (prior.length > 0 && prior.every((p) => p.outcome === 'failed' || p.outcome === 'skipped')) folded.set(q.id, prior);
  }
  const toRun = plan.queries.filter((q) => !folded.has(q.id));
  const windowOf = (q: EvidenceBatchPlannedV1['queries'][number]) => q.window ?? plan.window;
  const target = plan.target ?? '';
  const evidence = new Map<string, QueryEvidence>();
  const httpRecords: { queryId: string; record: HttpCallRecord }[] = [];
  const toolCalls: AuditRecord[] = [];
  const newRecordings: RecordingEntry[] = [];

  if (deps.mode === 'replay') {
    for (const q of toRun) {
      const key = recordingKey({ provider: plan.provider, target, operation: q.operation, expression: q.expression, window: windowOf(q), stepSeconds: q.stepSeconds ?? null });
      const hit = await deps.recordings.get(key);
      evidence.set(
        q.id,
        hit ? { ...hit.evidence, id: q.id } : { id: q.id, status: 'failed', error_code: 'PROVIDER.REPLAY_MISS', detail_error: 'no recorded evidence exists for this exact query, target and window' },
      );
    }
  } else if (pkg && toRun.length > 0) {
    // Packages run one window per call, so queries with their own window (a historical
    // comparison) go in one call per distinct window; the calls together are still this batch.
    const groups = new Map<string, typeof toRun>();
    for (const q of toRun) {
      const w = windowOf(q);
      const key = `${Date.parse(w.from)}/${Date.parse(w.to)}`;
      groups.set(key, [...(groups.get(key) ?? []), q]);
    }
    for (const group of groups.values()) {
      const window = windowOf(group[0]);
      const planned: PlannedProviderQuery[] = group.map((q) => ({ id: q.id, operation: q.operation, expression: q.expression, window, stepSeconds: q.stepSeconds }));
      const timer = providerMetrics.callDuration.startTimer();
      const result = await pkg
        .runBatch({ ticketKey: plan.ticketKey, target, window, queries: planned }, { onHttpRecord: (queryId, record) => httpRecords.push({ queryId, record }), audit: (record) => toolCalls.push(record) })
        .catch((error: unknown) => {
          timer({ package: pkg.name, outcome: 'failed' });
          throw error;
        });
      timer({ package: pkg.name, outcome: result.ok ? 'ok' : 'failed' });
      if (!result.ok) {
        for (const q of group) evidence.set(q.id, { id: q.id, status: 'failed', error_code: result.details.error_code, detail_error: result.details.detail_error });
      } else {
        for (const e of result.details.queries) evidence.set(e.id, e);
      }
      for (const q of group) {
        const e = evidence.get(q.id);
        if (e) providerMetrics.queries.add({ package: pkg.name, outcome: e.status, code: e.status === 'failed' ? (e.error_code ?? 'PROVIDER.FAILED') : 'none' });
      }
      // An authentication stop ends the batch: no further call repeats the failed login, and the
      // queries left out carry the same code.
      if (!result.ok && (result.details.error_code === 'PROVIDER.AUTH_FAILED' || result.details.error_code === 'PROVIDER.AUTH_TIMEOUT')) {
        for (const q of toRun) if (!evidence.has(q.id)) evidence.set(q.id, { id: q.id, status: 'failed', error_code: result.details.error_code, detail_error: 'not run: the provider authentication stopped this batch' });
        break;
      }
    }
    if (recordsIn(deps.mode, deps.recording)) {
      for (const q of toRun) {
        const e = evidence.get(q.id);
        // Failures are recorded too, so a replay reproduces exactly what the live run saw.
        if (e) {
          newRecordings.push(recordingEntry({ provider: plan.provider, target, operation: q.operation, expression: q.expression, window: windowOf(q), stepSeconds: q.stepSeconds ?? null }, e));
        }
      }
    }
  }

  // Authentication or bootstrap failure stops this scenario's evidence pipeline.
  const authFailed = [...evidence.values()].some((e) => e.error_code === 'PROVIDER.AUTH_FAILED' || e.error_code === 'PROVIDER.AUTH_TIMEOUT');
  const attempts: AttemptRow[] = [];
  const queries: EvidenceBatchMaterializedV1['queries'] = [];
  const failures: EvidenceBatchMaterializedV1['failures'] = [];
  const ordered: QueryEvidence[] = [];
  for (const q of plan.queries) {
    const hash = expressionHash(q.operation, q.expression);
    const prior = folded.get(q.id);
    if (prior) {
      const first = prior[0];
      const attempt = Math.max(...prior.map((p) => p.attempt)) + 1;
      attempts.push({ queryId: q.id, expressionHash: hash, attempt, outcome: 'failed', errorCode: first.errorCode, detailError: first.detailError, folded: true });
      queries.push({ queryId: q.id, outcome: 'failed', attempts: attempt });
      failures.push({ queryId: q.id, code: first.errorCode ?? 'PROVIDER.FAILED', detail: `unchanged retry folded into the first attempt: ${first.detailError ?? 'failed'}`.slice(0, 1000), supplemental: false });
      ordered.push({ id: q.id, status: 'failed', error_code: first.errorCode ?? 'PROVIDER.FAILED', detail_error: first.detailError ?? undefined });
      continue;
    }
    const e = evidence.get(q.id) ?? { id: q.id, status: 'failed' as const, error_code: 'PROVIDER.BUDGET_EXHAUSTED', detail_error: 'query did not run' };
    const outcome = e.status;
    attempts.push({ queryId: q.id, expressionHash: hash, attempt: 1, outcome, errorCode: e.error_code ?? null, detailError: e.detail_error ?? null, folded: false });
    queries.push({ queryId: q.id, outcome, attempts: 1 });
    if (outcome === 'failed') failures.push({ queryId: q.id, code: e.error_code ?? 'PROVIDER.FAILED', detail: (e.detail_error ?? '').slice(0, 1000), supplemental: e.supplemental ?? false });
    ordered.push(e);
  }
  const { facts, observations, gaps } = materializeFacts(plan.queries, ordered);
  const primary = queries.filter((q) => !failures.some((f) => f.queryId === q.queryId && f.supplemental));
  const primaryFailed = primary.filter((q) => q.outcome === 'failed').length;
  const status: EvidenceBatchMaterializedV1['status'] = authFailed ? 'failed' : primaryFailed === 0 ? 'complete' : primaryFailed === primary.length ? 'failed' : 'partial';
  const stamp = at();
  const auditOf = (r: AuditRecord): ToolCallAuditV1 => ({
    callId: r.callId.slice(0, 64),
    tool: r.tool.slice(0, 64),
    operations: r.operations.slice(0, 8),
    target: r.target,
    window: r.window,
    outcome: r.outcome,
    errorCode: r.errorCode ? r.errorCode.slice(0, 64) : null,
    durationMs: Math.max(0, Math.round(r.durationMs)),
    outputBytes: r.outputBytes,
    startedAt: r.startedAt,
  });
  return {
    materialized: {
      ...base,
      status,
      queries,
      facts,
      // The planner's own notes (what it could not cover) are gaps the diagnostic agent must see.
      handoff: { observations, gaps: [...(authFailed ? ['Provider authentication failed or did not finish in time; this scenario\'s evidence pipeline stopped.'] : []), ...(plan.plannerNotes ? [plan.plannerNotes.slice(0, 500)] : []), ...gaps].slice(0, 20) },
      failures: failures.slice(0, 12),
      execution: {
        queryEvents: queries.filter((q) => q.outcome !== 'skipped').map((q) => ({ queryId: q.queryId, outcome: q.outcome as 'complete' | 'empty' | 'failed', supplemental: failures.some((f) => f.queryId === q.queryId && f.supplemental), at: stamp })),
        httpAttempts: httpRecords.flatMap((r) => r.record.attempts.map((a) => ({ queryId: r.queryId, statusClass: a.statusClass, at: a.at }))).slice(0, 200),
        systemEvents: httpRecords
          .filter((r) => r.record.systemEvent)
          .map((r) => ({ queryId: r.queryId, ...(r.record.systemEvent as NonNullable<HttpCallRecord['systemEvent']>), at: r.record.attempts[0]?.at ?? stamp }))
          .slice(0, 12),
        toolCalls: toolCalls.slice(0, MAX_TOOL_CALLS_PER_BATCH).map(auditOf),
      },
    },
    attempts,
    newRecordings,
    httpRecords,
  };
}
