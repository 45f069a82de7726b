import { describe, expect, it } from 'vitest';
import { estimateReady } from './estimated-time.ts';
import { instantAt } from '../zoned-time.ts';

const NY = 'America/New_York';
const at = (iso: string) => new Date(iso);
const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'] as const;
/** Open 11:00-22:00 on weekdays, and Friday 22:00-02:00 past midnight. */
const TYPE = {
  estimatedTime: 30,
  operationPeriods: [
    ...days.map((dayOfWeek) => ({ dayOfWeek, startTime: '11:00', endTime: '22:00' })),
    { dayOfWeek: 'Friday' as const, startTime: '22:00', endTime: '02:00' },
  ],
};

describe('estimateReady', () => {
  it.each([
    ['a desired time far enough ahead, while open', '2026-12-01T18:30:00-05:00', '2026-12-01T12:00:00-05:00', '2026-12-01T18:30:00-05:00', false],
    ['as soon as possible: now plus the minutes', '2026-12-01T12:00:00-05:00', '2026-12-01T12:00:00-05:00', '2026-12-01T12:30:00-05:00', false],
    ['closed at night: the next opening plus the minutes', '2026-12-01T23:00:00-05:00', '2026-12-01T12:00:00-05:00', '2026-12-02T11:30:00-05:00', true],
    ['before opening the same day', '2026-12-02T08:00:00-05:00', '2026-12-01T12:00:00-05:00', '2026-12-02T11:30:00-05:00', true],
    ['Saturday 01:00 is Friday night, open', '2026-12-05T01:00:00-05:00', '2026-12-01T12:00:00-05:00', '2026-12-05T01:00:00-05:00', false],
    ['Saturday noon: closed until Monday 11:00', '2026-12-05T12:00:00-05:00', '2026-12-01T12:00:00-05:00', '2026-12-07T11:30:00-05:00', true],
  ])('%s', (_what, desired, now, expected, adjusted) => {
    const r = estimateReady(TYPE, at(desired), at(now), NY);
    expect([r.at.toISOString(), r.adjusted]).toEqual([at(expected).toISOString(), adjusted]);
  }); // prettier-ignore

  it('is always open without periods', () => {
    const r = estimateReady({ estimatedTime: 45, operationPeriods: [] }, at('2026-12-05T03:00:00Z'), at('2026-12-05T03:00:00Z'), NY);
    expect(r).toEqual({ at: at('2026-12-05T03:45:00Z'), adjusted: false });
  }); // prettier-ignore

  it('reads wall-clock times across a daylight-saving change', () => {
    expect(instantAt('2026-03-08', 11 * 60, NY).toISOString()).toBe('2026-03-08T15:00:00.000Z'); // EDT
    expect(instantAt('2026-03-07', 11 * 60, NY).toISOString()).toBe('2026-03-07T16:00:00.000Z'); // EST
    expect(instantAt('2026-12-01', 0, 'Pacific/Honolulu').toISOString()).toBe('2026-12-01T10:00:00.000Z');
    // 02:30 does not exist on 2026-03-08 in New York (02:00 EST is 03:00 EDT): 03:30 EDT, not 01:30 EST.
    expect(instantAt('2026-03-08', 2 * 60 + 30, NY).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(instantAt('2026-03-08', 2 * 60, NY).toISOString()).toBe('2026-03-08T07:00:00.000Z'); // 03:00 EDT
    expect(instantAt('2026-03-08', 3 * 60, NY).toISOString()).toBe('2026-03-08T07:00:00.000Z');
    // 01:30 happens twice on 2026-11-01 (EDT, then EST): the first.
    expect(instantAt('2026-11-01', 90, NY).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(instantAt('2026-11-01', 2 * 60, NY).toISOString()).toBe('2026-11-01T07:00:00.000Z'); // EST
    expect(instantAt('2026-03-29', 2 * 60 + 30, 'Europe/Berlin').toISOString()).toBe(
      '2026-03-29T01:30:00.000Z',
    ); // 03:30 CEST
  });
});
