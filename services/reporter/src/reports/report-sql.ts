import type { ReporterTables } from '../reporter.tables';
import type { ReportPeriod } from './report-period';

/*
 * SQL fragments every report shares. Parameters are always bound ($n); the fragments hold table
 * names and constants only, never input.
 */

/** `$1`/`$2`/`$3` of the counted-runs queries: the period's instants and the tenant (null: every tenant). */
export type PeriodBounds = [startsAt: string, endsBefore: string, tenant: string | null];

export function periodBounds(period: ReportPeriod, tenant: string | null): PeriodBounds {
  return [period.startsAt.toISOString(), period.endsBefore.toISOString(), tenant];
}

/** `$n` is the tenant the figures cover, or NULL for every tenant (constants only, no input). */
export function tenantFilterSql(column: string, param: string): string {
  return `(${param}::text IS NULL OR ${column} = ${param}::text)`;
}

/** A provider fact belongs to the tenant of its run. */
export function runOfTenantSql(t: ReporterTables, alias: string, param: string): string {
  return `(${param}::text IS NULL OR ${alias}."run_id" IN (SELECT r."run_id" FROM ${t.runs} r WHERE r."tenant" = ${param}::text))`;
}

/**
 * Counted runs of a period: triggers initial and bot_assignment only (the `counted` flag of the
 * per-run projection), published inside the period. `continuation` (a follow-up on a ticket
 * already answered) and `replay` (not a production run) are excluded from every number of a
 * report. $1/$2 are the period's instants, $3 the tenant (PeriodBounds); served by the partial
 * index reporter_projections_counted_idx.
 */
export function countedRunsSql(t: ReporterTables): string {
  return `counted AS (
    SELECT p.* FROM ${t.projections} p
     WHERE p."counted" AND p."published_at" >= $1 AND p."published_at" < $2 AND ${tenantFilterSql('p."tenant"', '$3')}
  )`;
}
