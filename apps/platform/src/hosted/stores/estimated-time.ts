import type { StoreOrderType } from '@stream/contracts/apis/hr-stores/index';
import { addDays, clockMinutes, dayName, inPeriods, instantAt, localTime } from '../zoned-time.ts';

/**
 * When an order of this type can be ready (pure): the later of the desired time and now plus the
 * type's minutes; if the store is closed for the type then, its minutes after the next opening.
 */
export function estimateReady(
  type: Pick<StoreOrderType, 'estimatedTime' | 'operationPeriods'>,
  desired: Date,
  now: Date,
  timeZone: string,
): { at: Date; adjusted: boolean } {
  const minutes = type.estimatedTime * 60_000;
  const earliest = new Date(Math.max(desired.getTime(), now.getTime() + minutes));
  const periods = type.operationPeriods;
  if (periods.length === 0 || inPeriods(periods, localTime(earliest, timeZone)))
    return { at: earliest, adjusted: false };
  // The next opening: the first period start after `earliest`, looking a week ahead.
  const from = localTime(earliest, timeZone);
  for (let day = 0; day <= 7; day++) {
    const date = addDays(from.date, day);
    const weekday = dayName((from.weekday + day) % 7);
    const starts = periods
      .filter((p) => p.dayOfWeek === weekday)
      .map((p) => instantAt(date, clockMinutes(p.startTime), timeZone))
      .filter((start) => start.getTime() > earliest.getTime())
      .sort((a, b) => a.getTime() - b.getTime());
    if (starts[0]) return { at: new Date(starts[0].getTime() + minutes), adjusted: true };
  }
  return { at: earliest, adjusted: false }; // periods that never open: nothing better to say
}
