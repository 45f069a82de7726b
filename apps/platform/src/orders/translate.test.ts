import { describe, expect, it } from 'vitest';
import { DspFulfillmentType } from '@stream/contracts';
import { PosOrder } from '@stream/contracts/apis/become-a-pos/index';
import type { DspOrder } from '@stream/contracts/apis/become-a-dsp/index';
import { toPosOrder, type TranslationContext } from './translate.ts';
import { validateDspOrder, type NormalizedDspOrder } from './validate.ts';

const NOW = 1_763_900_000_000;
const ctx: TranslationContext = { orderId: 'ord_1', posLocationId: 'loc-9', placedAtMs: NOW };

function normalized(change: Partial<DspOrder> = {}): NormalizedDspOrder {
  const v = validateDspOrder(
    {
      id: 'dsp-1',
      customers: [
        { id: 'c1', name: 'Ada', email: 'ada@example.com', phone: '+14155550123', masked_phone_code: '771' },
        { id: 'c2', name: 'Bob' },
      ],
      items: [
        {
          id: 'v1',
          item_id: 'i1',
          category_id: 'cat',
          customer_id: 'c2',
          name: 'Taco',
          quantity: 2,
          price: 450,
          currency: 'usd',
          special_instructions: 'No onions',
          modifiers: [
            {
              id: 'm1',
              modifier_group_id: 'g1',
              name: 'Salsa',
              quantity: 1,
              price: 50,
              currency: 'usd',
              modifiers: [
                {
                  id: 'm2',
                  name: 'Hot',
                  quantity: 1,
                  price: 0,
                  currency: 'usd',
                  modifiers: [{ id: 'm3', name: 'Extra hot', quantity: 2, price: 10, currency: 'usd' }],
                },
              ],
            },
          ],
        },
      ],
      subtotal: 950,
      tax: 85,
      fulfillment_type: 'pickup',
      estimated_ready_at_ms: NOW + 900_000,
      ...change,
    },
    { receivedAtMs: NOW, defaultSource: 'uber' },
  );
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.order;
}

const translate = (change: Partial<DspOrder> = {}, c: Partial<TranslationContext> = {}) => {
  const t = toPosOrder(normalized(change), { ...ctx, ...c });
  if (!t.ok) throw new Error(`missing ${t.missingItemIds.join(', ')}`);
  expect(PosOrder.safeParse(t.order).error).toBeUndefined();
  return t.order;
};

