import type { LifecycleEventName } from './lifecycle.ts';

/**
 * Billing figures as a pure function of the lifecycle log (see ARCHITECTURE.md, "SSO and billing").
 * Months are UTC calendar months named `YYYY-MM`.
 */
/** Given in recording order (the service reads them by `at`, then `seq`). */
export interface RecordedEvent {
  orgId: string;
  subjectId: string;
  event: LifecycleEventName | string;
  at: Date;
}

export interface ReportLocation {
  locationId: string;
  orgId: string;
  /** Start of the first activity that overlapped the month (may lie before it). */
  activatedAt: Date;
  /** End of the last activity in the month; null when still active at the month's end. */
  deactivatedAt: Date | null;
  firstActivatedAt: Date;
  newActivation: boolean;
}

export interface MonthReport {
  month: string;
  /** The month has ended (at `now`); the current month's figures still change. */
  isFinal: boolean;
  locations: ReportLocation[];
  metrics: { activeLocations: number; newActivations: number; newOnboardings: number };
}

interface Interval {
  from: Date;
  to: Date | null;
}

const MONTH = /^(\d{4})-(\d{2})$/;

export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** [start, end) of a `YYYY-MM` month in UTC. */
export function monthBounds(month: string): { start: Date; end: Date } {
  const m = MONTH.exec(month);
  if (!m) throw new Error(`Not a month: ${month}`);
  const [y, mo] = [Number(m[1]), Number(m[2])];
  return { start: new Date(Date.UTC(y, mo - 1, 1)), end: new Date(Date.UTC(y, mo, 1)) };
}

/** Every month from `first` to `last`, inclusive and in order. */
export function monthsBetween(first: string, last: string): string[] {
  const out: string[] = [];
  for (let m = first; m <= last; m = monthOf(monthBounds(m).end)) out.push(m);
  return out;
}

/**
 * The months a partner has reports for: from its first event's month to the current month.
 * None when nothing was ever recorded.
 */
export function reportMonths(events: readonly RecordedEvent[], now: Date): string[] {
  if (events.length === 0) return [];
  const first = events.reduce((min, e) => (e.at < min ? e.at : min), events[0]!.at);
  return monthsBetween(monthOf(first), monthOf(now));
}

/** Events in time order; events of one instant keep the order they were given in (recording order). */
function chronological(events: readonly RecordedEvent[]): RecordedEvent[] {
  return [...events].sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** Each location's periods of activity: a `location_activated` while active is another binding, not a new period. */
function locationHistories(events: readonly RecordedEvent[]) {
  const byLocation = new Map<string, { orgId: string; intervals: Interval[] }>();
  for (const e of chronological(events)) {
    if (e.event !== 'location_activated' && e.event !== 'location_deactivated') continue;
    let h = byLocation.get(e.subjectId);
    if (!h) byLocation.set(e.subjectId, (h = { orgId: e.orgId, intervals: [] }));
    const open = h.intervals.at(-1);
    const isOpen = open !== undefined && open.to === null;
    if (e.event === 'location_activated' && !isOpen) h.intervals.push({ from: e.at, to: null });
    if (e.event === 'location_deactivated' && isOpen) open.to = e.at;
  }
  return byLocation;
}

/** First activation of each integration (a reconnection later is not a new onboarding). */
function firstIntegrationActivations(events: readonly RecordedEvent[]): Date[] {
  const first = new Map<string, Date>();
  for (const e of events) {
    if (e.event !== 'integration_activated') continue;
    const seen = first.get(e.subjectId);
    if (!seen || e.at < seen) first.set(e.subjectId, e.at);
  }
  return [...first.values()];
}

/** Reports for the given months, computed from one pass over the partner's events. */
export function computeReports(
  events: readonly RecordedEvent[],
  months: readonly string[],
  now: Date,
): MonthReport[] {
  const locations = locationHistories(events);
  const onboardings = firstIntegrationActivations(events);
  return months.map((month) => {
    const { start, end } = monthBounds(month);
    const inMonth = (at: Date) => at >= start && at < end;
    const lines: ReportLocation[] = [];
    for (const [locationId, h] of locations) {
      // Active at some moment of [start, end): began in the month, or before it and still on after its start.
      const overlapping = h.intervals.filter(
        (i) => i.from < end && (i.from >= start || i.to === null || i.to > start),
      );
      const firstPeriod = h.intervals[0];
      if (!firstPeriod || overlapping.length === 0) continue;
      const last = overlapping.at(-1)!;
      lines.push({
        locationId,
        orgId: h.orgId,
        activatedAt: overlapping[0]!.from,
        deactivatedAt: last.to !== null && last.to < end ? last.to : null,
        firstActivatedAt: firstPeriod.from,
        newActivation: inMonth(firstPeriod.from),
      });
    }
    lines.sort(
      (a, b) =>
        a.firstActivatedAt.getTime() - b.firstActivatedAt.getTime() ||
        a.locationId.localeCompare(b.locationId),
    );
    return {
      month,
      isFinal: end <= now,
      locations: lines,
      metrics: {
        activeLocations: lines.length,
        newActivations: lines.filter((l) => l.newActivation).length,
        newOnboardings: onboardings.filter(inMonth).length,
      },
    };
  });
}
