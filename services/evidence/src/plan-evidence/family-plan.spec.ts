import type { EvidenceRequestedV1 } from '@aoc/contracts';
import { classifyMetric } from '@aoc/metric-ontology';
import { unboundSelectors, validatePromQl } from '@aoc/providers';
import { builtinPlan } from './plan-evidence';
import { askedFamilies, familyExpression, planByFamily } from './family-plan';
import { toPlanningCatalog, type PlanningCatalogV1 } from './planning-catalog';

const catalogOf = (names: string[], labelKeys: string[] = ['cluster', 'dbinstance_identifier']): PlanningCatalogV1 => ({
  status: 'listed',
  targetLabel: 'cluster',
  truncated: false,
  failureCode: null,
  metrics: names.map((name) => {
    const c = classifyMetric(name);
    return { name, family: c.family, kind: c.kind, aggregation: c.aggregation, badDirection: c.badDirection, unit: c.unit, labelKeys };
  }),
});

const RDS = [
  'aws_rds_cpuutilization_average',
  'aws_rds_database_connections_average',
  'aws_rds_database_connections_maximum',
  'aws_rds_free_storage_space_minimum',
  'aws_rds_free_storage_space_average',
  'aws_rds_freeable_memory_minimum',
  'aws_rds_read_iops_average',
  'aws_rds_write_latency_average',
  'aws_rds_network_receive_throughput_average',
  'aws_rds_replica_lag_maximum',
  'acme_widget_frobnications_total',
];

const request = (question: string): EvidenceRequestedV1 => ({
  runId: 'run-1',
  ticketKey: null,
  scenarioId: 'connection-exhaustion',
  requestId: 'run-1:connection-exhaustion:0',
  question,
  stopCondition: 'series are available',
  provider: 'prometheus',
  target: 'payments-prod',
  window: { from: '2026-11-30T13:00:00.000Z', to: '2026-11-30T14:00:00.000Z' },
  refinement: false,
});

describe('family planning over a discovered catalogue', () => {
  it('maps the neutral question to families and adds their limits', () => {
    expect(askedFamilies('How did the number of database connections and active sessions compare with the connection limit?')).toEqual(
      expect.arrayContaining(['connections', 'connection_limit', 'active_sessions']),
    );
  });

  it('plans the asked family first, one metric per base name, the bad-direction statistic preferred, then context families', () => {
    const plan = planByFamily(request('How did the number of database connections compare with the connection limit?'), catalogOf(RDS));
    expect(plan.drafts[0]).toMatchObject({ id: 'connections', family: 'connections', expression: 'sum(aws_rds_database_connections_maximum{cluster="payments-prod"})' });
    expect(plan.drafts.filter((d) => d.family === 'connections')).toHaveLength(1);
    expect(plan.drafts.find((d) => d.family === 'storage_free')?.expression).toBe('min(aws_rds_free_storage_space_minimum{cluster="payments-prod"})');
    expect(plan.drafts.map((d) => d.family)).toEqual(expect.arrayContaining(['cpu', 'memory', 'iops', 'network', 'replication_lag', 'unknown']));
    expect(plan.drafts.length).toBeLessThanOrEqual(12);
    expect(new Set(plan.drafts.map((d) => d.id)).size).toBe(plan.drafts.length);
  });

  it('every planned expression parses and is bound to the target label', () => {
    const plan = planByFamily(request('How did CPU, storage, connections, replica lag and IOPS change?'), catalogOf(RDS));
    for (const d of plan.drafts) {
      expect(() => validatePromQl(d.expression)).not.toThrow();
      expect(unboundSelectors(d.expression, 'cluster', 'payments-prod')).toEqual([]);
    }
  });

  it('rates counters, takes quantiles of histogram buckets and reads per-mode CPU seconds as the busy percentage', () => {
    const [counter, bucket, cpu] = catalogOf(['pg_stat_database_xact_commit_total', 'tidb_server_handle_query_duration_seconds_bucket', 'node_cpu_seconds_total'], ['cluster', 'mode']).metrics;
    expect(familyExpression(counter, 'cluster', 'x')).toBe('sum(rate(pg_stat_database_xact_commit_total{cluster="x"}[5m]))');
    expect(familyExpression(bucket, 'cluster', 'x')).toBe('histogram_quantile(0.99, sum by (le) (rate(tidb_server_handle_query_duration_seconds_bucket{cluster="x"}[5m])))');
    const listed = (labelKeys: string[]) =>
      toPlanningCatalog({ runId: 'r', request: {} as never, status: 'listed', targetLabel: 'cluster', truncated: false, failureCode: null, metrics: [{ name: cpu.name, labelKeys, series: 1 }], operations: [], logsLabel: null }).metrics[0];
    const share = listed(['cluster', 'mode']);
    expect(share).toMatchObject({ unit: 'percent', busyShare: { label: 'mode', idle: 'idle|iowait' } });
    expect(familyExpression(share, 'cluster', 'x')).toBe(
      '100 * sum(rate(node_cpu_seconds_total{cluster="x",mode!~"idle|iowait"}[5m])) / clamp_min(sum(rate(node_cpu_seconds_total{cluster="x"}[5m])), 0.000001)',
    );
    // Without the state label on its series the counter is no share, and its unit is not a percentage.
    const bare = listed(['cluster']);
    expect(bare).toMatchObject({ unit: 'unknown' });
    expect(bare.busyShare).toBeUndefined();
    expect(familyExpression(bare, 'cluster', 'x')).toBe('sum(rate(node_cpu_seconds_total{cluster="x"}[5m]))');
  });

  it('groups the gauges of one family into one query, one series per metric name', () => {
    const names = ['cpu_usr_core_1', 'cpu_usr_core_2', 'cpu_sys_core_1', 'AvgCpuUser', 'dbmsMeasuredCPU'];
    const plan = planByFamily(request('How did CPU change?'), catalogOf(names, ['cluster']));
    const cpu = plan.drafts.filter((d) => d.family === 'cpu');
    expect(cpu).toHaveLength(1);
    expect(cpu[0].expression).toMatch(/^max by \(__name__\) \(\{__name__=~"[A-Za-z0-9_|]+",cluster="payments-prod"\}\)$/);
    expect(unboundSelectors(cpu[0].expression, 'cluster', 'payments-prod')).toEqual([]);
  });

  it('says which asked family the target has no metric for', () => {
    const plan = planByFamily(request('How did replica lag change across the window?'), catalogOf(RDS.filter((n) => !n.includes('replica'))));
    expect(plan.missing).toEqual(['replication_lag']);
  });

  it('never plans more than 12 queries from a catalogue of hundreds', () => {
    const names = Array.from({ length: 400 }, (_, i) => `acme_metric_${i}_total`).concat(RDS);
    expect(planByFamily(request('How did connections change?'), catalogOf(names)).drafts.length).toBeLessThanOrEqual(12);
  });
});

