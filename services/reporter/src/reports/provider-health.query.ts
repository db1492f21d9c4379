import type { EntityManager } from 'typeorm';
import type { ReporterTables } from '../reporter.tables';
import type { ReportPeriod } from './report-period';
import type { ProviderDayHealth, ProviderDayOverall, Weekly5xxRow } from './report.types';
import { runOfTenantSql } from './report-sql';

interface HealthRow {
  /** The all-providers row of a day (GROUPING SETS), else one provider's row. */
  overall: boolean;
  day: string;
  provider: string | null;
  queries: number;
  succeeded: number;
  failed: number;
  success_rate: number | null;
  s_queries: number;
  s_succeeded: number;
  s_failed: number;
  h200: number;
  h400: number;
  h500: number;
  h502: number;
  hother: number;
}

export interface ProviderHealth {
  providers: ProviderDayHealth[];
  overall: ProviderDayOverall[];
}

/**
 * Logical provider calls per Shanghai day and provider: complete|empty succeed, failed fails;
 * supplemental queries are counted apart and stay out of the success rate. HTTP attempts are
 * counted by status class on their own and never enter the logical denominator. One scan of the
 * query events also yields the per-day overall (GROUPING SETS), weighted by logical queries.
 */
export async function providerHealth(m: EntityManager, t: ReporterTables, period: ReportPeriod, tenant: string | null): Promise<ProviderHealth> {
  const rows: HealthRow[] = await m.query(
    `WITH q AS (
       SELECT e."day", e."provider", GROUPING(e."provider") = 1 AS overall,
              count(*) FILTER (WHERE NOT e."supplemental") AS queries,
              count(*) FILTER (WHERE NOT e."supplemental" AND e."outcome" IN ('complete', 'empty')) AS succeeded,
              count(*) FILTER (WHERE NOT e."supplemental" AND e."outcome" = 'failed') AS failed,
              count(*) FILTER (WHERE e."supplemental") AS s_queries,
              count(*) FILTER (WHERE e."supplemental" AND e."outcome" IN ('complete', 'empty')) AS s_succeeded,
              count(*) FILTER (WHERE e."supplemental" AND e."outcome" = 'failed') AS s_failed
         FROM ${t.queryEvents} e
        WHERE e."counted" AND e."day" >= $1::date AND e."day" < $2::date AND ${runOfTenantSql(t, 'e', '$3')}
        GROUP BY GROUPING SETS ((e."day", e."provider"), (e."day"))
     ), h AS (
       SELECT a."day", a."provider",
              count(*) FILTER (WHERE a."status_class" = '200') AS h200,
              count(*) FILTER (WHERE a."status_class" = '400') AS h400,
              count(*) FILTER (WHERE a."status_class" = '500') AS h500,
              count(*) FILTER (WHERE a."status_class" = '502') AS h502,
              count(*) FILTER (WHERE a."status_class" NOT IN ('200', '400', '500', '502')) AS hother
         FROM ${t.httpAttempts} a
        WHERE a."counted" AND a."day" >= $1::date AND a."day" < $2::date AND ${runOfTenantSql(t, 'a', '$3')}
        GROUP BY a."day", a."provider"
     )
     SELECT * FROM (
       SELECT false AS overall, to_char(coalesce(q."day", h."day"), 'YYYY-MM-DD') AS day,
              coalesce(q."provider", h."provider") AS provider,
              coalesce(q.queries, 0)::int AS queries,
              coalesce(q.succeeded, 0)::int AS succeeded,
              coalesce(q.failed, 0)::int AS failed,
              CASE WHEN coalesce(q.queries, 0) > 0 THEN q.succeeded::float8 / q.queries END AS success_rate,
              coalesce(q.s_queries, 0)::int AS s_queries,
              coalesce(q.s_succeeded, 0)::int AS s_succeeded,
              coalesce(q.s_failed, 0)::int AS s_failed,
              coalesce(h.h200, 0)::int AS h200,
              coalesce(h.h400, 0)::int AS h400,
              coalesce(h.h500, 0)::int AS h500,
              coalesce(h.h502, 0)::int AS h502,
              coalesce(h.hother, 0)::int AS hother
         FROM (SELECT * FROM q WHERE NOT q.overall) q
         FULL JOIN h ON h."day" = q."day" AND h."provider" = q."provider"
       UNION ALL
       SELECT true, to_char(q."day", 'YYYY-MM-DD'), NULL, q.queries::int, q.succeeded::int, q.failed::int,
              q.succeeded::float8 / q.queries, 0, 0, 0, 0, 0, 0, 0, 0
         FROM q WHERE q.overall AND q.queries > 0
     ) z
     ORDER BY z.overall, z.day, z.provider COLLATE "C"`,
    [period.from, period.dayAfter, tenant],
  );
  return {
    providers: rows
      .filter((r) => !r.overall)
      .map((r) => ({
        day: r.day,
        provider: r.provider ?? '',
        queries: r.queries,
        succeeded: r.succeeded,
        failed: r.failed,
        successRate: r.success_rate,
        http: { status200: r.h200, status400: r.h400, status500: r.h500, status502: r.h502, other: r.hother },
        supplemental: { queries: r.s_queries, succeeded: r.s_succeeded, failed: r.s_failed },
      })),
    overall: rows
      .filter((r) => r.overall)
      .map((r) => ({ day: r.day, queries: r.queries, succeeded: r.succeeded, failed: r.failed, successRate: r.success_rate })),
  };
}

/** Provider 5xx episodes of the week per provider and query: recovered vs still failed after retries. */
export async function provider5xx(m: EntityManager, t: ReporterTables, period: ReportPeriod, tenant: string | null): Promise<Weekly5xxRow[]> {
  const rows: {
    provider: string;
    query_id: string;
    episodes: number;
    recovered: number;
    still_failed: number;
    tickets: string[];
    max_attempts: number;
    upstream_errors: string[];
    request_ids: string[];
  }[] = await m.query(
    `SELECT s."provider", s."query_id",
            count(*)::int AS episodes,
            count(*) FILTER (WHERE s."result" = 'recovered')::int AS recovered,
            count(*) FILTER (WHERE s."result" = 'failed')::int AS still_failed,
            array_agg(DISTINCT s."ticket_key" COLLATE "C" ORDER BY s."ticket_key" COLLATE "C") AS tickets,
            max(cardinality(s."status_sequence"))::int AS max_attempts,
            coalesce(array_agg(DISTINCT s."upstream_error" COLLATE "C" ORDER BY s."upstream_error" COLLATE "C") FILTER (WHERE s."upstream_error" <> ''), '{}') AS upstream_errors,
            coalesce(array_agg(DISTINCT s."request_id" COLLATE "C" ORDER BY s."request_id" COLLATE "C") FILTER (WHERE coalesce(s."request_id", '') <> ''), '{}') AS request_ids
       FROM ${t.systemEvents} s
      WHERE s."counted" AND s."day" >= $1::date AND s."day" < $2::date AND ${runOfTenantSql(t, 's', '$3')}
      GROUP BY s."provider", s."query_id"
      ORDER BY episodes DESC, s."provider" COLLATE "C", s."query_id" COLLATE "C"`,
    [period.from, period.dayAfter, tenant],
  );
  return rows.map((r) => ({
    provider: r.provider,
    queryId: r.query_id,
    episodes: r.episodes,
    recovered: r.recovered,
    stillFailed: r.still_failed,
    tickets: r.tickets,
    maxAttempts: r.max_attempts,
    upstreamErrors: r.upstream_errors,
    requestIds: r.request_ids,
  }));
}
