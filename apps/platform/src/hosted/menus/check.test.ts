import { describe, expect, it } from 'vitest';
import { DEMO_MENU } from '@stream/contracts/apis/hr-menu/demo';
import { getMenuOutOfStock, listOutOfStock } from '@stream/contracts/apis/hr-menu/index';
import { MenuInput, OutOfStockItem } from '@stream/contracts/apis/hr-menu/menu';
import { checkMenu } from './check.ts';
import { outOfStockOf } from './store-menus.ts';

// Through JSON: the demo shares its category objects between items, and a test changes one item.
const demo = () => MenuInput.parse(JSON.parse(JSON.stringify(DEMO_MENU)));
const paths = (m: MenuInput) => checkMenu(m).map((p) => p.path);

describe('checkMenu: the rules across fields', () => {
  it('passes the demo menu', () => {
    expect(checkMenu(demo())).toEqual([]);
  });

  it.each<[string, (m: MenuInput) => void, string]>([
    ['an unknown tax type on an item', (m) => (m.groups[0]!.items[0]!.taxType = 'vat'), 'groups[0].items[0].taxType'],
    ['an unknown order type in an item price', (m) => (m.groups[0]!.items[0]!.priceInfo.orderTypePrices![0]!.orderTypeId = 'Drone'), 'groups[0].items[0].priceInfo.orderTypePrices[0].orderTypeId'],
    ['an item id used twice', (m) => (m.groups[1]!.items[1]!.id = 'garlic-knots'), 'groups[1].items[1].id'],
    ['a group id used twice', (m) => (m.groups[2]!.id = 'pizzas'), 'groups[2].id'],
    ['a modifier id used twice in a category', (m) => (m.groups[0]!.items[0]!.modifiers[0]!.modifiers[1]!.id = 'thin'), 'groups[0].items[0].modifiers[0].modifiers[1].id'],
    ['minimumModifiers above maximumModifiers', (m) => (m.groups[0]!.items[0]!.modifiers[0]!.minimumModifiers = 2), 'groups[0].items[0].modifiers[0].minimumModifiers'],
    ['an unknown delivery fee tax type', (m) => (m.deliveryOptions!.deliveryFeeTaxType = 'vat'), 'deliveryOptions.deliveryFeeTaxType'],
    ['a Percent delivery fee of 101', (m) => Object.assign(m.deliveryOptions!, { deliveryFeeType: 'Percent', deliveryFeeValue: 101 }), 'deliveryOptions.deliveryFeeValue'],
    ['an Amount delivery fee of 1.5 cents', (m) => (m.deliveryOptions!.deliveryFeeValue = 1.5), 'deliveryOptions.deliveryFeeValue'],
    ['a discount naming an unknown group', (m) => (m.availableDiscounts[0]!.conditions.menuGroups = ['calzones']), 'availableDiscounts[0].conditions.menuGroups[0]'],
    ['itemRequirments above the items listed', (m) => (m.availableDiscounts[1]!.conditions.itemRequirments = 2), 'availableDiscounts[1].conditions.itemRequirments'],
    ['modifierRequirments with no modifiers listed', (m) => (m.availableDiscounts[1]!.conditions.modifierRequirments = 1), 'availableDiscounts[1].conditions.modifierRequirments'],
    ['a PercentOff of 101', (m) => (m.availableDiscounts[0]!.discountValue = 101), 'availableDiscounts[0].discountValue'],
    ['an AmountOff of fractional cents', (m) => (m.availableDiscounts[2]!.discountValue = 99.5), 'availableDiscounts[2].discountValue'],
    ['validToDate before validFromDate', (m) => Object.assign(m.availableDiscounts[0]!, { validFromDate: '2026-02-01', validToDate: '2026-01-31' }), 'availableDiscounts[0].validToDate'],
    ['a required code with none listed', (m) => (m.availableDiscounts[2]!.validationCodes = []), 'availableDiscounts[2].validationCodes'],
    ['an expiring code without its date', (m) => delete m.availableDiscounts[2]!.validationCodes[0]!.expireDate, 'availableDiscounts[2].validationCodes[0].expireDate'],
    ['a discount for an unknown order type', (m) => (m.availableDiscounts[0]!.orderTypes = ['Drone']), 'availableDiscounts[0].orderTypes[0]'],
    ['a discount with a startTime and no endTime', (m) => (m.availableDiscounts[0]!.startTime = '11:00'), 'availableDiscounts[0].endTime'],
    ['a discount with an endTime and no startTime', (m) => delete m.availableDiscounts[3]!.startTime, 'availableDiscounts[3].startTime'],
  ])('finds %s', (_what, change, path) => {
    const m = demo();
    change(m);
    expect(paths(m)).toEqual([path]);
  }); // prettier-ignore

  it.each<[string, Record<string, unknown>, string]>([
    ['modifierRequirments 1, no modifiers', { items: ['garlic-knots'], modifierRequirments: 1 }, 'modifierRequirments is 1 but no modifiers are listed: list the modifiers the order must hold (at least 1) in conditions.modifiers, or leave modifierRequirments out.'],
    ['itemRequirments 2, no items', { menuGroups: ['sides'], itemRequirments: 2 }, 'itemRequirments is 2 but no items are listed: list the items the order must hold (at least 2) in conditions.items, or leave itemRequirments out.'],
    ['menuGroupRequirments 1, no groups', { menuGroupRequirments: 1 }, 'menuGroupRequirments is 1 but no menuGroups are listed: list the menu groups the order must hold (at least 1) in conditions.menuGroups, or leave menuGroupRequirments out.'],
    ['itemRequirments 3, 2 items', { items: ['garlic-knots', 'caesar'], itemRequirments: 3 }, 'itemRequirments is 3 but 2 items are listed; it must be 1 to 2.'],
  ])('says what to fix for a requirement count past what is listed: %s', (_what, conditions, message) => {
    const m = demo();
    m.availableDiscounts[1]!.conditions = { menuGroups: [], items: [], modifiers: [], ...conditions };
    expect(checkMenu(m)).toEqual([{ path: `availableDiscounts[1].conditions.${message.split(' ')[0]}`, message }]);
  }); // prettier-ignore

  it('takes a discount window with both ends or neither, and says which end is missing', () => {
    const m = demo();
    expect(m.availableDiscounts[3]).toMatchObject({ startTime: '21:00', endTime: '02:00' }); // the demo's late-night
    delete m.availableDiscounts[3]!.endTime;
    expect(checkMenu(m)).toEqual([
      {
        path: 'availableDiscounts[3].endTime',
        message:
          'startTime is 21:00 but endTime is missing: set both to offer the discount between them (an end before the start runs past midnight), or neither to offer it all day.',
      },
    ]);
    delete m.availableDiscounts[3]!.startTime;
    expect(checkMenu(m)).toEqual([]);
  });

  it('counts nesting levels from the item: the demo pizzas nest 1 level, the cap 4', () => {
    const m = demo();
    m.maxModifierLevels = 1;
    expect(checkMenu(m)).toEqual([]); // item -> category -> modifier: one level
    const nested = m.groups[0]!.items[0]!.modifiers[1]!.modifiers[0]!;
    nested.modifiers = [{ id: 'x', displayName: 'X', allowHalf: false, minimumModifiers: 0, modifiers: [] }];
    expect(paths(m)).toEqual(['groups[0].items[0].modifiers[1].modifiers[0].modifiers']);
  });
});

