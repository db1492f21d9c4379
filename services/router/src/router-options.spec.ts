import { DEFAULT_DEADLINES, loadDeadlines, runDeadline, scenarioDeadline } from './router-options';

describe('deadlines', () => {
  const t0 = new Date('2026-11-20T11:00:00Z');

  it('defaults to the 22/16/3-minute budget', () => {
    expect(loadDeadlines({})).toEqual(DEFAULT_DEADLINES);
    expect(runDeadline(t0, DEFAULT_DEADLINES).toISOString()).toBe('2026-11-20T11:22:00.000Z');
    expect(scenarioDeadline(t0, runDeadline(t0, DEFAULT_DEADLINES), DEFAULT_DEADLINES).toISOString()).toBe('2026-11-20T11:16:00.000Z');
  });

  it('never lets a late scenario eat the publication reserve', () => {
    const run = runDeadline(t0, DEFAULT_DEADLINES);
    const late = new Date('2026-11-20T11:10:00Z');
    // 11:10 + 16 min would be 11:26; the reserve ends diagnosis at 11:19.
    expect(scenarioDeadline(late, run, DEFAULT_DEADLINES).toISOString()).toBe('2026-11-20T11:19:00.000Z');
  });

  it('reads shortened clocks and fails fast naming a bad key', () => {
    expect(loadDeadlines({ AOC_DEADLINE_SHARED_MS: '2000', AOC_DEADLINE_SCENARIO_MS: '500', AOC_DEADLINE_PUBLICATION_RESERVE_MS: '300', AOC_DEADLINE_SWEEP_MS: '20' })).toEqual({ sharedMs: 2000, scenarioMs: 500, publicationReserveMs: 300, sweepMs: 20 });
    expect(() => loadDeadlines({ AOC_DEADLINE_SCENARIO_MS: 'soon' })).toThrow(/AOC_DEADLINE_SCENARIO_MS/);
    expect(() => loadDeadlines({ AOC_DEADLINE_SHARED_MS: '1000', AOC_DEADLINE_PUBLICATION_RESERVE_MS: '1000' })).toThrow(/AOC_DEADLINE_PUBLICATION_RESERVE_MS/);
  });
});
