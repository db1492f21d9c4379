import { contradicts, factsOf, sameFact, states, type Fact } from './facts';

const q = (text: string) => factsOf(text).filter((f) => f.kind === 'quantity');
const covers = (a: string, b: string) => q(b).every((f) => states(q(a), f));

describe('judge facts', () => {
  it('compares numbers like an engineer: units, rounding, ratios and percentages, approximations', () => {
    expect(covers('CPU at 72%', 'CPU at 72.4%')).toBe(true);
    expect(covers('p99 went from 40 ms to 140 ms', 'p99 reached 0.138 s')).toBe(true);
    expect(covers('latency is 1.3x higher', 'latency rose by 30%')).toBe(true);
    expect(covers('latency +30%', 'latency 30% higher')).toBe(true);
    expect(covers('connections doubled', 'connections went up 2x')).toBe(true);
    expect(covers('about 500 connections', 'the pool held 520 connections')).toBe(true);
    expect(covers('1.2k qps', '1,200 qps')).toBe(true);
    expect(covers('free storage was 2 GiB', 'free storage was 2048 MB')).toBe(true);
    expect(covers('CPU at 72%', 'CPU at 80%')).toBe(false);
    expect(covers('500 connections', '200 connections')).toBe(false);
  });

  it('keeps numbers without units', () => {
    expect(q('max_connections is 500').map((f) => f.quantity?.value)).toEqual([500]);
    expect(covers('the limit of 500 connections', 'max_connections = 500')).toBe(true);
  });

  it('reads times with time zones and compares them in UTC', () => {
    const t = (s: string) => factsOf(s).filter((f) => f.kind === 'time');
    expect(t('since 14:05 UTC')[0].display).toBe('14:05 UTC');
    expect(t('since 22:05 +08:00')[0].display).toBe('14:05 UTC');
    expect(t('at 9:05 am EST')[0].display).toBe('14:05 UTC');
    expect(sameFact(t('at 14:05Z')[0], t('around 14:06')[0])).toBe(true);
    expect(sameFact(t('at 14:05Z')[0], t('at 14:20')[0])).toBe(false);
  });

  it('terms come from the ontology and the vocabulary; a multi-word term keeps its parts; negation is its own claim', () => {
    const keys = (s: string) => factsOf(s).filter((f) => f.kind === 'term').map((f) => f.key);
    expect(keys('a full table scan on orders')).toEqual(expect.arrayContaining(['term:full table scan', 'term:table scan']));
    expect(keys('Seq scans on orders')).toContain('term:full table scan');
    expect(keys('replica lag grew')).toContain('family:replication_lag');
    expect(keys('it was not lock contention')).toContain('not:family:locks');
  });

  it('two values of the same subject that are far apart contradict; different subjects do not', () => {
    const one = (s: string): Fact => q(s)[0];
    expect(contradicts(one('CPU at 40%'), one('CPU at 95%'))).toBe(true);
    expect(contradicts(one('the connection limit is 200'), one('the connection limit is 500'))).toBe(false); // bare counts are ambiguous
    expect(contradicts(one('CPU at 72%'), one('disk usage at 40%'))).toBe(false);
    expect(contradicts(one('CPU at 72%'), one('CPU at 73%'))).toBe(false);
  });
});
