import { clinicApi, type ClinicApi, type ClinicClusterMetadata, type ClinicScope } from '../../connectors/clinic-api-connector';
import { recordOf } from '../../connectors/http-client';
import { CLINIC_BATCH_LIMITS, runBatch, type BatchLimits } from '../../core/batch-scheduler';
import type { ToolImplementation, ToolRunContext } from '../../core/execute-tool';
import { ProviderError } from '../../core/provider-error';
import { DAY_MS, HOUR_MS, type AbsoluteWindow } from '../../core/time-window';
import type { ToolSpec } from '../../core/tool-spec';
import { ClinicBatchInput, CLINIC_MAX_QUERIES, type ClinicOperation, type ClinicQuery } from './clinic-input.schema';
import type { ClinicPackageConfig } from './clinic.config';
import { runActivitiesQuery, runClusterMetadataQuery, runComponentsQuery } from './clinic-cluster.operation';
import { runConfigurationQuery } from './clinic-configuration.operation';
import { runLogsQuery } from './clinic-logs.operation';
import { prepareMetricsQuery, runMetricsQuery } from './clinic-metrics.operation';
import type { ClinicOperationContext, OperationOutcome } from './clinic-operation.context';
import { ClinicBatchOutput } from './clinic-output.schema';
import { prepareSqlQuery, runSqlQuery } from './clinic-sql.operation';
import { runSlowQueryQuery, runTopSqlQuery } from './clinic-statements.operation';

/** Window ceilings by operation: metrics and activities may span the router's 30 days, the rest 24 hours. */
export const CLINIC_MAX_WINDOW_MS: Readonly<Partial<Record<ClinicOperation, number>>> = {
  promql_range: 30 * DAY_MS,
  promql_instant: 30 * DAY_MS,
  activities: 30 * DAY_MS,
  top_sql: 24 * HOUR_MS,
  slow_query: 24 * HOUR_MS,
  sql: 24 * HOUR_MS,
  logs: 24 * HOUR_MS,
};

export const clinicBatchSpec = {
  name: 'clinic_evidence_batch',
  description:
    'Runs one bounded batch (at most 12 entries, each with a stable id) of read-only Clinic evidence queries for one exact org and cluster: PromQL range/instant, read-only SQL, TopSQL, slow queries, log ranges, activities, cluster metadata, component counts and exact non-secret configuration keys. Returns compact summaries, safe labels and opaque references per entry.',
  input: ClinicBatchInput,
  output: ClinicBatchOutput,
  riskLevel: 'L0',
  accessMode: 'read',
  surfaces: ['evidence_agent', 'provider_executor'],
  networkMode: 'restricted',
  limits: {
    maxWindowMs: CLINIC_MAX_WINDOW_MS as Record<string, number>,
    timeoutMs: CLINIC_BATCH_LIMITS.outerMs,
    maxOutputBytes: 512 * 1024,
    maxQueries: CLINIC_MAX_QUERIES,
    concurrency: CLINIC_BATCH_LIMITS.concurrency,
  },
} as const satisfies ToolSpec;

/** Query id under which the ownership/metadata call's HTTP record is reported; never a valid slug. */
export const CLINIC_BOOTSTRAP_RECORD_ID = '_bootstrap';

const DEFAULT_RETRY_DELAYS_MS = [250, 1000] as const;
/** Clinic's own bound on the metadata bootstrap; the executor's outer auth limit can only shorten it. */
export const CLINIC_BOOTSTRAP_TIMEOUT_MS = 10_000;

function effectiveWindow(q: ClinicQuery, input: ClinicBatchInput): AbsoluteWindow | null {
  if (q.operation === 'cluster_metadata' || q.operation === 'components' || q.operation === 'configuration') return null;
  return q.window ?? input.window;
}