describe('toPosOrder', () => {
  it('carries every field of the new order data', () => {
    expect(
      translate({ service_charge: 120, tax_withheld: true, store_tip: 100, special_instructions: 'Knock' }),
    ).toEqual({
      location_id: 'loc-9',
      idempotency_key: 'ord_1',
      source_order_id: 'dsp-1',
      source: 'uber',
      brand: 'uber',
      fulfillment_type: 'pickup',
      customers: [
        { id: 'c1', name: 'Ada', phone: '+14155550123', phone_code: '771', email: 'ada@example.com' },
        { id: 'c2', name: 'Bob' },
      ],
      customer_name: 'Ada',
      customer_email: 'ada@example.com',
      customer_phone: '+14155550123',
      customer_phone_code: '771',
      line_items: [
        {
          provider_id: 'v1',
          item_family_provider_id: 'i1',
          name: 'Taco',
          quantity: 2,
          price_amount: 450,
          price_currency: 'USD',
          special_instructions: 'No onions',
          customer_id: 'c2',
          modifiers: [
            {
              provider_id: 'm1',
              modifier_group_provider_id: 'g1',
              name: 'Salsa',
              quantity: 1,
              price_amount: 50,
              price_currency: 'USD',
              modifiers: [
                {
                  provider_id: 'm2',
                  name: 'Hot',
                  quantity: 1,
                  price_amount: 0,
                  price_currency: 'USD',
                  modifiers: [
                    {
                      provider_id: 'm3',
                      name: 'Extra hot',
                      quantity: 2,
                      price_amount: 10,
                      price_currency: 'USD',
                      modifiers: [],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
      special_instructions: 'Knock',
      should_include_utensils: true,
      is_future_order: false,
      placed_at: NOW,
      requested_for: NOW + 900_000,
      subtotal: 950,
      tax: 85,
      tax_withheld_by_dsp: true,
      service_charge: 120,
      restaurant_tip: 100,
      discounts: [],
    });
  });

  it.each(DspFulfillmentType.options)('translates a %s order', (type) => {
    const delivered = type === 'merchant_managed_delivery' || type === 'stream_managed_delivery';
    const address = { address_line_1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' };
    const order = translate({ fulfillment_type: type, ...(delivered ? { delivery_address: address } : {}) });
    expect(order.fulfillment_type).toBe(type === 'kiosk' ? 'pickup' : type);
    expect(order.delivery_address).toEqual(delivered ? address : undefined);
  });

  it('always sends the customer fields the spec requires, empty when the marketplace gave none', () => {
    const order = translate({ customers: [{ id: 'c9', email: 'x@example.com' }] });
    expect(order).toMatchObject({ customer_name: '', customer_phone: '', customer_phone_code: '', customer_email: 'x@example.com' });
  }); // prettier-ignore

  it('sends tips, fees and instructions only with the fulfillment they belong to', () => {
    const merchant = translate({
      fulfillment_type: 'merchant_managed_delivery',
      delivery_address: { latitude: 1, longitude: 2 },
      driver_tip: 300,
      delivery_fee: 299,
      delivery_fee_taxes: 25,
      fulfillment_instructions: 'Ring twice',
    });
    expect(merchant).toMatchObject({
      driver_tip: 300,
      delivery_fee: 324,
      fulfillment_instructions: 'Ring twice',
    });
    expect(merchant.restaurant_tip).toBeUndefined();
    const stream = translate({
      fulfillment_type: 'stream_managed_delivery',
      delivery_address: { latitude: 1, longitude: 2 },
    });
    expect([stream.driver_tip, stream.delivery_fee, stream.fulfillment_instructions]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it.each([
    ['pickup', 'pickup'],
    ['dine_in', 'dine_in'],
    ['kiosk', 'pickup'],
  ] as const)('passes a store tip on %s as restaurant_tip (both readings)', (type, posType) => {
    expect(translate({ fulfillment_type: type, store_tip: 150 })).toMatchObject({
      fulfillment_type: posType,
      restaurant_tip: 150,
    });
  });

  it('links discounts to their line items, and sends unpaid only when true', () => {
    const order = translate({
      fulfillment_type: 'drive_thru',
      unpaid: true,
      discounts: [
        { id: 'd1', amount: 100, item_id: 'v1' },
        { id: 'd2', amount: 50 },
      ],
    });
    expect(order.discounts).toEqual([
      { provider_id: 'd1', amount: 100, items: ['v1'] },
      { provider_id: 'd2', amount: 50, items: [] },
    ]);
    expect(order.line_items[0]!.discount_id).toBe('d1');
    expect(order.unpaid).toBe(true);
    expect(translate().unpaid).toBeUndefined();
  });

  it('maps ids through a published menu, and lists every id the menu lacks', () => {
    const ids = new Map([
      ['v1', 'pos-v1'],
      ['i1', 'pos-i1'],
      ['m1', 'pos-m1'],
      ['g1', 'pos-g1'],
      ['m2', 'pos-m2'],
      ['m3', 'pos-m3'],
    ]);
    const mapped = translate({}, { itemIds: ids });
    expect(mapped.line_items[0]).toMatchObject({
      provider_id: 'pos-v1',
      item_family_provider_id: 'pos-i1',
      modifiers: [
        {
          provider_id: 'pos-m1',
          modifier_group_provider_id: 'pos-g1',
          modifiers: [{ provider_id: 'pos-m2', modifiers: [{ provider_id: 'pos-m3' }] }],
        },
      ],
    });
    ids.delete('m3');
    ids.delete('v1');
    expect(toPosOrder(normalized(), { ...ctx, itemIds: ids })).toEqual({
      ok: false,
      missingItemIds: ['v1', 'm3'],
    });
  });
});
