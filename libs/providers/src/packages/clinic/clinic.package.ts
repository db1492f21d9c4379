import { MAX_INVENTORY_TARGETS, TicketKey } from '@aoc/contracts';
import { clinicOrgApi, type ClinicScope } from '../../connectors/clinic-api-connector';
import type { EvidenceBatchDetails, EvidenceBatchRequest, EvidenceOperation, EvidencePackage, EvidenceRunOptions, PlannedProviderQuery, QueryEvidence, TargetListing } from '../../core/evidence-package';
import { ProviderError } from '../../core/provider-error';
import { redactText } from '../../core/sanitize';
import { executeTool, type ToolImplementation } from '../../core/execute-tool';
import { failure, success, type ToolResult } from '../../core/tool-result';
import { clinicBatchSpec, clinicBatchTool } from './clinic-batch.tool';
import type { ClinicPackageConfig } from './clinic.config';

export const CLINIC_OPERATIONS: readonly EvidenceOperation[] = [
  'promql_range',
  'promql_instant',
  'sql',
  'top_sql',
  'slow_query',
  'logs',
  'activities',
  'cluster_metadata',
  'components',
  'configuration',
];

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The frozen Clinic target: the exact org id and cluster id, as `org/cluster`. */
export function clinicTarget(orgId: string, clusterId: string): string {
  return `${orgId}/${clusterId}`;
}

export function parseClinicTarget(target: string): ClinicScope | null {
  const parts = target.split('/');
  if (parts.length !== 2 || !ID.test(parts[0]) || !ID.test(parts[1])) return null;
  return { orgId: parts[0], clusterId: parts[1] };
}

type MappedQuery = { ok: true; entry: Record<string, unknown> } | { ok: false; detail: string };

/** Operations whose planned `expression` is a JSON document of parameters. */
const JSON_PARAMETER_OPERATIONS = new Set<EvidenceOperation>(['top_sql', 'slow_query', 'logs', 'activities', 'configuration']);

function parseParameters(planned: PlannedProviderQuery): { ok: true; params: Record<string, unknown> } | { ok: false; detail: string } {
  const text = planned.expression.trim();
  if (text === '') return { ok: true, params: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, detail: `queries.${planned.id}.expression: must be a JSON object of ${planned.operation} parameters` };
  }
  // A bare selector list is accepted for configuration, the natural shape of that request.
  if (planned.operation === 'configuration' && Array.isArray(value)) return { ok: true, params: { selectors: value } };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, detail: `queries.${planned.id}.expression: must be a JSON object of ${planned.operation} parameters` };
  return { ok: true, params: value as Record<string, unknown> };
}

/**
 * Maps one planned query onto a Clinic batch entry. The result is still raw input: the tool's
 * schema validates it, so every mistake is reported with the field it concerns.
 */
export function plannedToClinicEntry(planned: PlannedProviderQuery): MappedQuery {
  const fixed: Record<string, unknown> = { id: planned.id, operation: planned.operation };
  if (planned.supplemental) fixed['supplemental'] = true;
  const windowed = planned.window ? { window: planned.window } : {};
  switch (planned.operation) {
    case 'promql_range':
      return { ok: true, entry: { ...fixed, ...windowed, promql: planned.expression, ...(planned.stepSeconds !== undefined ? { step_seconds: planned.stepSeconds } : {}) } };
    case 'promql_instant':
      return { ok: true, entry: { ...fixed, ...windowed, promql: planned.expression } };
    case 'sql':
      return { ok: true, entry: { ...fixed, ...windowed, sql: planned.expression } };
    case 'cluster_metadata':
    case 'components':
      return { ok: true, entry: fixed };
    default: {
      if (!JSON_PARAMETER_OPERATIONS.has(planned.operation)) return { ok: false, detail: `queries.${planned.id}.operation: ${planned.operation} is not offered by clinic` };
      const parsed = parseParameters(planned);
      if (!parsed.ok) return parsed;
      // The planned id, operation and window win over anything the parameters repeat.
      return { ok: true, entry: { ...parsed.params, ...fixed, ...(planned.operation === 'configuration' ? {} : windowed) } };
    }
  }
}

/** A cluster name a ticket may use: plain words, no address, no secret; anything else is dropped. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,127}$/;
/** Outer limit of one inventory listing (all orgs and their cluster lists). */
export const CLINIC_INVENTORY_TIMEOUT_MS = 30_000;

/** A refused token is an auth failure, as in the batch bootstrap; any other error keeps its code. */
function listingCode(error: unknown): string {
  if (!(error instanceof ProviderError)) return 'PROVIDER.UNREACHABLE';
  const status = error.details['httpStatus'];
  return error.code === 'PROVIDER.HTTP_4XX' && (status === 401 || status === 403) ? 'PROVIDER.AUTH_FAILED' : error.code;
}

