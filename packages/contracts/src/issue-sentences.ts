import { z } from 'zod';

/**
 * Zod's own messages for the rules every schema shares, as sentences that say what to send
 * ("must not be empty", "must be at most 64 characters") instead of Zod's notation ("Too small:
 * expected string to have >=1 characters"). A schema's own message still wins; a rule not named
 * here keeps Zod's. Installed once per process by `useIssueSentences` (every server's error handler
 * installs it), so requests, partners' answers and certification checks all read the same.
 */
export function issueSentence(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined)
        return `is required but missing; send ${article(String(issue.expected))}.`;
      // A number that is not the number asked for: too large to hold (1e309 parses as Infinity), or a
      // fraction where a whole number is asked for. "Not a number" would contradict itself.
      if (typeof issue.input === 'number' && (issue.expected === 'number' || issue.expected === 'int'))
        return Number.isFinite(issue.input)
          ? `must be ${article(String(issue.expected))}, not ${issue.input}.`
          : `must be ${article(String(issue.expected))}; this one is too large to hold.`;
      return `must be ${article(String(issue.expected))}, not ${kindOf(issue.input)}.`;
    case 'too_small':
      return bound(issue.origin, 'least', issue.minimum, issue.inclusive);
    case 'too_big':
      return bound(issue.origin, 'most', issue.maximum, issue.inclusive);
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${shown(issue.values[0])}.`
        : `must be one of ${issue.values.map(shown).join(', ')}.`;
    case 'unrecognized_keys':
      return `has ${issue.keys.length === 1 ? 'a field' : 'fields'} it does not take: ${issue.keys.join(', ')}; leave ${issue.keys.length === 1 ? 'it' : 'them'} out.`;
    case 'invalid_union':
      // A discriminated union whose field (its path) has none of its values: name them.
      if ('options' in issue && Array.isArray(issue.options) && 'discriminator' in issue) {
        const sent = (issue.input as Record<string, unknown> | undefined)?.[String(issue.discriminator)];
        const values = issue.options.map(shown).join(', ');
        return sent === undefined
          ? `is required but missing; send one of ${values}.`
          : `must be one of ${values}.`;
      }
      return unionSentence(issue.errors, issue.input);
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}.`;
    case 'invalid_format':
      if (issue.format === 'email') return 'must be an e-mail address, such as ada@example.com.';
      if (issue.format === 'url') return 'must be an absolute URL, such as https://example.com/path.';
      // ISO dates and times: the form to send, with an example (Zod says "Invalid ISO datetime").
      if (issue.format === 'datetime')
        return /\[\+-\]/.test(String('pattern' in issue ? issue.pattern : ''))
          ? 'must be a date-time with its offset (or Z), such as 2026-12-01T18:30:00-05:00.'
          : 'must be a date-time in UTC, ending in Z, such as 2026-12-01T23:30:00Z.';
      if (issue.format === 'date') return 'must be a date as YYYY-MM-DD, such as 2026-12-01.';
      if (issue.format === 'time') return 'must be a time as HH:mm or HH:mm:ss, such as 18:30.';
      if (issue.format === 'regex' && 'pattern' in issue)
        return `must match the pattern ${String(issue.pattern)}.`;
      return undefined;
    default:
      return undefined;
  }
}

/** A value no form of a union took: the types it takes when it is of none of them. */
function unionSentence(branches: readonly (readonly z.core.$ZodIssue[])[], input: unknown): string {
  const types = branches.map((issues) =>
    issues.length === 1 && issues[0]!.code === 'invalid_type' && issues[0]!.path.length === 0
      ? issues[0]!.expected
      : undefined,
  );
  if (types.every((t) => t !== undefined)) {
    const kinds = [...new Set(types)].map((t) => article(t!)).join(' or ');
    return input === undefined
      ? `is required but missing; send ${kinds}.`
      : `must be ${kinds}, not ${kindOf(input)}.`;
  }
  return 'matches none of the forms this field takes (see the reference).';
}

function bound(origin: string | undefined, side: 'least' | 'most', limit: unknown, inclusive?: boolean) {
  const n = typeof limit === 'bigint' ? limit.toString() : Number(limit);
  switch (origin) {
    case 'string':
      if (side === 'least' && n === 1) return 'must not be empty.';
      return `must be at ${side} ${n} character${n === 1 ? '' : 's'} long.`;
    case 'array':
    case 'set':
      if (side === 'least' && n === 1) return 'must have at least one item.';
      return `must have at ${side} ${n} item${n === 1 ? '' : 's'}.`;
    case 'number':
    case 'int':
    case 'bigint':
      if (inclusive === false) return `must be ${side === 'least' ? 'more' : 'less'} than ${n}.`;
      return `must be at ${side} ${n}.`;
    default:
      return undefined;
  }
}

/** Zod's type names where a partner's word differs. */
const TYPE_NAMES: Record<string, string> = { int: 'whole number' };
const article = (what: string) => {
  const name = TYPE_NAMES[what] ?? what;
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;
};

function kindOf(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'number' && Number.isNaN(input)) return 'NaN';
  return article(typeof input);
}

const shown = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value) : String(value));

let installed = false;
/** Makes `issueSentence` Zod's message for every schema of this process (idempotent). */
export function useIssueSentences(): void {
  if (installed) return;
  installed = true;
  z.config({ customError: issueSentence });
}

/**
 * A sentence to go on inside another (`…: must be a whole number, not 1.5; the item is left out.`):
 * without its closing full stop, so the whole ends with one.
 */
export const asClause = (sentence: string) => sentence.replace(/\.$/, '');
