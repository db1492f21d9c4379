import type { EvidenceBatchDetails, EvidenceBatchRequest, PlannedProviderQuery, QueryEvidence } from './evidence-package';
import { ProviderError } from './provider-error';
import { success, type ToolResult } from './tool-result';

/** Per-query result shape shared by the batch tools of the packages. */
export interface ToolQueryOutcome {
  id: string;
  status: 'complete' | 'empty' | 'failed';
  error_code?: string;
  detail_error?: string;
}

/**
 * Runs a planned batch through a package's tool: each planned query is mapped to a tool entry
 * (a query the package cannot take fails on its own, naming why), the accepted ones go through
 * one tool call, and the results come back in plan order as QueryEvidence. A failure of the
 * whole tool call (target, window, auth) is returned as it is.
 */
export async function runPlannedBatch<E, Q extends ToolQueryOutcome>(
  request: EvidenceBatchRequest,
  packageName: string,
  toEntry: (query: PlannedProviderQuery) => E,
  execute: (entries: E[]) => Promise<ToolResult<{ queries: Q[] }>>,
): Promise<ToolResult<EvidenceBatchDetails>> {
  const supplemental = new Map(request.queries.map((q) => [q.id, q.supplemental ?? false]));
  const refused = new Map<string, QueryEvidence>();
  const accepted: E[] = [];
  for (const q of request.queries) {
    try {
      accepted.push(toEntry(q));
    } catch (error) {
      const e = error instanceof ProviderError ? error : new ProviderError('PROVIDER.INPUT_INVALID', `queries.${q.id}: not a valid ${packageName} query`);
      refused.set(q.id, { id: q.id, status: 'failed', error_code: e.code, detail_error: e.detail, supplemental: supplemental.get(q.id) ?? false });
    }
  }
  const ran = new Map<string, QueryEvidence>();
  if (accepted.length > 0) {
    const result = await execute(accepted);
    if (!result.ok) return result;
    for (const q of result.details.queries) {
      const { id, status, error_code, detail_error, ...rest } = q;
      const evidence: QueryEvidence = status === 'failed' ? { id, status, error_code, detail_error } : { id, status, result: rest };
      ran.set(id, { ...evidence, supplemental: supplemental.get(id) ?? false });
    }
  }
  const queries = request.queries.map(
    (q) => ran.get(q.id) ?? refused.get(q.id) ?? { id: q.id, status: 'failed' as const, error_code: 'PROVIDER.BUDGET_EXHAUSTED', detail_error: 'query did not run' },
  );
  return success({ target: request.target, window: request.window, queries });
}
