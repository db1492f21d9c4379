import { EvidenceBatchPlannedV1, MAX_QUERIES_PER_BATCH, type EvidenceRequestedV1 } from '@aoc/contracts';
import { classifyMetric } from '@aoc/metric-ontology';
import { builtinPlan, type EvidencePlanInputV1 } from './plan-evidence';
import { sqlDialectOf, type PlanningCatalogV1 } from './planning-catalog';
import { validatePlan } from './plan-validator';
import { QUERY_TEMPLATES_VERSION } from './query-templates';

const PG_METRICS = ['pg_stat_database_numbackends', 'pg_settings_max_connections', 'pg_stat_database_deadlocks', 'pg_replication_lag_seconds', 'process_cpu_seconds_total', 'node_filesystem_avail_bytes', 'pg_stat_bgwriter_checkpoints_req_total'];
const MYSQL_METRICS = ['mysql_global_status_threads_connected', 'mysql_global_variables_max_connections', 'mysql_global_status_innodb_row_lock_waits', 'mysql_slave_status_seconds_behind_master', 'process_cpu_seconds_total'];

const catalog = (names: string[], operations: string[], over: Partial<PlanningCatalogV1> = {}): PlanningCatalogV1 => ({
  status: 'listed',
  targetLabel: 'instance',
  truncated: false,
  failureCode: null,
  operations,
  logsLabel: operations.includes('logs') ? 'instance' : null,
  metrics: names.map((name) => {
    const c = classifyMetric(name);
    return { name, family: c.family, kind: c.kind, aggregation: c.aggregation, badDirection: c.badDirection, unit: c.unit, labelKeys: ['instance'] };
  }),
  ...over,
});