/**
 * The org's clusters as the Clinic inventory: every org the token may read, then each org's
 * cluster list, as `<org>/<cluster>` targets with the cluster id and (when it is a plain name)
 * the cluster name as aliases. At most 2,000 targets; ids that are not exact Clinic ids are left
 * out; nothing else of the answers (tier, cost, addresses) is kept. A listing that fails before
 * any target is known is `unavailable` with its code, so the previous inventory stays.
 */
export async function listClinicTargets(config: ClinicPackageConfig, limit = MAX_INVENTORY_TARGETS): Promise<TargetListing> {
  const api = clinicOrgApi(config.clinic);
  const retryDelaysMs = config.retryDelaysMs ?? [250, 1000];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), CLINIC_INVENTORY_TIMEOUT_MS);
  const targets: TargetListing['targets'] = [];
  const seen = new Set<string>();
  let truncated = false;
  let failureCode: string | null = null;
  const safeAlias = (value: string | null | undefined) => (value && SAFE_NAME.test(value) && redactText(value, { secrets: [config.clinic.token] }) === value ? [value] : []);
  try {
    const orgs = await api.orgs({ signal: controller.signal, retryDelaysMs });
    truncated ||= orgs.truncated;
    for (const org of orgs.data.filter((o) => ID.test(o.org_id))) {
      const remaining = limit - targets.length;
      if (remaining <= 0) {
        truncated = true;
        break;
      }
      try {
        const clusters = await api.clusters(org.org_id, { limit: remaining }, { signal: controller.signal, retryDelaysMs });
        truncated ||= clusters.truncated || clusters.data.length > remaining;
        for (const c of clusters.data.slice(0, remaining)) {
          const target = clinicTarget(org.org_id, c.cluster_id);
          if (!ID.test(c.cluster_id) || seen.has(target)) continue;
          seen.add(target);
          targets.push({ target, aliases: [...new Set([c.cluster_id, ...safeAlias(c.name)])] });
        }
      } catch (error) {
        // One org that cannot be listed leaves the others listed; the code says something is missing.
        failureCode = listingCode(error);
        if (failureCode === 'PROVIDER.AUTH_FAILED' || controller.signal.aborted) break;
      }
    }
  } catch (error) {
    failureCode = controller.signal.aborted ? 'PROVIDER.TIMEOUT' : listingCode(error);
  } finally {
    clearTimeout(timer);
  }
  if (controller.signal.aborted && failureCode === null) failureCode = 'PROVIDER.TIMEOUT';
  const ok = failureCode === null || targets.length > 0;
  return { status: ok ? 'listed' : 'unavailable', targets: targets.sort((a, b) => a.target.localeCompare(b.target)), truncated: truncated || (failureCode !== null && ok), failureCode };
}

export interface ClinicEvidencePackage extends EvidencePackage {
  readonly name: 'clinic';
  /** The implementation behind the batch tool, for direct `executeTool` use. */
  readonly tool: ToolImplementation<typeof clinicBatchSpec>;
}

/**
 * The Clinic evidence package: one identity with its own Clinic, CloudConfig and SQL
 * credentials, one batch tool, and the Provider Executor's entry point mapping planned
 * operations onto that tool through the single execution path.
 */
export function clinicPackage(config: ClinicPackageConfig): ClinicEvidencePackage {
  const tool = clinicBatchTool(config);
  return {
    name: 'clinic',
    tool,
    tools: [clinicBatchSpec],
    operations: CLINIC_OPERATIONS,
    listTargets: () => listClinicTargets(config),
    runBatch: async (request: EvidenceBatchRequest, options: EvidenceRunOptions = {}): Promise<ToolResult<EvidenceBatchDetails>> => {
      // The ticket was frozen upstream; a malformed key here means the request was not built by it.
      if (request.ticketKey !== null && !TicketKey.safeParse(request.ticketKey).success) return failure('PROVIDER.INPUT_INVALID', 'ticketKey: must look like PROJ-123');
      const scope = parseClinicTarget(request.target);
      if (!scope) return failure('PROVIDER.TARGET_REJECTED', 'target: a Clinic target is "<org id>/<cluster id>", both exact ids');
      const entries: Record<string, unknown>[] = [];
      for (const planned of request.queries) {
        const mapped = plannedToClinicEntry(planned);
        if (!mapped.ok) return failure('PROVIDER.INPUT_INVALID', mapped.detail);
        entries.push(mapped.entry);
      }
      const result = await executeTool(tool, { org_id: scope.orgId, cluster_id: scope.clusterId, window: request.window, queries: entries }, options);
      if (!result.ok) return result;
      const queries: QueryEvidence[] = result.details.queries.map((q) => ({
        id: q.id,
        status: q.status,
        ...(q.result !== undefined ? { result: q.result } : {}),
        ...(q.error_code !== undefined ? { error_code: q.error_code } : {}),
        ...(q.detail_error !== undefined ? { detail_error: q.detail_error } : {}),
        ...(q.supplemental ? { supplemental: true } : {}),
      }));
      return success({ target: request.target, window: result.details.window, queries });
    },
  };
}
