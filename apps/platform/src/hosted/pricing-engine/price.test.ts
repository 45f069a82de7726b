import { describe, expect, it } from 'vitest';
import { MenuInput, type Menu } from '@stream/contracts/apis/hr-menu/menu';
import { OrderInput } from '@stream/contracts/apis/hr-orders/order';
import { includedTax, percentOf, spread } from './cents.ts';
import { priceOrder, type PricingResult } from './price.ts';
import { inPeriods, localTime } from '../zoned-time.ts';

/**
 * The pricing engine, table by table. A small menu of round numbers (cents): burger 1000 (Delivery
 * 1100), fries 400 (tiers: 3+ at 350), pizza 1600 (halves 900), cheese pizza 1400 (halves 800),
 * beer 600 (alcohol tax). Tax 10% on food, 20% included on beer's own tax type.
 */
const MENU: Menu = {
  id: 1,
  ...MenuInput.parse({
    displayName: 'Test',
    deliveryOptions: { deliveryFeeType: 'Amount', deliveryFeeValue: 500, deliveryFeeTaxType: 'food' },
    taxTypes: [
      {
        id: 'food',
        displayName: 'Food tax',
        taxRateInfo: { taxRate: 10, orderTypeTaxes: [{ orderTypeId: 'DineIn', taxRate: 12.5 }] },
      },
      { id: 'beer', displayName: 'Alcohol tax', isAlcohol: true, taxRateInfo: { taxRate: 10 } },
      { id: 'vat', displayName: 'VAT', taxIncluded: true, taxRateInfo: { taxRate: 20 } },
    ],
    orderTypes: [
      { id: 'Pickup', orderTypeCategory: 'Pickup', displayName: 'Pickup' },
      {
        id: 'Delivery',
        orderTypeCategory: 'Delivery',
        displayName: 'Delivery',
        isDelivery: true,
        minOrderPrice: 2000,
      },
      {
        id: 'DineIn',
        orderTypeCategory: 'DineIn',
        displayName: 'Dine in',
        operationPeriods: [{ dayOfWeek: 'Friday', startTime: '22:00', endTime: '02:00' }],
      },
    ],
    groups: [
      {
        id: 'mains',
        displayName: 'Mains',
        items: [
          {
            id: 'burger',
            displayName: 'Burger',
            taxType: 'food',
            modifierCredit: 100,
            priceInfo: { price: 1000, orderTypePrices: [{ orderTypeId: 'Delivery', price: 1100 }] },
            modifiers: [
              {
                id: 'cheese',
                displayName: 'Cheese',
                minimumModifiers: 0,
                maximumModifiers: 2,
                modifiers: [
                  {
                    id: 'cheddar',
                    displayName: 'Cheddar',
                    isDefault: true,
                    noSubstitutionCredit: 30,
                    maximumQuantity: 3,
                    modifierpriceInfo: { price: 80 },
                  },
                  {
                    id: 'swiss',
                    displayName: 'Swiss',
                    allowModifierCredit: true,
                    allowSide: true,
                    maximumQuantity: 2,
                    modifierpriceInfo: { price: 120 },
                  },
                ],
              },
              {
                id: 'sauce',
                displayName: 'Sauce',
                modifiers: [
                  {
                    id: 'bbq',
                    displayName: 'BBQ',
                    allowLite: true,
                    modifierCredit: 50,
                    modifierpriceInfo: { price: 60 },
                    modifiers: [
                      {
                        id: 'heat',
                        displayName: 'Heat',
                        modifiers: [
                          {
                            id: 'hot',
                            displayName: 'Hot',
                            allowModifierCredit: true,
                            modifierpriceInfo: { price: 70 },
                          },
                        ],
                      },
                    ],
                  },
                ],
              },
            ],
          },
          {
            id: 'pizza',
            displayName: 'Pizza',
            taxType: 'food',
            allowHalf: true,
            priceInfo: {
              price: 1600,
              halfPrice: 900,
              orderTypePrices: [{ orderTypeId: 'Delivery', price: 2000 }],
            },
            modifiers: [
              {
                id: 'toppings',
                displayName: 'Toppings',
                allowHalf: true,
                modifiers: [
                  {
                    id: 'olives',
                    displayName: 'Olives',
                    allowHalf: true,
                    modifierpriceInfo: {
                      price: 100,
                      orderTypePrices: [{ orderTypeId: 'Delivery', price: 130 }],
                    },
                  },
                  {
                    id: 'ham',
                    displayName: 'Ham',
                    modifierpriceInfo: {
                      price: 150,
                      halfPrice: 90,
                      orderTypePrices: [{ orderTypeId: 'Delivery', price: 300, halfPrice: 200 }],
                    },
                    allowHalf: true,
                  },
                  { id: 'egg', displayName: 'Egg', modifierpriceInfo: { price: 90 } },
                ],
              },
            ],
          },
          {
            id: 'cheese-pizza',
            displayName: 'Cheese pizza',
            taxType: 'food',
            allowHalf: true,
            priceInfo: { price: 1400, halfPrice: 800 },
          },
          { id: 'wrap', displayName: 'Wrap', taxType: 'vat', priceInfo: { price: 1200 } },
        ],
      },
      {
        id: 'sides',
        displayName: 'Sides',
        items: [
          {
            id: 'fries',
            displayName: 'Fries',
            taxType: 'food',
            priceInfo: {
              price: 400,
              tierPrices: [
                { quantityAndAbove: 3, price: 350 },
                { quantityAndAbove: 6, price: 300 },
              ],
            },
          },
          { id: 'salad', displayName: 'Salad', priceInfo: { price: 700 }, isAvailable: false },
        ],
      },
      {
        id: 'bar',
        displayName: 'Bar',
        items: [{ id: 'beer', displayName: 'Beer', taxType: 'beer', priceInfo: { price: 600 } }],
      },
    ],
    availableDiscounts: [],
  }),
};

/** Tuesday 2026-12-01 12:00 in New York. */
const TUESDAY_NOON = '2026-12-01T12:00:00-05:00';
const NOW = new Date('2026-11-30T12:00:00Z');

