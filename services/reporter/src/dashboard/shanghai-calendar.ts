import { addDays, dayCount, isoWeekday, shanghaiDayOf } from '../reports/report-period';
import type { ShanghaiDate } from '../reports/report.types';

/** Calendar helpers of the dashboard, on the reports' own Asia/Shanghai day arithmetic. */
export { addDays, dayCount };

export function shanghaiDay(instant: Date): ShanghaiDate {
  return shanghaiDayOf(instant);
}

/** Monday of the ISO week that contains `day`. */
export function weekStartOf(day: ShanghaiDate): ShanghaiDate {
  return addDays(day, 1 - isoWeekday(day));
}

/** Every date from `from` to `to`, both included. */
export function daysBetween(from: ShanghaiDate, to: ShanghaiDate): ShanghaiDate[] {
  const days: ShanghaiDate[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) days.push(d);
  return days;
}
