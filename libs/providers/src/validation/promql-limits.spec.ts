import { ProviderError } from '../core/provider-error';
import { validatePromQl } from './promql';
import { MAX_PROMQL_EXPRESSION_DEPTH, MAX_PROMQL_LOOKBACK_SECONDS, MAX_PROMQL_SUBQUERY_POINTS, durationSeconds, formatSeconds } from './promql-limits';

const refusedWith = (promql: string): string => {
  try {
    validatePromQl(promql, 'queries.q1.promql');
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('PROVIDER.QUERY_REJECTED');
    expect((error as ProviderError).detail).toMatch(/^queries\.q1\.promql: /);
    return (error as ProviderError).detail;
  }
  throw new Error(`expected ${promql} to be refused`);
};

describe('PromQL limits', () => {
  it('reads durations the way Prometheus does', () => {
    expect(durationSeconds('5m')).toBe(300);
    expect(durationSeconds('1h30m')).toBe(5400);
    expect(durationSeconds('1y2w3d4h5m6s7ms')).toBeCloseTo(365 * 86400 + 14 * 86400 + 3 * 86400 + 4 * 3600 + 5 * 60 + 6.007, 6);
    expect(durationSeconds('300')).toBe(300);
    expect(durationSeconds('1_000')).toBe(1000);
    expect(durationSeconds('0x10')).toBe(16);
    expect(durationSeconds('1.5e3')).toBe(1500);
    expect(() => durationSeconds('inf')).toThrow(/finite/);
    expect(formatSeconds(MAX_PROMQL_LOOKBACK_SECONDS)).toBe('30d');
  });

  it.each([
    // the longest lookback, in each way of reaching it
    'max_over_time(x[30d])',
    'max_over_time(x[720h])',
    'max_over_time(x[2592000])',
    'x offset 30d',
    'x offset -30d',
    'rate(x[29d] offset 1d)',
    'max_over_time(rate(x[5m])[29d23h55m:1h])',
    // points: 10,800 / 1 + 1 = 10,801; nested 11 x 961 = 10,571
    'max_over_time(x[3h:1s])',
    'max_over_time(max_over_time(x[10m:1m])[16h:1m])',
    // @ pinned to the query's own window
    'x @ start()',
    'x @ end() - x @ start()',
    'sum(rate(x{job="a#b"}[5m]))',
  ])('accepts %s', (promql) => {
    expect(validatePromQl(promql)).toBe(promql);
  });

  it.each([
    ['max_over_time(x[30d1s])', /range \[30d1s\] makes the expression read 2592001s back; at most 30d/],
    ['max_over_time(x[2592001])', /read 2592001s back/],
    ['x offset 31d', /offset 31d makes the expression read 31d back/],
    ['x offset -31d', /offset -31d makes the expression read 31d back/],
    ['rate(x[29d] offset 2d)', /read 31d back/],
    ['max_over_time(rate(x[2d])[29d:1h])', /read 31d back/],
    ['max_over_time(x[3650d:1s])', /subquery \[3650d:1s\] makes the expression read 3650d back/],
    ['max_over_time(x[1d:1s])', /subquery \[1d:1s\] evaluates 86401 points per step.*at most 11000/],
    ['max_over_time(max_over_time(x[10m:1m])[17h:1m])', /evaluates 11231 points per step \(nested subqueries multiply\)/],
    ['max_over_time(max_over_time(max_over_time(x[5m:1m])[5m:1m])[5m:1m])', /subqueries may nest at most 2 deep/],
    ['max_over_time(x[1h:])', /needs an explicit resolution/],
    ['max_over_time(x[1h:0s])', /positive resolution/],
    ['x @ 1700000000', /@ modifier with a timestamp is not allowed/],
    ['rate(x[5m] @ 123)', /@ modifier with a timestamp/],
    ['x # hidden\n + 1', /PromQL comments \(#\) are not allowed/],
    ['x[5m * 2]', /durations must be literals/],
    ['x[step()]', /durations must be literals/],
    ['max_over_time(x[1h:step()])', /durations must be literals/],
    ['x offset (5m)', /durations must be literals|does not parse/],
    [`${'abs('.repeat(MAX_PROMQL_EXPRESSION_DEPTH)}x${')'.repeat(MAX_PROMQL_EXPRESSION_DEPTH)}`, /nests more than 64 deep/],
  ])('refuses %p', (promql, why) => {
    expect(refusedWith(promql)).toMatch(why);
  });

  it('bounds the points of one subquery by the Prometheus per-series limit', () => {
    expect(MAX_PROMQL_SUBQUERY_POINTS).toBe(11_000);
    expect(validatePromQl('max_over_time(x[10999s:1s])')).toBeTruthy();
    expect(refusedWith('max_over_time(x[11000s:1s])')).toMatch(/11001 points/);
  });
});
