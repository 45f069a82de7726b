import { describe, expect, it } from 'vitest';
import { computeReports, monthBounds, monthsBetween, reportMonths, type RecordedEvent } from './report.ts';

const ev = (event: string, subjectId: string, at: string, orgId = 'org_1'): RecordedEvent => ({
  event,
  subjectId,
  orgId,
  at: new Date(at),
});

/**
 * A scripted quarter. Hand-computed figures:
 * - 2026-01: L1 new; I1 onboarded                              -> 1 active, 1 new, 1 onboarding
 * - 2026-02: L1 on; L2 new (off 02-20); L4 new on the last ms  -> 3 active, 2 new, 0 onboardings
 * - 2026-03: L1 off 03-15, on again 03-20 (and a second binding
 *   03-25: no new period); L3 new at 00:00 on the 1st; L5 new on
 *   the last ms; L4 went off at exactly 03-01T00:00 (not active);
 *   I2 onboarded, I1 deprovisioned (an onboarding is counted in
 *   the month it activated, not billed by state)              -> 3 active, 2 new, 1 onboarding
 * - 2026-04 (current, now = 04-10): L1, L3, L5 on; L2 back on 04-02 (not new) -> 4 active, 0 new, 0
 */
const quarter: RecordedEvent[] = [
  ev('org_created', 'org_1', '2026-01-10T09:00:00Z'),
  ev('integration_activated', 'I1', '2026-01-15T09:00:00Z'),
  ev('location_activated', 'L1', '2026-01-20T09:00:00Z'),
  ev('location_activated', 'L2', '2026-02-05T09:00:00Z', 'org_2'),
  ev('location_deactivated', 'L2', '2026-02-20T09:00:00Z', 'org_2'),
  ev('location_activated', 'L4', '2026-02-28T23:59:59.999Z'),
  ev('location_deactivated', 'L4', '2026-03-01T00:00:00.000Z'),
  ev('location_activated', 'L3', '2026-03-01T00:00:00.000Z'),
  ev('integration_activated', 'I2', '2026-03-10T09:00:00Z'),
  ev('integration_deprovisioned', 'I1', '2026-03-12T09:00:00Z'),
  ev('location_deactivated', 'L1', '2026-03-15T09:00:00Z'),
  ev('location_activated', 'L1', '2026-03-20T09:00:00Z'),
  ev('location_activated', 'L1', '2026-03-25T09:00:00Z'),
  ev('location_activated', 'L5', '2026-03-31T23:59:59.999Z'),
  ev('location_activated', 'L2', '2026-04-02T09:00:00Z', 'org_2'),
];
const now = new Date('2026-04-10T12:00:00Z');

