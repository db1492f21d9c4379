import type { ClinicApi, ClinicClusterMetadata, ClinicScope } from '../../connectors/clinic-api-connector';
import { recordOf, type HttpCallRecord } from '../../connectors/http-client';
import { ProviderError } from '../../core/provider-error';
import type { ClinicPackageConfig } from './clinic.config';
import type { StatementType } from './clinic-output.schema';

/** What one operation may use: the scoped Clinic client, the verified metadata, its own window. */
export interface ClinicOperationContext {
  api: ClinicApi;
  scope: ClinicScope;
  metadata: ClinicClusterMetadata;
  config: ClinicPackageConfig;
  signal: AbortSignal;
  /** `[]` for supplemental entries: their failures are reported, never retried. */
  retryDelaysMs: readonly number[];
  window: { from: string; to: string; fromMs: number; toMs: number };
  field: string;
  record(record: HttpCallRecord): void;
}

export interface OperationOutcome<R> {
  status: 'complete' | 'empty';
  result: R;
}

/** Awaits a connector call and hands its HTTP record to the executor, on success and on failure. */
export async function tracked<T extends { record: HttpCallRecord }>(ctx: Pick<ClinicOperationContext, 'record'>, call: Promise<T>): Promise<T> {
  try {
    const result = await call;
    ctx.record(result.record);
    return result;
  } catch (error) {
    const record = recordOf(error);
    if (record) ctx.record(record);
    throw error;
  }
}

/** Label-like provider values pass; anything else is reduced to a fixed marker. */
export function safeLabel(value: string | null | undefined, fallback = 'other'): string {
  if (value === null || value === undefined) return fallback;
  return /^[A-Za-z0-9_.:/-]{1,64}$/.test(value) ? value : fallback;
}

/** Statement kind from a statement type name or the first keyword; the text itself is never kept. */
export function statementTypeOf(value: string | null | undefined): StatementType {
  const word = (value ?? '').trim().split(/[\s(]+/, 1)[0]?.toLowerCase() ?? '';
  if (['select', 'with', 'show', 'explain', 'desc', 'describe', 'table'].includes(word)) return 'select';
  if (word === 'insert' || word === 'update' || word === 'delete' || word === 'replace') return word;
  if (['create', 'alter', 'drop', 'truncate', 'rename'].includes(word)) return 'ddl';
  if (['begin', 'start', 'commit', 'rollback'].includes(word)) return 'transaction';
  return 'other';
}

export function requireSqlEndpoint(ctx: Pick<ClinicOperationContext, 'config' | 'scope'>) {
  const sql = ctx.config.sql;
  const endpoint = sql ? (typeof sql.endpoint === 'function' ? sql.endpoint(ctx.scope) : sql.endpoint) : null;
  if (!sql || !endpoint) throw new ProviderError('PROVIDER.UNREACHABLE', 'no SQL endpoint is configured for this cluster');
  const attested = sql.attestedSelectOnlyAccount === true ? { attestedSelectOnlyAccount: true } : {};
  return { endpoint: { ...endpoint, user: sql.user, password: sql.password, ...attested }, sql };
}
