import { describe, expect, it } from 'vitest';
import type { StoreOrderType } from '@stream/contracts/apis/hr-stores/index';
import { orderTypeNamed } from './order-types.ts';

const type = (id: string) => ({ id }) as StoreOrderType;

describe('orderTypeNamed (the order type of /Stores/{id}/OrderTypes/{orderType})', () => {
  it('takes the exact id first, else the one id that differs only in case', () => {
    expect(orderTypeNamed(1, [type('Pickup'), type('Delivery')], 'pickup').id).toBe('Pickup');
    expect(orderTypeNamed(1, [type('Pickup'), type('pickup')], 'pickup').id).toBe('pickup');
  });
  it('names neither of two ids that differ only in case from the one asked: 404 listing the ids', () => {
    expect(() => orderTypeNamed(1, [type('Pickup'), type('PICKUP')], 'pickup')).toThrow(
      'Store 1 has no order type pickup; it has Pickup, PICKUP (GET /Stores/1/OrderTypes).',
    );
  });
});