describe('outOfStockOf', () => {
  it('lists unavailable items and modifiers once each, by stock item id', () => {
    const m = demo();
    m.groups[2]!.items[1]!.isAvailable = false; // lager, stockItemId beer-lager
    m.groups[0]!.items[1]!.modifiers[1]!.modifiers[0]!.isAvailable = false; // pepperoni on one pizza only
    expect(outOfStockOf([{ menu: m }, { menu: m }])).toEqual([
      { stockItemId: 'gluten-free', stockItemType: 'modifier' },
      { stockItemId: 'pepperoni', stockItemType: 'modifier' },
      { stockItemId: 'beer-lager', stockItemType: 'item' },
    ]);
  });

  it('takes the three catalog object types of the spec as a stock item type, item_family included, and no other', () => {
    for (const stockItemType of ['item_family', 'item', 'modifier']) {
      expect(
        OutOfStockItem.safeParse({ stockItemId: 'fam-margherita', stockItemType }).success,
        stockItemType,
      ).toBe(true);
    }
    for (const stockItemType of ['category', 'modifier_group', 'Item', 'itemFamily']) {
      expect(OutOfStockItem.safeParse({ stockItemId: 'x', stockItemType }).success, stockItemType).toBe(
        false,
      );
    }
    // The answers of both lists take it (a client reading them by the contract knows the type).
    const answer = {
      data: [{ stockItemId: 'fam-margherita', stockItemType: 'item_family' }],
      message: '1 out of stock.',
      messagesDetails: [],
    };
    for (const op of [listOutOfStock, getMenuOutOfStock])
      expect(op.responses[200].schema.safeParse(answer).success).toBe(true);
  });
});
