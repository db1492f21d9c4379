import fc from 'fast-check';
import { ProviderError } from '../core/provider-error';
import { validatePromQl } from '../validation/promql';
import { withLabelMatcher } from './grafana-label-matcher';

describe('label matcher injection', () => {
  it.each([
    ['up', 'up{instance="10.0.0.1:10080"}'],
    ['up{}', 'up{instance="10.0.0.1:10080",}'],
    ['up{job="tidb"}', 'up{instance="10.0.0.1:10080",job="tidb"}'],
    ['rate(x_total[5m])', 'rate(x_total{instance="10.0.0.1:10080"}[5m])'],
    ['{__name__="up"}', '{instance="10.0.0.1:10080",__name__="up"}'],
    ['sum by (instance) (rate(a[1m])) / sum(b offset 5m)', 'sum by (instance) (rate(a{instance="10.0.0.1:10080"}[1m])) / sum(b{instance="10.0.0.1:10080"} offset 5m)'],
    ['max_over_time(up[1h:5m])', 'max_over_time(up{instance="10.0.0.1:10080"}[1h:5m])'],
  ])('filters %s', (q, expected) => {
    expect(withLabelMatcher(q, 'instance', '10.0.0.1:10080')).toBe(expected);
  });

  it('escapes values so they cannot close the matcher', () => {
    const out = withLabelMatcher('up', 'instance', 'a"} or vector(1) #\\');
    expect(out).toBe('up{instance="a\\"} or vector(1) #\\\\"}');
    expect(validatePromQl(out)).toBe(out);
  });

  it('refuses an expression without series and an invalid label name', () => {
    expect(() => withLabelMatcher('vector(1)', 'instance', 'x', 'queries.q.promql')).toThrow(ProviderError);
    expect(() => withLabelMatcher('up', 'bad-name', 'x')).toThrow(/label name/);
  });

  it('property: any valid expression stays valid after injection of any value', () => {
    const exprs = fc.constantFrom('up', 'rate(a[5m])', 'sum by (job) (b{job=~"t.*"})', 'a + on(instance) b', 'histogram_quantile(0.99, sum by (le) (rate(h_bucket[1m])))', 'count(up == 1)');
    fc.assert(
      fc.property(exprs, fc.string({ maxLength: 40 }), (q, v) => {
        const out = withLabelMatcher(q, 'instance', v);
        expect(validatePromQl(out)).toBe(out);
      }),
      { numRuns: 1000 },
    );
  });
});
