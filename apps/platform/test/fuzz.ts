/**
 * The inputs of the endpoint fuzz test (`src/fuzz.test.ts`): hostile values, mutations of an
 * operation's own request example, and a JSON writer that can say what `JSON.stringify` cannot
 * (number tokens such as `1e999`, duplicated keys, 5,000 levels of nesting).
 */
import fc from 'fast-check';

/** A JSON token written as it is: `1e999`, `-0`, a 5,000-deep array. */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object written with these entries in this order, duplicates included. */
export class Dup {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}
}

/** JSON text of a value that may hold `Raw` and `Dup` parts; `undefined` is written `null`. */
export function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Dup) {
    return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const nest = (open: string, close: string, depth: number, inner = '1') =>
  new Raw(open.repeat(depth) + inner + close.repeat(depth));

/** Strings a field should refuse or store as they are, never choke on. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  'NaN',
  'Infinity',
  'null',
  'true',
  '1e999',
  '99999999999999999999999999',
  '2026-02-30T25:61:00Z',
  '0000-00-00',
  '9999-12-31T23:59:59Z',
  '\ud800', // a lone high surrogate
  'a\udc00b', // a lone low surrogate
  'a\u0000b', // NUL
  '\u202eevil\u202c', // right-to-left override
  '\ufeffbom',
  'e\u0301\u0300\u0302',
  '\u2028\u2029\u0085',
  '💩🏳️‍🌈',
  '<script>alert(1)</script>',
  "' or 1=1 --",
  '../../../etc/passwd',
  '%00%ff',
  '${jndi:x}{{7*7}}',
  '__proto__',
  'x'.repeat(70_000),
  'é'.repeat(40_000),
] as const;

/** Any JSON value a field may be replaced with: other types, extremes, nesting, odd text. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      null,
      true,
      false,
      0,
      -1,
      0.5,
      -0.000001,
      2 ** 31,
      2 ** 53 + 2,
      -(2 ** 63),
      1e308,
      -1e308,
      Number.MIN_VALUE,
    ),
    weight: 3,
  },
  {
    arbitrary: fc.constantFrom(
      new Raw('1e999'),
      new Raw('-1e999'),
      new Raw('-0'),
      new Raw('1E-400'),
      new Raw('123456789012345678901234567890'),
      new Raw('0.30000000000000004'),
    ),
    weight: 2,
  },
  {
    arbitrary: fc.constantFrom<unknown>(
      [],
      {},
      [null],
      [[]],
      { '': null },
      { __proto__x: 1, constructor: { prototype: { polluted: true } } },
      nest('[', ']', 60),
      nest('{"a":', '}', 200),
      nest('[', ']', 5_000),
      nest('{"a":', '}', 5_000),
      new Raw(`[${Array.from({ length: 20_000 }, () => '1').join(',')}]`),
    ),
    weight: 2,
  },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 2 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
);

type Path = readonly (string | number)[];

/** Every path into a JSON value (the root `[]` included), breadth first, at most `max` of them. */
export function pathsOf(value: unknown, max = 200): Path[] {
  const out: Path[] = [];
  const queue: [Path, unknown][] = [[[], value]];
  while (queue.length > 0 && out.length < max) {
    const [path, v] = queue.shift()!;
    out.push(path);
    if (Array.isArray(v)) v.forEach((c, i) => queue.push([[...path, i], c]));
    else if (v !== null && typeof v === 'object') {
      for (const [k, c] of Object.entries(v)) queue.push([[...path, k], c]);
    }
  }
  return out;
}

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)?.[k], value);
}

/** A copy of `value` with the node at `path` given to `change` (the root when `path` is empty). */
function updateAt(value: unknown, path: Path, change: (node: unknown) => unknown): unknown {
  if (path.length === 0) return change(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    return value.map((c, i) => (i === head ? updateAt(c, rest, change) : c));
  }
  const obj = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(obj).map(([k, c]) => [k, k === head ? updateAt(c, rest, change) : c]),
  );
}

/** Removes the node at `path` (a field deleted, an array element dropped). */
function removeAt(value: unknown, path: Path): unknown {
  if (path.length === 0) return undefined;
  const parent = path.slice(0, -1);
  const last = path.at(-1);
  return updateAt(value, parent, (node) =>
    Array.isArray(node)
      ? node.filter((_, i) => i !== last)
      : Object.fromEntries(Object.entries(node as object).filter(([k]) => k !== last)),
  );
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Raw) && !(v instanceof Dup);

/** A mutation of a JSON body, described for the failure report, and the bytes it sends. */
export interface BodyMutation {
  what: string;
  text: string;
}

