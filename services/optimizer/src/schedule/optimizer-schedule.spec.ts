import { ScheduleConfig, nextSlot } from './optimizer-schedule';

describe('optimizer schedule', () => {
  const schedule = ScheduleConfig.parse({});

  it('defaults to 12:30, 16:30 and 20:30 in Asia/Shanghai, selecting only at the last slot', () => {
    expect(schedule).toEqual({ slots: ['12:30', '16:30', '20:30'], timeZone: 'Asia/Shanghai', selectionSlot: '20:30', rejectionLookbackDays: 14 });
    // 04:00 UTC is 12:00 in Shanghai: the next slot is 12:30 there (04:30 UTC), which does not select.
    expect(nextSlot(new Date('2026-12-01T04:00:00Z'), schedule)).toEqual({ at: new Date('2026-12-01T04:30:00Z'), slot: '12:30', selects: false });
    expect(nextSlot(new Date('2026-12-01T08:30:00Z'), schedule)).toEqual({ at: new Date('2026-12-01T12:30:00Z'), slot: '20:30', selects: true });
    // After 20:30 Shanghai, the next is tomorrow's 12:30.
    expect(nextSlot(new Date('2026-12-01T13:00:00Z'), schedule).at).toEqual(new Date('2026-12-02T04:30:00Z'));
  });

  it('follows a zone with daylight saving, and refuses bad settings naming them', () => {
    const ny = ScheduleConfig.parse({ AOC_OPTIMIZER_SLOTS: '09:00', AOC_OPTIMIZER_TIME_ZONE: 'America/New_York' });
    expect(nextSlot(new Date('2026-07-01T00:00:00Z'), ny).at).toEqual(new Date('2026-07-01T13:00:00Z'));
    expect(nextSlot(new Date('2026-12-01T00:00:00Z'), ny).at).toEqual(new Date('2026-12-01T14:00:00Z'));
    expect(() => ScheduleConfig.parse({ AOC_OPTIMIZER_SLOTS: '25:00' })).toThrow(/HH:MM/);
    expect(() => ScheduleConfig.parse({ AOC_OPTIMIZER_TIME_ZONE: 'Mars/Olympus' })).toThrow(/IANA/);
    expect(() => ScheduleConfig.parse({ AOC_OPTIMIZER_SELECTION_SLOT: '08:00' })).toThrow(/one of AOC_OPTIMIZER_SLOTS/);
    expect(ScheduleConfig.parse({ AOC_OPTIMIZER_REJECTION_LOOKBACK_DAYS: '30' }).rejectionLookbackDays).toBe(30);
    expect(() => ScheduleConfig.parse({ AOC_OPTIMIZER_REJECTION_LOOKBACK_DAYS: '0' })).toThrow(/AOC_OPTIMIZER_REJECTION_LOOKBACK_DAYS/);
  });
});
