import { CodedError } from '../errors.ts';

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

/**
 * Throws `validation_failed` naming the first string (at any depth, keys included) that cannot be
 * stored as text. `path` names the root: `body`, `query`, `params`.
 */
export function refuseUnstorableText(value: unknown, path: string): void {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem)
      throw new CodedError('validation_failed', `${path}: ${problem}`, [{ path, message: problem }]);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const where = `${path}.${k}`;
      const keyProblem = textProblem(k);
      if (keyProblem)
        throw new CodedError('validation_failed', `${where}: the name ${keyProblem}`, [
          { path: where, message: `the name ${keyProblem}` },
        ]);
      refuseUnstorableText(v, where);
    }
  }
}

/** JSON.parse reviver that drops `__proto__` keys (prototype poisoning). */
function dropProto(key: string, value: unknown) {
  return key === '__proto__' ? undefined : value;
}

/**
 * Parses a JSON body: undefined when empty; `invalid_json` when it is not JSON; `validation_failed`
 * for text that cannot be stored. `__proto__` keys are dropped.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'), dropProto);
  } catch (err) {
    throw new CodedError('invalid_json', `The body is not valid JSON: ${(err as Error).message}.`);
  }
  refuseUnstorableText(value, 'body');
  return value;
}

/** Parses an `application/x-www-form-urlencoded` body into its fields (the last of a repeated name wins). */
export function parseFormBody(raw: Buffer): Record<string, string> {
  const fields = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
  refuseUnstorableText(fields, 'body');
  return fields;
}