describe('builtinPlan with a catalogue', () => {
  const plan = (question: string, catalog: PlanningCatalogV1) => builtinPlan({ request: request(question), templatesVersion: 't', catalog, rewrite: null });

  it('plans by family when no template metric exists, noting what is missing', () => {
    const out = plan('How did replica lag and connections change?', catalogOf(RDS.filter((n) => !n.includes('replica'))));
    expect(out.queries[0]).toMatchObject({ id: 'connections', operation: 'promql_range' });
    expect(out.plannerNotes).toContain('No metric of replication_lag exists for payments-prod');
  });

  it('keeps the template ids when the target holds every metric a template reads', () => {
    const out = plan('How did query duration percentiles, QPS change?', catalogOf(['tidb_server_handle_query_duration_seconds_bucket', 'tidb_server_query_total', 'process_cpu_seconds_total']));
    expect(out.queries.slice(0, 2).map((q) => q.id)).toEqual(['duration_p99', 'qps']);
    expect(out.queries.map((q) => q.expression).filter((e) => e.includes('tidb_server_query_total'))).toHaveLength(1);
  });

  it('an empty catalogue plans one probe that comes back empty instead of 54 template queries', () => {
    const out = plan('How did connections change?', { ...catalogOf([]), status: 'empty' });
    expect(out.queries).toEqual([expect.objectContaining({ id: 'target_series', operation: 'promql_instant', expression: 'count({cluster="payments-prod"})' })]);
    expect(out.plannerNotes).toContain('no series');
  });

  it("a failed discovery plans only the presence probe (so the provider's failure code is recorded) and says why", () => {
    const out = plan('How did connections change?', { ...catalogOf([]), status: 'failed', failureCode: 'PROVIDER.UNREACHABLE' });
    expect(out.queries.map((q) => q.id)).toEqual(['target_series']);
    expect(out.plannerNotes).toContain('PROVIDER.UNREACHABLE');
  });
});

