import { EvidenceFactV1, type PlannedQueryV1 } from '@aoc/contracts';
import type { QueryEvidence } from '@aoc/providers';
import { alertFamily, eventRuleFor, materializeEvents, safeLabel } from './materialize-events';
import { METRIC_EVENT_RULES } from './materialize-event-rules';
import { materializeFacts } from './materialize-facts';
import type { StoredSeriesSummary } from './materialize-series';

const range = (id: string, expression: string): PlannedQueryV1 => ({ id, operation: 'promql_range', expression, purpose: id });
const at = (hhmm: string) => `2026-11-20T${hhmm}:00.000Z`;
const SHAPE = Array<number | null>(12).fill(1);

/** A range series summary with the fields events read; the rest as a flat series of `v`. */
function series(labels: Record<string, string>, s: Partial<StoredSeriesSummary>): StoredSeriesSummary {
  return { labels, points: 61, first: 1, last: 1, min: 1, max: 1, mean: 1, maxAt: at('10:00'), shape: SHAPE, slope: 0, trend: 0, changes: 0, drops: 0, lastChange: null, lastDrop: null, firstAt: at('10:00'), lastAt: at('11:00'), priorPoints: 60, ...s };
}

describe('metric event rules', () => {
  it('classify exporter names through the ontology', () => {
    expect(eventRuleFor('mysql_global_status_uptime')?.event).toBe('restart');
    expect(eventRuleFor('aws_rds_engine_uptime_minimum')?.event).toBe('restart');
    expect(eventRuleFor('pg_postmaster_start_time_seconds')?.id).toBe('start_time_later');
    expect(eventRuleFor('node_boot_time_seconds')?.id).toBe('start_time_later');
    expect(eventRuleFor('pg_replication_is_replica')?.event).toBe('role_change');
    expect(eventRuleFor('mysql_global_variables_read_only')?.id).toBe('role_indicator_flip');
    expect(eventRuleFor('mysql_slave_status_seconds_behind_master')?.id).toBe('replica_status_rows');
    expect(eventRuleFor('pg_settings_in_hot_standby')?.id).toBe('role_indicator_flip');
    expect(eventRuleFor('pg_settings_default_transaction_read_only')?.id).toBe('pg_read_only_setting_flip');
    expect(eventRuleFor('pg_settings_work_mem_bytes')?.event).toBe('config_change');
    expect(eventRuleFor('pg_settings_max_connections')?.event).toBe('config_change');
    expect(eventRuleFor('mysql_global_variables_innodb_buffer_pool_size')?.event).toBe('config_change');
    expect(eventRuleFor('ALERTS')?.event).toBe('alert_firing');
    expect(eventRuleFor('pg_stat_database_xact_commit')).toBeNull();
    expect(METRIC_EVENT_RULES.length).toBeGreaterThan(5);
  });

  it('names alerts safely and places them in a family by their words', () => {
    expect(alertFamily('PostgresqlTooManyConnections')).toBe('connections');
    expect(alertFamily('MysqlReplicationLag')).toBe('replication_lag');
    expect(alertFamily('Watchdog')).toBe('unknown');
    expect(alertFamily('NodeFilesystemAlmostOutOfSpace')).not.toBe('');
    expect(alertFamily('MysqlRestarted')).toBe('restarts');
    expect(safeLabel('High"CPU <script>')).toBe('High_CPU__script_');
    expect(safeLabel('')).toBeNull();
  });
});

