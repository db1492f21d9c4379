import { addDays, dayCount, daysBetween, shanghaiDay, weekStartOf } from './shanghai-calendar';

describe('Asia/Shanghai calendar', () => {
  it('puts an instant on its Shanghai day (UTC+8)', () => {
    expect(shanghaiDay(new Date('2026-11-20T15:59:59Z'))).toBe('2026-11-20');
    expect(shanghaiDay(new Date('2026-11-20T16:00:00Z'))).toBe('2026-11-21');
    expect(shanghaiDay(new Date('2026-11-19T23:00:00-08:00'))).toBe('2026-11-20');
  });

  it('finds the Monday of a week, across month and year ends', () => {
    expect(weekStartOf('2026-11-20')).toBe('2026-11-16');
    expect(weekStartOf('2026-11-16')).toBe('2026-11-16');
    expect(weekStartOf('2026-11-22')).toBe('2026-11-16');
    expect(weekStartOf('2027-01-01')).toBe('2026-12-28');
  });

  it('adds days and lists ranges inclusively', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(daysBetween('2026-12-30', '2027-01-02')).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
    expect(daysBetween('2026-11-20', '2026-11-19')).toEqual([]);
    expect(dayCount('2026-11-14', '2026-11-20')).toBe(7);
  });
});
