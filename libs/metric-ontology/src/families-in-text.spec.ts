import fc from 'fast-check';
import { familiesInText, firstFamilyInText } from './families-in-text';

const familiesOf = (text: string): string[] => familiesInText(text).map((m) => m.family);

describe('familiesInText', () => {
  it.each([
    ['ERROR 1040: Too many connections', 'connections', 'too many connections'],
    ['the disk is full since 3am', 'storage_free', 'disk is full'],
    ['we see replica lag on the reader', 'replication_lag', 'replica lag'],
    ['Seconds_Behind_Master keeps growing', 'replication_lag', 'seconds_behind_master'],
    ['seconds behind master is 300', 'replication_lag', 'seconds behind master'],
    ['could not write: No space left on device', 'storage_free', 'no space left on device'],
    ['Deadlock found when trying to get lock', 'deadlocks', 'deadlock found'],
    ['the instance was OOM-killed', 'memory', 'oom killed'],
  ])('finds %j as %s', (text, family, word) => {
    const mention = familiesInText(text).find((m) => m.family === family);
    expect(mention?.words).toContain(word);
  });

  it('orders families by first occurrence and reports the offset', () => {
    const text = 'CPU is at 99%, then deadlocks, then replication lag';
    expect(familiesInText(text).map(({ family, index }) => [family, index])).toEqual([
      ['cpu', 0],
      ['deadlocks', text.indexOf('deadlocks')],
      ['replication_lag', text.indexOf('replication lag')],
    ]);
  });

  it('lists each family once with its distinct words in order of first occurrence', () => {
    const [connections] = familiesInText('connection pool exhausted, too many connections, connection pool again');
    expect(connections).toEqual({ family: 'connections', words: ['connection pool', 'too many connections'], index: 0 });
  });

  it('lets a phrase not hide the words of other families inside it', () => {
    // "disk latency" is io_latency; its "latency" is also a statement_latency word.
    expect(familiesOf('disk latency is high')).toEqual(['io_latency', 'statement_latency']);
    // "lock wait timeout" is lock_waits; its "lock" is also a locks word.
    expect(familiesOf('Lock wait timeout exceeded')).toEqual(expect.arrayContaining(['lock_waits', 'locks']));
    // "replication lag": within replication_lag the longer phrase is the one reported.
    expect(familiesInText('replication lag')).toEqual([{ family: 'replication_lag', words: ['replication lag'], index: 0 }]);
  });

  it('matches whole words only, with plurals, hyphens and any case', () => {
    expect(familiesOf('blocked on a blockchain')).not.toContain('locks');
    expect(familiesOf('max_wal_size')).not.toContain('wal');
    expect(familiesOf('several DEADLOCKS')).toEqual(['deadlocks']);
    expect(familiesOf('an out-of-memory kill')).toEqual(['memory']);
    expect(familiesOf('too   many\nconnections')).toEqual(['connections']);
  });

  it('does no negation: that is for callers', () => {
    expect(familiesOf('no deadlocks were seen')).toEqual(['deadlocks']);
  });

  it('returns nothing for text without family words, and never throws', () => {
    expect(familiesInText('')).toEqual([]);
    expect(familiesInText('hello there, general kenobi')).toEqual([]);
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        for (const m of familiesInText(text)) {
          expect(m.index).toBeGreaterThanOrEqual(0);
          expect(m.words.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

describe('firstFamilyInText', () => {
  it('takes the first mention, the more specific phrase where two start together', () => {
    expect(firstFamilyInText('row lock waits went from 1.5 to 6')).toBe('lock_waits');
    expect(firstFamilyInText('CPU rose, then lock waits')).toBe('cpu');
    expect(firstFamilyInText('nothing measurable here')).toBeNull();
  });
});