describe('materializeEvents', () => {
  const uptime = range('uptime', 'min(mysql_global_status_uptime{cluster="m1"})');

  it('reads a restart off a falling uptime and a later start time, with when and the values around it', () => {
    const [restart] = materializeEvents('uptime', uptime, [series({}, { first: 50_000, last: 1200, drops: 1, lastDrop: { at: at('10:40'), from: 52_340, to: 0 } })]);
    expect(EvidenceFactV1.parse(restart)).toMatchObject({ kind: 'event', value: 'restart', attributes: { source: 'metrics', event: 'restart', family: 'uptime', at: at('10:40'), metric: 'mysql_global_status_uptime', from: 52_340, to: 0 } });
    // A small dip (an averaged uptime) is no restart.
    expect(materializeEvents('uptime', uptime, [series({}, { drops: 1, lastDrop: { at: at('10:40'), from: 52_340, to: 52_000 } })])).toEqual([]);
    const start = Date.parse(at('10:39')) / 1000;
    const [later] = materializeEvents('start', range('start', 'max(pg_postmaster_start_time_seconds{cluster="p1"})'), [series({}, { first: 1_700_000_000, last: start, changes: 1, lastChange: { at: at('10:40'), from: 1_700_000_000, to: start } })]);
    expect(later.attributes).toMatchObject({ event: 'restart', family: 'restarts', at: at('10:39'), from: 1_700_000_000, to: start });
  });

  it('reads role changes off a flipped indicator and replica status rows that vanish, and config changes off settings', () => {
    const grouped = range('settings', 'max by (__name__) ({__name__=~"pg_settings_.+",cluster="p1"})');
    const facts = materializeEvents('settings', grouped, [
      series({ __name__: 'pg_replication_is_replica' }, { first: 1, last: 0, changes: 1, lastChange: { at: at('10:31'), from: 1, to: 0 } }),
      series({ __name__: 'pg_settings_work_mem_bytes' }, { first: 4_194_304, last: 67_108_864, changes: 1, lastChange: { at: at('10:20'), from: 4_194_304, to: 67_108_864 } }),
      series({ __name__: 'pg_settings_shared_buffers_bytes' }, { first: 1e9, last: 1e9 }),
      series({ __name__: 'mysql_slave_status_seconds_behind_master' }, { shape: [1, 1, 1, 1, 1, 1, 1, null, null, null, null, null], lastAt: at('10:36') }),
      series({ __name__: 'mysql_slave_status_sql_delay' }, { shape: [null, null, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], firstAt: at('10:10') }),
    ]);
    expect(facts.map((f) => f.attributes)).toEqual([
      expect.objectContaining({ event: 'role_change', family: 'failover', metric: 'pg_replication_is_replica', at: at('10:31'), from: 1, to: 0 }),
      expect.objectContaining({ event: 'config_change', family: 'unknown', metric: 'pg_settings_work_mem_bytes', at: at('10:20'), from: 4_194_304, to: 67_108_864 }),
      expect.objectContaining({ event: 'role_change', metric: 'mysql_slave_status_seconds_behind_master', at: at('10:36'), from: 1, to: 0 }),
    ]);
    // A series missing at the window start but present the hour before has a gap, not a new role.
    expect(facts.some((f) => f.attributes['metric'] === 'mysql_slave_status_sql_delay')).toBe(false);
  });

  it('reads firing alerts with their sanitised name and severity, also when already firing before the window', () => {
    const alerts = range('alerts', 'max by (alertname, severity) (ALERTS{alertstate="firing",cluster="p1"})');
    const facts = materializeEvents('alerts', alerts, [
      series({ alertname: 'PostgresqlTooManyConnections', severity: 'critical' }, { firstAt: at('10:12'), shape: [null, null, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], priorPoints: 0 }),
      series({ alertname: 'PostgresqlDown' }, {}),
    ]);
    expect(facts.map((f) => f.attributes)).toEqual([
      { source: 'metrics', event: 'alert_firing', family: 'connections', at: at('10:12'), metric: 'ALERTS', rule: 'alerts_firing', alertname: 'PostgresqlTooManyConnections', severity: 'critical' },
      expect.objectContaining({ alertname: 'PostgresqlDown', family: 'unknown', at: at('10:00'), startedBeforeWindow: true }),
    ]);
    expect(facts[1].subject).toContain('already firing before the window');
  });

  it('derives nothing from summaries recorded before changes were summarised', () => {
    const { changes: _c, drops: _d, lastChange: _lc, lastDrop: _ld, shape: _s, ...legacy } = series({}, {});
    expect(materializeEvents('uptime', uptime, [legacy])).toEqual([]);
  });
});