/** Span checks with the entry named, so a correction knows exactly which window to narrow. */
function checkSpans(input: ClinicBatchInput): { operation: string; window: AbsoluteWindow }[] {
  return input.queries.flatMap((q, index) => {
    const window = effectiveWindow(q, input);
    if (!window) return [];
    const field = 'window' in q && q.window ? `queries.${index}.window` : `window (used by queries.${index})`;
    const fromMs = Date.parse(window.from);
    const toMs = Date.parse(window.to);
    const max = CLINIC_MAX_WINDOW_MS[q.operation] ?? 0;
    if (!(fromMs < toMs)) throw new ProviderError('PROVIDER.WINDOW_INVALID', `${field}: from must be before to`);
    if (toMs - fromMs > max) {
      throw new ProviderError('PROVIDER.WINDOW_INVALID', `${field}: ${q.operation} may read at most ${max / HOUR_MS} hours, the window spans ${Math.ceil((toMs - fromMs) / 60_000)} minutes`);
    }
    return [{ operation: q.operation, window }];
  });
}

/** Everything checkable without the network: PromQL and SQL are parsed before scheduling. */
function preflight(q: ClinicQuery, field: string, input: ClinicBatchInput): ProviderError | null {
  try {
    if (q.operation === 'promql_range' || q.operation === 'promql_instant') {
      const w = effectiveWindow(q, input) as AbsoluteWindow;
      prepareMetricsQuery(q, field, Date.parse(w.to) - Date.parse(w.from));
    } else if (q.operation === 'sql') {
      prepareSqlQuery(q, field);
    }
    return null;
  } catch (error) {
    return error instanceof ProviderError ? error : new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Clinic metadata is the authority on ownership: the cluster must exist for the org and name
 * it as owner. A 401/403 here is an authentication failure the executor can stop the
 * scenario on, distinct from every per-query failure.
 */
async function bootstrap(api: ClinicApi, scope: ClinicScope, ctx: ToolRunContext, timeoutMs: number, retryDelaysMs: readonly number[]): Promise<ClinicClusterMetadata> {
  const limit = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, limit]);
  try {
    const { data, record } = await api.clusterMetadata({ signal, retryDelaysMs });
    ctx.record(CLINIC_BOOTSTRAP_RECORD_ID, record);
    if (data.cluster_id !== scope.clusterId || data.org_id !== scope.orgId) {
      throw new ProviderError('PROVIDER.TARGET_REJECTED', `Clinic does not list cluster ${scope.clusterId} as owned by org ${scope.orgId}`);
    }
    return data;
  } catch (error) {
    const record = recordOf(error);
    if (record) ctx.record(CLINIC_BOOTSTRAP_RECORD_ID, record);
    if (!(error instanceof ProviderError)) throw error;
    if (limit.aborted && !ctx.signal.aborted) throw new ProviderError('PROVIDER.AUTH_TIMEOUT', `Clinic cluster metadata did not answer within the ${timeoutMs} ms bootstrap limit`);
    const status = error.details['httpStatus'];
    if (error.code === 'PROVIDER.HTTP_4XX' && (status === 401 || status === 403)) {
      throw new ProviderError('PROVIDER.AUTH_FAILED', `Clinic refused the package credentials (HTTP ${status}) while reading cluster metadata: ${error.detail}`, { httpStatus: status });
    }
    if (error.code === 'PROVIDER.HTTP_4XX' && status === 404) {
      throw new ProviderError('PROVIDER.TARGET_REJECTED', `Clinic does not know cluster ${scope.clusterId} in org ${scope.orgId}`, { httpStatus: status });
    }
    throw error;
  }
}

function dispatch(q: ClinicQuery, ctx: ClinicOperationContext): Promise<OperationOutcome<unknown>> {
  switch (q.operation) {
    case 'promql_range':
    case 'promql_instant':
      return runMetricsQuery(q, ctx);
    case 'sql':
      return runSqlQuery(q, ctx);
    case 'top_sql':
      return runTopSqlQuery(q, ctx);
    case 'slow_query':
      return runSlowQueryQuery(q, ctx);
    case 'logs':
      return runLogsQuery(q, ctx);
    case 'activities':
      return runActivitiesQuery(q, ctx);
    case 'cluster_metadata':
      return runClusterMetadataQuery(q, ctx);
    case 'components':
      return runComponentsQuery(q, ctx);
    case 'configuration':
      return runConfigurationQuery(q, ctx);
  }
}

