/** What the `stream-sandbox` commands share to read their arguments. */

/** A mistake in the command line: one line on stderr, exit 2. */
export class UsageError extends Error {}

/** An http(s) URL flag, or a usage error naming it (fetch would only say "invalid URL" later). */
export function httpUrl(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol))
    throw new UsageError(`${name} must be an http(s) URL such as http://localhost:8080, got "${raw}".`);
  return raw;
}

export function wholeNumber(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} must be a whole number, got "${raw}".`);
  return n;
}