describe('materializeFacts on bad metric input', () => {
  const complete = (id: string, result: Record<string, unknown>): QueryEvidence => ({ id, status: 'complete', result: { resultType: 'matrix', omittedSeries: 0, ...result } });

  it('carries shape, trend and the prior hour into the metric fact, in a compact attribute', () => {
    const shape = [0.000012345, 1234567, null, -2.5, 1e-300, 99.99, 1, 2, 3, 4, 5, 6];
    const { facts } = materializeFacts([range('cpu', 'max(cpu_x{cluster="a"})')], [complete('cpu', { seriesCount: 1, series: [series({}, { shape, slope: 12.5, trend: 0.97, priorMedian: 0.5 })] })]);
    expect(EvidenceFactV1.parse(facts[0]).attributes).toMatchObject({ shape: '0.00001234,1235000,null,-2.5,1e-300,99.99,1,2,3,4,5,6', slopePerHour: 12.5, trendR2: 0.97, priorMedian: 0.5 });
    // The longest values still fit the contract's attribute length, all twelve of them.
    const widest = materializeFacts([range('cpu', 'max(cpu_x{cluster="a"})')], [complete('cpu', { seriesCount: 1, series: [series({}, { shape: Array(12).fill(-1.2345678e-100) })] })]);
    expect(String(EvidenceFactV1.parse(widest.facts[0]).attributes['shape']).split(',')).toEqual(Array(12).fill('-1.235e-100'));
  });

  it('says what could not be determined: no series at all, NaN only, gaps, raw counter resets, bounded and clamped reads', () => {
    const { facts, gaps } = materializeFacts(
      [range('target_series', 'count({cluster="gone"})'), range('nan', 'max(x_gauge{cluster="a"})'), range('gappy', 'max(y_gauge{cluster="a"})'), range('raw', 'sum(z_requests_total{cluster="a"})'), range('many', 'max by (shard) (w_gauge{cluster="a"})')],
      [
        { id: 'target_series', status: 'empty', result: { resultType: 'matrix', seriesCount: 0, omittedSeries: 0, series: [] } },
        complete('nan', { seriesCount: 1, series: [series({}, { points: 0, first: null, last: null, min: null, max: null, mean: null, maxAt: null, nonFinitePoints: 61 })] }),
        complete('gappy', { seriesCount: 1, series: [series({}, { points: 40, missingPoints: 21, longestGapSeconds: 1200 })] }),
        complete('raw', { seriesCount: 1, series: [series({}, { drops: 1, lastDrop: { at: at('10:30'), from: 5000, to: 3 } })] }),
        complete('many', { seriesCount: 10_000, scoredSeries: 200, clampedWindow: { from: '2026-10-21T11:00:00.000Z', to: '2026-11-20T11:00:00.000Z' }, stepSeconds: 236, series: [series({ shard: '1' }, {})] }),
      ],
    );
    expect(gaps).toEqual([
      'target_series (target_series): the provider holds no series at all for the target in the window, so no metric of it could be determined',
      'nan (nan) returned only NaN or infinite samples (61): its level could not be determined',
      'gappy (gappy): 1 series lack samples for part of the window (up to 21 steps, longest gap 20 min); their shape shows the gaps as null',
      'raw (raw): the counter z_requests_total was reset 1 time(s) in the window (last at 10:30Z); raw values across a reset are not comparable',
      "many (many): the window is longer than the provider's metrics limit; only 2026-10-21T11:00:00.000Z to 2026-11-20T11:00:00.000Z was read, earlier changes are not seen",
      'many (many): read at a 236 s step (coarser than planned) to stay within the points the provider serves per series',
      'many (many) returned 10000 series; only 200 (the highest peaks and the largest shifts) were summarised and 1 kept, so a change on another series may be missed',
    ]);
    const huge = materializeFacts([range('wide', 'v_gauge{cluster="a"}')], [{ id: 'wide', status: 'failed', error_code: 'PROVIDER.OUTPUT_TOO_LARGE', detail_error: 'provider response exceeds 8388608 bytes' }]);
    expect(huge.gaps).toEqual(['wide (wide) could not be read: PROVIDER.OUTPUT_TOO_LARGE (provider response exceeds 8388608 bytes); the target has more series for it than one read holds: aggregate over fewer labels']);
    expect(facts.find((f) => f.queryId === 'nan')).toMatchObject({ kind: 'metric_summary', value: null, attributes: { nonFinitePoints: 61 } });
    // A metric the ontology has no unit for says so on its fact: raw values, not converted.
    expect(facts.find((f) => f.queryId === 'gappy')?.attributes).toMatchObject({ unitKind: 'unknown', missingPoints: 21 });
    for (const f of facts) EvidenceFactV1.parse(f);
  });
});
