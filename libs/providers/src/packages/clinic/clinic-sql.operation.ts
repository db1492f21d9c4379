import { summariseColumns } from '../../connectors/mysql-column-stats';
import { runReadOnlySql } from '../../connectors/mysql-connector';
import { validateReadOnlySql } from '../../validation/read-only-sql';
import type { ClinicQueryOf } from './clinic-input.schema';
import { requireSqlEndpoint, type ClinicOperationContext, type OperationOutcome } from './clinic-operation.context';
import type { SqlResult } from './clinic-output.schema';

/** Validation before any network use: exactly one read-only statement. */
export function prepareSqlQuery(q: ClinicQueryOf<'sql'>, field: string): string {
  return validateReadOnlySql(q.sql, `${field}.sql`).sql;
}

/**
 * Agent-authored read-only SQL. The answer is column statistics and counts only: the statement
 * and the raw rows stay inside the package.
 */
export async function runSqlQuery(q: ClinicQueryOf<'sql'>, ctx: ClinicOperationContext): Promise<OperationOutcome<SqlResult>> {
  const sqlText = prepareSqlQuery(q, ctx.field);
  const { endpoint, sql } = requireSqlEndpoint(ctx);
  const result = await runReadOnlySql(endpoint, sqlText, { signal: ctx.signal, limits: sql.limits, field: `${ctx.field}.sql` });
  return {
    status: result.rows.length === 0 ? 'empty' : 'complete',
    result: {
      statement: result.statement,
      row_count: result.rows.length,
      truncated: result.truncated,
      truncated_by: result.truncatedBy,
      columns: summariseColumns(result.columns, result.rows),
      read_only: result.readOnlySession,
      statement_timeout: result.statementTimeout,
    },
  };
}
