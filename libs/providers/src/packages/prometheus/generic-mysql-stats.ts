import { ProviderError } from '../../core/provider-error';
import { opaqueRef, redactText } from '../../core/sanitize';
import { mySqlStatsSecrets, runReadOnlySql, type MySqlStatsEndpoint, type SqlCell } from '../../connectors/mysql-connector';
import { keyedRef, statementKind } from '../../connectors/postgres-connector';
import { MYSQL_REDACTED_COLUMNS, MYSQL_STATEMENT_TEXT_COLUMNS, MYSQL_USER_COLUMNS, validateReadOnlyMySqlStats } from '../../validation/read-only-mysql-stats';
import { SQL_MAX_BYTES, SQL_MAX_COLUMNS, SQL_MAX_ROWS, SQL_TIMEOUT_MS, type GenericSqlResult } from './generic-sql.operation';

/**
 * `sql` of the generic package on a MySQL/MariaDB target: exactly one allowlisted SELECT over
 * `performance_schema` / `information_schema` statistics (`validateReadOnlyMySqlStats`), run by
 * `runReadOnlySql` with the endpoint's own account in a read-only session. Like the PostgreSQL
 * views, these tables hold the server's state at execution time, not the batch window's.
 *
 * What leaves: column names in lower case; statement text as `<column>_digest` and
 * `<column>_kind` — `digest_text` (normalised, no literals) as `digest:<16 hex>` (sha256, stable
 * across runs so digests compare between windows), every other text column (`info`,
 * `trx_query`, `sql_text`, `query_sample_text`, which hold literals) as a process-keyed
 * `stmt:<16 hex>` that cannot be reversed by hashing guesses; hosts and error texts as
 * `[redacted]`; accounts as `user:<16 hex>`; the server's own `digest` only as hex; other strings
 * redacted and cut; numbers as they are.
 */

const TEXT = new Set(MYSQL_STATEMENT_TEXT_COLUMNS);
const REDACTED = new Set(MYSQL_REDACTED_COLUMNS);
const USERS = new Set(MYSQL_USER_COLUMNS);
const SERVER_DIGEST = /^[0-9a-f]{16,64}$/i;
/** Raw rows read before sanitising: digest texts are long, the sanitised row is small. */
const RAW_MAX_BYTES = 512 * 1024;

type Plan = 'digest' | 'statement' | 'redacted' | 'user' | 'server_digest' | 'plain';

function planOf(name: string): Plan {
  if (name === 'digest_text') return 'digest';
  if (TEXT.has(name)) return 'statement';
  if (REDACTED.has(name)) return 'redacted';
  if (USERS.has(name)) return 'user';
  if (name === 'digest') return 'server_digest';
  return 'plain';
}

/** Columns and rows as they may leave the package (see the module comment). */
export function sanitiseMySqlRows(rawColumns: readonly string[], rawRows: readonly SqlCell[][], secrets: readonly string[]): { columns: string[]; rows: SqlCell[][] } {
  const names = rawColumns.map((c) => c.toLowerCase());
  const plans = names.map(planOf);
  const columns = names.flatMap((name, i) => (plans[i] === 'digest' || plans[i] === 'statement' ? [`${name}_digest`, `${name}_kind`] : [redactText(name, { secrets, maxStringLength: 64 })]));
  const rows = rawRows.map((raw) =>
    plans.flatMap((plan, i): SqlCell[] => {
      const value = raw[i] ?? null;
      if (plan === 'digest' || plan === 'statement') {
        if (typeof value !== 'string' || value.trim().length === 0) return [null, null];
        return [plan === 'digest' ? opaqueRef('digest', value) : keyedRef('stmt', value), statementKind(value)];
      }
      if (value === null) return [null];
      if (plan === 'redacted') return ['[redacted]'];
      if (plan === 'user') return [keyedRef('user', String(value))];
      if (plan === 'server_digest') return [typeof value === 'string' && SERVER_DIGEST.test(value) ? value.toLowerCase() : '[redacted]'];
      return [typeof value === 'string' ? redactText(value, { secrets, maxStringLength: 200 }) : value];
    }),
  );
  return { columns, rows };
}

export async function runGenericMySql(q: { id: string; sql: string }, endpoint: MySqlStatsEndpoint, signal: AbortSignal): Promise<GenericSqlResult> {
  const field = `queries.${q.id}.sql`;
  const checked = validateReadOnlyMySqlStats(q.sql, field);
  const result = await runReadOnlySql(endpoint, checked.sql, { signal, field, limits: { maxRows: SQL_MAX_ROWS, maxBytes: RAW_MAX_BYTES, statementTimeoutMs: SQL_TIMEOUT_MS } });
  const { columns, rows: sanitised } = sanitiseMySqlRows(result.columns, result.rows, mySqlStatsSecrets(endpoint));
  if (columns.length > SQL_MAX_COLUMNS) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: select at most ${SQL_MAX_COLUMNS} columns (statement text counts as two)`);
  const rows: SqlCell[][] = [];
  let bytes = Buffer.byteLength(JSON.stringify(columns), 'utf8') + 64;
  let truncated = result.truncated;
  for (const row of sanitised) {
    bytes += Buffer.byteLength(JSON.stringify(row), 'utf8') + 1;
    if (bytes > SQL_MAX_BYTES) {
      truncated = true;
      break;
    }
    rows.push(row);
  }
  return { operation: 'sql', dialect: 'mysql', readAt: new Date().toISOString(), relations: checked.relations, columns, rows, rowCount: rows.length, truncated };
}
