import { validatePromQl } from '@aoc/providers';
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

  it('splits the frozen window for before/after pairs on a whole minute', () => {
    const window = { from: '2026-11-25T10:00:00Z', to: '2026-11-25T11:00:00Z' };
    const slow = QUERY_TEMPLATES.filter((t) => t.operation === 'slow_query');
    expect(slow.map((t) => [t.id, templateWindow(t, window)])).toEqual([
      ['slow_queries_after', { from: '2026-11-25T10:30:00.000Z', to: '2026-11-25T11:00:00.000Z' }],
      ['slow_queries_before', { from: '2026-11-25T10:00:00.000Z', to: '2026-11-25T10:30:00.000Z' }],
    ]);
    expect(templateWindow({}, window)).toBeNull();
  });
});