/** Shrinks the wave budget by whatever the bootstrap used, keeping the margin under the outer limit. */
function remainingLimits(limits: BatchLimits, deadline: number): BatchLimits {
  const remaining = Math.max(1, deadline - Date.now());
  const outerMs = Math.min(limits.outerMs, remaining);
  const margin = Math.max(0, limits.outerMs - limits.budgetMs);
  return { concurrency: limits.concurrency, outerMs, budgetMs: Math.max(1, Math.min(limits.budgetMs, outerMs - margin)) };
}

export function clinicSecrets(config: ClinicPackageConfig): string[] {
  const sqlHost = config.sql && typeof config.sql.endpoint !== 'function' ? config.sql.endpoint.host : '';
  return [config.clinic.token, config.clinic.baseUrl, config.cloudConfig?.token ?? '', config.cloudConfig?.baseUrl ?? '', config.sql?.password ?? '', sqlHost].filter((s) => s.length >= 4);
}

/** The Clinic batch tool: one implementation behind `executeTool`, with its own credentials. */
export function clinicBatchTool(config: ClinicPackageConfig): ToolImplementation<typeof clinicBatchSpec> {
  const limits = config.batchLimits ?? CLINIC_BATCH_LIMITS;
  const primaryRetries = config.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  return {
    spec: clinicBatchSpec,
    secrets: () => clinicSecrets(config),
    // Ids are shape-checked by the schema; ownership needs Clinic and is checked in `run`.
    checkTarget: () => undefined,
    windows: (input) => checkSpans(input),
    run: async (input, ctx) => {
      const scope: ClinicScope = { orgId: input.org_id, clusterId: input.cluster_id };
      const rejected = new Map<string, ProviderError>();
      input.queries.forEach((q, index) => {
        const problem = preflight(q, `queries.${index}`, input);
        if (problem) rejected.set(q.id, problem);
      });
      const api = clinicApi(config.clinic, scope);
      const metadata = await bootstrap(api, scope, ctx, config.bootstrapTimeoutMs ?? CLINIC_BOOTSTRAP_TIMEOUT_MS, primaryRetries);
      const scheduled = input.queries.filter((q) => !rejected.has(q.id));
      const fieldOf = new Map(input.queries.map((q, index) => [q.id, `queries.${index}`]));
      const outcomes = await runBatch(
        scheduled,
        (q, signal) => {
          const window = effectiveWindow(q, input) ?? input.window;
          return dispatch(q, {
            api,
            scope,
            metadata,
            config,
            signal,
            retryDelaysMs: q.supplemental ? [] : primaryRetries,
            window: { ...window, fromMs: Date.parse(window.from), toMs: Date.parse(window.to) },
            field: fieldOf.get(q.id) ?? q.id,
            record: (record) => ctx.record(q.id, record),
          });
        },
        remainingLimits(limits, ctx.deadline),
        ctx.signal,
      );
      const queries = input.queries.map((q) => {
        const head = { id: q.id, operation: q.operation, ...(q.supplemental ? { supplemental: true } : {}) };
        const outcome = outcomes.get(q.id);
        if (outcome?.ok) return { ...head, status: outcome.value.status, result: outcome.value.result };
        const error = rejected.get(q.id) ?? (outcome && !outcome.ok ? outcome.error : new ProviderError('PROVIDER.BUDGET_EXHAUSTED', 'the entry did not run'));
        return { ...head, status: 'failed' as const, error_code: error.code, detail_error: error.detail };
      });
      const primary = queries.filter((q) => !q.supplemental);
      const failed = primary.filter((q) => q.status === 'failed').length;
      const acquisition = failed === 0 ? 'complete' : failed === primary.length ? 'failed' : 'partial';
      return { org_id: input.org_id, cluster_id: input.cluster_id, window: input.window, acquisition, queries };
    },
  };
}
