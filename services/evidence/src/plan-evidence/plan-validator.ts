import { MAX_QUERIES_PER_BATCH, PlannedQueryV1, type EvidenceRequestedV1 } from '@aoc/contracts';
import { CLINIC_OPERATIONS, PROMETHEUS_OPERATIONS, WETECH_OPERATIONS, unboundSelectors, validatePromQl, validateReadOnlyMySqlStats, validateReadOnlyPgSql, validateReadOnlySql, validateTargetLogQl } from '@aoc/providers';

/**
 * Operations each provider package serves (the executor refuses the rest). The generic package
 * serves `sql` and `logs` only for targets whose endpoint has them: `validatePlan` accepts those
 * only when the catalogue's `operations` list them, and narrows to those operations when given.
 */
export const PROVIDER_OPERATIONS: Record<EvidenceRequestedV1['provider'], readonly PlannedQueryV1['operation'][]> = {
  prometheus: PROMETHEUS_OPERATIONS,
  clinic: CLINIC_OPERATIONS,
  manus: ['promql_range'],
  wetech: WETECH_OPERATIONS,
  none: [],
};

/** Operations a provider serves only for targets whose catalogue lists them (never assumed). */
const CATALOG_GATED: Partial<Record<EvidenceRequestedV1['provider'], readonly string[]>> = { prometheus: ['sql', 'logs'] };

/**
 * A channel probe: the one query a plan may hold for a gated operation the catalogue does NOT
 * offer. The package answers it without asking anything (`operation: 'channel'`,
 * `availability: 'not_configured'`), and the executor turns that into a `note` fact and a gap, so
 * "the database log is not configured for this target" is evidence the diagnosis sees, never
 * silence it could read as health. Id and expression are fixed; any other query for an operation
 * the target lacks is still refused.
 */
export const CHANNEL_PROBES = {
  logs: { id: 'channel_logs', operation: 'logs', purpose: 'whether the database log of the target can be read' },
  statements: { id: 'channel_statements', operation: 'sql', purpose: 'whether the statement statistics of the target can be read' },
} as const;
export type StatisticsChannel = keyof typeof CHANNEL_PROBES;

/** The probe of a channel bound to the target: the bare selector for logs, a constant SELECT for statements. */
export function channelProbe(channel: StatisticsChannel, target: string, logsLabel: string): { id: string; operation: 'logs' | 'sql'; expression: string; purpose: string } {
  const probe = CHANNEL_PROBES[channel];
  return { ...probe, expression: channel === 'logs' ? `{${logsLabel}=${JSON.stringify(target)}}` : 'SELECT 1 AS channel_check' };
}

const isProbe = (q: PlannedQueryV1, target: string | null, logsLabel: string): boolean =>
  target !== null &&
  (Object.keys(CHANNEL_PROBES) as StatisticsChannel[]).some((c) => {
    const p = channelProbe(c, target, logsLabel);
    return q.id === p.id && q.operation === p.operation && q.expression === p.expression;
  });

/**
 * The generic package's `sql` is PostgreSQL or MySQL statistics, by the target's server: a
 * statement passes when either validator accepts it (the package checks it again against the
 * target's own dialect). The refusal shown is the dialect's the statement reads.
 */
function validateStatisticsSql(sql: string, field: string): void {
  try {
    validateReadOnlyPgSql(sql, field);
  } catch (pgError) {
    try {
      validateReadOnlyMySqlStats(sql, field);
    } catch (myError) {
      throw /\b(?:performance_schema|information_schema)\s*\.|@@/i.test(sql) ? myError : pgError;
    }
  }
}

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
/** Refusals of the SQL validators that mean "this would write", not "this is malformed". */
const WRITE_REFUSAL = /only SELECT|INTO writes|locking read|not allowed/i;
/** The PostgreSQL validator's write refusals; its other refusals (a view or function off the allowlist) are invalid expressions. */
const PG_WRITE_REFUSAL = /only (?:a single )?SELECT|SELECT \.\.\. INTO|locking clause|locking read|INTO writes|must be a SELECT/i;

export interface PlanValidationOptions {
  /** The label every PromQL selector must bind to the target (the catalogue's; default `cluster`). */
  targetLabel?: string | null;
  /** The label every log stream selector must bind to the target (the catalogue's `logsLabel`; default the target label). */
  logsLabel?: string | null;
  /** The catalogue's operations for the target; when non-empty the plan may use only these. Gated operations (`sql`, `logs` of prometheus) need them. */
  operations?: readonly string[] | null;
}

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
export function validatePlan(request: EvidenceRequestedV1, candidate: unknown, options: PlanValidationOptions = {}): PlanValidation {
  const targetLabel = options.targetLabel ?? 'cluster';
  const logsLabel = options.logsLabel ?? targetLabel;
  const offered = options.operations && options.operations.length > 0 ? options.operations : null;
  const errors: PlanError[] = [];
  const raw = Array.isArray(candidate) ? candidate : [];
  if (!Array.isArray(candidate)) errors.push({ queryId: null, code: 'EVIDENCE.PLAN_SHAPE', field: 'queries', message: 'queries must be an array' });
  if (raw.length > MAX_QUERIES_PER_BATCH) {
    errors.push({ queryId: null, code: 'EVIDENCE.PLAN_TOO_LARGE', field: 'queries', message: `at most ${MAX_QUERIES_PER_BATCH} queries; got ${raw.length}` });
  }
  const gated = CATALOG_GATED[request.provider] ?? [];
  const allowed = PROVIDER_OPERATIONS[request.provider].filter((op) => (offered ? offered.includes(op) : !gated.includes(op)));
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
    if (!allowed.includes(q.operation) && !(gated.includes(q.operation) && isProbe(q, request.target, logsLabel))) {
      const why = PROVIDER_OPERATIONS[request.provider].includes(q.operation)
        ? ` for target ${request.target ?? '(none)'} (${offered ? `its catalogue offers ${allowed.join(', ')}` : 'no catalogue says the target offers it'})`
        : '';
      return fail('EVIDENCE.OPERATION_UNSUPPORTED', 'operation', `provider ${request.provider} does not serve ${q.operation}${why}`);
    }
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
      } else if (q.operation === 'sql' && request.provider === 'prometheus') {
        // The generic package reads PostgreSQL statistics views or MySQL statistics tables.
        validateStatisticsSql(q.expression, 'expression');
      } else if (q.operation === 'sql') {
        validateReadOnlySql(q.expression, 'expression');
      } else if (q.operation === 'logs' && request.provider === 'prometheus') {
        if (!request.target) return fail('EVIDENCE.TARGET_UNBOUND', 'expression', 'a log query needs the frozen target');
        try {
          validateTargetLogQl(q.expression, logsLabel, request.target, 'expression');
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return fail(/exact matcher/.test(message) ? 'EVIDENCE.TARGET_UNBOUND' : 'EVIDENCE.EXPRESSION_INVALID', 'expression', message);
        }
      } else if (WRITE_WORDS.test(q.expression) && /;|\bfrom\b|\binto\b|\btable\b/i.test(q.expression)) {
        return fail('EVIDENCE.WRITE_REFUSED', 'expression', 'operation parameters look like a write statement');
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const writes = q.operation === 'sql' && request.provider === 'prometheus' ? PG_WRITE_REFUSAL : WRITE_REFUSAL;
      const code: PlanErrorCode = writes.test(message) ? 'EVIDENCE.WRITE_REFUSED' : 'EVIDENCE.EXPRESSION_INVALID';
      return fail(code, 'expression', message);
    }
    queries.push(q);
  });
  return { queries, errors };
}
