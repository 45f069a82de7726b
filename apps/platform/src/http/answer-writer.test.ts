import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerWriter, projectionOf } from './answer-writer.ts';

const writerFor = (schema: z.ZodType) => answerWriter({ schema, method: 'GET', url: '/x', httpStatus: '200' });
const project = (schema: z.ZodType, value: unknown) => (projectionOf(schema) ?? ((v) => v))(value);

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
    expect(writerFor(schema)({ secret: 'x', total: 5, id: 'a' })).toBe('{"id":"a","total":5}');
  });

  it('projects nested objects through arrays, records, nullables, defaults and recursion', () => {
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
    expect(project(schema, value)).toEqual({
      lines: [{ id: 'a' }],
      byId: { a: { qty: 1 } },
      customer: null,
      tags: [{ tag: 'vip' }],
      tree: { name: 'root', children: [{ name: 'leaf', children: [] }] },
    });
    expect(writerFor(schema)(value)).toBe(JSON.stringify(project(schema, value)));
  });

  it('writes a union member by the first option the value satisfies, and keeps a loose object whole', () => {
    const schema = z.union([
      z.object({ kind: z.literal('card'), last4: z.string() }),
      z.looseObject({ kind: z.literal('cash') }),
    ]);
    expect(project(schema, { kind: 'card', last4: '4242', pan: '4242424242424242' })).toEqual({
      kind: 'card',
      last4: '4242',
    });
    expect(project(schema, { kind: 'cash', change: 5 })).toEqual({ kind: 'cash', change: 5 });
  });

  it('keeps a schema of plain values as it is, without a projection', () => {
    expect(projectionOf(z.array(z.enum(['a', 'b'])))).toBeNull();
    expect(projectionOf(z.union([z.string(), z.number().nullable()]))).toBeNull();
  });

  it('under the test suite, refuses an answer its schema refuses (so no handler can pass a bad one)', () => {
    const write = writerFor(z.object({ total: z.number().int() }));
    expect(() => write({ total: 1.5 })).toThrow(/doesn't match the schema/);
    expect(write({ total: 2 })).toBe('{"total":2}');
  });
});
