import fc from 'fast-check';
import { classifyMetric, labelSplits, literalPrefix } from './classify';
import { ONTOLOGY } from './ontology';
import { sanitizeMetricName } from './sanitize';
import { DBSHERLOCK_COLUMNS, EXPORTER_NAMES } from './testing/metric-names';

describe('classifyMetric on names nobody wrote a pattern for', () => {
  it.each([
    ['acme_db_replica_lag_seconds', 'replication_lag', 'seconds'],
    ['mydb_active_connections', 'connections', 'count'],
    ['foo_disk_free_bytes', 'storage_free', 'bytes'],
    ['acme_deadlocks_total', 'deadlocks', 'count'],
    ['acme_query_latency_seconds_bucket', 'statement_latency', 'seconds'],
    ['acme_is_primary', 'failover', 'count'],
  ] as const)('%s lands in %s through the generic block', (name, family, unit) => {
    const c = classifyMetric(name);
    expect(c.family).toBe(family);
    expect(c.unit).toBe(unit);
    expect(c.patternId).toMatch(/^generic_/);
    expect(c.source).toBe('generic');
  });

  it('leaves truly unknown names unknown, with the kind their suffix says', () => {
    expect(classifyMetric('widget_frobnications_total')).toMatchObject({
      family: 'unknown',
      kind: 'counter',
      aggregation: 'rate',
      patternId: null,
      source: 'unknown',
      unit: 'unknown',
      badDirection: 'both',
    });
    expect(classifyMetric('widget_size_bytes')).toMatchObject({ family: 'unknown', kind: 'gauge', unit: 'bytes' });
  });

  it('does not find short words inside longer ones', () => {
    expect(classifyMetric('acme_block_reads_total').family).not.toBe('locks');
    expect(classifyMetric('feature_flag_enabled').family).toBe('unknown');
    expect(classifyMetric('acme_cluster_members').family).toBe('unknown');
  });

  it('says who exported a name the generic block classified', () => {
    expect(classifyMetric('mysql_global_status_innodb_mem_dictionary').source).toBe('mysqld_exporter');
    expect(classifyMetric('pg_custom_replica_lag_seconds')).toMatchObject({ family: 'replication_lag', source: 'postgres_exporter' });
  });

  it('keeps deliberate unknowns (settings, exporter internals) away from the generic words', () => {
    expect(classifyMetric('pg_settings_deadlock_timeout_seconds')).toMatchObject({ family: 'unknown', patternId: 'pg_settings_config_unknown' });
    expect(classifyMetric('mysql_global_variables_max_connect_errors').family).toBe('unknown');
    expect(classifyMetric('go_gc_duration_seconds').family).toBe('unknown');
  });
});

describe('classifyMetric on CloudWatch names', () => {
  it('takes the statistic off and exposes it, for both exporters and bare names', () => {
    expect(classifyMetric('aws_rds_free_storage_space_minimum')).toMatchObject({
      family: 'storage_free',
      kind: 'gauge',
      aggregation: 'value',
      statistic: 'minimum',
      baseName: 'aws_rds_free_storage_space',
      badDirection: 'down',
      unit: 'bytes',
    });
    expect(classifyMetric('aws_rds_free_storage_space')).toMatchObject({ family: 'storage_free', statistic: null, baseName: 'aws_rds_free_storage_space' });
    expect(classifyMetric('aws_rds_write_latency_p99_9')).toMatchObject({ family: 'io_latency', statistic: 'p99_9' });
  });

  it('treats _sum and _sample_count as statistics of a gauge, not counter parts', () => {
    expect(classifyMetric('aws_rds_write_iops_sum')).toMatchObject({ family: 'iops', kind: 'gauge', aggregation: 'value', statistic: 'sum' });
    expect(classifyMetric('aws_rds_cpuutilization_sample_count')).toMatchObject({ family: 'cpu', unit: 'count', statistic: 'sample_count' });
  });

  it('scales millisecond metrics to seconds', () => {
    expect(classifyMetric('aws_rds_aurora_replica_lag_average')).toMatchObject({ unit: 'seconds', scale: 0.001 });
    expect(classifyMetric('aws_rds_replica_lag_average')).toMatchObject({ unit: 'seconds', scale: 1 });
  });
});