function price(
  order: Record<string, unknown>,
  menu: Partial<Menu> = {},
  applyDefaultModifiers = false,
): PricingResult {
  return priceOrder({
    menu: { ...MENU, ...menu },
    order: OrderInput.parse({ orderType: 'Pickup', deferDue: TUESDAY_NOON, ...order }),
    applyDefaultModifiers,
    timeZone: 'America/New_York',
    now: NOW,
  });
}
const line = (id: string, qty = 1, extra: Record<string, unknown> = {}) => ({ id, qty, price: 0, ...extra });
const mods = (...list: Record<string, unknown>[]) => ({ orderModifiers: list });

describe('lines', () => {
  it.each<[string, Record<string, unknown>[], string, number]>([
    ['a plain item', [line('burger')], 'Pickup', 1000],
    ['the order type price', [line('burger')], 'Delivery', 1100],
    ['quantity', [line('burger', 3)], 'Pickup', 3000],
    ['below the first tier', [line('fries', 2)], 'Pickup', 800],
    ['the first tier', [line('fries', 3)], 'Pickup', 1050],
    ['the highest tier reached', [line('fries', 7)], 'Pickup', 2100],
    ['halves at their half prices', [line('pizza', 1, { leftHalfItemId: 'pizza', rightHalfItemId: 'cheese-pizza' })], 'Pickup', 1700],
    ['a modifier', [line('burger', 1, mods({ id: 'bbq' }))], 'Pickup', 1060],
    ['a modifier times its quantity, per unit of the line', [line('burger', 2, mods({ id: 'swiss', quantity: 2 }))], 'Pickup', 2 * (1000 + 240 - 100)],
    ['a default modifier is included', [line('burger', 1, mods({ id: 'cheddar' }))], 'Pickup', 1000],
    ['extra of a default is charged', [line('burger', 1, mods({ id: 'cheddar', quantity: 2 }))], 'Pickup', 1080],
    ['a removed default with nothing in its place credits', [line('burger', 1, mods({ id: 'cheddar', quantity: 0 }))], 'Pickup', 970],
    ['a removed default replaced credits nothing', [line('burger', 1, mods({ id: 'cheddar', quantity: 0 }, { id: 'swiss' }))], 'Pickup', 1020],
    ['the item credit pays a credit modifier', [line('burger', 1, mods({ id: 'swiss' }))], 'Pickup', 1020],
    ['a modifier credit pays its nested modifier', [line('burger', 1, mods({ id: 'bbq', orderModifiers: [{ id: 'hot' }] }))], 'Pickup', 1000 + 60 + 20],
    ['a half modifier at its half price', [line('pizza', 1, { leftHalfItemId: 'pizza', rightHalfItemId: 'pizza', ...mods({ id: 'ham', selectedHalf: 'Left' }, { id: 'olives', selectedHalf: 'Right' }) })], 'Pickup', 1800 + 90 + 50],
    ['side and lite cost the same', [line('burger', 1, mods({ id: 'swiss', selectedSide: true }, { id: 'bbq', isLite: true }))], 'Pickup', 1000 + 20 + 60],
    ['halves at the order type\'s price, halved', [line('pizza', 1, { leftHalfItemId: 'pizza', rightHalfItemId: 'pizza' })], 'Delivery', 2 * 1000],
    ['a half modifier at the order type\'s half price', [line('pizza', 1, { leftHalfItemId: 'pizza', rightHalfItemId: 'pizza', ...mods({ id: 'ham', selectedHalf: 'Left' }) })], 'Delivery', 2000 + 200],
    ['a half modifier at half the order type\'s price', [line('pizza', 1, { leftHalfItemId: 'pizza', rightHalfItemId: 'pizza', ...mods({ id: 'olives', selectedHalf: 'Left' }) })], 'Delivery', 2000 + 65],
  ])('%s', (_what, items, orderType, subtotal) => {
    const r = price({ items, orderType });
    expect(r.errors).toEqual([]);
    expect(r.order.subtotal).toBe(subtotal);
  }); // prettier-ignore

  it('answers each modifier with its price and default quantity, and adds defaults when asked', () => {
    const without = price({ items: [line('burger')] });
    expect(without.order.items[0]!.orderModifiers).toEqual([]);
    const withDefaults = price({ items: [line('burger', 1, mods({ id: 'swiss' }))] }, {}, true);
    expect(withDefaults.order.items[0]!.orderModifiers.map((m) => [m.id, m.quantity, m.price, m.preselectedDefaultQuantity])).toEqual([
      ['swiss', 1, 20, 0],
      ['cheddar', 1, 0, 1],
    ]);
    expect(withDefaults.order.subtotal).toBe(1020);
    // Two cheeses fill the category (at most 2): the default is not added on top.
    const full = price({ items: [line('burger', 1, mods({ id: 'swiss', quantity: 2 }))] }, {}, true);
    expect(full.errors).toEqual([]);
    expect(full.order.items[0]!.orderModifiers.map((m) => m.id)).toEqual(['swiss']);
    expect(withDefaults.order.items[0]).toMatchObject({ itemNumber: 1, originalUnitPrice: 1000, price: 1020 });
  }); // prettier-ignore

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown item', line('taco'), 'items[0].id'],
    ['a group that is not the item’s', line('burger', 1, { menuGroupId: 'sides' }), 'items[0].menuGroupId'],
    ['halves of an item without halves', line('burger', 1, { leftHalfItemId: 'pizza', rightHalfItemId: 'pizza' }), 'items[0].id'],
    ['a half that cannot be one', line('pizza', 1, { leftHalfItemId: 'burger', rightHalfItemId: 'pizza' }), 'items[0].leftHalfItemId'],
    ['an unknown half', line('pizza', 1, { leftHalfItemId: 'pizza', rightHalfItemId: 'calzone' }), 'items[0].rightHalfItemId'],
    ['an unknown modifier', line('burger', 1, mods({ id: 'ham' })), 'items[0].orderModifiers[0].id'],
    ['a quantity above the maximum', line('burger', 1, mods({ id: 'swiss', quantity: 3 })), 'items[0].orderModifiers[0].quantity'],
    ['a category over its maximum', line('burger', 1, mods({ id: 'swiss', quantity: 2 }, { id: 'cheddar', quantity: 1 })), 'items[0].orderModifiers'],
    ['side not allowed', line('burger', 1, mods({ id: 'bbq', selectedSide: true })), 'items[0].orderModifiers[0].selectedSide'],
    ['lite not allowed', line('burger', 1, mods({ id: 'swiss', isLite: true })), 'items[0].orderModifiers[0].isLite'],
    ['a half modifier on a whole item', line('pizza', 1, mods({ id: 'olives', selectedHalf: 'Left' })), 'items[0].orderModifiers[0].selectedHalf'],
    ['a half of a modifier without halves', line('pizza', 1, { leftHalfItemId: 'pizza', rightHalfItemId: 'pizza', ...mods({ id: 'egg', selectedHalf: 'Left' }) }), 'items[0].orderModifiers[0].selectedHalf'],
    ['nesting past maxModifierLevels', line('burger', 1, mods({ id: 'bbq', orderModifiers: [{ id: 'hot' }] })), 'items[0].orderModifiers[0].orderModifiers[0].id'],
    ['a modifier listed twice (past its maximumQuantity together)', line('burger', 1, mods({ id: 'swiss', quantity: 2 }, { id: 'swiss', quantity: 2 })), 'items[0].orderModifiers[1].id'],
    ['a default listed twice (its free unit counted twice)', line('burger', 1, mods({ id: 'cheddar' }, { id: 'cheddar' })), 'items[0].orderModifiers[1].id'],
  ])('refuses %s, naming the field', (what, item, path) => {
    const r = price({ items: [item] }, what.startsWith('nesting') ? { maxModifierLevels: 1 } : {});
    expect(r.errors.map((e) => e.path)).toContain(path);
  }); // prettier-ignore

  it('rejects an unavailable item, a closed order type and a closed hour, without errors', () => {
    expect(price({ items: [line('salad')] }).rejection?.reason).toBe('itemOutOfStock');
    expect(price({ items: [line('burger')], orderType: 'DineIn' }).rejection?.reason).toBe('storeClosed');
    // Friday 22:00-02:00 covers Saturday 01:30 and Friday 23:00, not Saturday 02:00.
    for (const [at, open] of [['2026-12-05T01:30:00-05:00', true], ['2026-12-04T23:00:00-05:00', true], ['2026-12-05T02:00:00-05:00', false], ['2026-12-04T21:59:00-05:00', false]] as const) {
      const r = price({ items: [line('burger')], orderType: 'DineIn', deferDue: at });
      expect([at, r.rejection?.reason]).toEqual([at, open ? undefined : 'storeClosed']);
      expect(r.errors).toEqual([]);
    }
    expect(price({ items: [line('burger')], orderType: 'Drone' }).errors.map((e) => e.path)).toEqual(['orderType']);
  }); // prettier-ignore

  it("rejects an order outside the store's own hours for its order type, as outside the menu's", () => {
    const storeHours = [{ dayOfWeek: 'Tuesday' as const, startTime: '17:00', endTime: '22:00' }];
    const at = (deferDue: string) =>
      priceOrder({ menu: MENU, order: OrderInput.parse({ orderType: 'Pickup', deferDue, items: [line('burger')] }), applyDefaultModifiers: false, timeZone: 'America/New_York', now: NOW, storeHours });
    expect(price({ items: [line('burger')] }).rejection).toBeUndefined(); // the menu's Pickup is open at noon
    expect(at(TUESDAY_NOON).rejection).toMatchObject({ reason: 'storeClosed', message: expect.stringContaining('closed at 2026-12-01 12:00') });
    expect(at('2026-12-01T18:00:00-05:00').rejection).toBeUndefined();
    expect(priceOrder({ menu: MENU, order: OrderInput.parse({ orderType: 'Pickup', deferDue: TUESDAY_NOON, items: [line('burger')] }), applyDefaultModifiers: false, timeZone: 'America/New_York', now: NOW, storeHours: [] }).rejection).toBeUndefined();
  }); // prettier-ignore

  it('prices an order due in the past as due now: its hours, business date and discounts are read now, with a WARNING', () => {
    // Sent Saturday 2026-12-05 13:35 in New York, due Friday 11:00: Pickup is open on Saturday afternoons only.
    const saturday = new Date('2026-12-05T13:35:00-05:00');
    const storeHours = [{ dayOfWeek: 'Saturday' as const, startTime: '12:00', endTime: '18:00' }];
    const at = (deferDue: string, now: Date, discounts: unknown[] = []) =>
      priceOrder({ menu: { ...MENU, ...normalise(withDiscounts({ discountScope: 'Order', discountType: 'AmountOff', discountValue: 100, validWeekdays: 62 })) }, order: OrderInput.parse({ orderType: 'Pickup', deferDue, items: [line('burger')], discounts }), applyDefaultModifiers: false, timeZone: 'America/New_York', now, storeHours });
    const friday = at('2026-12-04T11:00:00-05:00', saturday, [{ sourceDiscount: 'x0' }]);
    expect(friday.rejection).toBeUndefined();
    expect(friday.order).toMatchObject({ deferDue: '2026-12-04T11:00:00-05:00', businessDate: '2026-12-05', discountTotal: 0 });
    expect(friday.messages[0]).toEqual({ id: 'deferDue', message: "deferDue 2026-12-04T11:00:00-05:00 is past; the order is due now, 2026-12-05 13:35 (Saturday) in the store's time zone: its hours, business date and discounts are read then. Send the time the customer wants it, or now for as soon as possible.", messageType: 'WARNING' });
    expect(friday.messages.map((m) => m.id)).toEqual(['deferDue', 'discounts[0]']); // a weekday discount, on a Saturday
    // Due Saturday 12:30, when Pickup is open, sent at 19:00 when it is closed: closed now.
    expect(at('2026-12-05T12:30:00-05:00', new Date('2026-12-05T19:00:00-05:00')).rejection).toMatchObject({ reason: 'storeClosed', message: expect.stringContaining('closed at 2026-12-05 19:00 (Saturday)') });
    // A client's clock a little behind ours: its "now" is now, without a warning; a time to come is its own.
    const skewed = at('2026-12-05T13:33:00-05:00', saturday);
    expect([skewed.rejection, skewed.order.businessDate, skewed.messages]).toEqual([undefined, '2026-12-05', []]);
    expect(at('2026-12-05T13:29:00-05:00', saturday).messages.map((m) => m.id)).toEqual(['deferDue']);
    expect(at('2026-12-05T18:30:00-05:00', saturday).rejection).toMatchObject({ reason: 'storeClosed', message: expect.stringContaining('18:30') });
  }); // prettier-ignore

  it('lists a modifier once per half, and a half on each side is two modifiers', () => {
    const r = price({ items: [line('pizza', 1, { leftHalfItemId: 'pizza', rightHalfItemId: 'pizza', ...mods({ id: 'ham', selectedHalf: 'Left' }, { id: 'ham', selectedHalf: 'Right' }) })] });
    expect(r.errors).toEqual([]);
    expect(r.order.subtotal).toBe(1800 + 90 + 90);
  }); // prettier-ignore

  it('rejects a default it would add that is out of stock, and takes the order without it when sent at 0', () => {
    const burger = MENU.groups[0]!.items[0]!;
    const cheese = burger.modifiers[0]!;
    const soldOut = {
      groups: [{ ...MENU.groups[0]!, items: [{ ...burger, modifiers: [{ ...cheese, modifiers: cheese.modifiers.map((m) => (m.id === 'cheddar' ? { ...m, isAvailable: false } : m)) }, ...burger.modifiers.slice(1)] }] }, ...MENU.groups.slice(1)],
    } as Partial<Menu>;
    const added = price({ items: [line('burger')] }, soldOut, true);
    expect(added.rejection).toMatchObject({ reason: 'itemOutOfStock' });
    expect(added.rejection?.message).toContain('Cheddar');
    expect(price({ items: [line('burger', 1, mods({ id: 'cheddar', quantity: 0 }))] }, soldOut, true).rejection).toBeUndefined();
    expect(price({ items: [line('burger')] }, soldOut, false).rejection).toBeUndefined();
  }); // prettier-ignore

  it('takes a group with an empty list of periods at any time, as an order type', () => {
    const groups = MENU.groups.map((g) => (g.id === 'mains' ? { ...g, operationPeriods: [] } : g));
    const r = price({ items: [line('burger')] }, { groups } as Partial<Menu>);
    expect(r.rejection).toBeUndefined();
    const closed = MENU.groups.map((g) => (g.id === 'mains' ? { ...g, operationPeriods: [{ dayOfWeek: 'Monday' as const, startTime: '10:00', endTime: '11:00' }] } : g));
    expect(price({ items: [line('burger')] }, { groups: closed } as Partial<Menu>).rejection?.reason).toBe('storeClosed');
  }); // prettier-ignore

  it('names a delivery fee whose display name is empty "Delivery Fee"', () => {
    const r = price({ items: [line('burger', 3)], orderType: 'Delivery' }, { deliveryOptions: { ...MENU.deliveryOptions!, displayName: '' } });
    expect(r.order.fees).toEqual([{ feeName: 'Delivery Fee', feeAmount: 500 }]);
  }); // prettier-ignore
});

