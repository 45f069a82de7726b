import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerWriter, writeValue, writerOf } from './answer-writer.ts';

const checkedWriter = (schema: z.ZodType) =>
  answerWriter({ schema, method: 'GET', url: '/x', httpStatus: '200' }) as (v: unknown) => string;
const write = (schema: z.ZodType, value: unknown) => writerOf(schema)(value);

interface Node {
  name: string;
  children: Node[];
}
const Tree: z.ZodType<Node> = z.object({
  name: z.string(),
  get children() {
    return z.array(Tree);
  },
});

describe('the answer writer', () => {
  it('writes the declared fields in the schema order and drops what a handler added', () => {
    const schema = z.object({ id: z.string(), total: z.number(), note: z.string().optional() });
    expect(checkedWriter(schema)({ secret: 'x', total: 5, id: 'a' })).toBe('{"id":"a","total":5}');
  });

  it('writes nested objects through arrays, records, nullables, defaults and recursion', () => {
    const schema = z.object({
      lines: z.array(z.object({ id: z.string() })),
      byId: z.record(z.string(), z.object({ qty: z.number() })),
      customer: z.object({ name: z.string() }).nullable(),
      tags: z.array(z.object({ tag: z.string() })).default([]),
      tree: Tree,
    });
    const value = {
      lines: [{ id: 'a', cost: 1 }],
      byId: { a: { qty: 1, cost: 2 } },
      customer: null,
      tags: [{ tag: 'vip', since: 2020 }],
      tree: { name: 'root', extra: 1, children: [{ name: 'leaf', children: [], extra: 2 }] },
    };
    const written = checkedWriter(schema)(value);
    expect(JSON.parse(written)).toEqual({
      lines: [{ id: 'a' }],
      byId: { a: { qty: 1 } },
      customer: null,
      tags: [{ tag: 'vip' }],
      tree: { name: 'root', children: [{ name: 'leaf', children: [] }] },
    });
  });

  it('writes a union member by the first option the value satisfies, and keeps what a loose object adds', () => {
    const schema = z.union([
      z.object({ kind: z.literal('card'), last4: z.string() }),
      z.looseObject({ kind: z.literal('cash') }),
    ]);
    expect(write(schema, { kind: 'card', last4: '4242', pan: '4242424242424242' })).toBe(
      '{"kind":"card","last4":"4242"}',
    );
    expect(write(schema, { change: 5, kind: 'cash', note: undefined })).toBe('{"kind":"cash","change":5}');
  });

  it("writes values kept whole with JSON.stringify's exact bytes", () => {
    const values = [
      'plain',
      'quote " and backslash \\',
      'tab\tnewline\n\u0001',
      'emoji 🍕 and lone \ud83c',
      '',
      0,
      -0,
      1e21,
      1.5,
      NaN,
      Infinity,
      true,
      false,
      null,
      { nested: ['a', 1, null] },
      new Date(0),
    ];
    for (const v of values) expect(writeValue(v)).toBe(JSON.stringify(v));
    expect(writeValue(undefined)).toBeUndefined();
    expect(write(z.array(z.string().optional()), ['a', undefined])).toBe('["a",null]');
  });

  it('refuses, when its route is mounted, a schema it cannot write yet', () => {
    expect(() => writerOf(z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })))).toThrow(
      /cannot write schemas of type intersection/,
    );
  });

  it('under the test suite, refuses an answer its schema refuses (so no handler can pass a bad one)', () => {
    const writeTotal = checkedWriter(z.object({ total: z.number().int() }));
    expect(() => writeTotal({ total: 1.5 })).toThrow(/doesn't match the schema/);
    expect(writeTotal({ total: 2 })).toBe('{"total":2}');
  });
});