describe('family planning of what metric events need', () => {
  const PG = ['pg_stat_activity_count', 'pg_settings_max_connections', 'pg_settings_work_mem_bytes', 'pg_settings_shared_buffers_bytes', 'pg_postmaster_start_time_seconds', 'pg_replication_is_replica', 'ALERTS', 'acme_widget_frobnications_total'];

  it('plans firing alerts and changed settings once each, and one unit of each event family, right after the asked family', () => {
    const plan = planByFamily(request('How did the number of database connections change?'), catalogOf(PG));
    expect(plan.drafts.slice(0, 6).map((d) => d.id)).toEqual(['connections', 'connection_limit', 'alerts_firing', 'settings_changed', 'restarts', 'failover']);
    expect(plan.drafts.find((d) => d.id === 'alerts_firing')?.expression).toBe('max by (alertname, severity) (ALERTS{alertstate="firing",cluster="payments-prod"})');
    expect(plan.drafts.find((d) => d.id === 'settings_changed')?.expression).toBe(
      'max by (__name__) ({__name__=~"pg_settings_.+",cluster="payments-prod"}) and on(__name__) (max by (__name__) ({__name__=~"pg_settings_.+",cluster="payments-prod"} @ end()) != on(__name__) max by (__name__) ({__name__=~"pg_settings_.+",cluster="payments-prod"} @ start()))',
    );
    // The settings and ALERTS are not planned again among the unknown metrics; the limit setting still is a connection_limit unit.
    expect(plan.drafts.filter((d) => d.family === 'unknown').map((d) => d.expression)).toEqual([expect.any(String), expect.any(String), 'sum(rate(acme_widget_frobnications_total{cluster="payments-prod"}[5m]))']);
    expect(plan.drafts.find((d) => d.family === 'connection_limit')?.expression).toContain('pg_settings_max_connections');
    for (const d of plan.drafts) {
      expect(() => validatePromQl(d.expression)).not.toThrow();
      expect(unboundSelectors(d.expression, 'cluster', 'payments-prod')).toEqual([]);
    }
    expect(plan.drafts.length).toBeLessThanOrEqual(12);
  });

  it('plans no event query for a catalogue without ALERTS or settings, and both exporters\' settings together', () => {
    expect(planByFamily(request('How did connections change?'), catalogOf(RDS)).drafts.map((d) => d.id)).not.toEqual(expect.arrayContaining(['alerts_firing']));
    const mixed = planByFamily(request('How did connections change?'), catalogOf(['mysql_global_variables_max_connections', 'mysql_global_variables_innodb_buffer_pool_size', 'pg_settings_work_mem_bytes']));
    expect(mixed.drafts.find((d) => d.id === 'settings_changed')?.expression).toContain('{__name__=~"pg_settings_.+|mysql_global_variables_.+",cluster="payments-prod"}');
    expect(mixed.drafts.some((d) => d.id === 'alerts_firing')).toBe(false);
  });
});

describe('label splits and primary metrics', () => {
  const catalogOf = (names: [string, string[]][]) => toPlanningCatalog({ runId: 'r', request: {} as never, status: 'listed', targetLabel: 'cluster', truncated: false, failureCode: null, metrics: names.map(([name, labelKeys]) => ({ name, labelKeys, series: 1 })), operations: [], logsLabel: null });

  it('plans a name the ontology splits by a label once per split, through its matcher', () => {
    const catalog = catalogOf([['mysql_global_status_handlers_total', ['cluster', 'handler']]]);
    const plan = planByFamily({ question: 'How did rows written and committed transactions change?', target: 'db-1' }, catalog);
    expect(plan.drafts.map((d) => d.expression)).toEqual(
      expect.arrayContaining([
        'sum(rate(mysql_global_status_handlers_total{cluster="db-1",handler=~"write|update|delete"}[5m]))',
        'sum(rate(mysql_global_status_handlers_total{cluster="db-1",handler=~"commit"}[5m]))',
      ]),
    );
  });

  it('takes the family primary metric first, and time per operation for disk latency', () => {
    const catalog = catalogOf([
      ['node_cpu_guest_seconds_total', ['cluster', 'mode']],
      ['node_load1', ['cluster']],
      ['node_cpu_seconds_total', ['cluster', 'mode']],
      ['node_disk_read_time_seconds_total', ['cluster']],
      ['node_disk_reads_completed_total', ['cluster']],
    ]);
    const plan = planByFamily({ question: 'How did CPU utilisation and disk latency change?', target: 'db-1' }, catalog);
    expect(plan.drafts[0].expression).toBe(
      '100 * sum(rate(node_cpu_seconds_total{cluster="db-1",mode!~"idle|iowait"}[5m])) / clamp_min(sum(rate(node_cpu_seconds_total{cluster="db-1"}[5m])), 0.000001)',
    );
    expect(plan.drafts.find((d) => d.family === 'io_latency')?.expression).toBe(
      'sum(rate(node_disk_read_time_seconds_total{cluster="db-1"}[5m])) / clamp_min(sum(rate(node_disk_reads_completed_total{cluster="db-1"}[5m])), 0.001)',
    );
  });
});