describe('classifyMetric kinds, units and base names', () => {
  it('gives a histogram its base name and the aggregation of each part', () => {
    const base = 'tidb_server_handle_query_duration_seconds';
    expect(classifyMetric(`${base}_bucket`)).toMatchObject({ kind: 'histogram', aggregation: 'quantile', baseName: base, unit: 'seconds' });
    expect(classifyMetric(`${base}_sum`)).toMatchObject({ kind: 'histogram', aggregation: 'rate', baseName: base, unit: 'seconds' });
    expect(classifyMetric(`${base}_count`)).toMatchObject({ kind: 'histogram', aggregation: 'rate', baseName: base, unit: 'count' });
  });

  it('lets a pattern say a _count is a gauge', () => {
    expect(classifyMetric('pg_stat_activity_count')).toMatchObject({ kind: 'gauge', aggregation: 'value', baseName: 'pg_stat_activity_count' });
  });

  it('reads _total case-sensitively: HugePages_Total is a gauge', () => {
    expect(classifyMetric('node_memory_HugePages_Total')).toMatchObject({ kind: 'gauge', unit: 'count' });
  });

  it('gives a counter the unit it accumulates', () => {
    expect(classifyMetric('acme_commits_total')).toMatchObject({ family: 'commits', unit: 'count', aggregation: 'rate' });
    expect(classifyMetric('dbmsCumFlushedPages')).toMatchObject({ kind: 'counter', unit: 'count' });
  });

  it('applies pattern overrides of unit and bad direction', () => {
    expect(classifyMetric('node_memory_MemAvailable_bytes')).toMatchObject({ family: 'memory', badDirection: 'down' });
    expect(classifyMetric('aws_rds_freeable_memory_minimum')).toMatchObject({ family: 'memory', badDirection: 'down' });
    expect(classifyMetric('pg_stat_database_blk_read_time')).toMatchObject({ unit: 'seconds', scale: 0.001 });
  });

  it('keeps MariaDB semi-sync replication, TLS session-cache and thread-cache counters out of the connections family', () => {
    // The thread cache keeps idle threads for reuse: 55 cached threads are no 55 connections.
    for (const n of ['mysql_global_status_rpl_semi_sync_master_clients', 'mysql_global_status_slave_connections', 'mysql_global_status_ssl_session_cache_hits', 'mysql_global_status_threads_cached']) expect([n, classifyMetric(n).family]).toEqual([n, 'unknown']);
    expect(classifyMetric('mysql_global_status_threads_connected').family).toBe('connections');
  });

  it('reads the session-time counters in milliseconds as average sessions, never as a count of connections', () => {
    // Milliseconds of session time per second over 1000 is the number of sessions open on average.
    expect(classifyMetric('pg_stat_database_active_time')).toMatchObject({ family: 'active_sessions', kind: 'counter', unit: 'count', scale: 0.001 });
    expect(classifyMetric('pg_stat_database_session_time')).toMatchObject({ family: 'connections', kind: 'counter', unit: 'count', scale: 0.001 });
    expect(classifyMetric('pg_stat_database_idle_in_transaction_time')).toMatchObject({ family: 'connections', kind: 'counter', scale: 0.001 });
  });
});

