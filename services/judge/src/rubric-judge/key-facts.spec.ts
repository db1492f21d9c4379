import { factKeys, keyFacts } from './key-facts';

describe('key facts', () => {
  it('normalises quantities so different spellings of the same value match', () => {
    expect([...factKeys('p99 went from ~40ms to 90 ms')]).toEqual(expect.arrayContaining(['40ms', '90ms', 'p99']));
    expect(factKeys('took 0.09s').has('90ms')).toBe(true);
    expect(factKeys('scans about 1.2M rows per execution').has('1200000 row')).toBe(true);
    expect(factKeys('CPU at 85 %').has('85%')).toBe(true);
  });

  it('finds clock times, identifiers and technical terms, not filler words', () => {
    const facts = keyFacts('Since 10:38 a new report query scans the whole orders table (full table scan) on tidb-prod-7f3a; add an index on orders(created_at). Thanks, hope this helps!');
    const keys = facts.map((f) => f.key);
    expect(keys).toEqual(expect.arrayContaining(['10:38', 'tidb-prod-7f3a', 'orders(created_at)', 'full table scan', 'report query', 'index']));
    expect(keys).not.toContain('table scan');
    expect(keys).not.toContain('thanks');
    expect(keys).not.toContain('helps');
  });

  it('gives an acknowledgement no facts', () => {
    expect(keyFacts('Thanks, we are looking into it and will update you soon.')).toEqual([]);
  });

  it('does not count bare numbers as facts', () => {
    expect(keyFacts('we checked 3 things')).toEqual([]);
  });
});
