import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.ts';

describe('backoffDelay (exponential, equal jitter)', () => {
  const backoff = { baseMs: 100, maxMs: 1_000 };

  it('stays within [d/2, d] where d doubles per attempt up to the cap', () => {
    const expected = [100, 200, 400, 800, 1000, 1000];
    expected.forEach((d, i) => {
      expect(backoffDelay(backoff, i + 1, () => 0)).toBe(d / 2);
      expect(backoffDelay(backoff, i + 1, () => 1)).toBe(d);
    });
  });

  it('grows: every delay of attempt n+1 is at least every delay of attempt n until the cap', () => {
    for (let attempt = 1; attempt < 4; attempt++) {
      const longest = backoffDelay(backoff, attempt, () => 1);
      const shortestNext = backoffDelay(backoff, attempt + 1, () => 0);
      expect(shortestNext).toBeGreaterThanOrEqual(longest);
    }
  });

  it('spreads jobs that failed together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(backoff, 3)));
    expect(delays.size).toBeGreaterThan(10);
  });

  it('never overflows on absurd attempt numbers', () => {
    expect(backoffDelay(backoff, 10_000, () => 1)).toBe(1_000);
  });
});
