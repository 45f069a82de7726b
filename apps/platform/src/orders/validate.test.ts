import { describe, expect, it } from 'vitest';
import { DspFulfillmentType } from '@stream/contracts';
import type { DspOrder } from '@stream/contracts/apis/become-a-dsp/index';
import { toPosOrder } from './translate.ts';
import { DEFAULT_READY_MS, problemsMessage, validateDspOrder, type Validation } from './validate.ts';

const NOW = 1_763_900_000_000;
const ctx = { receivedAtMs: NOW, defaultSource: 'doordash' };

const base = (): DspOrder => ({
  id: 'o-1',
  customers: [{ id: 'c1', name: 'Ada', email: 'ada@example.com', phone: '+14155550123' }],
  items: [
    {
      id: 'v1',
      name: 'Taco',
      quantity: 2,
      price: 450,
      currency: 'usd',
      modifiers: [{ id: 'm1', name: 'Salsa', quantity: 1, price: 50, currency: 'usd', modifiers: [] }],
    },
  ],
  subtotal: 950,
  tax: 85,
  fulfillment_type: 'pickup',
});
const STREET = { address_line_1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' };

const problemPaths = (v: Validation) => (v.ok ? [] : v.problems.map((p) => p.path));
const check = (change: Partial<DspOrder> | ((o: DspOrder) => DspOrder)) =>
  validateDspOrder(typeof change === 'function' ? change(base()) : { ...base(), ...change }, ctx);

describe('validateDspOrder: every rule broken once names its field', () => {
  it.each<[string, Partial<DspOrder> | ((o: DspOrder) => DspOrder), string]>([
    ['no customer', { customers: [] }, 'order.customers'],
    [
      'a phone that is not E.164',
      { customers: [{ name: 'A', phone: '415-555-0123' }] },
      'order.customers[0].phone',
    ],
    [
      'a phone that is still not E.164 once its punctuation is out (an extension)',
      { customers: [{ name: 'A', phone: '+1 (415) 555-0123 ext. 4' }] },
      'order.customers[0].phone',
    ],
    [
      'the deprecated customer with a bad phone',
      { customers: undefined, customer: { phone: '0044' } },
      'order.customer.phone',
    ],
    ['no item', { items: [] }, 'order.items'],
    [
      'a zero quantity',
      (o) => ({ ...o, items: [{ ...o.items[0]!, quantity: 0 }] }),
      'order.items[0].quantity',
    ],
    [
      'a fractional quantity',
      (o) => ({ ...o, items: [{ ...o.items[0]!, quantity: 1.5 }] }),
      'order.items[0].quantity',
    ],
    [
      'a fractional price',
      (o) => ({ ...o, items: [{ ...o.items[0]!, price: 4.5 }] }),
      'order.items[0].price',
    ],
    ['a negative price', (o) => ({ ...o, items: [{ ...o.items[0]!, price: -1 }] }), 'order.items[0].price'],
    [
      'an upper-case currency',
      (o) => ({ ...o, items: [{ ...o.items[0]!, currency: 'USD' }] }),
      'order.items[0].currency',
    ],
    [
      'a nested modifier with a bad price',
      (o) => ({
        ...o,
        items: [
          {
            ...o.items[0]!,
            modifiers: [
              {
                id: 'm',
                name: 'm',
                quantity: 1,
                price: 0,
                currency: 'usd',
                modifiers: [{ id: 'n', name: 'n', quantity: 1, price: 0.5, currency: 'usd' }],
              },
            ],
          },
        ],
      }),
      'order.items[0].modifiers[0].modifiers[0].price',
    ],
    [
      'two currencies',
      (o) => ({ ...o, items: [o.items[0]!, { ...o.items[0]!, id: 'v2', currency: 'eur', modifiers: [] }] }),
      'order.currency',
    ],
    ['an order currency that is not ISO', { currency: 'dollars' }, 'order.currency'],
    ['a fractional subtotal', { subtotal: 9.5 }, 'order.subtotal'],
    ['a fractional tax', { tax: 0.85 }, 'order.tax'],
    ['a fractional service charge', { service_charge: 1.5 }, 'order.service_charge'],
    [
      'a subtotal past a safe integer (said once, not again as a sum)',
      { subtotal: 2 ** 53 },
      'order.subtotal',
    ],
    // Each amount fine, their sum no integer: no total could be told (an event provider's `total`).
    [
      'charges adding up past a safe integer',
      { subtotal: Number.MAX_SAFE_INTEGER, tax: 1 },
      'order.subtotal',
    ],
    [
      'discounts adding up past a safe integer',
      {
        discounts: [
          { id: 'a', amount: Number.MAX_SAFE_INTEGER },
          { id: 'b', amount: 1 },
        ],
      },
      'order.discounts',
    ],
    ['an unknown source', { source: 'acme-eats' }, 'order.source'],
    ['an unknown brand', { brand: 'acme' }, 'order.brand'],
    [
      'a discount for no item',
      { discounts: [{ id: 'd', amount: 100, item_id: 'nope' }] },
      'order.discounts[0].item_id',
    ],
    ['a fractional discount', { discounts: [{ id: 'd', amount: 1.5 }] }, 'order.discounts[0].amount'],
    [
      'merchant delivery without an address',
      { fulfillment_type: 'merchant_managed_delivery' },
      'order.delivery_address',
    ],
    [
      'stream delivery without an address',
      { fulfillment_type: 'stream_managed_delivery' },
      'order.delivery_address',
    ],
    [
      'an address with neither street nor coordinates',
      { fulfillment_type: 'merchant_managed_delivery', delivery_address: { city: 'X' } },
      'order.delivery_address',
    ],
    [
      'coordinates out of range',
      { fulfillment_type: 'stream_managed_delivery', delivery_address: { latitude: 91, longitude: 0 } },
      'order.delivery_address',
    ],
    ['unpaid on pickup', { unpaid: true }, 'order.unpaid'],
    ['a driver tip on pickup', { driver_tip: 200 }, 'order.driver_tip'],
    [
      'a delivery fee on delivery (the DSP delivers)',
      { fulfillment_type: 'delivery', delivery_fee: 300 },
      'order.delivery_fee',
    ],
    [
      'delivery fee taxes on curbside',
      { fulfillment_type: 'curbside', delivery_fee_taxes: 30 },
      'order.delivery_fee_taxes',
    ],
    [
      'fulfillment instructions on dine-in',
      { fulfillment_type: 'dine_in', fulfillment_instructions: 'Ring twice' },
      'order.fulfillment_instructions',
    ],
    ['a store tip on delivery', { fulfillment_type: 'delivery', store_tip: 100 }, 'order.store_tip'],
    ['a store tip on drive-thru', { fulfillment_type: 'drive_thru', store_tip: 100 }, 'order.store_tip'],
  ])('%s', (_, change, path) => {
    expect(problemPaths(check(change))).toEqual([path]);
  });

  it('says what a sum past a safe integer is made of', () => {
    const v = check({ subtotal: Number.MAX_SAFE_INTEGER, service_charge: 2 });
    expect(v.ok ? [] : v.problems).toEqual([
      {
        path: 'order.subtotal',
        message: `with tax, service_charge, driver_tip, store_tip, delivery_fee, delivery_fee_taxes adds up to more than ${Number.MAX_SAFE_INTEGER}, the largest amount an order may total; send amounts in the smallest currency unit (150 = 1.50).`,
      },
    ]);
  });

  it('reports every problem at once, in a message a person can read', () => {
    const v = check({ unpaid: true, driver_tip: 100, customers: [{ phone: '123' }] });
    expect(problemPaths(v)).toEqual(['order.customers[0].phone', 'order.unpaid', 'order.driver_tip']);
    const message = problemsMessage(v.ok ? [] : v.problems);
    expect(message).toMatch(
      /^order\.customers\[0\]\.phone: must be an E\.164 .*; order\.unpaid: may be true only for drive_thru/,
    );
    expect(
      problemsMessage(Array.from({ length: 50 }, () => ({ path: 'order.x', message: 'y'.repeat(100) })))
        .length,
    ).toBe(1000);
  });
});

describe('validateDspOrder: what is allowed, and the defaults', () => {
  it.each(DspFulfillmentType.options)('accepts a plain %s order', (type) => {
    const address =
      type === 'merchant_managed_delivery' || type === 'stream_managed_delivery'
        ? { delivery_address: STREET }
        : {};
    expect(check({ fulfillment_type: type, ...address }).ok).toBe(true);
  });

  it.each([
    ['store tip on pickup (both readings)', { fulfillment_type: 'pickup', store_tip: 100 }],
    ['store tip on dine_in (the DSP reading)', { fulfillment_type: 'dine_in', store_tip: 100 }],
    ['store tip on kiosk (a pickup)', { fulfillment_type: 'kiosk', store_tip: 100 }],
    ['unpaid on drive_thru', { fulfillment_type: 'drive_thru', unpaid: true }],
    [
      'merchant delivery with tip, fee, fee taxes and instructions',
      {
        fulfillment_type: 'merchant_managed_delivery',
        delivery_address: STREET,
        driver_tip: 300,
        delivery_fee: 299,
        delivery_fee_taxes: 25,
        fulfillment_instructions: 'Ring twice',
      },
    ],
    [
      'a coordinates-only address',
      {
        fulfillment_type: 'stream_managed_delivery',
        delivery_address: { latitude: 37.7, longitude: -122.4 },
      },
    ],
    ['zero fees on pickup', { driver_tip: 0, delivery_fee: 0, delivery_fee_taxes: 0, store_tip: 0 }],
    [
      'every optional field',
      {
        customer_facing_id: '8812',
        source: 'uber',
        brand: 'postmates',
        currency: 'usd',
        tax_withheld: true,
        service_charge: 100,
        discounts: [
          { id: 'd1', amount: 100, item_id: 'v1' },
          { id: 'd2', amount: 50 },
        ],
        special_instructions: 'Extra napkins',
        should_include_utensils: false,
        is_future_order: false,
        estimated_ready_at_ms: NOW + 600_000,
      },
    ],
  ] as [string, Partial<DspOrder>][])('accepts %s', (_, change) => {
    expect(problemPaths(check(change))).toEqual([]);
  });

  it.each([
    ['with spaces, dashes and parentheses', '+1 (415) 555-0123', '+14155550123'],
    ['with dots', '+1.415.555.0123', '+14155550123'],
    ['already E.164', '+14155550123', '+14155550123'],
    ['empty, as no phone', '', undefined],
    ['blank, as no phone', '  ', undefined],
  ])('takes a customer phone %s, passing on E.164 (what the POS is sent)', (_, phone, e164) => {
    const expected = { id: 'c1', name: 'Ada', ...(e164 !== undefined ? { phone: e164 } : {}) };
    for (const change of [
      {
        customers: [
          { id: 'c1', name: 'Ada', phone },
          { name: 'Bo', phone },
        ],
      },
      { customers: undefined, customer: { id: 'c1', name: 'Ada', phone } },
    ]) {
      const v = check(change);
      expect(v.ok ? v.order.customers[0] : v.problems).toStrictEqual(expected);
    }
  });

  it('sends the POS the E.164 form of a punctuated customer phone, and an empty one as none', () => {
    const pos = (phone: string) => {
      const v = check({ customers: [{ name: 'Ada', phone }] });
      if (!v.ok) throw new Error(problemsMessage(v.problems));
      const t = toPosOrder(v.order, { orderId: 'ord_1', posLocationId: 'loc-1', placedAtMs: NOW });
      return t.ok ? [t.order.customers, t.order.customer_phone] : t.missingItemIds;
    };
    expect(pos('+1 (415) 555-0123')).toEqual([[{ name: 'Ada', phone: '+14155550123' }], '+14155550123']);
    expect(pos('')).toEqual([[{ name: 'Ada' }], '']);
  });

  it('fills in source, brand, currency, customers, utensils and the ready time', () => {
    const v = check({ customers: undefined, customer: { name: 'Solo' } });
    expect(v.ok && v.order).toMatchObject({
      source: 'doordash',
      brand: 'doordash',
      currency: 'usd',
      customers: [{ name: 'Solo' }],
      should_include_utensils: true,
      is_future_order: false,
      estimated_ready_at_ms: NOW + DEFAULT_READY_MS,
    });
  });

  it.each([
    ['missing', undefined],
    ['not a number', 'soon'],
    ['in the past', NOW - 1],
    ['not whole', NOW + 0.5],
  ])('replaces an estimated_ready_at_ms that is %s with order time + 30 min', (_, value) => {
    const v = check({ estimated_ready_at_ms: value });
    expect(v.ok && v.order.estimated_ready_at_ms).toBe(NOW + 30 * 60_000);
  });

  it.each([
    ['missing', undefined, ''],
    ['in seconds', Math.floor(NOW / 1000) + 86_400, `; ${Math.floor(NOW / 1000) + 86_400} looks like seconds`],
    ['not a number', 'tomorrow', ''],
    ['after the year 9999 (no date PostgreSQL keeps)', 9e15, '; 9000000000000000 is after the year 9999'],
  ])('refuses a future order whose estimated_ready_at_ms is %s (the default would send it to the kitchen now)', (_, value, hint) => {
    for (const future of [{ is_future_order: true }, { status: 'scheduled' as const }]) {
      const v = check({ ...future, estimated_ready_at_ms: value as number });
      expect(v.ok ? v.order : v.problems).toEqual([{ path: 'order.estimated_ready_at_ms', message: `a future order needs it: when the customer wants the order, in epoch milliseconds (such as 1763920000000)${hint}.` }]);
    }
    // A ready time already past is due now, as for any order.
    const past = check({ is_future_order: true, estimated_ready_at_ms: NOW - 60_000 });
    expect(past.ok && past.order.estimated_ready_at_ms).toBe(NOW + DEFAULT_READY_MS);
  }); // prettier-ignore

  it('keeps a valid ready time, and treats status scheduled as a future order', () => {
    const v = check({ status: 'scheduled', estimated_ready_at_ms: NOW + 3_600_000 });
    expect(v.ok && [v.order.is_future_order, v.order.estimated_ready_at_ms]).toEqual([true, NOW + 3_600_000]);
  });
});
