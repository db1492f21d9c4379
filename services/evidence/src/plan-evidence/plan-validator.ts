import { MAX_QUERIES_PER_BATCH, PlannedQueryV1, type EvidenceRequestedV1 } from '@aoc/contracts';
import { CLINIC_OPERATIONS, WETECH_OPERATIONS, unboundSelectors, validatePromQl, validateReadOnlySql } from '@aoc/providers';

/** Operations each provider package serves (the executor refuses the rest). */
export const PROVIDER_OPERATIONS: Record<EvidenceRequestedV1['provider'], readonly PlannedQueryV1['operation'][]> = {
  prometheus: ['promql_range', 'promql_instant'],
  clinic: CLINIC_OPERATIONS,
  manus: ['promql_range'],
  wetech: WETECH_OPERATIONS,
  none: [],
};

export type PlanErrorCode =
  | 'EVIDENCE.PLAN_SHAPE'
  | 'EVIDENCE.PLAN_TOO_LARGE'
  | 'EVIDENCE.DUPLICATE_QUERY_ID'
  | 'EVIDENCE.OPERATION_UNSUPPORTED'
  | 'EVIDENCE.EXPRESSION_INVALID'
  | 'EVIDENCE.WRITE_REFUSED'
  | 'EVIDENCE.WINDOW_OUTSIDE'
  | 'EVIDENCE.TARGET_UNBOUND';

/** One precise validator finding; the code and field go back to the planner for its single rewrite. */
export interface PlanError {
  queryId: string | null;
  code: PlanErrorCode;
  field: string;
  message: string;
}

export interface PlanValidation {
  queries: PlannedQueryV1[];
  errors: PlanError[];
}

const WRITE_WORDS = /\b(insert|update|delete|drop|alter|truncate|create|grant|revoke|replace|merge|call|load|set)\b/i;

function withinWindow(window: { from: string; to: string }, outer: { from: string; to: string }, extra: readonly { from: string; to: string }[]): boolean {
  const inside = (w: { from: string; to: string }) => Date.parse(window.from) >= Date.parse(w.from) && Date.parse(window.to) <= Date.parse(w.to);
  return inside(outer) || extra.some(inside);
}

/**
 * Deterministic structural check of a planned batch before anything runs: schema, size, unique
 * ids, operations the provider serves, parseable read-only expressions, windows inside the frozen
 * window (or the runner's comparison windows) and PromQL bound to the frozen target. It never
 * judges what the batch is for.
 */
export function validatePlan(request: EvidenceRequestedV1, candidate: unknown, options: { targetLabel?: string | null } = {}): PlanValidation {
  const targetLabel = options.targetLabel ?? 'cluster';
  const errors: PlanError[] = [];
  const raw = Array.isArray(candidate) ? candidate : [];
  if (!Array.isArray(candidate)) errors.push({ queryId: null, code: 'EVIDENCE.PLAN_SHAPE', field: 'queries', message: 'queries must be an array' });
  if (raw.length > MAX_QUERIES_PER_BATCH) {
    errors.push({ queryId: null, code: 'EVIDENCE.PLAN_TOO_LARGE', field: 'queries', message: `at most ${MAX_QUERIES_PER_BATCH} queries; got ${raw.length}` });
  }
  const allowed = PROVIDER_OPERATIONS[request.provider];
  const seen = new Set<string>();
  const queries: PlannedQueryV1[] = [];
  raw.slice(0, MAX_QUERIES_PER_BATCH).forEach((entry, index) => {
    const parsed = PlannedQueryV1.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const id = typeof (entry as { id?: unknown } | null)?.id === 'string' ? String((entry as { id: string }).id).slice(0, 64) : null;
      errors.push({ queryId: id, code: 'EVIDENCE.PLAN_SHAPE', field: `queries.${index}.${issue?.path.join('.') ?? ''}`, message: issue?.message ?? 'invalid' });
      return;
    }
    const q = parsed.data;
    const fail = (code: PlanErrorCode, field: string, message: string) => errors.push({ queryId: q.id, code, field: `queries.${index}.${field}`, message: message.slice(0, 300) });
    if (seen.has(q.id)) return fail('EVIDENCE.DUPLICATE_QUERY_ID', 'id', `query id "${q.id}" is used twice`);
    seen.add(q.id);
    if (!allowed.includes(q.operation)) return fail('EVIDENCE.OPERATION_UNSUPPORTED', 'operation', `provider ${request.provider} does not serve ${q.operation}`);
    if (q.window && !withinWindow(q.window, request.window, request.comparison?.windows ?? [])) {
      return fail('EVIDENCE.WINDOW_OUTSIDE', 'window', 'a query window must lie inside the frozen window or one of the comparison windows');
    }
    try {
      if (q.operation === 'promql_range' || q.operation === 'promql_instant') {
        validatePromQl(q.expression, 'expression');
        const unbound = request.target && request.provider === 'prometheus' ? unboundSelectors(q.expression, targetLabel, request.target) : [];
        if (unbound.length > 0) {
          return fail('EVIDENCE.TARGET_UNBOUND', 'expression', `every PromQL selector needs ${targetLabel}="${request.target}"; not bound: ${unbound.slice(0, 3).join(', ')}`);
        }
      } else if (q.operation === 'sql') {
        validateReadOnlySql(q.expression, 'expression');
      } else if (WRITE_WORDS.test(q.expression) && /;|\bfrom\b|\binto\b|\btable\b/i.test(q.expression)) {
        return fail('EVIDENCE.WRITE_REFUSED', 'expression', 'operation parameters look like a write statement');
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const code: PlanErrorCode = /only SELECT|INTO writes|locking read|not allowed/i.test(message) ? 'EVIDENCE.WRITE_REFUSED' : 'EVIDENCE.EXPRESSION_INVALID';
      return fail(code, 'expression', message);
    }
    queries.push(q);
  });
  return { queries, errors };
}