type Discount = Record<string, unknown>;
const withDiscounts = (...availableDiscounts: Discount[]) =>
  ({
    availableDiscounts: availableDiscounts.map((d, i) => ({
      id: `x${i}`,
      displayName: `X${i}`,
      discountValue: 0,
      ...d,
    })),
  }) as unknown as Partial<Menu>;
const normalise = (m: Partial<Menu>) => MenuInput.parse({ ...MENU, ...m });
function priceWith(
  discounts: Discount[],
  items: Record<string, unknown>[],
  asks: Record<string, unknown>[] = discounts.map((_, i) => ({ sourceDiscount: `x${i}` })),
  over: Record<string, unknown> = {},
) {
  return price({ items, discounts: asks, ...over }, { ...normalise(withDiscounts(...discounts)) });
}

describe('discounts by type and scope', () => {
  // burger 1000 + fries x2 800 + beer 600 = subtotal 2400.
  const ITEMS = [line('burger'), line('fries', 2), line('beer')];
  const burgerAndFries = { items: ['burger', 'fries'] };
  it.each<[string, Discount, number]>([
    ['Order AmountOff', { discountScope: 'Order', discountType: 'AmountOff', discountValue: 500 }, 500],
    ['Order AmountOff, no more than the order', { discountScope: 'Order', discountType: 'AmountOff', discountValue: 9999 }, 2400],
    ['Order PercentOff', { discountScope: 'Order', discountType: 'PercentOff', discountValue: 15 }, 360],
    ['Order SetPrice', { discountScope: 'Order', discountType: 'SetPrice', discountValue: 2000 }, 400],
    ['Order AdjustedItem (per unit of every line)', { discountScope: 'Order', discountType: 'AdjustedItem', discountValue: 50 }, 200],
    ['Order Reward (the cheapest unit)', { discountScope: 'Order', discountType: 'Reward' }, 400],
    ['Item AmountOff (once per target line)', { discountScope: 'Item', discountType: 'AmountOff', discountValue: 100, conditions: burgerAndFries }, 200],
    ['Item PercentOff', { discountScope: 'Item', discountType: 'PercentOff', discountValue: 10, conditions: burgerAndFries }, 180],
    ['Item SetPrice (each unit costs the value)', { discountScope: 'Item', discountType: 'SetPrice', discountValue: 300, conditions: burgerAndFries }, 700 + 200],
    ['Item AdjustedItem (value off every unit)', { discountScope: 'Item', discountType: 'AdjustedItem', discountValue: 50, conditions: burgerAndFries }, 150],
    ['Item Reward, capped', { discountScope: 'Item', discountType: 'Reward', discountValue: 250, conditions: burgerAndFries }, 250],
    ['Multiple AmountOff (the targets together)', { discountScope: 'Multiple', discountType: 'AmountOff', discountValue: 100, conditions: burgerAndFries }, 100],
    ['Multiple PercentOff', { discountScope: 'Multiple', discountType: 'PercentOff', discountValue: 25, conditions: burgerAndFries }, 450],
    ['Multiple SetPrice (a combo price)', { discountScope: 'Multiple', discountType: 'SetPrice', discountValue: 1500, conditions: burgerAndFries }, 300],
    ['Multiple AdjustedItem', { discountScope: 'Multiple', discountType: 'AdjustedItem', discountValue: 10, conditions: burgerAndFries }, 30],
    ['Multiple Reward', { discountScope: 'Multiple', discountType: 'Reward', conditions: burgerAndFries }, 400],
    ['BOGO PercentOff 100 (of each pair the cheaper free)', { discountScope: 'BOGO', discountType: 'PercentOff', discountValue: 100, conditions: burgerAndFries }, 400],
    ['BOGO PercentOff 50', { discountScope: 'BOGO', discountType: 'PercentOff', discountValue: 50, conditions: burgerAndFries }, 200],
    ['BOGO AmountOff', { discountScope: 'BOGO', discountType: 'AmountOff', discountValue: 150, conditions: burgerAndFries }, 150],
    ['BOGO SetPrice (the free unit costs the value)', { discountScope: 'BOGO', discountType: 'SetPrice', discountValue: 100, conditions: burgerAndFries }, 300],
    ['BOGO AdjustedItem', { discountScope: 'BOGO', discountType: 'AdjustedItem', discountValue: 75, conditions: burgerAndFries }, 75],
    ['BOGO Reward', { discountScope: 'BOGO', discountType: 'Reward', conditions: burgerAndFries }, 400],
    ['a group target', { discountScope: 'Item', discountType: 'PercentOff', discountValue: 50, conditions: { menuGroups: ['bar'] } }, 300],
  ])('%s', (_what, discount, off) => {
    const r = priceWith([discount], ITEMS);
    expect(r.errors).toEqual([]);
    expect(r.order.discounts[0]).toMatchObject({ valid: true, discountValue: off });
    expect(r.order.discountTotal).toBe(off);
  }); // prettier-ignore

  it('refuses a Reward when no line priced, whatever its scope (an order of unknown items)', () => {
    const r = priceWith([{ discountScope: 'Order', discountType: 'Reward' }], [line('taco')]);
    expect(r.errors.map((e) => e.path)).toEqual(['items[0].id']);
    expect(r.order.discounts[0]).toMatchObject({ valid: false, discountValue: 0 });
    expect(r.messages[0]!.message).toContain('holds none of the items');
  });

  it('puts a line discount on its line, and BOGO on the cheaper units', () => {
    const r = priceWith([{ discountScope: 'BOGO', discountType: 'PercentOff', discountValue: 100, conditions: { items: ['fries', 'burger'] } }], [line('burger', 2), line('fries', 3)]);
    // Units 1000, 1000, 350, 350, 350: pairs (1000, 1000) and (350, 350): one burger and one fries free.
    expect(r.order.discountTotal).toBe(1350);
    expect(r.order.items.map((i) => i.discounts?.map((d) => d.discountValue))).toEqual([[1000], [350]]);
  }); // prettier-ignore

  it.each<[string, Discount, Record<string, unknown>, string]>([
    ['a weekday outside the bit sum', { validWeekdays: 1 + 64 }, {}, 'not offered on Tuesdays'],
    ['Monday to Friday on a Saturday', { validWeekdays: 62 }, { deferDue: '2026-12-05T12:00:00-05:00' }, 'not offered on Saturdays'],
    ['before its first date', { validFromDate: '2026-12-02' }, {}, 'starts on 2026-12-02'],
    ['after its last date', { validToDate: '2026-11-30' }, {}, 'ended on 2026-11-30'],
    ['outside its hours', { startTime: '14:00', endTime: '17:00' }, {}, 'runs from 14:00 to 17:00'],
    ['outside hours across midnight', { startTime: '22:00', endTime: '02:00' }, {}, 'runs from 22:00 to 02:00'],
    ['another order type', { orderTypes: ['Delivery'] }, {}, 'not offered for Pickup'],
    ['under its minimum', { minimumOrderPrice: 5000 }, {}, 'at least 5000 cents'],
    ['a group missing', { conditions: { menuGroups: ['mains', 'bar'] } }, { items: [line('burger')] }, 'needs items from 2 of the groups'],
    ['an item missing', { conditions: { items: ['beer'] } }, { items: [line('burger')] }, 'needs 1 of the items beer'],
    ['a modifier missing', { conditions: { modifiers: ['swiss'] } }, { items: [line('burger')] }, 'needs 1 of the modifiers swiss'],
    ['no code', { validationCodeRequired: true, validationCodes: [{ code: 'SAVE' }] }, {}, 'needs a validation code'],
  ])('refuses %s with a warning that says so', (_what, extra, over, why) => {
    const r = priceWith([{ discountScope: 'Order', discountType: 'AmountOff', discountValue: 100, ...extra }], (over.items as Record<string, unknown>[]) ?? ITEMS, undefined, over);
    expect(r.order.discounts[0]).toMatchObject({ valid: false, discountValue: 0 });
    expect(r.order.discountTotal).toBe(0);
    expect(r.messages).toEqual([{ id: 'discounts[0]', message: expect.stringContaining(why), messageType: 'WARNING' }]);
  }); // prettier-ignore

  it('takes a valid code until it expires, and within its hours across midnight', () => {
    const coded = { discountScope: 'Order', discountType: 'AmountOff', discountValue: 100, validationCodeRequired: true, validationCodes: [{ code: 'SAVE', hasExpireDate: true, expireDate: '2026-11-30T12:00:01Z' }, { code: 'OLD', hasExpireDate: true, expireDate: '2026-11-30T12:00:00Z' }] };
    expect(priceWith([coded], ITEMS, [{ sourceDiscount: 'x0', validationCode: 'SAVE' }]).order.discountTotal).toBe(100);
    expect(priceWith([coded], ITEMS, [{ sourceDiscount: 'x0', validationCode: 'OLD' }]).messages[0]!.message).toContain('expired');
    expect(priceWith([coded], ITEMS, [{ sourceDiscount: 'x0', validationCode: 'NOPE' }]).messages[0]!.message).toContain('not one of its codes');
    const late = { discountScope: 'Order', discountType: 'AmountOff', discountValue: 100, startTime: '22:00', endTime: '02:00' };
    expect(priceWith([late], ITEMS, undefined, { deferDue: '2026-12-01T23:30:00-05:00' }).order.discountTotal).toBe(100);
    expect(priceWith([late], ITEMS, undefined, { deferDue: '2026-12-02T01:59:00-05:00' }).order.discountTotal).toBe(100);
    expect(priceWith([late], ITEMS, undefined, { deferDue: '2026-12-02T02:00:00-05:00' }).order.discountTotal).toBe(0);
  }); // prettier-ignore

  it('keeps the per-order limit (default 1) and refuses combining a non-combinable discount', () => {
    const once = { discountScope: 'Order', discountType: 'AmountOff', discountValue: 100 };
    const twice = priceWith([once], ITEMS, [{ sourceDiscount: 'x0' }, { sourceDiscount: 'x0' }]);
    expect(twice.order.discounts.map((d) => d.valid)).toEqual([true, false]);
    expect(twice.messages[0]!.message).toContain('at most 1 time per order');
    const limit2 = priceWith([{ ...once, limit: 2 }], ITEMS, [{ sourceDiscount: 'x0' }, { sourceDiscount: 'x0' }, { sourceDiscount: 'x0' }]);
    expect(limit2.order.discounts.map((d) => d.valid)).toEqual([true, true, false]);
    expect(limit2.order.discountTotal).toBe(200);
    const alone = { ...once, combinable: false };
    expect(priceWith([alone, once], ITEMS).order.discounts.map((d) => d.valid)).toEqual([true, false]);
    // Not combinable with others, but used twice when its limit allows.
    const aloneTwice = priceWith([{ ...alone, limit: 2 }], ITEMS, [{ sourceDiscount: 'x0' }, { sourceDiscount: 'x0' }]);
    expect(aloneTwice.order.discounts.map((d) => d.valid)).toEqual([true, true]);
    expect(aloneTwice.order.discountTotal).toBe(200);
    const late = priceWith([once, alone], ITEMS);
    expect(late.order.discounts.map((d) => d.valid)).toEqual([true, false]);
    expect(late.messages[0]!.message).toContain('cannot be combined');
    expect(priceWith([once], ITEMS, [{ sourceDiscount: 'ghost' }]).order.discounts[0]).toMatchObject({ valid: false, sourceDiscount: 'ghost' });
  }); // prettier-ignore

  it('never takes more than what is left of the order: a line discount after an order discount', () => {
    const r = priceWith(
      [
        { discountScope: 'Order', discountType: 'PercentOff', discountValue: 90 },
        {
          discountScope: 'Item',
          discountType: 'AmountOff',
          discountValue: 1000,
          conditions: { items: ['burger'] },
        },
      ],
      ITEMS,
    );
    expect(r.order.discounts.map((d) => d.discountValue)).toEqual([2160, 240]);
    expect(r.order.discountTotal).toBe(r.order.subtotal);
    expect(r.order.total).toBe(0);
    for (const t of r.order.taxes) expect(t.taxableAmount).toBeGreaterThanOrEqual(0);
  });

  // What is left of a unit after earlier line discounts is what a unit discount (Reward, BOGO) takes
  // from; fries x2 at 400 each, burger 1000, beer 600.
  const fries = { items: ['fries'] };
  it.each<[string, Discount[], number[]]>([
    ['an Order Reward after an Order AdjustedItem takes what is left of the unit', [{ discountScope: 'Order', discountType: 'AdjustedItem', discountValue: 100 }, { discountScope: 'Order', discountType: 'Reward' }], [400, 300]],
    ['an Order Reward after an Item SetPrice takes the set price', [{ discountScope: 'Item', discountType: 'SetPrice', discountValue: 150, conditions: fries }, { discountScope: 'Order', discountType: 'Reward' }], [500, 150]],
    ['an Order Reward after a BOGO takes the unit still paid for, whole', [{ discountScope: 'BOGO', discountType: 'PercentOff', discountValue: 100, conditions: fries }, { discountScope: 'Order', discountType: 'Reward' }], [400, 400]],
    ['a BOGO after a Reward took the free unit finds it free already', [{ discountScope: 'Order', discountType: 'Reward' }, { discountScope: 'BOGO', discountType: 'PercentOff', discountValue: 100, conditions: fries }], [400, 0]],
    ['a Reward capped by its value, after an AdjustedItem', [{ discountScope: 'Item', discountType: 'AdjustedItem', discountValue: 350, conditions: fries }, { discountScope: 'Item', discountType: 'Reward', discountValue: 80, conditions: fries }], [700, 50]],
    ['an Item SetPrice after a Reward leaves the free unit free', [{ discountScope: 'Order', discountType: 'Reward' }, { discountScope: 'Item', discountType: 'SetPrice', discountValue: 150, conditions: fries }], [400, 250]],
  ])('%s', (_what, discounts, taken) => {
    const r = priceWith(discounts, ITEMS);
    const o = r.order;
    // A discount that takes nothing is not applied (valid: false, with a WARNING: see below).
    expect(o.discounts.map((d) => [d.valid, d.discountValue])).toEqual(taken.map((t) => [t > 0, t]));
    expect(o.discountTotal).toBe(taken.reduce((a, b) => a + b, 0));
    // Line discounts add up to the order's, and no line goes below 0.
    expect(o.items.flatMap((i) => i.discounts ?? []).reduce((n, d) => n + (d.discountValue ?? 0), 0)).toBe(o.discountTotal);
    for (const i of o.items) expect(i.price - (i.discounts ?? []).reduce((n, d) => n + (d.discountValue ?? 0), 0)).toBeGreaterThanOrEqual(0);
  }); // prettier-ignore

  it.each<[string, Discount[], string]>([
    ['a BOGO of one unit', [{ discountScope: 'BOGO', discountType: 'PercentOff', discountValue: 100, conditions: { items: ['beer'] } }], 'X0: it needs two units of the items it applies to and the order has one, so it takes nothing and was not applied.'],
    ['a BOGO whose free unit a Reward took', [{ discountScope: 'Order', discountType: 'Reward' }, { discountScope: 'BOGO', discountType: 'PercentOff', discountValue: 100, conditions: fries }], 'X1: what it applies to is already free, so it takes nothing and was not applied.'],
  ])('%s is not applied, with a WARNING that says why', (_what, discounts, why) => {
    const r = priceWith(discounts, ITEMS);
    const k = discounts.length - 1;
    expect(r.order.discounts[k]).toMatchObject({ valid: false, discountValue: 0 });
    expect(r.messages).toEqual([{ id: `discounts[${k}]`, message: why, messageType: 'WARNING' }]);
  }); // prettier-ignore

  it.each<[string, Discount, string]>([
    ['Order', { discountScope: 'Order', discountType: 'SetPrice', discountValue: 3000 }, "X0: its set price of 3000 cents is not below the order's 2400 cents, so it takes nothing and was not applied."],
    ['Item', { discountScope: 'Item', discountType: 'SetPrice', discountValue: 1000, conditions: { items: ['fries', 'beer'] } }, 'X0: its set price of 1000 cents is not below the 600 cents its dearest unit costs, so it takes nothing and was not applied.'],
    ['Multiple', { discountScope: 'Multiple', discountType: 'SetPrice', discountValue: 1800, conditions: burgerAndFries }, 'X0: its set price of 1800 cents is not below the 1800 cents its items cost together, so it takes nothing and was not applied.'],
    ['BOGO', { discountScope: 'BOGO', discountType: 'SetPrice', discountValue: 450, conditions: burgerAndFries }, 'X0: its set price of 450 cents is not below the 400 cents its dearest free unit costs, so it takes nothing and was not applied.'],
  ])('a %s SetPrice at or above the current price is not applied, with a WARNING that says why', (_scope, discount, why) => {
    // Not combinable: a discount that took nothing does not keep the next one out.
    const r = priceWith([{ ...discount, combinable: false }, { discountScope: 'Order', discountType: 'AmountOff', discountValue: 100 }], ITEMS);
    expect(r.order.discounts.map((d) => [d.valid, d.discountValue])).toEqual([[false, 0], [true, 100]]);
    expect(r.messages).toEqual([{ id: 'discounts[0]', message: why, messageType: 'WARNING' }]);
    expect(r.order.discountTotal).toBe(100);
  }); // prettier-ignore

  it('never takes more than what is left after earlier discounts', () => {
    const r = priceWith([{ discountScope: 'Order', discountType: 'PercentOff', discountValue: 90 }, { discountScope: 'Order', discountType: 'AmountOff', discountValue: 1000 }], ITEMS);
    expect(r.order.discounts.map((d) => d.discountValue)).toEqual([2160, 240]);
    expect(r.order.total).toBe(0);
  }); // prettier-ignore
});

