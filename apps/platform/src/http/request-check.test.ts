import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HR_ORDER_OPERATIONS, priceOrder } from '@stream/contracts/apis/hr-orders/index';
import { requestCheck } from './request-check.ts';

const bodyCheck = (schema: z.ZodType) =>
  requestCheck({ schema, method: 'POST', url: '/PriceOrder', httpPart: 'body' }) as (data: unknown) => {
    value?: unknown;
    error?: { instancePath: string; message: string }[];
  };

const modifiers = (depth: number): unknown[] =>
  depth === 0 ? [] : [{ id: `m${depth}`, orderModifiers: modifiers(depth - 1) }];
const order = (depth: number) => ({
  data: {
    orderType: 'Pickup',
    deferDue: '2026-12-01T18:30:00-05:00',
    items: [{ id: 'margherita-lg', qty: 1, price: 0, orderModifiers: modifiers(depth) }],
  },
});

describe('request checks', () => {
  it('check every hosted Order API body with generated code (no schema cycle forces the runtime)', () => {
    const bodies = HR_ORDER_OPERATIONS.flatMap((op) =>
      op.request && 'body' in op.request ? [op.request.body as z.ZodType] : [],
    );
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    for (const body of bodies) expect(() => z.compile(body, { strict: true })).not.toThrow();
  });

  it('answer what Zod’s runtime answers: defaults filled, unknown fields kept where the schema is loose', () => {
    const schema = priceOrder.request.body;
    const sent = { ...order(4), extra: 1 };
    const { value } = bodyCheck(schema)(structuredClone(sent));
    expect(value).toEqual(schema.parse(structuredClone(sent)));
    expect(value).toMatchObject({
      applyDefaultModifiers: false,
      data: {
        orderSource: 'thirdparty',
        discounts: [],
        items: [{ orderModifiers: [{ selectedHalf: 'Whole' }] }],
      },
    });
  });

  it('refuse modifiers nested deeper than the 4 levels a menu may have, naming the field', () => {
    const check = bodyCheck(priceOrder.request.body);
    expect(check(order(4)).error).toBeUndefined();
    const { error } = check(order(5));
    expect(error?.[0]).toMatchObject({
      instancePath:
        '/data/items/0/orderModifiers/0/orderModifiers/0/orderModifiers/0/orderModifiers/0/orderModifiers',
      message: 'modifiers nest at most 4 levels',
    });
  });
});