describe('classifyMetric robustness', () => {
  it('never throws and always answers with a known shape', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (name) => {
        const c = classifyMetric(name);
        expect(c.name).toBe(name);
        expect(typeof c.family).toBe('string');
        expect(['rate', 'value', 'quantile']).toContain(c.aggregation);
      }),
      { numRuns: 2000 },
    );
  });

  it('handles empty, huge and non-string input', () => {
    expect(classifyMetric('')).toMatchObject({ family: 'unknown', patternId: null });
    const huge = `acme_cpu_${'x'.repeat(10_000)}`;
    expect(classifyMetric(huge)).toMatchObject({ name: huge, family: 'cpu' });
    expect(classifyMetric(undefined as unknown as string).family).toBe('unknown');
  });

  // Speed is measured by the benchmarks, never asserted here (a loaded machine would fail it).
  it('is deterministic over 10,000 distinct names', () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `perf${i}_${['disk_free_bytes', 'widget_total', 'query_duration_seconds_bucket', 'x'][i % 4]}`);
    const first = names.map((n) => classifyMetric(n).family);
    expect(names.map((n) => classifyMetric(n).family)).toEqual(first);
    expect(new Set(first.slice(0, 4))).toEqual(new Set(['storage_free', 'unknown', 'statement_latency']));
  });
});

describe('literalPrefix', () => {
  it('finds the literal every match starts with, or nothing', () => {
    expect(literalPrefix('node_load(1|5|15)')).toBe('node_load');
    expect(literalPrefix('mysqld?_exporter_.*')).toBe('mysql');
    expect(literalPrefix('pg_replication_is_replica|pg_is_in_recovery')).toBe('');
    expect(literalPrefix('.*cpu.*')).toBe('');
    expect(literalPrefix('AvgCpu(User|Sys)')).toBe('avgcpu');
    expect(literalPrefix('a[|]b')).toBe('a');
  });

  it('never changes which pattern wins: the prefix test only skips regexes that cannot match', () => {
    // Label splits never match a name alone.
    const naive = ONTOLOGY.patterns.filter((p) => !p.labels).map((p) => ({ id: p.id, re: new RegExp(`^(?:${p.regex})$`, 'i') }));
    const firstNaive = (name: string): string | null => naive.find((p) => p.re.test(name))?.id ?? null;
    const names = [...EXPORTER_NAMES.map(([n]) => n), ...DBSHERLOCK_COLUMNS.map(([raw]) => sanitizeMetricName(raw))];
    for (const name of names) {
      // CloudWatch names are matched without their statistic.
      if (!name.startsWith('aws_')) expect([name, classifyMetric(name).patternId]).toEqual([name, firstNaive(name)]);
    }
    const token = fc.constantFrom('node', 'pg', 'mysql', 'tidb', 'tikv', 'cpu', 'disk', 'free', 'lag', 'replica', 'lock', 'wait', 'total', 'bytes', 'seconds', 'dbms', 'Avg', 'os');
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 6 }), (parts) => {
        const name = parts.join('_');
        expect(classifyMetric(name).patternId).toBe(firstNaive(name));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('label splits', () => {
  it('reads one exporter name as several families by its label, and the name alone as before', () => {
    expect(classifyMetric('mysql_global_status_handlers_total').family).toBe('rows_read');
    expect(classifyMetric('mysql_global_status_handlers_total', { handler: 'commit' }).family).toBe('commits');
    expect(classifyMetric('mysql_global_status_handlers_total', { handler: 'write|update|delete' }).family).toBe('rows_written');
    // A value the split's regex matches whole counts as the split too.
    expect(classifyMetric('mysql_global_status_handlers_total', { handler: 'read_rnd_next' }).family).toBe('rows_read');
    expect(classifyMetric('pg_stat_activity_count', { state: 'active' }).family).toBe('active_sessions');
    expect(classifyMetric('pg_stat_activity_count', { state: 'idle' }).family).toBe('connections');
    expect(labelSplits('mysql_global_status_handlers_total').map((s) => s.classification.family)).toEqual(['rows_written', 'commits', 'rollbacks', 'rows_read']);
    expect(labelSplits('node_cpu_seconds_total')).toEqual([]);
  });
});