describe('taxes, fees and totals', () => {
  it.each<[string, Record<string, unknown>, { taxes: unknown[]; total: number }]>([
    ['exclusive food tax and alcohol tax apart', { items: [line('burger'), line('beer')] }, { taxes: [{ taxName: 'Food tax', taxableAmount: 1000, taxAmount: 100 }, { taxName: 'Alcohol tax', taxableAmount: 600, taxAmount: 60 }], total: 1760 }],
    ['an order-type rate', { items: [line('burger')], orderType: 'DineIn', deferDue: '2026-12-04T23:00:00-05:00' }, { taxes: [{ taxName: 'Food tax', taxableAmount: 1000, taxAmount: 125 }], total: 1125 }],
    ['an included tax is listed but not added', { items: [line('wrap')] }, { taxes: [{ taxName: 'VAT', taxableAmount: 1200, taxAmount: 200 }], total: 1200 }],
    ['an untaxed item', { items: [line('salad')] }, { taxes: [], total: 700 }],
    ['the delivery fee and its tax', { items: [line('burger', 2)], orderType: 'Delivery' }, { taxes: [{ taxName: 'Food tax', taxableAmount: 2700, taxAmount: 270 }], total: 2200 + 500 + 270 }],
  ])('%s', (_what, order, expected) => {
    const r = price(order);
    expect(r.order.taxes).toEqual(expected.taxes);
    expect(r.order.total).toBe(expected.total);
  }); // prettier-ignore

  it('charges a Percent delivery fee on the subtotal after discounts, and None charges nothing', () => {
    const percent = { deliveryOptions: { deliveryFeeType: 'Percent' as const, deliveryFeeValue: 12.5, displayName: 'Delivery' } };
    const r = price({ items: [line('burger', 3)], orderType: 'Delivery' }, percent);
    expect(r.order.fees).toEqual([{ feeName: 'Delivery', feeAmount: 413 }]); // 12.5% of 3300 = 412.5, half up
    expect(r.order.taxes).toEqual([{ taxName: 'Food tax', taxableAmount: 3300, taxAmount: 330 }]); // this fee is untaxed
    const none = price({ items: [line('burger', 3)], orderType: 'Delivery' }, { deliveryOptions: { deliveryFeeType: 'None', deliveryFeeValue: 0 } });
    expect(none.order.fees).toEqual([]);
    expect(price({ items: [line('burger')] }).order.fees).toEqual([]); // Pickup: no delivery fee
  }); // prettier-ignore

  it("adds a delivery order's zone fee after the delivery fee, taxed as it is; a pickup order's zone adds nothing", () => {
    const zoned = (orderType: string) => priceOrder({ menu: MENU, order: OrderInput.parse({ orderType, deferDue: TUESDAY_NOON, items: [line('burger', 2)] }), applyDefaultModifiers: false, timeZone: 'America/New_York', now: NOW, zoneFee: 150 });
    const delivery = zoned('Delivery');
    expect(delivery.order.fees).toEqual([{ feeName: 'Delivery Fee', feeAmount: 500 }, { feeName: 'Zone Fee', feeAmount: 150 }]);
    // Food tax 10% on the lines (2200) and both fees (650).
    expect([delivery.order.taxes, delivery.order.total]).toEqual([[{ taxName: 'Food tax', taxableAmount: 2850, taxAmount: 285 }], 2200 + 650 + 285]);
    expect(zoned('Pickup').order.fees).toEqual([]);
  }); // prettier-ignore

  it('spreads an order discount over the lines before tax, by largest remainder', () => {
    const r = priceWith([{ discountScope: 'Order', discountType: 'AmountOff', discountValue: 101 }], [line('burger'), line('beer')]);
    // 101 over 1000 and 600: 63.125 and 37.875 -> 63 and 38.
    expect(r.order.taxes).toEqual([{ taxName: 'Food tax', taxableAmount: 937, taxAmount: 94 }, { taxName: 'Alcohol tax', taxableAmount: 562, taxAmount: 56 }]);
  }); // prettier-ignore

  it('answers cartStatus.minimumOrderPriceMet on the subtotal after discounts', () => {
    expect(price({ items: [line('burger', 2)], orderType: 'Delivery' }).cartStatus.minimumOrderPriceMet).toBe(
      true,
    );
    const under = price({ items: [line('burger')], orderType: 'Delivery' });
    expect(under.cartStatus.minimumOrderPriceMet).toBe(false);
    expect(under.rejection?.reason).toBe('orderValidation');
  });

  it('cannot price an order totalling more than an amount may be (MAX_CENTS), whatever takes it past', () => {
    const max = 2_147_483_647;
    const jewels = { groups: [{ id: 'g', displayName: 'G', items: [{ id: 'crown', displayName: 'Crown', priceInfo: { price: max } }] }] } as unknown as Partial<Menu>;
    const at = (order: Record<string, unknown>) => price(order, normalise(jewels));
    const one = at({ items: [line('crown')] });
    expect([one.errors, one.order.total]).toEqual([[], max]);
    for (const [what, order, total] of [['two units', { items: [line('crown', 2)] }, 2 * max], ['the delivery fee', { items: [line('crown')], orderType: 'Delivery' }, max + 500 + 50]] as const) {
      const r = at(order);
      expect([what, r.order.total, r.errors]).toEqual([what, total, [{ path: 'items', message: `The order totals ${total} cents, more than an order may total (${max} cents): order fewer or cheaper items, or split them over several orders.` }]]);
    }
  }); // prettier-ignore

  it('keeps its sums whatever the order: lines, taxes and discounts add up; the total is never negative', () => {
    const discounts: Discount[] = [
      { discountScope: 'Order', discountType: 'PercentOff', discountValue: 12.5 },
      { discountScope: 'Item', discountType: 'AmountOff', discountValue: 333, conditions: { items: ['fries'] }, limit: 3 },
      { discountScope: 'BOGO', discountType: 'PercentOff', discountValue: 100, conditions: { menuGroups: ['mains'] } },
      { discountScope: 'Multiple', discountType: 'SetPrice', discountValue: 999, conditions: { items: ['burger', 'beer'] } },
    ];
    const ids = ['burger', 'fries', 'pizza', 'beer', 'wrap', 'cheese-pizza'];
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 300; round++) {
      const items = Array.from({ length: 1 + next(6) }, () => line(ids[next(ids.length)]!, 1 + next(7)));
      const asks = Array.from({ length: next(5) }, () => ({ sourceDiscount: `x${next(4)}` }));
      const r = priceWith(discounts, items, asks, { orderType: next(2) ? 'Delivery' : 'Pickup' });
      const o = r.order;
      expect(r.errors).toEqual([]);
      expect(o.items.reduce((n, i) => n + i.price, 0)).toBe(o.subtotal);
      expect(o.taxes.reduce((n, t) => n + t.taxAmount, 0)).toBe(o.taxTotal);
      expect(o.discounts.reduce((n, d) => n + (d.discountValue ?? 0), 0)).toBe(o.discountTotal);
      expect(o.items.flatMap((i) => i.discounts ?? []).reduce((n, d) => n + (d.discountValue ?? 0), 0)).toBeLessThanOrEqual(o.discountTotal);
      expect(o.discountTotal).toBeLessThanOrEqual(o.subtotal);
      expect(o.total).toBeGreaterThanOrEqual(0);
      for (const v of [o.subtotal, o.discountTotal, o.taxTotal, o.total, o.feeTotal]) expect(Number.isInteger(v)).toBe(true);
    }
  }); // prettier-ignore
});

