import { validatePromQl, validateReadOnlyMySqlStats, validateReadOnlyPgSql, validateTargetLogQl } from '@aoc/providers';
import { bindTarget, bindTemplate, templatesFor, templateWindow, QUERY_TEMPLATES } from './query-templates';

describe('query templates', () => {
  it('gives each provider one template per id', () => {
    for (const provider of ['prometheus', 'clinic', 'manus', 'wetech'] as const) {
      const ids = templatesFor(provider).map((t) => t.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(templatesFor('none')).toEqual([]);
  });

  it('keeps the generic Prometheus expressions the recordings are keyed by', () => {
    const byId = Object.fromEntries(templatesFor('prometheus').map((t) => [t.id, t.expression]));
    expect(byId['duration_p99']).toBe('histogram_quantile(0.99, sum by (le) (rate(tidb_server_handle_query_duration_seconds_bucket{cluster="$TARGET"}[5m])))');
    expect(byId['qps']).toBe('sum(rate(tidb_server_query_total{cluster="$TARGET"}[5m]))');
    expect(bindTarget(byId['qps'], 'tidb-prod-7f3a')).toBe('sum(rate(tidb_server_query_total{cluster="tidb-prod-7f3a"}[5m]))');
  });

  it('binds Clinic templates to the cluster of an <org>/<cluster> target, with parseable PromQL', () => {
    for (const t of templatesFor('clinic')) {
      const bound = bindTemplate(t, '1372813089209061633/10290127484201', { from: '2026-11-24T02:00:00Z', to: '2026-11-24T03:00:00Z' });
      if (t.operation.startsWith('promql')) {
        expect(bound.expression).toContain('cluster_id="10290127484201"');
        expect(() => validatePromQl(bound.expression)).not.toThrow();
      } else {
        const parameters: unknown = JSON.parse(bound.expression);
        expect(typeof parameters === 'object' && parameters !== null).toBe(true);
      }
      expect(bound.expression).not.toContain('1372813089209061633');
    }
    const store = templatesFor('clinic').find((t) => t.id === 'store_cpu');
    expect(bindTarget(store?.expression ?? '', 'org-1/cl-1')).toContain('"store", "$1", "instance"');
  });

  it('binds Wetech templates to the cluster of a <region>/<cluster> target and Manus templates to their own datasource', () => {
    const wetech = templatesFor('wetech');
    const manus = templatesFor('manus');
    expect(wetech.filter((t) => t.operation === 'promql_range').map((t) => t.id)).toEqual(manus.map((t) => t.id));
    for (const t of wetech) {
      const bound = bindTemplate(t, 'ap-southeast-1/wt-prod-sg-01', { from: '2026-11-20T10:00:00Z', to: '2026-11-20T11:00:00Z' });
      if (t.operation === 'promql_range') {
        expect(bound.expression).toContain('cluster="wt-prod-sg-01"');
        expect(() => validatePromQl(bound.expression)).not.toThrow();
      } else expect(Object.keys(JSON.parse(bound.expression) as object)).toEqual(expect.arrayContaining(['orderBy', 'limit']));
      expect(bound.expression).not.toContain('ap-southeast-1');
    }
    // Manus offers PromQL only, on a datasource that is the one cluster: no cluster matcher is left.
    for (const t of manus) {
      expect(t.operation).toBe('promql_range');
      const bound = bindTarget(t.expression, 'vida');
      expect(bound).not.toMatch(/cluster|vida|\{\}/);
      expect(() => validatePromQl(bound)).not.toThrow();
    }
  });

  it('splits the frozen window for before/after pairs on a whole minute', () => {
    const window = { from: '2026-11-25T10:00:00Z', to: '2026-11-25T11:00:00Z' };
    const slow = templatesFor('clinic').filter((t) => t.operation === 'slow_query');
    expect(slow.map((t) => [t.id, templateWindow(t, window)])).toEqual([
      ['slow_queries_after', { from: '2026-11-25T10:30:00.000Z', to: '2026-11-25T11:00:00.000Z' }],
      ['slow_queries_before', { from: '2026-11-25T10:00:00.000Z', to: '2026-11-25T10:30:00.000Z' }],
    ]);
    expect(templateWindow({}, window)).toBeNull();
  });

  it('offers the channel templates only when the catalogue lists their operation, sql ones for the target\'s dialect', () => {
    const gated = QUERY_TEMPLATES.filter((t) => t.needsCatalogOperation);
    expect(gated.every((t) => t.providers.length === 1 && t.providers[0] === 'prometheus' && (t.families ?? []).length > 0)).toBe(true);
    expect(gated.filter((t) => t.operation === 'sql').every((t) => t.dialect === 'postgresql' || t.dialect === 'mysql')).toBe(true);
    expect(templatesFor('prometheus').some((t) => t.needsCatalogOperation)).toBe(false);
    const pg = templatesFor('prometheus', ['promql_range', 'promql_instant', 'sql']).filter((t) => t.needsCatalogOperation);
    expect(pg.map((t) => t.id)).toEqual(['pg_connections', 'pg_top_statements', 'pg_blocked_sessions', 'pg_replication', 'pg_checkpoints', 'pg_checkpointer', 'pg_database_stats', 'pg_activity_waits', 'pg_lock_modes', 'pg_connection_limit']);
    const my = templatesFor('prometheus', ['sql'], 'mysql').filter((t) => t.needsCatalogOperation);
    expect(my.map((t) => t.id)).toEqual(['mysql_processlist', 'mysql_top_statements', 'mysql_transactions', 'mysql_replication', 'mysql_innodb_metrics', 'mysql_status', 'mysql_settings']);
    expect(templatesFor('prometheus', ['promql_range', 'logs']).filter((t) => t.needsCatalogOperation).map((t) => t.id)).toEqual(['log_errors']);
    expect(templatesFor('manus', ['sql', 'logs']).some((t) => t.needsCatalogOperation)).toBe(false);
    for (const dialect of ['postgresql', 'mysql'] as const) {
      const ids = templatesFor('prometheus', ['sql', 'logs'], dialect).map((t) => t.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('writes SQL templates their dialect\'s validator accepts, and a logs template bound to the catalogue\'s log label', () => {
    const relations = Object.fromEntries(
      QUERY_TEMPLATES.filter((x) => x.operation === 'sql' && x.needsCatalogOperation).map((t) => [t.id, (t.dialect === 'mysql' ? validateReadOnlyMySqlStats : validateReadOnlyPgSql)(t.expression).relations]),
    );
    expect(relations).toEqual({
      pg_connections: ['pg_stat_activity'],
      pg_blocked_sessions: ['pg_stat_activity'],
      pg_lock_modes: ['pg_locks'],
      pg_replication: ['pg_stat_replication'],
      pg_connection_limit: ['pg_settings'],
      pg_top_statements: ['pg_stat_statements'],
      pg_activity_waits: ['pg_stat_activity'],
      pg_checkpoints: ['pg_stat_bgwriter'],
      pg_checkpointer: ['pg_stat_checkpointer'],
      pg_database_stats: ['pg_stat_database'],
      mysql_processlist: ['information_schema.processlist'],
      mysql_top_statements: ['performance_schema.events_statements_summary_by_digest'],
      mysql_transactions: ['information_schema.innodb_trx'],
      mysql_replication: ['performance_schema.replication_applier_status_by_worker'],
      mysql_innodb_metrics: ['information_schema.innodb_metrics'],
      mysql_status: ['performance_schema.global_status'],
      mysql_settings: [],
    });
    // A MySQL template is not a PostgreSQL statement, and the other way round.
    for (const t of QUERY_TEMPLATES.filter((x) => x.dialect === 'mysql')) expect(() => validateReadOnlyPgSql(t.expression)).toThrow();
    const logs = QUERY_TEMPLATES.find((t) => t.id === 'log_errors');
    const window = { from: '2026-11-24T02:00:00Z', to: '2026-11-24T03:00:00Z' };
    const bound = bindTemplate(logs!, 'orders-db', window, { logsLabel: 'instance' });
    expect(bound.expression.startsWith('{instance="orders-db"}')).toBe(true);
    expect(validateTargetLogQl(bound.expression, 'instance', 'orders-db')).toBe(bound.expression);
    expect(bindTarget(logs!.expression, 'orders-db')).toMatch(/^\{cluster="orders-db"\}/);
    // A label that is not a label name never reaches the expression.
    expect(bindTarget(logs!.expression, 'orders-db', { logsLabel: 'x"} or {a="b' })).toMatch(/^\{cluster="orders-db"\}/);
  });
});
