import { machineTicks, median, roundOrder, scaleSettings, statTicks, summarize, ticksBetween, type CpuSnapshot, type RoundResult } from './scale-plan';

describe('scale benchmark: settings, rounds and CPU', () => {
  it('reads its settings and refuses bad values', () => {
    expect(scaleSettings({})).toEqual({ tickets: 24, rounds: 2, replicas: 2, timeoutMs: 600_000, idleMs: 5000, database: 'aoc_scale' });
    expect(scaleSettings({ SCALE_TICKETS: '12', SCALE_ROUNDS: '3', SCALE_REPLICAS: '3', SCALE_DATABASE: 'aoc_s2' })).toMatchObject({ tickets: 12, rounds: 3, replicas: 3, database: 'aoc_s2' });
    expect(() => scaleSettings({ SCALE_TICKETS: '61' })).toThrow(/SCALE_TICKETS/);
    expect(() => scaleSettings({ SCALE_REPLICAS: '1' })).toThrow(/SCALE_REPLICAS/);
  });

  it('interleaves the rounds: 1, N, 1, N', () => {
    expect(roundOrder({ rounds: 2, replicas: 2 })).toEqual([1, 2, 1, 2]);
    expect(roundOrder({ rounds: 3, replicas: 4 })).toEqual([1, 4, 1, 4, 1, 4]);
  });

  it('takes the median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('reads utime + stime from /proc/<pid>/stat, a command name with spaces and parentheses included', () => {
    const stat = '4242 (node (main) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 150 25 0 0 20 0 11 0 900 1000000 5000 18446744073709551615';
    expect(statTicks(stat)).toBe(175);
    expect(machineTicks('cpu  100 5 50 800 20 1 2 3 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n')).toEqual({ busy: 161, total: 981 });
  });

  it('counts ticks between snapshots: a process born meanwhile from zero, one gone is lost', () => {
    const snap = (pids: [number, number][]): CpuSnapshot => ({ at: 0, pids: new Map(pids), comm: new Map(), machine: { busy: 0, total: 0 } });
    expect(ticksBetween(snap([[1, 10], [2, 5]]), snap([[1, 30], [3, 7]]), [1, 2, 3])).toBe(20 + 7);
  });

  it('summarizes medians per replica count and the ratio of N to 1', () => {
    const r = (replicas: number, seconds: number, router: number): RoundResult => ({ replicas, tickets: 24, seconds, cpu: { router, kafka: 1, other: 5 }, busy: 0.9, idle: { cpu: { router: 0.5 }, busy: 0.2, seconds: 5 } });
    const s = summarize([r(1, 24, 4), r(2, 20, 6), r(1, 12, 2), r(2, 24, 8)]);
    expect(s.replicas).toEqual([1, 2]);
    expect(s.median.get(1)).toMatchObject({ ticketsPerSecond: 1.5, seconds: 18, cpu: { router: 3, kafka: 1, other: 5 }, idleCpu: { router: 0.1 } });
    expect(s.median.get(2)?.ticketsPerSecond).toBeCloseTo((1.2 + 1) / 2);
    expect(s.ratio).toBeCloseTo(1.1 / 1.5);
    // The rest of the machine (other) is not the system's cost.
    expect(s.median.get(1)?.cpuPerTicket).toBeCloseTo(((4 + 1) / 24 + (2 + 1) / 24) / 2);
  });
});
