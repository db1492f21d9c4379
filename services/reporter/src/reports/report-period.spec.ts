import { addDays, dailyParams, healthParams, isoWeekday, periodOf, shanghaiDayOf, weeklyParams } from './report-period';

describe('Asia/Shanghai report periods', () => {
  it('maps 23:59 and 00:00 (+08:00) to different natural days', () => {
    expect(shanghaiDayOf(new Date('2026-11-20T23:59:59.999+08:00'))).toBe('2026-11-20');
    expect(shanghaiDayOf(new Date('2026-11-21T00:00:00.000+08:00'))).toBe('2026-11-21');
    // 16:00Z is already the next day in Shanghai.
    expect(shanghaiDayOf(new Date('2026-11-20T16:00:00Z'))).toBe('2026-11-21');
  });

  it('bounds a day and a week by Shanghai midnights', () => {
    const day = periodOf('2026-11-20', '2026-11-20');
    expect([day.startsAt.toISOString(), day.endsBefore.toISOString(), day.dayAfter]).toEqual(['2026-11-19T16:00:00.000Z', '2026-11-20T16:00:00.000Z', '2026-11-21']);
    const week = periodOf('2026-11-16', addDays('2026-11-16', 6));
    expect([week.to, week.startsAt.toISOString(), week.endsBefore.toISOString()]).toEqual(['2026-11-22', '2026-11-15T16:00:00.000Z', '2026-11-22T16:00:00.000Z']);
    // Month and year ends.
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
  });

  it('validates parameters and names the field', () => {
    expect(dailyParams('2026-11-20')).toEqual({ day: '2026-11-20' });
    expect(() => dailyParams(undefined)).toThrow(expect.objectContaining({ field: 'day' }));
    expect(() => dailyParams('2026-02-29')).toThrow(expect.objectContaining({ field: 'day' }));
    expect(() => dailyParams('20261120')).toThrow(expect.objectContaining({ field: 'day' }));
    expect(isoWeekday('2026-11-16')).toBe(1);
    expect(weeklyParams('2026-11-16')).toEqual({ weekStart: '2026-11-16' });
    expect(() => weeklyParams('2026-11-22')).toThrow(expect.objectContaining({ field: 'weekStart', message: expect.stringContaining('Monday') }));
    expect(healthParams('2026-11-20', '2026-11-20')).toEqual({ from: '2026-11-20', to: '2026-11-20' });
    expect(() => healthParams('2026-11-21', '2026-11-20')).toThrow(expect.objectContaining({ field: 'to' }));
    expect(() => healthParams('nope', '2026-11-20')).toThrow(expect.objectContaining({ field: 'from' }));
  });
});
