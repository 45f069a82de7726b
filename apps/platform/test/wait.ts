/**
 * Polls `check` until it answers something truthy, and answers that; fails after `timeoutMs`.
 * Every 100 ms, not faster: on PGlite's one connection a tight poll slows down the very worker it
 * waits for. The one `waitFor` of the test suites.
 */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
