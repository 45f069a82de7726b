/**
 * Whole-cent arithmetic for percentages. Rates have at most 3 decimals (8.875%), so they are
 * scaled to integers and every result is rounded half up with integer division: no float drift.
 */
const SCALE = 1000;
const scaled = (percent: number) => Math.round(percent * SCALE);

/** Half-up integer division of non-negative integers. */
const divide = (n: number, d: number) => Math.floor((2 * n + d) / (2 * d));

/** `percent`% of `cents`, rounded half up. */
export const percentOf = (cents: number, percent: number) => divide(cents * scaled(percent), 100 * SCALE);

/** The tax inside a price that includes it at `percent`%: the price minus the price before tax. */
export const includedTax = (cents: number, percent: number) =>
  cents - divide(cents * 100 * SCALE, 100 * SCALE + scaled(percent));

/** Splits `amount` over `weights` in proportion, by largest remainder: the parts sum to `amount`. */
export function spread(amount: number, weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  if (total <= 0 || amount === 0) return weights.map(() => 0);
  const exact = weights.map((w) => (amount * w) / total);
  const parts = exact.map(Math.floor);
  let left = amount - parts.reduce((a, b) => a + b, 0);
  const order = exact
    .map((e, i) => [e - Math.floor(e), i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    parts[i]! += 1;
    left -= 1;
  }
  return parts;
}