describe('month arithmetic', () => {
  it.each([
    ['2026-01', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
    ['2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2024-02', '2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
  ])('%s spans [%s, %s)', (month, start, end) => {
    const b = monthBounds(month);
    expect([b.start.toISOString(), b.end.toISOString()]).toEqual([start, end]);
  });

  it('lists months across a year end', () => {
    expect(monthsBetween('2025-11', '2026-02')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
  });

  it('has no months without events, else first event month to now', () => {
    expect(reportMonths([], now)).toEqual([]);
    expect(reportMonths(quarter, now)).toEqual(['2026-01', '2026-02', '2026-03', '2026-04']);
  });
});

describe('computeReports over a scripted quarter', () => {
  const reports = computeReports(quarter, reportMonths(quarter, now), now);
  const byMonth = Object.fromEntries(reports.map((r) => [r.month, r]));

  it.each([
    ['2026-01', { activeLocations: 1, newActivations: 1, newOnboardings: 1 }, ['L1'], true],
    ['2026-02', { activeLocations: 3, newActivations: 2, newOnboardings: 0 }, ['L1', 'L2', 'L4'], true],
    ['2026-03', { activeLocations: 3, newActivations: 2, newOnboardings: 1 }, ['L1', 'L3', 'L5'], true],
    [
      '2026-04',
      { activeLocations: 4, newActivations: 0, newOnboardings: 0 },
      ['L1', 'L2', 'L3', 'L5'],
      false,
    ],
  ])('%s', (month, metrics, locations, isFinal) => {
    const r = byMonth[month]!;
    expect(r.metrics).toEqual(metrics);
    expect(r.locations.map((l) => l.locationId).sort()).toEqual(locations);
    expect(r.isFinal).toBe(isFinal);
  });

  it('describes each location line of a month', () => {
    const iso = (d: Date | null) => d?.toISOString() ?? null;
    const lines = byMonth['2026-03']!.locations.map((l) => ({
      id: l.locationId,
      org: l.orgId,
      from: iso(l.activatedAt),
      to: iso(l.deactivatedAt),
      first: iso(l.firstActivatedAt),
      isNew: l.newActivation,
    }));
    // Ordered by first activation.
    expect(lines).toEqual([
      {
        id: 'L1',
        org: 'org_1',
        from: '2026-01-20T09:00:00.000Z',
        to: null,
        first: '2026-01-20T09:00:00.000Z',
        isNew: false,
      },
      {
        id: 'L3',
        org: 'org_1',
        from: '2026-03-01T00:00:00.000Z',
        to: null,
        first: '2026-03-01T00:00:00.000Z',
        isNew: true,
      },
      {
        id: 'L5',
        org: 'org_1',
        from: '2026-03-31T23:59:59.999Z',
        to: null,
        first: '2026-03-31T23:59:59.999Z',
        isNew: true,
      },
    ]);
    const l2 = byMonth['2026-02']!.locations.find((l) => l.locationId === 'L2')!;
    expect([l2.orgId, iso(l2.deactivatedAt)]).toEqual(['org_2', '2026-02-20T09:00:00.000Z']);
  });
});

describe('computeReports edge cases', () => {
  const figures = (events: RecordedEvent[], month: string) =>
    computeReports(events, [month], now)[0]!.metrics;

  it.each<[string, RecordedEvent[], string, [number, number, number]]>([
    [
      'a deactivation with no activation is ignored',
      [ev('location_deactivated', 'L', '2026-03-05T00:00:00Z')],
      '2026-03',
      [0, 0, 0],
    ],
    [
      'on then off in the same millisecond still counts',
      [
        ev('location_activated', 'L', '2026-03-05T00:00:00Z'),
        ev('location_deactivated', 'L', '2026-03-05T00:00:00Z'),
      ],
      '2026-03',
      [1, 1, 0],
    ],
    [
      'off then on again in the same millisecond (recording order) keeps it active into the next month',
      [
        ev('location_activated', 'L', '2026-02-05T00:00:00Z'),
        ev('location_deactivated', 'L', '2026-02-27T00:00:00Z'),
        ev('location_activated', 'L', '2026-02-27T00:00:00Z'),
      ],
      '2026-03',
      [1, 0, 0],
    ],
    [
      'a location active all month without events in it is billed',
      [ev('location_activated', 'L', '2026-01-05T00:00:00Z')],
      '2026-03',
      [1, 0, 0],
    ],
    [
      'a location that went off before the month is not',
      [
        ev('location_activated', 'L', '2026-01-05T00:00:00Z'),
        ev('location_deactivated', 'L', '2026-02-05T00:00:00Z'),
      ],
      '2026-03',
      [0, 0, 0],
    ],
    [
      'a reconnected integration is one onboarding, in its first month',
      [
        ev('integration_activated', 'I', '2026-02-05T00:00:00Z'),
        ev('integration_deprovisioned', 'I', '2026-02-06T00:00:00Z'),
        ev('integration_activated', 'I', '2026-03-07T00:00:00Z'),
      ],
      '2026-03',
      [0, 0, 0],
    ],
    [
      'several locations toggled many times count once each',
      [
        ev('location_activated', 'A', '2026-03-01T01:00:00Z'),
        ev('location_deactivated', 'A', '2026-03-02T01:00:00Z'),
        ev('location_activated', 'A', '2026-03-03T01:00:00Z'),
        ev('location_deactivated', 'A', '2026-03-04T01:00:00Z'),
        ev('location_activated', 'B', '2026-03-05T01:00:00Z'),
        ev('integration_activated', 'I', '2026-03-05T01:00:00Z'),
        ev('integration_activated', 'J', '2026-03-06T01:00:00Z'),
      ],
      '2026-03',
      [2, 2, 2],
    ],
  ])('%s', (_name, events, month, [active, fresh, onboardings]) => {
    expect(figures(events, month)).toEqual({
      activeLocations: active,
      newActivations: fresh,
      newOnboardings: onboardings,
    });
  });

  it('does not depend on the order of events at different instants', () => {
    const shuffled = [...quarter].reverse();
    expect(computeReports(shuffled, ['2026-03'], now)).toEqual(computeReports(quarter, ['2026-03'], now));
  });
});