/**
 * Mutations of `example`: one node replaced by a hostile value, removed, repeated 5,000 times (an
 * array), an object given an extra or a duplicated key; or a whole body of random JSON, or text
 * that is not JSON at all.
 */
export function bodyMutation(example: unknown): fc.Arbitrary<BodyMutation> {
  const paths = pathsOf(example);
  const objectPaths = paths.filter((p) => isObject(getAt(example, p)));
  const arrayPaths = paths.filter((p) => Array.isArray(getAt(example, p)));
  const at = (p: Path) => (p.length ? p.join('.') : '(root)');
  const options: { arbitrary: fc.Arbitrary<BodyMutation>; weight: number }[] = [
    {
      weight: 8,
      arbitrary: fc.tuple(fc.constantFrom(...paths), hostileValue).map(([p, v]) => ({
        what: `${at(p)} replaced`,
        text: toJson(updateAt(example, p, () => v)),
      })),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...paths).map((p) => ({
        what: `${at(p)} removed`,
        text: toJson(removeAt(example, p)),
      })),
    },
    {
      weight: 2,
      arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => ({ what: 'random JSON', text: JSON.stringify(v) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            '',
            '{',
            '{"a":1}}',
            '[1,]',
            '{"a":01}',
            'nul',
            'NaN',
            "{'a':1}",
            '\ufeff{}',
            '{"a":"\\ud800"}',
            '{"a":"\\u0000"}',
            '{"__proto__":{"polluted":true}}',
            '"\\x"',
          ),
          fc.string({ unit: 'binary', maxLength: 60 }),
        )
        .map((text) => ({ what: 'not JSON, or odd JSON', text })),
    },
  ];
  const keyedPaths = objectPaths.filter((p) => Object.keys(getAt(example, p) as object).length > 0);
  if (objectPaths.length > 0) {
    options.push({
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...objectPaths),
          fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', ''), fc.string()),
          hostileValue,
        )
        .map(([p, key, v]) => ({
          what: `${at(p)} given an extra field ${JSON.stringify(key)}`,
          text: toJson(
            updateAt(example, p, (node) => new Dup([...Object.entries(node as object), [key, v]])),
          ),
        })),
    });
  }
  if (keyedPaths.length > 0) {
    options.push({
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...keyedPaths), hostileValue, fc.boolean())
        .map(([p, v, first]) => ({
          what: `${at(p)} with a duplicated key (${first ? 'hostile first' : 'hostile last'})`,
          text: toJson(
            updateAt(example, p, (node) => {
              const entries = Object.entries(node as object);
              const [key] = entries[0]!;
              return new Dup(first ? [[key, v], ...entries] : [...entries, [key, v]]);
            }),
          ),
        })),
    });
  }
  if (arrayPaths.length > 0) {
    options.push({
      weight: 1,
      arbitrary: fc.constantFrom(...arrayPaths).map((p) => ({
        what: `${at(p)} repeated 5,000 times`,
        text: toJson(
          updateAt(example, p, (node) => {
            const arr = node as unknown[];
            return Array.from({ length: 5_000 }, (_, i) => arr[i % Math.max(arr.length, 1)] ?? null);
          }),
        ),
      })),
    });
  }
  return fc.oneof(...options);
}

/** URL-encoded text; a lone surrogate (which encodeURIComponent refuses) becomes U+FFFD. */
const encodeText = (s: string) => encodeURIComponent(s.replace(/\p{Cs}/gu, '\ufffd'));

/** Text for a URL part (a path segment or a query value), already encoded where it is meant to be. */
export const hostileUrlText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '%00',
      '%E0%A4%A', // a truncated escape
      '%ED%A0%80', // UTF-8 of a lone surrogate
      '%FF%FE',
      '%C0%AF',
      '%2F',
      '%2E%2E',
      '%20',
      '-1',
      '0',
      '1.5',
      'NaN',
      '1e999',
      '0x10',
      '99999999999999999999999999',
      'x'.repeat(300),
      '%E2%80%AE', // right-to-left override
      '%F0%9F%92%A9',
      'a%0Ab',
      '%25',
      '%',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map(encodeText),
  },
  {
    weight: 2,
    arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(encodeText),
  },
);

/** Header values fetch can send (latin-1 without control characters or DEL) and a server must not choke on. */
export const hostileHeaderValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    'x',
    '-1',
    '0',
    '1e3',
    '0x10',
    ' 1001 ',
    '1001,1002',
    'null',
    'é',
    'ÿ'.repeat(50),
    'x'.repeat(4_000),
  ),
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0xfe }).map((c) => String.fromCharCode(c === 0x7f ? 0xff : c)),
    maxLength: 40,
  }),
);
