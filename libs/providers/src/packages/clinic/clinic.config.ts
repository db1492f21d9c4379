import type { BatchLimits } from '../../core/batch-scheduler';
import type { ClinicApiConfig, ClinicScope } from '../../connectors/clinic-api-connector';
import type { CloudConfigApiConfig } from '../../connectors/clinic-cloud-config-connector';
import type { ReadOnlySqlLimits } from '../../connectors/mysql-connector';

export interface ClinicSqlEndpoint {
  host: string;
  port: number;
  database?: string;
  ssl?: { ca?: string; rejectUnauthorized?: boolean; servername?: string };
}

/** Read-only SQL access (MySQL protocol) with the package's own account, never the caller's. */
export interface ClinicSqlConfig {
  user: string;
  password: string;
  /** A fixed endpoint, or one chosen per cluster; `null` means the cluster has no SQL access. */
  endpoint: ClinicSqlEndpoint | ((scope: ClinicScope) => ClinicSqlEndpoint | null);
  /** Schema holding TiDB's diagnostic tables (`slow_query`, `statements_summary`, ...). */
  systemSchema?: string;
  /**
   * The operator attests `user` is a SELECT-only account (grants in libs/providers/README.md).
   * TiDB cannot make a session read-only, so without this every SQL read of a TiDB cluster is
   * refused; with it, the account's `SHOW GRANTS` is checked before each statement.
   */
  attestedSelectOnlyAccount?: boolean;
  limits?: Partial<ReadOnlySqlLimits>;
}

/**
 * Everything the Clinic package needs. Clinic, CloudConfig and SQL credentials are separate
 * values; none of them is ever accepted from a tool call or returned in a result.
 */
export interface ClinicPackageConfig {
  clinic: ClinicApiConfig;
  /** DevOps CloudConfig, used only as the configuration fallback. */
  cloudConfig?: CloudConfigApiConfig;
  sql?: ClinicSqlConfig;
  batchLimits?: BatchLimits;
  /** Delays before the (at most two) retries of a primary request after a 5xx. */
  retryDelaysMs?: readonly number[];
  /** Limit of the ownership/metadata call made before any query runs. */
  bootstrapTimeoutMs?: number;
}
