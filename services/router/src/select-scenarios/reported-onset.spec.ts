import { parseReportedOnset } from './reported-onset';

const window = { from: '2026-11-30T13:00:00.000Z', to: '2026-11-30T14:00:00.000Z' };

describe('parseReportedOnset', () => {
  it.each([
    ['Since about 13:40 UTC our p99 doubled', '2026-11-30T13:40:00.000Z'],
    ['latency jumped at 13:05 and stays high', '2026-11-30T13:05:00.000Z'],
    ['started around 13:20Z', '2026-11-30T13:20:00.000Z'],
    ['since 15:30 +02:00 the app is slow', '2026-11-30T13:30:00.000Z'],
    ['First errors: 2026-11-30 13:12 UTC', '2026-11-30T13:12:00.000Z'],
    ['2026-11-30T14:12+01:00 was the first alert', '2026-11-30T13:12:00.000Z'],
    ['slow for the last 40 minutes', '2026-11-30T13:20:00.000Z'],
    ['Since about 40 minutes our app gets errors', '2026-11-30T13:20:00.000Z'],
    ['it began 15 minutes ago', '2026-11-30T13:45:00.000Z'],
  ])('%s → %s', (text, expected) => {
    expect(parseReportedOnset(text, window)).toBe(expected);
  });

  it.each([
    ['no time at all', 'The database is slow'],
    ['a time outside the window', 'since 09:10 UTC'],
    ['a clock time in another named zone', 'since 14:40 CET the app is slow'],
    ['an impossible time', 'since 27:99'],
    ['a relative time longer than the window', 'for the last 3 hours'],
  ])('%s gives no onset', (_what, text) => {
    expect(parseReportedOnset(text, window)).toBeNull();
  });

  it('a clock time after the window end is read on the day before', () => {
    expect(parseReportedOnset('since 23:50', { from: '2026-11-30T23:30:00.000Z', to: '2026-12-01T00:20:00.000Z' })).toBe('2026-11-30T23:50:00.000Z');
  });
});
