export interface Backoff {
  /** Delay before the second attempt (before jitter). */
  baseMs: number;
  /** Cap on any one delay (before jitter). */
  maxMs: number;
}

/**
 * Delay after a failed attempt (`attempt` = 1 for the first), with "equal jitter": d is
 * min(maxMs, baseMs * 2^(attempt-1)) and the delay is uniform in [d/2, d]. The lower bound still
 * doubles each time, so delays grow, while jitter spreads retries from many jobs that failed
 * together (a partner outage) instead of having them all return at once.
 */
export function backoffDelay(backoff: Backoff, attempt: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 52); // 2^52 already exceeds any sane cap
  const d = Math.min(backoff.maxMs, backoff.baseMs * 2 ** exponent);
  return Math.round(d / 2 + random() * (d / 2));
}
