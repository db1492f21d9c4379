import { matchSignals } from './signal-match';

describe('matchSignals: whole words, prefixes and negation', () => {
  it.each([
    ['No errors reported by the app', ['error*']],
    ['not slow at all, just curious', ['slow']],
    ['the import ran without failures', ['failure*']],
    ['we use a non-replication user for the app', ['replication']],
    ['Errors: none so far', ['error*']],
    ["we didn't see any restart", ['restart*']],
    ['there is no replica lag', ['replica lag']],
    ['no new deadlocks since Monday', ['deadlock*']],
  ])('%s selects nothing', (text, signals) => {
    expect(matchSignals(text, signals)).toEqual([]);
  });

  it.each([
    ['Errors since 10:40', ['error*'], ['error*']],
    ['It is slow, not fast', ['slow'], ['slow']],
    ['no deploy today, but the replica lag keeps growing', ['replica lag'], ['replica lag']],
    ['CPU saturated at 100%', ['saturat*', 'cpu'], ['saturat*', 'cpu']],
    ['too-many connections on the primary', ['too many connections'], ['too many connections']],
    ['No idea why, the disk is full', ['disk is full'], ['disk is full']],
    ['No idea why the disk is full', ['disk is full'], ['disk is full']],
    ['No deploy today, slow queries since 10:40', ['slow'], ['slow']],
  ])('%s matches', (text, signals, expected) => {
    expect(matchSignals(text, signals)).toEqual(expected);
  });

  it('matches whole words only', () => {
    expect(matchSignals('the deploylag tool and laggard replicas', ['lag'])).toEqual([]);
    expect(matchSignals('a lock-free queue', ['lock'])).toEqual(['lock']);
  });

  it('a denied mention and an affirmed one: the affirmed one counts', () => {
    expect(matchSignals('No errors yesterday. Today errors everywhere', ['error*'])).toEqual(['error*']);
  });
});
