import type { EvidenceBatchPlannedV1 } from '@aoc/contracts';
import type { AuditRecord, EvidencePackage, HttpCallRecord, PlannedProviderQuery, QueryEvidence } from '@aoc/providers';
import { providerMetrics } from '@aoc/telemetry';
import { recordingEntry, recordingKey, type RecordingEntry } from '../evidence-recordings/evidence-recording';

/**
 * Getting the evidence of the queries a batch runs: from recordings (replay) or through the
 * provider package (live and record), one package call per distinct window.
 */

export type PlannedQuery = EvidenceBatchPlannedV1['queries'][number];

/** Recorded evidence by recording key (replay reads it). */
export interface RecordingStore {
  get(key: string): Promise<RecordingEntry | undefined>;
}

/** What the batch gathered, by query id, with the HTTP and tool-call records of the live calls. */
export interface Gathered {
  evidence: Map<string, QueryEvidence>;
  httpRecords: { queryId: string; record: HttpCallRecord }[];
  toolCalls: AuditRecord[];
}

const AUTH_STOPS: ReadonlySet<string> = new Set(['PROVIDER.AUTH_FAILED', 'PROVIDER.AUTH_TIMEOUT']);

/** Whether an error code stops the scenario's evidence pipeline (a failed or unfinished login). */
export const isAuthStop = (code: string | null | undefined): boolean => code !== null && code !== undefined && AUTH_STOPS.has(code);

/** The window a query reads: its own (a historical comparison) or the batch's. */
export const windowOf = (plan: EvidenceBatchPlannedV1, q: PlannedQuery) => q.window ?? plan.window;

const recordingIdentity = (plan: EvidenceBatchPlannedV1, q: PlannedQuery) => ({ provider: plan.provider, target: plan.target ?? '', operation: q.operation, expression: q.expression, window: windowOf(plan, q), stepSeconds: q.stepSeconds ?? null });

/** Replay: each query's recorded evidence, or a replay miss. */
export async function replayEvidence(plan: EvidenceBatchPlannedV1, toRun: readonly PlannedQuery[], recordings: RecordingStore): Promise<Gathered> {
  const evidence = new Map<string, QueryEvidence>();
  for (const q of toRun) {
    const hit = await recordings.get(recordingKey(recordingIdentity(plan, q)));
    evidence.set(q.id, hit ? { ...hit.evidence, id: q.id } : { id: q.id, status: 'failed', error_code: 'PROVIDER.REPLAY_MISS', detail_error: 'no recorded evidence exists for this exact query, target and window' });
  }
  return { evidence, httpRecords: [], toolCalls: [] };
}

/** Packages run one window per call: the queries grouped by window, in plan order. */
function byWindow(plan: EvidenceBatchPlannedV1, toRun: readonly PlannedQuery[]): PlannedQuery[][] {
  const groups = new Map<string, PlannedQuery[]>();
  for (const q of toRun) {
    const w = windowOf(plan, q);
    const key = `${Date.parse(w.from)}/${Date.parse(w.to)}`;
    groups.set(key, [...(groups.get(key) ?? []), q]);
  }
  return [...groups.values()];
}

/** One package call for the queries of one window; its evidence goes into `out`. Returns the call's batch-level error code, if any. */
async function runGroup(plan: EvidenceBatchPlannedV1, pkg: EvidencePackage, group: readonly PlannedQuery[], out: Gathered): Promise<string | null> {
  const window = windowOf(plan, group[0]);
  const planned: PlannedProviderQuery[] = group.map((q) => ({ id: q.id, operation: q.operation, expression: q.expression, window, stepSeconds: q.stepSeconds }));
  const timer = providerMetrics.callDuration.startTimer();
  const hooks = { onHttpRecord: (queryId: string, record: HttpCallRecord) => out.httpRecords.push({ queryId, record }), audit: (record: AuditRecord) => out.toolCalls.push(record) };
  const result = await pkg.runBatch({ ticketKey: plan.ticketKey, target: plan.target ?? '', window, queries: planned }, hooks).catch((error: unknown) => {
    timer({ package: pkg.name, outcome: 'failed' });
    throw error;
  });
  timer({ package: pkg.name, outcome: result.ok ? 'ok' : 'failed' });
  if (result.ok) for (const e of result.details.queries) out.evidence.set(e.id, e);
  else for (const q of group) out.evidence.set(q.id, { id: q.id, status: 'failed', error_code: result.details.error_code, detail_error: result.details.detail_error });
  for (const q of group) {
    const e = out.evidence.get(q.id);
    if (e) providerMetrics.queries.add({ package: pkg.name, outcome: e.status, code: e.status === 'failed' ? (e.error_code ?? 'PROVIDER.FAILED') : 'none' });
  }
  return result.ok ? null : result.details.error_code;
}

/** Live: the queries through the package, one call per window; an authentication stop ends the batch. */
export async function liveEvidence(plan: EvidenceBatchPlannedV1, toRun: readonly PlannedQuery[], pkg: EvidencePackage): Promise<Gathered> {
  const out: Gathered = { evidence: new Map(), httpRecords: [], toolCalls: [] };
  for (const group of byWindow(plan, toRun)) {
    const code = await runGroup(plan, pkg, group, out);
    // No further call repeats the failed login; the queries left out carry the same code.
    if (isAuthStop(code)) {
      for (const q of toRun) if (!out.evidence.has(q.id)) out.evidence.set(q.id, { id: q.id, status: 'failed', error_code: code ?? undefined, detail_error: 'not run: the provider authentication stopped this batch' });
      break;
    }
  }
  return out;
}

/** What a live run keeps for replay: every query's evidence, failures too, so a replay sees exactly what it saw. */
export function recordingsOf(plan: EvidenceBatchPlannedV1, toRun: readonly PlannedQuery[], evidence: ReadonlyMap<string, QueryEvidence>): RecordingEntry[] {
  return toRun.flatMap((q) => {
    const e = evidence.get(q.id);
    return e ? [recordingEntry(recordingIdentity(plan, q), e)] : [];
  });
}
