import { z } from 'zod';

/**
 * When the scheduled optimizer runs: at fixed wall-clock slots in one time zone (default 12:30,
 * 16:30 and 20:30 Asia/Shanghai). Every slot continues the active Focus; only the selection slot
 * (default the last one) may select a new problem, so more slots never mean more selection.
 */

/** Default rejection lookback: two weeks of slots, long enough not to re-baseline the same miss daily. */
export const REJECTION_LOOKBACK_DAYS = 14;

const Slot = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM');

export const ScheduleConfig = z
  .object({
    AOC_OPTIMIZER_SLOTS: z
      .string()
      .default('12:30,16:30,20:30')
      .transform((s, ctx) => {
        const slots = s.split(',').map((x) => x.trim());
        for (const x of slots) if (!Slot.safeParse(x).success) ctx.addIssue({ code: 'custom', message: `${x} must be HH:MM` });
        return [...new Set(slots)].sort();
      }),
    AOC_OPTIMIZER_TIME_ZONE: z
      .string()
      .default('Asia/Shanghai')
      .refine((tz) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: tz });
          return true;
        } catch {
          return false;
        }
      }, 'must be an IANA time zone'),
    /** The slot that may select a new Focus; the last slot by default. */
    AOC_OPTIMIZER_SELECTION_SLOT: Slot.optional(),
    /** Days a baseline's rejection of a grouping keeps it from being proposed again (seed: a lookback window, not forever). */
    AOC_OPTIMIZER_REJECTION_LOOKBACK_DAYS: z.coerce.number().int().min(1).max(365).default(REJECTION_LOOKBACK_DAYS),
  })
  .transform((c) => ({
    slots: c.AOC_OPTIMIZER_SLOTS,
    timeZone: c.AOC_OPTIMIZER_TIME_ZONE,
    selectionSlot: c.AOC_OPTIMIZER_SELECTION_SLOT ?? c.AOC_OPTIMIZER_SLOTS.at(-1) ?? '20:30',
    rejectionLookbackDays: c.AOC_OPTIMIZER_REJECTION_LOOKBACK_DAYS,
  }))
  .refine((c) => c.slots.includes(c.selectionSlot), { message: 'AOC_OPTIMIZER_SELECTION_SLOT must be one of AOC_OPTIMIZER_SLOTS' });
export type Schedule = z.output<typeof ScheduleConfig>;

/** The zone's wall-clock parts of an instant. */
function wallClock(at: Date, timeZone: string): { y: number; m: number; d: number; h: number; min: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return { y: Number(parts['year']), m: Number(parts['month']), d: Number(parts['day']), h: Number(parts['hour']), min: Number(parts['minute']) };
}

/** The instant a wall-clock time of the zone falls on (the zone's offset read at that instant). */
function instantOf(y: number, m: number, d: number, h: number, min: number, timeZone: string): Date {
  const guess = Date.UTC(y, m - 1, d, h, min);
  const seen = wallClock(new Date(guess), timeZone);
  const offset = Date.UTC(seen.y, seen.m - 1, seen.d, seen.h, seen.min) - guess;
  return new Date(guess - offset);
}

export interface PlannedSlot {
  at: Date;
  slot: string;
  selects: boolean;
}

/** The first slot strictly after `now`. */
export function nextSlot(now: Date, schedule: Schedule): PlannedSlot {
  const today = wallClock(now, schedule.timeZone);
  for (let day = 0; day < 3; day += 1) {
    const base = new Date(Date.UTC(today.y, today.m - 1, today.d + day));
    for (const slot of schedule.slots) {
      const [h, min] = slot.split(':').map(Number);
      const at = instantOf(base.getUTCFullYear(), base.getUTCMonth() + 1, base.getUTCDate(), h, min, schedule.timeZone);
      if (at.getTime() > now.getTime()) return { at, slot, selects: slot === schedule.selectionSlot };
    }
  }
  throw new Error('no slot within three days');
}
