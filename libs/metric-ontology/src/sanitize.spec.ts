import fc from 'fast-check';
import { sanitizeMetricName } from './sanitize';

describe('sanitizeMetricName', () => {
  it.each([
    ['cpu_usr (core #1)', 'cpu_usr_core_1'],
    ['Combined Avg Latency', 'Combined_Avg_Latency'],
    ['dbmsCurrentLockWaits', 'dbmsCurrentLockWaits'],
    ['__a__b__', 'a_b'],
    ['1st metric', '_1st_metric'],
    ['%%%', ''],
    ['', ''],
    ['héllo wörld', 'h_llo_w_rld'],
  ])('%j → %j', (raw, expected) => {
    expect(sanitizeMetricName(raw)).toBe(expected);
  });

  it('always gives a valid Prometheus name, or empty when the input has no letter, digit or _ to keep', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'grapheme' }), (raw) => {
        const out = sanitizeMetricName(raw);
        if (/[A-Za-z0-9]/.test(raw)) expect(out).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
        else expect(out).toBe('');
      }),
      { numRuns: 2000 },
    );
  });

  it('is idempotent', () => {
    fc.assert(fc.property(fc.string({ maxLength: 100 }), (raw) => expect(sanitizeMetricName(sanitizeMetricName(raw))).toBe(sanitizeMetricName(raw))));
  });
});
