import { z } from 'zod';
import { ProviderError } from '../../core/provider-error';
import { queryPostgresStats, type PostgresStatsEndpoint } from '../../connectors/postgres-connector';
import { validateReadOnlyPgSql } from '../../validation/read-only-pg-sql';

/**
 * `sql` of the generic package: exactly one allowlisted SELECT over PostgreSQL statistics views
 * (`validateReadOnlyPgSql`), run by `queryPostgresStats` with the endpoint's own account in a
 * read-only transaction.
 *
 * These views describe the server *now*: a `sql` entry reads the state at execution time, not
 * the batch window (`readAt` says when). A live run therefore sees the present, a replay sees
 * exactly what the recording kept from its own execution.
 */

/** Rows and bytes one entry may return; twelve of them still fit the tool's output bound. */
export const SQL_MAX_ROWS = 50;
export const SQL_MAX_BYTES = 16 * 1024;
export const SQL_MAX_COLUMNS = 32;
/** Server-side statement and lock timeout of one entry (the batch share may cut it shorter). */
export const SQL_TIMEOUT_MS = 10_000;

const Cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const GenericSqlResult = z
  .object({
    operation: z.literal('sql'),
    /** The server the statement read; absent: PostgreSQL (results recorded before MySQL targets existed). */
    dialect: z.enum(['postgresql', 'mysql']).optional(),
    /** When the statistics were read: the views hold the current state, not the window's. */
    readAt: z.string().max(40),
    /** Allowlisted views the statement read (PostgreSQL: the view name; MySQL: `<schema>.<table>`). */
    relations: z.array(z.string().max(64)).max(16),
    columns: z.array(z.string().max(80)).max(SQL_MAX_COLUMNS),
    rows: z.array(z.array(Cell)).max(SQL_MAX_ROWS),
    rowCount: z.number().int().nonnegative(),
    truncated: z.boolean(),
  })
  .strict();
export type GenericSqlResult = z.infer<typeof GenericSqlResult>;

/**
 * The answer of a `sql` or `logs` entry whose channel the target's endpoint does not have
 * (`statements`: no `postgres` or `mysql` settings; `logs`: no `loki`). It is evidence that the
 * channel cannot be read for this target, never a reading of the database: nothing was asked.
 */
export const GenericChannelResult = z
  .object({
    operation: z.literal('channel'),
    channel: z.enum(['statements', 'logs']),
    availability: z.literal('not_configured'),
    /** The endpoint setting that would offer it. */
    setting: z.enum(['postgres or mysql', 'loki']),
  })
  .strict();
export type GenericChannelResult = z.infer<typeof GenericChannelResult>;

export function channelNotConfigured(channel: GenericChannelResult['channel']): GenericChannelResult {
  return { operation: 'channel', channel, availability: 'not_configured', setting: channel === 'logs' ? 'loki' : 'postgres or mysql' };
}

/** Validation before any network use; returns the statement as it will run and what it reads. */
export function prepareGenericSql(sql: string, field: string): { sql: string; relations: string[] } {
  return validateReadOnlyPgSql(sql, field);
}

export async function runGenericSql(q: { id: string; sql: string }, endpoint: PostgresStatsEndpoint, signal: AbortSignal): Promise<GenericSqlResult> {
  const field = `queries.${q.id}.sql`;
  const checked = prepareGenericSql(q.sql, field);
  const result = await queryPostgresStats(endpoint, checked.sql, { signal, timeoutMs: SQL_TIMEOUT_MS, maxRows: SQL_MAX_ROWS, maxBytes: SQL_MAX_BYTES, field });
  if (result.columns.length > SQL_MAX_COLUMNS) throw new ProviderError('PROVIDER.QUERY_REJECTED', `${field}: select at most ${SQL_MAX_COLUMNS} columns (statement text counts as two)`);
  return {
    operation: 'sql',
    dialect: 'postgresql',
    readAt: new Date().toISOString(),
    relations: checked.relations,
    columns: result.columns,
    rows: result.rows,
    rowCount: result.rowCount,
    truncated: result.truncated,
  };
}