const request = (question: string): EvidenceRequestedV1 => ({
  runId: 'run-1',
  ticketKey: null,
  scenarioId: 'db-incident',
  requestId: 'run-1:db-incident:0',
  question,
  stopCondition: 'evidence read',
  provider: 'prometheus',
  target: 'orders-db',
  window: { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' },
  refinement: false,
});

const plan = (question: string, c: PlanningCatalogV1) => {
  const input: EvidencePlanInputV1 = { request: request(question), templatesVersion: QUERY_TEMPLATES_VERSION, catalog: c, rewrite: null };
  const out = builtinPlan(input);
  // Whatever the planner drafts passes the deterministic validator it is checked with.
  const checked = validatePlan(request(question), out.queries.map((q) => ({ id: q.id, operation: q.operation, expression: q.expression, purpose: q.purpose })), { targetLabel: c.targetLabel, logsLabel: c.logsLabel, operations: c.operations });
  expect(checked.errors).toEqual([]);
  expect(out.queries.length).toBeLessThanOrEqual(MAX_QUERIES_PER_BATCH);
  return { ...out, ids: out.queries.map((q) => q.id) };
};
const ALL = ['promql_range', 'promql_instant', 'sql', 'logs'];

describe('planning the channels a hypothesis needs', () => {
  it('plans logs and PostgreSQL statistics for what the question names, not only on exact words, and keeps metric queries', () => {
    const p = plan('Clients got "sorry, too many clients" and the app saw deadlocks after a failover', catalog(PG_METRICS, ALL));
    expect(p.ids).toEqual(expect.arrayContaining(['log_errors', 'pg_connections', 'pg_blocked_sessions', 'pg_replication']));
    expect(p.ids.indexOf('log_errors')).toBeLessThan(p.ids.indexOf('pg_connections'));
    expect(p.queries.filter((q) => q.operation.startsWith('promql')).length).toBeGreaterThanOrEqual(4);
    expect(p.queries.filter((q) => q.operation === 'sql' || q.operation === 'logs').length).toBeLessThanOrEqual(6);
  });

  it('plans top statements for CPU or latency questions, and checkpoint statistics for WAL questions', () => {
    expect(plan('Why is CPU at 95% and the p99 latency up?', catalog(PG_METRICS, ALL)).ids).toContain('pg_top_statements');
    expect(plan('checkpoints are occurring too frequently since the bulk load', catalog(PG_METRICS, ALL)).ids).toEqual(expect.arrayContaining(['pg_checkpoints', 'log_errors']));
  });

  it('plans MySQL statistics for a target whose metrics are MySQL ones', () => {
    const c = catalog(MYSQL_METRICS, ALL);
    expect(sqlDialectOf(c.operations, c.metrics.map((m) => m.name))).toBe('mysql');
    const p = plan('Lock wait timeouts and too many connections; is the replica lagging? Which statements use the CPU?', c);
    expect(p.ids).toEqual(expect.arrayContaining(['mysql_transactions', 'mysql_processlist', 'mysql_top_statements']));
    expect(p.ids.some((id) => id.startsWith('pg_'))).toBe(false);
  });

  it('plans a probe for a channel the question needs but the target lacks, and says so', () => {
    const noLogs = plan('The database restarted and clients saw errors; which statements were slow?', catalog(PG_METRICS, ['promql_range', 'promql_instant', 'sql']));
    expect(noLogs.queries.filter((q) => q.id.startsWith('channel_'))).toEqual([expect.objectContaining({ id: 'channel_logs', operation: 'logs', expression: '{instance="orders-db"}' })]);
    expect(noLogs.ids[0]).toBe('channel_logs');
    expect(noLogs.plannerNotes).toMatch(/The database log is not configured for this target \(its endpoint has no loki settings\)/);
    const noSql = plan('The database restarted and clients saw errors; which statements were slow?', catalog(PG_METRICS, ['promql_range', 'promql_instant', 'logs']));
    expect(noSql.queries.filter((q) => q.id.startsWith('channel_'))).toEqual([expect.objectContaining({ id: 'channel_statements', operation: 'sql', expression: 'SELECT 1 AS channel_check' })]);
    expect(noSql.plannerNotes).toMatch(/Statement statistics are not configured for this target/);
    // A question nothing but metrics can answer needs no probe; a metrics-only endpoint, or an old
    // catalogue that does not say what it offers, gets none (replays recorded without probes stay whole).
    expect(plan('How did network throughput change?', catalog(PG_METRICS, ['promql_range', 'logs'])).ids.some((id) => id.startsWith('channel_'))).toBe(false);
    expect(plan('The database restarted', catalog(PG_METRICS, ['promql_range', 'promql_instant'])).ids.some((id) => id.startsWith('channel_'))).toBe(false);
    expect(plan('The database restarted', catalog(PG_METRICS, [])).ids.some((id) => id.startsWith('channel_'))).toBe(false);
  });

  it('the validator accepts a probe for a channel the target lacks, and nothing else for it', () => {
    const offered = { targetLabel: 'instance', logsLabel: null, operations: ['promql_range', 'promql_instant'] };
    const probe = { id: 'channel_logs', operation: 'logs', expression: '{instance="orders-db"}', purpose: 'p' };
    expect(validatePlan(request('x'), [probe], offered).errors).toEqual([]);
    const v = validatePlan(request('x'), [{ ...probe, expression: '{instance="orders-db"} |= "x"' }, { ...probe, id: 'other' }, { id: 'channel_statements', operation: 'sql', expression: 'SELECT * FROM pg_stat_activity', purpose: 'p' }], offered);
    expect(v.errors.map((e) => e.code)).toEqual(Array(3).fill('EVIDENCE.OPERATION_UNSUPPORTED'));
  });

  it('still plans the channels when metric discovery failed, beside the series probe', () => {
    const p = plan('deadlocks and a restart', catalog([], ALL, { status: 'failed', failureCode: 'PROVIDER.UNREACHABLE' }));
    expect(p.ids[0]).toBe('target_series');
    expect(p.ids).toEqual(expect.arrayContaining(['log_errors', 'pg_blocked_sessions']));
    const published: EvidenceBatchPlannedV1 = {
      runId: 'run-1', scenarioId: 'db-incident', ticketKey: null, requestId: 'r', batchId: 'r:b0', planRevision: 0, provider: 'prometheus', target: 'orders-db', window: request('x').window,
      queries: p.queries.map((q) => ({ id: q.id, operation: q.operation as 'logs', expression: q.expression, purpose: q.purpose })), plannerNotes: p.plannerNotes,
    };
    expect(EvidenceBatchPlannedV1.parse(published).queries).toHaveLength(p.queries.length);
  });
});
