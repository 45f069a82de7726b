import { describe, expect, it } from 'vitest';
import type { CodedError } from '../errors.ts';
import { parseJsonBody } from './input.ts';

const parse = (text: string) => parseJsonBody(Buffer.from(text));
const refusal = (text: string) => {
  try {
    parse(text);
  } catch (err) {
    return { code: (err as CodedError).code, details: (err as CodedError).details };
  }
  throw new Error('accepted');
};

describe('parseJsonBody', () => {
  it('drops __proto__ keys at any depth, so no merge can take them for the prototype', () => {
    const body = parse('{"a":{"__proto__":{"admin":true},"b":[{"__proto__":1,"c":2}]}}') as {
      a: { b: { c: number }[] };
    };
    expect(body).toEqual({ a: { b: [{ c: 2 }] } });
    expect(Object.hasOwn(body.a, '__proto__')).toBe(false);
    expect(({} as { admin?: boolean }).admin).toBeUndefined();
  });

  it('names the path of the one field that cannot be stored', () => {
    expect(refusal('{"data":{"items":[{"id":"a"},{"id":"b\\u0000"}]}}')).toEqual({
      code: 'validation_failed',
      details: [{ path: 'body.data.items[1].id', message: 'must not contain the NUL character (\\u0000)' }],
    });
    expect(refusal('{"data":{"\\udc00":1}}').details![0]!.path).toBe('body.data.\udc00');
  });

  it('refuses nesting deeper than 128 levels with a 400, not a stack overflow', () => {
    expect(parse(`${'['.repeat(128)}${']'.repeat(128)}`)).toBeDefined();
    expect(refusal(`${'['.repeat(129)}${']'.repeat(129)}`)).toMatchObject({ code: 'validation_failed' });
    expect(refusal(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toMatchObject({
      code: 'validation_failed',
    });
  });

  it('reads the bytes to skip the walk, and still catches what only the walk would find', () => {
    // A `__proto__` spelled with an escape is dropped like a plain one.
    expect(parse('{"a":1,"\\u005f_proto__":{"admin":true}}')).toEqual({ a: 1 });
    // A surrogate encoded as UTF-8 bytes (not a `\u` escape) decodes to U+FFFD: storable.
    expect(parseJsonBody(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))).toBe('\ufffd\ufffd\ufffd');
    // Many brackets side by side is shallow: accepted after the walk.
    expect(parse(`[${Array(300).fill('[]').join(',')}]`)).toHaveLength(300);
    // Raw control characters never reach the walk: JSON itself refuses them.
    expect(refusal('{"a":"b\u0000"}')).toMatchObject({ code: 'invalid_json' });
  });

  it('is undefined for an empty body and invalid_json for broken JSON', () => {
    expect(parse('')).toBeUndefined();
    expect(refusal('{"a":')).toMatchObject({ code: 'invalid_json' });
  });
});