describe('cents and time', () => {
  it('rounds percentages half up without float drift', () => {
    expect([percentOf(2540, 8.875), percentOf(1005, 10), percentOf(15, 50), percentOf(5, 10), percentOf(3, 16.5)]).toEqual([225, 101, 8, 1, 0]);
    expect([includedTax(1200, 20), includedTax(1000, 8.875), includedTax(0, 20)]).toEqual([200, 82, 0]);
    expect(spread(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(spread(0, [5, 5])).toEqual([0, 0]);
    expect(spread(7, [0, 0])).toEqual([0, 0]);
  }); // prettier-ignore

  it('reads instants in the store’s zone, daylight saving time included', () => {
    expect(localTime(new Date('2026-03-08T06:59:00Z'), 'America/New_York')).toEqual({ date: '2026-03-08', weekday: 0, minutes: 1 * 60 + 59 });
    expect(localTime(new Date('2026-03-08T07:00:00Z'), 'America/New_York')).toEqual({ date: '2026-03-08', weekday: 0, minutes: 3 * 60 });
    expect(localTime(new Date('2026-12-02T04:59:00Z'), 'America/New_York')).toEqual({ date: '2026-12-01', weekday: 2, minutes: 23 * 60 + 59 });
    expect(localTime(new Date('2026-12-02T05:00:00Z'), 'America/New_York')).toEqual({ date: '2026-12-02', weekday: 3, minutes: 0 });
    expect(localTime(new Date('2026-12-02T05:00:00Z'), 'Pacific/Honolulu').date).toBe('2026-12-01');
    const always = [{ dayOfWeek: 'Tuesday', startTime: '00:00', endTime: '00:00' }];
    expect(inPeriods(always, { date: '', weekday: 2, minutes: 0 })).toBe(true);
    expect(inPeriods(always, { date: '', weekday: 2, minutes: 1439 })).toBe(true);
    expect(inPeriods(always, { date: '', weekday: 3, minutes: 0 })).toBe(false);
  }); // prettier-ignore
});
