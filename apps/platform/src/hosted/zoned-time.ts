import { BoundedMap } from '../shared/bounded-map.ts';

/** An instant as a store's wall clock reads it: date, weekday and minutes since midnight. */
export interface LocalTime {
  /** YYYY-MM-DD */
  date: string;
  /** 0 Sunday … 6 Saturday */
  weekday: number;
  /** Minutes since local midnight, 0..1439. */
  minutes: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * The last instants read, by zone and millisecond: pricing reads the same `deferDue` several times
 * (order type, groups, discount windows), and `formatToParts` is the slow part (~20 µs). Bounded.
 */
const recent = new BoundedMap<string, LocalTime>(1000);

/** Reads an instant in an IANA time zone (daylight saving time included) with the platform's Intl data. */
export function localTime(at: Date, timeZone: string): LocalTime {
  const key = `${timeZone} ${at.getTime()}`;
  const hit = recent.get(key);
  if (hit) return hit;
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(timeZone, format);
  }
  const part = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  const local = Object.freeze({
    date: `${part.year}-${part.month}-${part.day}`,
    weekday: WEEKDAYS.indexOf(part.weekday!),
    minutes: Number(part.hour) * 60 + Number(part.minute),
  });
  recent.set(key, local);
  return local;
}

export const clockMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Whether a local time falls in a daily window. An end at or before the start runs past midnight
 * (`22:00`-`02:00` holds 23:30 and 01:00); `00:00`-`00:00` is the whole day.
 */
export function inWindow(minutes: number, start: string, end: string): boolean {
  const s = clockMinutes(start);
  const e = clockMinutes(end);
  return s < e ? minutes >= s && minutes < e : minutes >= s || minutes < e;
}

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export const dayName = (weekday: number) => DAY_NAMES[weekday]!;

/**
 * Whether weekly periods (`{dayOfWeek, startTime, endTime}`) cover a local time: a period of the
 * same day, or one of the day before that runs past midnight into this one.
 */
export function inPeriods(
  periods: readonly { dayOfWeek: string; startTime: string; endTime: string }[],
  t: LocalTime,
): boolean {
  const today = dayName(t.weekday);
  const yesterday = dayName((t.weekday + 6) % 7);
  return periods.some((p) => {
    const s = clockMinutes(p.startTime);
    const e = clockMinutes(p.endTime);
    const overnight = e <= s;
    if (p.dayOfWeek === today) return overnight ? t.minutes >= s : t.minutes >= s && t.minutes < e;
    return p.dayOfWeek === yesterday && overnight && t.minutes < e;
  });
}

const DAY_MS = 86_400_000;

/**
 * The instant a store's wall clock reads `minutes` past midnight on `date`, daylight saving time
 * included, read as Temporal's `compatible` disambiguation does: a time the clock reads twice (01:30
 * on a fall-back night) is the first; one it skips (02:30 on a spring-forward night) is as long after
 * the change as it is after 02:00 (03:30), never an hour early, while the store is still closed.
 */
export function instantAt(date: string, minutes: number, timeZone: string): Date {
  const wanted = Date.parse(`${date}T00:00:00Z`) + minutes * 60_000;
  // How far the zone's clock is ahead of UTC at `t` (negative west of Greenwich).
  const offsetAt = (t: number) => {
    const local = localTime(new Date(t), timeZone);
    return Date.parse(`${local.date}T00:00:00Z`) + local.minutes * 60_000 - t;
  };
  // A zone changes its offset at most once in two days: the offsets of the day before and after.
  const before = offsetAt(wanted - DAY_MS);
  const read = [wanted - before, wanted - offsetAt(wanted + DAY_MS)].filter(
    (t) => offsetAt(t) === wanted - t,
  );
  return new Date(read.length > 0 ? Math.min(...read) : wanted - before);
}

/** The calendar date `days` after `date` (YYYY-MM-DD). */
export const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
