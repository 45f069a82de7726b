import { CodedError } from '../errors.ts';
import { fieldPath } from './field-path.ts';

/**
 * Input hygiene shared by every server of the repository (the platform and the sandbox): bodies are
 * parsed here, and strings PostgreSQL cannot store are refused here, naming the field, instead of
 * failing later at the database with a 500.
 * - NUL (`\u0000`): PostgreSQL `text` cannot hold it.
 * - A lone UTF-16 surrogate (`"\udc00"`, reachable through a JSON `\u` escape): not well-formed
 *   Unicode, so it has no UTF-8 encoding.
 */

/** A lone surrogate: with the `u` flag a well-formed pair is one astral code point, never `\p{Cs}`. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why `value` cannot be stored as text, or undefined when it can. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\0')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (a lone UTF-16 surrogate is not)';
  return undefined;
}

/** No contract nests this deep; deeper input is refused before anything walks it recursively. */
const MAX_DEPTH = 128;

/** Where and why a value cannot be stored as text: the field's path and a sentence about it. */
export interface TextProblem {
  path: string;
  message: string;
}

/**
 * The first string (at any depth, keys included) that cannot be stored as text, or undefined when
 * every one can. `path` names the root: `body`, `query`, `params`, or `''` for a partner's answer.
 * With `dropProto`, `__proto__` keys are deleted on the way (prototype poisoning), so a parsed body
 * is walked once. The path of a field is only spelled out for the one that fails.
 */
export function unstorableTextProblem(
  value: unknown,
  path: string,
  dropProto = false,
): TextProblem | undefined {
  const keys: string[] = [];
  const walk = (v: unknown): TextProblem | undefined => {
    if (typeof v === 'string') {
      const problem = textProblem(v);
      return problem ? { path: fieldPath(path, keys), message: problem } : undefined;
    }
    if (v === null || typeof v !== 'object') return undefined;
    if (keys.length >= MAX_DEPTH) return { path, message: `nests deeper than ${MAX_DEPTH} levels` };
    const o = v as Record<string, unknown>;
    for (const k in o) {
      if (!Object.hasOwn(o, k)) continue;
      if (dropProto && k === '__proto__') {
        delete o[k];
        continue;
      }
      keys.push(k);
      const keyProblem = textProblem(k);
      if (keyProblem) return { path: fieldPath(path, keys), message: `the name ${keyProblem}` };
      const found = walk(o[k]);
      if (found) return found;
      keys.pop();
    }
    return undefined;
  };
  return walk(value);
}

/** `unstorableTextProblem` as a request check: throws `validation_failed` naming the field. */
export function refuseUnstorableText(value: unknown, path: string, dropProto = false): void {
  const problem = unstorableTextProblem(value, path, dropProto);
  if (problem) throw new CodedError('validation_failed', `${problem.path}: ${problem.message}`, [problem]);
}

/**
 * Parses a JSON body: undefined when empty; `invalid_json` when it is not JSON; `validation_failed`
 * for text that cannot be stored. `__proto__` keys are dropped (JSON.parse makes them own
 * properties; a later merge could still take them for the prototype).
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  // Some Windows tools write one; JSON has none, and the parser's own message quotes it invisibly.
  if (raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) {
    throw new CodedError(
      'invalid_json',
      'The body starts with a UTF-8 byte order mark (EF BB BF), which JSON does not allow: send (and sign) the JSON without it.',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    // The parser quotes the start of the body: control bytes (a compressed body) are shown escaped.
    const why = (err as Error).message.replace(
      // eslint-disable-next-line no-control-regex -- control characters are what is escaped
      /[\u0000-\u001f\u007f-\u009f]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    throw new CodedError('invalid_json', `The body is not valid JSON: ${why}.`);
  }
  if (mayNeedWalk(raw)) refuseUnstorableText(value, 'body', true);
  return value;
}

/**
 * Whether a parsed JSON body can hold anything `refuseUnstorableText` refuses or drops, read off its
 * bytes (cheaper than walking the value). Only a `\u` escape puts NUL or a lone surrogate in a string
 * (JSON refuses raw control characters, and bytes that are not UTF-8 decode to U+FFFD), only the text
 * `__proto__` (or an escape) makes such a key, and a body with at most MAX_DEPTH `{` and `[` cannot
 * nest deeper than that.
 */
function mayNeedWalk(raw: Buffer): boolean {
  if (raw.includes('\\u') || raw.includes('__proto__')) return true;
  let brackets = 0;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if ((b === 0x7b || b === 0x5b) && ++brackets > MAX_DEPTH) return true;
  }
  return false;
}

/** Parses an `application/x-www-form-urlencoded` body into its fields (the last of a repeated name wins). */
export function parseFormBody(raw: Buffer): Record<string, string> {
  const params = new URLSearchParams(raw.toString('utf8'));
  const fields = Object.fromEntries(params);
  // RFC 6749 section 3.1: a parameter is sent once; of two, which one was meant is anyone's guess.
  if (Object.keys(fields).length < [...params.keys()].length) {
    const seen = new Set<string>();
    const twice = [...params.keys()].find((k) => seen.has(k) || !seen.add(k))!;
    throw new CodedError('validation_failed', `body.${twice}: sent more than once; send each field once.`, [
      { path: `body.${twice}`, message: 'sent more than once' },
    ]);
  }
  refuseUnstorableText(fields, 'body');
  return fields;
}
