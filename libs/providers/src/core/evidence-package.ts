import type { HttpCallRecord } from '../connectors/http-client';
import type { AbsoluteWindow } from './time-window';
import type { ToolResult } from './tool-result';
import type { AuditSink, ToolSpec } from './tool-spec';

/** Operations a planned query may ask for; each package serves a subset. */
export type EvidenceOperation =
  | 'promql_range'
  | 'promql_instant'
  | 'sql'
  | 'top_sql'
  | 'statements'
  | 'slow_query'
  | 'logs'
  | 'activities'
  | 'cluster_metadata'
  | 'components'
  | 'configuration';

export interface PlannedProviderQuery {
  /** Stable query id: a safe slug of at most 64 characters, unique in the batch. */
  id: string;
  operation: EvidenceOperation;
  /** PromQL, SQL, log selector or a JSON document of the operation's parameters. */
  expression: string;
  /** Defaults to the batch window. */
  window?: AbsoluteWindow;
  stepSeconds?: number;
  /** Supplemental queries stay visible but never degrade acquisition and are not retried. */
  supplemental?: boolean;
}

export interface EvidenceBatchRequest {
  /** Ticket key, for packages that validate its shape (e.g. Wetech APID keys). */
  ticketKey: string | null;
  /** The frozen, trusted target (cluster id, exact target name); never a URL. */
  target: string;
  window: AbsoluteWindow;
  queries: PlannedProviderQuery[];
}

export interface QueryEvidence {
  id: string;
  status: 'complete' | 'empty' | 'failed';
  /** Compact, sanitised result of the query (summaries, safe labels, opaque refs). */
  result?: unknown;
  error_code?: string;
  detail_error?: string;
  supplemental?: boolean;
}

export interface EvidenceBatchDetails {
  target: string;
  window: AbsoluteWindow;
  queries: QueryEvidence[];
}

export interface EvidenceRunOptions {
  audit?: AuditSink;
  /** HTTP attempts and 5xx episodes per query id; execution state, never model-visible. */
  onHttpRecord?: (queryId: string, record: HttpCallRecord) => void;
  now?: Date;
}

/** The targets a package can serve, bounded and sanitised (its inventory). */
export interface TargetListing {
  status: 'listed' | 'unavailable';
  targets: { target: string; aliases: string[] }[];
  truncated: boolean;
  failureCode: string | null;
}

/** The metric names present for one target and window (discovery), bounded and sanitised. */
export interface CatalogListing {
  status: 'listed' | 'empty' | 'unsupported' | 'failed';
  /** The label whose exact value selects the target in every query. */
  targetLabel: string | null;
  metrics: { name: string; labelKeys: string[]; series: number }[];
  truncated: boolean;
  failureCode: string | null;
  /** What the package can run for this target (e.g. `sql`, `logs` besides PromQL); absent: not said. */
  operations?: EvidenceOperation[];
  /** The label whose exact value selects the target in log stream selectors (`logs`); null or absent: no logs. */
  logsLabel?: string | null;
}

/**
 * A provider package as the Provider Executor sees it: one identity with its own credentials,
 * its tool specs, and one bounded batch entry point that goes through `executeTool`.
 */
export interface EvidencePackage {
  readonly name: 'clinic' | 'manus' | 'wetech' | 'prometheus';
  readonly tools: readonly ToolSpec[];
  readonly operations: readonly EvidenceOperation[];
  runBatch(request: EvidenceBatchRequest, options?: EvidenceRunOptions): Promise<ToolResult<EvidenceBatchDetails>>;
  /** Its inventory; packages without one serve only targets named exactly in their configuration. */
  listTargets?(options?: EvidenceRunOptions): Promise<TargetListing>;
  /** Metric discovery for the frozen target and window; packages without it plan from templates. */
  discoverMetrics?(request: { target: string; window: AbsoluteWindow }, options?: EvidenceRunOptions): Promise<CatalogListing>;
}
