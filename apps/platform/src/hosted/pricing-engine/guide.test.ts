/**
 * The Pricing rules guide's worked examples are run here: each ```json pricing-example block is a
 * menu, a request and the numbers the guide says it costs, and the engine must answer them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MenuInput } from '@stream/contracts/apis/hr-menu/menu';
import { OrderInput } from '@stream/contracts/apis/hr-orders/order';
import { priceOrder } from './price.ts';

const GUIDE = new URL('../../../../docs/docs/restaurant-apis/pricing.mdx', import.meta.url);
const examples = [
  ...readFileSync(GUIDE, 'utf8').matchAll(/```json pricing-example=(\S+)\n([\s\S]*?)\n```/g),
].map(
  (m) =>
    [
      m[1]!,
      JSON.parse(m[2]!) as { menu: unknown; request: unknown; answer: Record<string, unknown> },
    ] as const,
);

describe('the Pricing rules guide', () => {
  it('has worked examples', () => expect(examples.length).toBeGreaterThanOrEqual(3));

  it.each(examples)('example %s costs what the guide says', (_name, example) => {
    const { order, cartStatus, errors } = priceOrder({
      menu: { id: 1, ...MenuInput.parse(example.menu) },
      order: OrderInput.parse(example.request),
      applyDefaultModifiers: false,
      timeZone: 'America/New_York',
      now: new Date('2026-11-30T12:00:00Z'),
    });
    expect(errors).toEqual([]);
    expect({ ...order, cartStatus }).toMatchObject(example.answer);
  });
});
