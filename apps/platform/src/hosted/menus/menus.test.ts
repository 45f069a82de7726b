import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MENU, DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import { MenuInput } from '@stream/contracts/apis/hr-menu/menu';
import { HostedErrorBody } from '@stream/contracts/envelopes';
import { call } from '../../../test/http.ts';
import { MIGRATIONS_FOLDER } from '../../db/migrate.ts';
import { importCompany } from '../companies.ts';
import { hostedSuite } from '../testing.ts';

const suite = hostedSuite();

const menu = (over: Record<string, unknown> = {}) => ({ ...structuredClone(DEMO_MENU), ...over });
const create = (data: unknown, store?: number) =>
  suite.world.hosted('POST', '/Menus', { body: { data }, store });
const codeOf = (res: { body: { messagesDetails: { id: string }[] } }) => res.body.messagesDetails[0]?.id;

describe('Menu API', () => {
  it('answers the demo menu by name in the envelope, every default filled in', async () => {
    const res = await suite.world.hosted('GET', '/Menus/Main');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: expect.any(String), messagesDetails: [] });
    expect(res.body.data.id).toEqual(expect.any(Number));
    expect(res.body.data).toMatchObject(MenuInput.parse(DEMO_MENU));
    expect(res.body.data.groups[0].items[0].modifiers[1].modifiers[0]).toMatchObject({
      id: 'pepperoni',
      isAvailable: true,
      minimumQuantity: 0,
      maximumQuantity: 3,
    });
  });

  it('takes an optional field of a new menu sent as null as absent', async () => {
    const [group, ...groups] = DEMO_MENU.groups;
    const [item, ...items] = group!.items;
    const nulled = { ...item, stockItemId: null, priceInfo: { ...item!.priceInfo, halfPrice: null } };
    const sent = menu({
      displayName: 'Nulls',
      serviceTypes: ['Menufy'],
      deliveryOptions: null,
      availableDiscounts: null,
      groups: [{ ...group, description: null, items: [nulled, ...items] }, ...groups],
    });
    const res = await create(sent, 1002); // the demo company's other store: this file's listings stay as they are
    expect(res.status, res.text).toBe(201);
    expect(res.body.messagesDetails).toEqual([]);
    expect(res.body.data.groups[0].items[0].priceInfo).not.toHaveProperty('halfPrice');
  });

  it('reads the field names of a new menu in any case (DisplayName, PriceInfo), as ASP.NET binds them', async () => {
    const sent = { DisplayName: 'Cased', ServiceTypes: ['ubereats'], TaxTypes: [{ ID: 'food', displayName: 'Tax', TaxRateInfo: { TAXRATE: 8 } }], Groups: [{ Id: 'g', DisplayName: 'G', Items: [{ id: 'i', displayName: 'I', TaxType: 'food', PriceInfo: { Price: 500 } }] }] };
    const res = await suite.world.hosted('POST', '/Menus', { store: 1002, body: { DATA: sent } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.messagesDetails).toEqual([]);
    expect(res.body.data).toMatchObject({ displayName: 'Cased', serviceTypes: ['UberEats'], taxTypes: [{ id: 'food', taxRateInfo: { taxRate: 8 } }], groups: [{ id: 'g', items: [{ taxType: 'food', priceInfo: { price: 500 } }] }] });
  }); // prettier-ignore

  it('creates a menu (201), refuses the same name again (409 menu_exists), lists by service type', async () => {
    const res = await create(menu({ displayName: 'Catering', serviceTypes: ['DoorDash'] }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ displayName: 'Catering', serviceTypes: ['DoorDash'] });
    const again = await create(menu({ displayName: 'Catering' }));
    expect(again.status).toBe(409);
    expect(HostedErrorBody.parse(again.body).messagesDetails[0]).toMatchObject({
      id: 'menu_exists',
      messageType: 'ERROR',
    });

    const names = async (q: string) =>
      ((await suite.world.hosted('GET', `/Menus${q}`)).body.data as { displayName: string }[]).map(
        (m) => m.displayName,
      );
    expect(await names('?serviceType=DoorDash')).toEqual(['Main', 'Catering']); // Main serves None: every type
    expect(await names('?serviceType=UberEats')).toEqual(['Main']);
    expect(await names('')).toEqual(['Main', 'Catering']);
    const discounts = await suite.world.hosted('GET', '/MenuDiscounts?serviceType=UberEats');
    expect(discounts.body.data.map((d: { id: string; menuName: string }) => `${d.menuName}/${d.id}`)).toEqual(
      DEMO_MENU.availableDiscounts.map((d) => `Main/${d.id}`),
    );
  });

  it('creates a menu without the fields it does not know, naming each in a WARNING', async () => {
    // modifierPriceInfo is the spec's modifierpriceInfo in another case: read as it (field names are read in any case).
    const modifier = { id: 'ham', displayName: 'Ham', modifierPriceInfo: { price: 150 }, descripton: 'typo' };
    const data = {
      id: 7, // a menu read with GET and sent back: the platform gives ids
      displayName: 'Typos',
      serviceTypes: ['GrubHubEMail'],
      groups: [{ id: 'g', displayName: 'G', items: [{ id: 'i', displayName: 'I', priceInfo: { price: 100 }, modifiers: [{ id: 'c', displayName: 'C', modifiers: [modifier] }] }] }],
    };
    const res = await create(data);
    expect(res.status, res.text).toBe(201);
    expect(res.body.messagesDetails).toEqual([
      { id: 'body.data.id', message: 'id is not a field of a menu; it was ignored.', messageType: 'WARNING' },
      { id: 'body.data.groups[0].items[0].modifiers[0].modifiers[0].descripton', message: 'descripton is not a field of a menu; it was ignored.', messageType: 'WARNING' },
    ]);
    expect(res.body.data.groups[0].items[0].modifiers[0].modifiers[0].modifierpriceInfo).toEqual({ price: 150 });
    expect((await create(menu({ displayName: 'Clean', serviceTypes: ['GoogleOrdering'] }))).body.messagesDetails).toEqual([]);
  }); // prettier-ignore

  it('warns when a menu lists a service type another menu listed first: orders for it are priced against that one', async () => {
    const kanekt = (displayName: string, serviceTypes: string[]) => create(menu({ displayName, serviceTypes }));
    const first = await kanekt('Kanekt first', ['Kanekt365']);
    expect([first.status, first.body.messagesDetails]).toEqual([201, []]);
    const second = await kanekt('Kanekt second', ['None', 'Kanekt365']);
    expect(second.status).toBe(201);
    expect(second.body.messagesDetails).toEqual([
      { id: 'body.data.serviceTypes[0]', message: 'The default (None) menu is "Main", created first; menu "Kanekt second" is used as the default only by an order that names it in data.menuName.', messageType: 'WARNING' },
      { id: 'body.data.serviceTypes[1]', message: 'Kanekt365 orders are priced against menu "Kanekt first", which lists Kanekt365 and was created first; menu "Kanekt second" prices a Kanekt365 order only when it names it in data.menuName.', messageType: 'WARNING' },
    ]);
    const priced = await suite.world.hosted('POST', '/PriceOrder', { serviceType: 'Kanekt365', body: { data: { orderType: 'Pickup', deferDue: '2026-12-01T18:30:00-05:00', items: [{ id: 'soda', qty: 1, price: 0 }] } } });
    expect(priced.body.data.menuName).toBe('Kanekt first');
    const patched = await suite.world.hosted('PATCH', `/Menus/${encodeURIComponent('Kanekt second')}`, { body: [{ op: 'replace', path: '/serviceTypes', value: ['Kanekt365'] }] });
    expect(patched.body.messagesDetails.map((m: { id: string }) => m.id)).toEqual(['serviceTypes[0]']);
  }); // prettier-ignore

  it.each([
    ['displayName missing', { displayName: undefined }, 'body.data.displayName'],
    ['displayName blank', { displayName: '  ' }, 'body.data.displayName'],
    ['maxModifierLevels 5', { maxModifierLevels: 5 }, 'body.data.maxModifierLevels'],
    ['negative price', { groups: [{ id: 'g', displayName: 'G', items: [{ id: 'i', displayName: 'I', priceInfo: { price: -1 } }] }] }, 'body.data.groups[0].items[0].priceInfo.price'],
    ['fractional price', { groups: [{ id: 'g', displayName: 'G', items: [{ id: 'i', displayName: 'I', priceInfo: { price: 1.5 } }] }] }, 'body.data.groups[0].items[0].priceInfo.price'],
    ['negative modifierCredit', { groups: [{ id: 'g', displayName: 'G', items: [{ id: 'i', displayName: 'I', modifierCredit: -1, priceInfo: { price: 1 } }] }] }, 'body.data.groups[0].items[0].modifierCredit'],
    ['tax rate 100.01', { taxTypes: [{ id: 't', displayName: 'T', taxRateInfo: { taxRate: 100.01 } }] }, 'body.data.taxTypes[0].taxRateInfo.taxRate'],
    ['period 9:30', { orderTypes: [{ id: 'p', orderTypeCategory: 'Pickup', displayName: 'P', operationPeriods: [{ dayOfWeek: 'Monday', startTime: '9:30', endTime: '12:00' }] }] }, 'body.data.orderTypes[0].operationPeriods[0].startTime'],
    ['period 24:00', { orderTypes: [{ id: 'p', orderTypeCategory: 'Pickup', displayName: 'P', operationPeriods: [{ dayOfWeek: 'Monday', startTime: '09:30', endTime: '24:00' }] }] }, 'body.data.orderTypes[0].operationPeriods[0].endTime'],
  ])('refuses a field past its limit (%s) with 400 naming it', async (_what, over, path) => {
    const res = await create(menu({ displayName: `bad ${_what}`, ...over }));
    expect(res.status).toBe(400);
    expect(codeOf(res)).toBe('validation_failed');
    expect(res.body.messagesDetails.map((m: { id: string }) => m.id)).toContain(path);
  }); // prettier-ignore

  // A menu of one item (the demo's discounts name items it no longer has).
  const modifier = (over: Record<string, unknown>) => ({
    availableDiscounts: [],
    groups: [
      {
        id: 'g',
        displayName: 'G',
        items: [
          {
            id: 'i',
            displayName: 'I',
            priceInfo: { price: 100 },
            modifiers: [{ id: 'c', displayName: 'C', modifiers: [{ id: 'm', displayName: 'M', ...over }] }],
          },
        ],
      },
    ],
  });
  it.each([
    ['minimumQuantity 0 and 1 pass, 2 fails', { minimumQuantity: 2 }],
    ['maximumQuantity 0 fails', { maximumQuantity: 0 }],
    ['maximumQuantity 101 fails', { maximumQuantity: 101 }],
  ])('checks modifier quantities: %s', async (what, over) => {
    const res = await create(menu({ displayName: what, ...modifier(over) }));
    expect(res.status).toBe(400);
  });
  it('takes modifier quantities at their bounds (0..1, 1..100) and 4 levels, not 5', async () => {
    expect((await create(menu({ displayName: 'q1', ...modifier({ minimumQuantity: 1, maximumQuantity: 100 }) }))).status).toBe(201);
    expect((await create(menu({ displayName: 'q2', ...modifier({ minimumQuantity: 0, maximumQuantity: 1 }) }))).status).toBe(201);
    const nest = (levels: number): unknown[] =>
      levels === 0 ? [] : [{ id: `c${levels}`, displayName: 'C', modifiers: [{ id: `m${levels}`, displayName: 'M', modifiers: nest(levels - 1) }] }];
    const deep = (levels: number, max?: number) => ({
      ...(max ? { maxModifierLevels: max } : {}),
      availableDiscounts: [],
      groups: [{ id: 'g', displayName: 'G', items: [{ id: 'i', displayName: 'I', priceInfo: { price: 1 }, modifiers: nest(levels) }] }],
    });
    expect((await create(menu({ displayName: 'four', ...deep(4) }))).status).toBe(201);
    const five = await create(menu({ displayName: 'five', ...deep(5) }));
    expect(five.status).toBe(422);
    expect(codeOf(five)).toBe('menu_invalid');
    expect(five.body.messagesDetails[1].message).toMatch(/5 levels deep.*maxModifierLevels is 4/);
    expect((await create(menu({ displayName: 'two of 2', ...deep(2, 2) }))).status).toBe(201);
    expect((await create(menu({ displayName: 'three of 2', ...deep(3, 2) }))).status).toBe(422);
  }); // prettier-ignore

  it('checks discount requirement counts from 1 up to what is listed, and every id a discount names', async () => {
    const withDiscount = (conditions: Record<string, unknown>) =>
      menu({
        displayName: `d ${JSON.stringify(conditions)}`,
        availableDiscounts: [
          { id: 'x', displayName: 'X', discountScope: 'Order', discountType: 'AmountOff', discountValue: 100, conditions },
        ],
      });
    expect((await create(withDiscount({ menuGroups: ['pizzas', 'sides'], menuGroupRequirments: 2 }))).status).toBe(201);
    const three = await create(withDiscount({ menuGroups: ['pizzas', 'sides'], menuGroupRequirments: 3 }));
    expect(three.status).toBe(422);
    expect(three.body.messagesDetails[1].id).toBe('body.data.availableDiscounts[0].conditions.menuGroupRequirments');
    expect((await create(withDiscount({ items: ['soda'], itemRequirments: 0 }))).status).toBe(400);
    const unknown = await create(withDiscount({ items: ['nope'] }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.messagesDetails[1]).toMatchObject({ id: 'body.data.availableDiscounts[0].conditions.items[0]', message: 'No item nope in this menu.' });
  }); // prettier-ignore

  it('patches a menu with RFC 6902, all or nothing, and lists what is out of stock', async () => {
    const patch = (body: unknown, name = 'Main', headers?: Record<string, string>) =>
      suite.world.hosted('PATCH', `/Menus/${name}`, { body, headers });
    const ok = await patch(
      [
        { op: 'test', path: '/groups/1/items/0/id', value: 'garlic-knots' },
        { op: 'replace', path: '/groups/1/items/0/isAvailable', value: false },
        { op: 'replace', path: '/groups/0/items/0/priceInfo/price', value: 1850 },
      ],
      'Main',
      { 'content-type': 'application/json-patch+json' },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.data.groups[0].items[0].priceInfo.price).toBe(1850);
    const oos = await suite.world.hosted('GET', '/Menus/Main/OutOfStock');
    expect(oos.body.data).toEqual([
      { stockItemId: 'gluten-free', stockItemType: 'modifier' },
      { stockItemId: 'garlic-knots', stockItemType: 'item' },
    ]);
    expect((await suite.world.hosted('GET', '/OutOfStock?serviceType=GrubHub')).body.data).toEqual(oos.body.data);

    const before = (await suite.world.hosted('GET', '/Menus/Main')).body.data;
    const refused: [unknown, number, string][] = [
      [[{ op: 'replace', path: '/groups/0/items/0/id', value: 'x' }], 405, 'patch_not_allowed'],
      [[{ op: 'remove', path: '/id' }], 405, 'patch_not_allowed'],
      [[{ op: 'test', path: '/displayName', value: 'Other' }, { op: 'replace', path: '/maxModifierLevels', value: 3 }], 409, 'patch_test_failed'],
      [[{ op: 'replace', path: '/groups/9/items/0/isAvailable', value: true }], 400, 'invalid_patch'],
      [[{ op: 'jump', path: '/displayName' }], 400, 'validation_failed'],
      [[{ op: 'replace', path: '/groups/0/items/0/priceInfo/price', value: -5 }], 422, 'menu_invalid'],
      [[{ op: 'replace', path: '/maxModifierLevels', value: 0 }], 422, 'menu_invalid'],
      [[{ op: 'add', path: '/availableDiscounts/-', value: { id: 'x', displayName: 'X', discountScope: 'Item', discountType: 'AmountOff', discountValue: 1, conditions: { items: ['nope'] } } }], 422, 'menu_invalid'],
      [[{ op: 'add', path: '/__proto__/polluted', value: 1 }], 400, 'invalid_patch'],
      [[{ op: 'add', path: '/groups/0/zzz', value: 1 }], 400, 'invalid_patch'],
      [[{ op: 'add', path: '/groups/0/items/0/price', value: 100 }], 400, 'invalid_patch'],
      [[{ op: 'add', path: '/~2', value: 1 }], 400, 'validation_failed'],
      [[{ op: 'copy', from: '/groups/~', path: '/x' }], 400, 'validation_failed'],
      [{ op: 'replace' }, 400, 'validation_failed'],
    ];
    for (const [body, status, code] of refused) {
      const res = await patch(body);
      expect([res.status, codeOf(res)], JSON.stringify(body)).toEqual([status, code]);
      expect(HostedErrorBody.safeParse(res.body).success).toBe(true);
    }
    expect((await suite.world.hosted('GET', '/Menus/Main')).body.data).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await patch([{ op: 'replace', path: '/isAvailable', value: true }], 'Nope')).status).toBe(404);
    // A menu renamed by patch is found under its new name.
    const renamed = await patch([{ op: 'replace', path: '/displayName', value: 'Lunch' }], 'q1');
    expect(renamed.status).toBe(200);
    expect((await suite.world.hosted('GET', '/Menus/Lunch')).status).toBe(200);
    expect((await suite.world.hosted('GET', '/Menus/q1')).status).toBe(404);
  }); // prettier-ignore
});

describe('PATCH /Menus/{menuName}: an object keeps its id for life, whatever the operation', () => {
  // A menu of its own, on the other demo store: the other tests' listings of store 1001 stay as they are.
  const ids = (m: { groups: { id: string; items: { id: string }[] }[] }) =>
    m.groups.map((g) => `${g.id}: ${g.items.map((i) => i.id).join(' ')}`);
  const patch = (body: unknown) => suite.world.hosted('PATCH', '/Menus/Ids', { body, store: 1002 });
  const read = async () => (await suite.world.hosted('GET', '/Menus/Ids', { store: 1002 })).body.data;

  it('refuses an object written over by one of another id (405 patch_not_allowed), the menu unchanged', async () => {
    expect((await create(menu({ displayName: 'Ids', serviceTypes: ['GrubHub'] }), 1002)).status).toBe(201);
    const before = await read();
    const pepperoni = before.groups[0].items[1];
    const refused: [string, unknown[], string, string][] = [
      ['an item replaced whole', [{ op: 'replace', path: '/groups/0/items/1', value: { ...pepperoni, id: 'zz' } }], 'body[0].value', 'it writes id "zz" over the object of id "pepperoni-lg", and an object keeps its id for life'],
      ['an item replaced by one without an id', [{ op: 'replace', path: '/groups/0/items/1', value: { displayName: 'X', priceInfo: { price: 1 } } }], 'body[0].value', 'it writes an object without an id over the object of id "pepperoni-lg", and an object keeps its id for life'],
      ['a group replaced whole, after a harmless operation', [{ op: 'replace', path: '/groups/2/displayName', value: 'Cold drinks' }, { op: 'replace', path: '/groups/2', value: { ...before.groups[2], id: 'beverages' } }], 'body[1].value', 'it writes id "beverages" over the object of id "drinks", and an object keeps its id for life'],
      ['the menu replaced whole', [{ op: 'replace', path: '', value: { ...before, id: before.id + 1 } }], 'body[0].value', `it writes id ${before.id + 1} over the object of id ${before.id}, and an object keeps its id for life`],
      ['a tax type copied over the menu', [{ op: 'copy', from: '/taxTypes/0', path: '' }], 'body[0].from', `it writes id "food" over the object of id ${before.id}, and an object keeps its id for life`],
    ];
    for (const [what, body, field, why] of refused) {
      const res = await patch(body);
      expect([res.status, res.body.messagesDetails[1]], what).toEqual([405, { id: field, message: why, messageType: 'ERROR' }]);
      expect(codeOf(res)).toBe('patch_not_allowed');
    }
    expect(await read()).toEqual(before);
  }); // prettier-ignore

  it('still takes an object changed in place, added, removed, moved, or a list written whole', async () => {
    const before = await read();
    const veggie = before.groups[0].items[2];
    const taken: [string, unknown[], string[]][] = [
      ['an item replaced whole with its own id', [{ op: 'replace', path: '/groups/0/items/2', value: { ...veggie, displayName: 'Veggie' } }], ['pizzas: margherita-lg pepperoni-lg veggie-lg', 'sides: garlic-knots caesar', 'drinks: soda lager']],
      ['a new item inserted before the others', [{ op: 'add', path: '/groups/0/items/0', value: { id: 'calzone', displayName: 'Calzone', priceInfo: { price: 1500 } } }], ['pizzas: calzone margherita-lg pepperoni-lg veggie-lg', 'sides: garlic-knots caesar', 'drinks: soda lager']],
      ['an item removed, and a new one added where it was', [{ op: 'remove', path: '/groups/0/items/3' }, { op: 'add', path: '/groups/0/items/3', value: { id: 'bianca', displayName: 'Bianca', priceInfo: { price: 1700 } } }], ['pizzas: calzone margherita-lg pepperoni-lg bianca', 'sides: garlic-knots caesar', 'drinks: soda lager']],
      ['an item moved to another group', [{ op: 'move', from: '/groups/0/items/0', path: '/groups/1/items/0' }], ['pizzas: margherita-lg pepperoni-lg bianca', 'sides: calzone garlic-knots caesar', 'drinks: soda lager']],
      ['a list written whole, its objects those it lists', [{ op: 'replace', path: '/groups/0/items', value: [before.groups[0].items[0], { ...veggie, id: 'veggie-md' }] }], ['pizzas: margherita-lg veggie-md', 'sides: calzone garlic-knots caesar', 'drinks: soda lager']],
    ];
    for (const [what, body, after] of taken) {
      const res = await patch(body);
      expect(res.status, `${what}: ${res.text}`).toBe(200);
      expect(ids(res.body.data), what).toEqual(after);
    }
    expect((await read()).groups[0].items[1].displayName).toBe('Garden veggie, large');
  }); // prettier-ignore
});

describe('PATCH /Menus/{menuName}: invalid_patch says what is wrong in its own words', () => {
  it.each<[string, unknown[], string, string]>([
    ['a prototype path', [{ op: 'add', path: '/__proto__/polluted', value: 1 }], 'body[0].path', "Operation 0 (add /__proto__/polluted) cannot be applied: /__proto__/polluted names __proto__, constructor or prototype, which no menu field is; nothing was changed."],
    ['a move into itself, as the second operation', [{ op: 'test', path: '/displayName', value: 'Main' }, { op: 'move', from: '/groups/0', path: '/groups/0/items/0/x' }], 'body[1].path', 'Operation 1 (move /groups/0/items/0/x) cannot be applied: it moves /groups/0 into itself; nothing was changed.'],
    ['a path through nothing', [{ op: 'replace', path: '/groups/9/items/0/isAvailable', value: true }], 'body[0].path', 'Operation 0 (replace /groups/9/items/0/isAvailable) cannot be applied: the menu has nothing at /groups/9/items/0/isAvailable; nothing was changed.'],
    ['an add under nothing', [{ op: 'add', path: '/groups/9/items/0/isAvailable', value: true }], 'body[0].path', 'Operation 0 (add /groups/9/items/0/isAvailable) cannot be applied: the menu has no object or list at /groups/9/items/0 to add to; nothing was changed.'],
    ['a list index that is not a number', [{ op: 'add', path: '/groups/x', value: {} }], 'body[0].path', 'Operation 0 (add /groups/x) cannot be applied: /groups is a list: its index must be a whole number, or - to append; nothing was changed.'],
    ['an index past the end', [{ op: 'add', path: '/groups/50', value: {} }], 'body[0].path', 'Operation 0 (add /groups/50) cannot be applied: /groups has fewer than 50 items: use /groups/- to append; nothing was changed.'],
    ['a from that names nothing', [{ op: 'copy', from: '/groups/9', path: '/groups/-' }], 'body[0].from', 'Operation 0 (copy /groups/-) cannot be applied: the menu has nothing at /groups/9 (its from); nothing was changed.'],
  ])('%s', async (_what, body, field, message) => {
    const res = await suite.world.hosted('PATCH', '/Menus/Main', { body });
    expect(res.status).toBe(400);
    expect(res.body.messagesDetails).toEqual([
      { id: 'invalid_patch', message, messageType: 'ERROR' },
      { id: field, message: message.replace(/^.*cannot be applied: (.*); nothing was changed\.$/, '$1'), messageType: 'ERROR' },
    ]);
  }); // prettier-ignore
});

describe('POST /Menus: a percent has at most 3 decimals, as pricing reads it', () => {
  // Pricing computes on thousandths of a percent: 33.3333 % of 3,000.00 is 1,000.00, it charged 999.99.
  it.each<[string, Record<string, unknown>, number, string]>([
    ['a tax rate', { displayName: 'Rate4', taxTypes: [{ id: 'food', displayName: 'Tax', taxRateInfo: { taxRate: 33.3333 } }] }, 400, 'body.data.taxTypes[0].taxRateInfo.taxRate'],
    ['an order type tax rate', { displayName: 'Rate4t', taxTypes: [{ id: 'food', displayName: 'Tax', taxRateInfo: { taxRate: 8.875, orderTypeTaxes: [{ orderTypeId: 'Pickup', taxRate: 8.8755 }] } }] }, 400, 'body.data.taxTypes[0].taxRateInfo.orderTypeTaxes[0].taxRate'],
    ['a PercentOff discount', { displayName: 'Rate4d', availableDiscounts: [{ ...DEMO_MENU.availableDiscounts[0], discountValue: 12.3456 }] }, 422, 'body.data.availableDiscounts[0].discountValue'],
    ['a Percent delivery fee', { displayName: 'Rate4f', deliveryOptions: { deliveryFeeType: 'Percent', deliveryFeeValue: 10.0001 } }, 422, 'body.data.deliveryOptions.deliveryFeeValue'],
  ])('refuses %s of 4 decimals, naming it', async (_what, over, status, field) => {
    const res = await create(menu(over), 1002);
    expect([res.status, res.body.messagesDetails[1]?.id]).toEqual([status, field]);
    expect(res.body.messagesDetails[1].message).toMatch(/at most 3 decimals, such as 8\.875/);
  }); // prettier-ignore

  it('takes 3 decimals', async () => {
    const taxTypes = [{ id: 'food', displayName: 'Tax', taxRateInfo: { taxRate: 12.345 } }];
    expect(
      (await create(menu({ displayName: 'Rate3', taxTypes, groups: [], availableDiscounts: [] }), 1002))
        .status,
    ).toBe(201);
  });
});

describe('POST /Menus: a fee or discount in cents is at most what a price may be', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['an Amount delivery fee', { displayName: 'Fee3e9', deliveryOptions: { deliveryFeeType: 'Amount', deliveryFeeValue: 3e9 } }, 'body.data.deliveryOptions.deliveryFeeValue'],
    ['an AmountOff discount', { displayName: 'Off3e9', availableDiscounts: [{ ...DEMO_MENU.availableDiscounts[2], discountValue: 3e9 }] }, 'body.data.availableDiscounts[0].discountValue'],
  ])('refuses %s of 3,000,000,000 cents (422 menu_invalid), naming it', async (_what, over, field) => {
    const res = await create(menu(over), 1002);
    expect([res.status, codeOf(res), res.body.messagesDetails[1]?.id]).toEqual([422, 'menu_invalid', field]);
    expect(res.body.messagesDetails[1].message).toMatch(/whole cents, 0 to 2147483647\.$/);
  }); // prettier-ignore
});

describe('a discount window has both ends or neither', () => {
  // One end alone was taken and read as no window: the discount applied all day.
  const lateNight = DEMO_MENU.availableDiscounts[3]; // the demo's late-night soda, 21:00 to 02:00
  it.each<[string, Record<string, unknown>, string, string]>([
    ['a startTime alone', { ...lateNight, endTime: undefined }, 'body.data.availableDiscounts[0].endTime', 'startTime is 21:00 but endTime is missing'],
    ['an endTime alone', { ...lateNight, startTime: undefined }, 'body.data.availableDiscounts[0].startTime', 'endTime is 02:00 but startTime is missing'],
  ])('refuses a new menu with %s (422 menu_invalid naming the missing one), storing nothing', async (what, discount, field, says) => {
    const displayName = `Window ${what}`;
    const res = await create(menu({ displayName, serviceTypes: ['Menufy'], availableDiscounts: [discount] }), 1002);
    expect([res.status, codeOf(res), res.body.data]).toEqual([422, 'menu_invalid', null]);
    expect(res.body.messagesDetails[1]).toEqual({ id: field, message: expect.stringContaining(says), messageType: 'ERROR' });
    expect(res.body.messagesDetails[1].message).toMatch(/set both .* or neither to offer it all day\.$/);
    expect((await suite.world.hosted('GET', `/Menus/${encodeURIComponent(displayName)}`, { store: 1002 })).status).toBe(404);
  }); // prettier-ignore

  it('refuses a patch that removes one end (422 menu_invalid), the menu unchanged; both ends or neither are taken', async () => {
    const window = (over: Record<string, unknown>) => ({ ...lateNight, ...over });
    const both = await create(menu({ displayName: 'Window both', serviceTypes: ['Menufy'], availableDiscounts: [lateNight] }), 1002);
    const neither = await create(menu({ displayName: 'Window neither', serviceTypes: ['Menufy'], availableDiscounts: [window({ startTime: undefined, endTime: undefined })] }), 1002);
    expect([both.status, neither.status]).toEqual([201, 201]);
    const read = async () => (await suite.world.hosted('GET', '/Menus/Window%20both', { store: 1002 })).body.data;
    const before = await read();
    const patched = await suite.world.hosted('PATCH', '/Menus/Window%20both', { store: 1002, body: [{ op: 'remove', path: '/availableDiscounts/0/endTime' }] });
    expect([patched.status, codeOf(patched), patched.body.messagesDetails[1]?.id]).toEqual([422, 'menu_invalid', 'availableDiscounts[0].endTime']);
    expect(await read()).toEqual(before);
    const none = await suite.world.hosted('PATCH', '/Menus/Window%20both', { store: 1002, body: [{ op: 'remove', path: '/availableDiscounts/0/endTime' }, { op: 'remove', path: '/availableDiscounts/0/startTime' }] });
    expect(none.status, none.text).toBe(200);
    expect(none.body.data.availableDiscounts[0]).not.toHaveProperty('startTime');
  }); // prettier-ignore

  it('a menu stored with one end before the rule is patched again after migration 0029, which removes the lone end pricing never read', async () => {
    const db = suite.platform.app.ctx.db;
    const [lone, kept] = [await create(menu({ displayName: 'Window lone', serviceTypes: ['Menufy'], availableDiscounts: [lateNight] }), 1002), await create(menu({ displayName: 'Window kept', serviceTypes: ['Menufy'], availableDiscounts: [lateNight] }), 1002)];
    expect([lone.status, kept.status]).toEqual([201, 201]);
    // As the platform stored it before the rule.
    await db.execute(sql`update hosted_menus set menu = menu #- '{availableDiscounts,0,endTime}' where name = 'Window lone'`);
    const rename = [{ op: 'replace', path: '/availableDiscounts/0/displayName', value: 'Soda after nine' }];
    const refused = await suite.world.hosted('PATCH', '/Menus/Window%20lone', { store: 1002, body: rename });
    expect([refused.status, refused.body.messagesDetails[1]?.id]).toEqual([422, 'availableDiscounts[0].endTime']);
    await db.execute(sql.raw(readFileSync(join(MIGRATIONS_FOLDER, '0029_hosted_discount_lone_window_end.sql'), 'utf8')));
    const patched = await suite.world.hosted('PATCH', '/Menus/Window%20lone', { store: 1002, body: rename });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.availableDiscounts[0]).toMatchObject({ displayName: 'Soda after nine', discountValue: lateNight.discountValue });
    expect(patched.body.data.availableDiscounts[0]).not.toHaveProperty('startTime');
    const untouched = await suite.world.hosted('GET', '/Menus/Window%20kept', { store: 1002 });
    expect(untouched.body.data.availableDiscounts[0]).toMatchObject({ startTime: '21:00', endTime: '02:00' });
  }); // prettier-ignore
});

describe('PATCH /Menus/{menuName}: a value holding a field the menu does not have is refused, not dropped', () => {
  // A menu of its own, on the other demo store: the other tests' menus stay as they are.
  const patch = (body: unknown) => suite.world.hosted('PATCH', '/Menus/Strict', { body, store: 1002 });
  const read = async () => (await suite.world.hosted('GET', '/Menus/Strict', { store: 1002 })).body.data;
  const calzone = { id: 'calzone', displayName: 'Calzone', priceInfo: { price: 1500 } };
  const exactly = "(a patch's field names are matched exactly, case included)";
  beforeAll(async () => {
    expect(
      (await create(menu({ displayName: 'Strict', serviceTypes: ['GoogleOrdering'] }), 1002)).status,
    ).toBe(201);
  });

  it.each<[string, unknown[], string, string, string]>([
    ['a misspelt field deep in an added item, after a harmless operation', [{ op: 'replace', path: '/groups/0/displayName', value: 'Pies' }, { op: 'add', path: '/groups/0/items/-', value: { ...calzone, modifiers: [{ id: 'c', displayName: 'C', modifiers: [{ id: 'ham', displayName: 'Ham', descripton: 'typo' }] }] } }], 'body[1].value.modifiers[0].modifiers[0].descripton', 'descripton', 'Operation 1 (add /groups/0/items/-) writes a field the menu does not have, the first groups[0].items[3].modifiers[0].modifiers[0].descripton'],
    ['a field of a replaced price', [{ op: 'replace', path: '/groups/0/items/0/priceInfo', value: { price: 1900, prise: 1900 } }], 'body[0].value.prise', 'prise', 'Operation 0 (replace /groups/0/items/0/priceInfo) writes a field the menu does not have, the first groups[0].items[0].priceInfo.prise'],
    ['a field in another case (a patch is read exactly)', [{ op: 'add', path: '/groups/1/items/0', value: { ...calzone, IsAvailable: false } }], 'body[0].value.IsAvailable', 'IsAvailable', 'Operation 0 (add /groups/1/items/0) writes a field the menu does not have, the first groups[1].items[0].IsAvailable'],
    ['a field the spec spells otherwise, in a discount', [{ op: 'add', path: '/availableDiscounts/0', value: { id: 'x', displayName: 'X', discountScope: 'Order', discountType: 'AmountOff', discountValue: 100, conditions: { menuGroups: ['pizzas'], menuGroupRequirements: 1 } } }], 'body[0].value.conditions.menuGroupRequirements', 'menuGroupRequirements', 'Operation 0 (add /availableDiscounts/0) writes a field the menu does not have, the first availableDiscounts[0].conditions.menuGroupRequirements'],
    ['a field moved after it was added', [{ op: 'add', path: '/groups/1/items/-', value: { ...calzone, sku: 'C1' } }, { op: 'move', from: '/groups/1/items/2', path: '/groups/2/items/0' }], 'body[1].path', 'sku', 'Operation 1 (move /groups/2/items/0) writes a field the menu does not have, the first groups[2].items[0].sku'],
  ])('refuses %s (400 invalid_patch naming it), the menu unchanged', async (_what, body, field, name, says) => {
    const before = await read();
    const res = await patch(body);
    expect([res.status, res.body.data, res.body.messagesDetails[0].id]).toEqual([400, null, 'invalid_patch']);
    expect(res.body.messagesDetails[0].message).toBe(`${says}; a patch is read exactly as sent, so nothing was changed.`);
    expect(res.body.messagesDetails.slice(1)).toEqual([{ id: field, message: `${name} is not a field of the menu ${exactly}`, messageType: 'ERROR' }]);
    expect(await read()).toEqual(before);
  }); // prettier-ignore

  it('still takes values of known fields only, and the whole menu written back as read (its id included)', async () => {
    const before = await read();
    const added = await patch([{ op: 'add', path: '/groups/0/items/-', value: { ...calzone, description: 'Folded', modifiers: [{ id: 'c', displayName: 'C', modifiers: [{ id: 'ham', displayName: 'Ham', modifierpriceInfo: { price: 150 } }] }] } }]);
    expect([added.status, added.body.messagesDetails]).toEqual([200, []]);
    expect(added.body.data.groups[0].items.at(-1)).toMatchObject({ id: 'calzone', description: 'Folded' });
    const whole = await patch([{ op: 'replace', path: '', value: { ...added.body.data, displayName: 'Strict' } }]);
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body.data.id).toBe(before.id);
  }); // prettier-ignore
});

describe('PATCH /Menus/{menuName}: a patch cannot blow a menu up', () => {
  it('refuses copies that would make the menu larger than a menu may be sent (400 invalid_patch), at once', async () => {
    // Each copy of /groups into itself doubles the menu: 14 took seconds, 20 ran the process out of memory.
    const body = Array.from({ length: 14 }, () => ({ op: 'copy', from: '/groups', path: '/groups/-' }));
    const started = Date.now();
    const res = await suite.world.hosted('PATCH', '/Menus/Main', { body });
    expect(Date.now() - started).toBeLessThan(1000);
    expect([res.status, res.body.messagesDetails[0].id]).toEqual([400, 'invalid_patch']);
    expect(res.body.messagesDetails[1]).toMatchObject({
      id: expect.stringMatching(/^body\[\d+\]\.from$/),
      message: `copying /groups would make the menu larger than ${suite.platform.config.bodyLimit} bytes`,
    });
  });
});

describe('Menu API access', () => {
  it('is 404 for a store of a company not granted, an unknown store, and 401 without a token', async () => {
    await importCompany(suite.platform.app.ctx.db, suite.platform.config.encryptionKey, {
      company: { id: 900, name: 'Other Co' },
      stores: [{ id: 9001, name: 'Other', timeZone: 'Pacific Standard Time', menus: [DEMO_MENU] }],
    });
    for (const store of [9001, 424242]) {
      const res = await suite.world.hosted('GET', '/Menus/Main', { store });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        data: null,
        messagesDetails: [{ id: 'not_found', messageType: 'ERROR' }],
      });
    }
    const anonymous = await call('GET', `${suite.platform.url}/Menus/Main`, {
      headers: { 'x-store': String(DEMO_STORE_ID) },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ data: null, messagesDetails: [{ id: 'missing_token' }] });
    const noStore = await call('GET', `${suite.platform.url}/Menus/Main`, {
      token: suite.world.partner.token,
    });
    expect(noStore.status).toBe(400);
    expect(noStore.body.messagesDetails[1].id).toBe('headers.x-store');
    for (const bad of ['abc', '0', '1.5', '99999999999']) {
      expect((await suite.world.hosted('GET', '/Menus/Main', { store: bad })).status).toBe(400);
    }
    const wrongMethod = await suite.world.hosted('DELETE', '/Menus/Main');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, PATCH');
    const narrow = await suite.world.partner.tokenWith(['orders']);
    const forbidden = await suite.world.hosted('GET', '/Menus/Main', { token: narrow });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.messagesDetails[0].id).toBe('insufficient_scope');
  });
});

describe('menu names in the path', () => {
  it('matches a menu name exactly, case included (a store may have "Main" and "main"), and names the menu a 404 differs from only in case', async () => {
    for (const path of ['/Menus/main', '/Menus/MAIN/OutOfStock']) {
      const res = await suite.world.hosted('GET', path);
      expect([path, res.status, codeOf(res), res.body.message]).toEqual([path, 404, 'not_found', `The store has no menu named "${path.split('/')[2]}"; menu names match exactly, case included: did you mean "Main"?`]);
    }
    const patched = await suite.world.hosted('PATCH', '/Menus/mAIN', { body: [{ op: 'replace', path: '/isAvailable', value: true }] });
    expect([patched.status, patched.body.message]).toEqual([404, 'The store has no menu named "mAIN"; menu names match exactly, case included: did you mean "Main"?']);
    expect((await suite.world.hosted('GET', '/Menus/Brunch')).body.message).toBe('The store has no menu named "Brunch".');
    // "main" is another name: a menu of it can be created beside Main, and each is found by its own.
    expect((await create(menu({ displayName: 'main', serviceTypes: ['Menufy'] }))).status).toBe(201);
    expect((await suite.world.hosted('GET', '/Menus/main')).body.data).toMatchObject({ displayName: 'main', serviceTypes: ['Menufy'] });
    expect((await suite.world.hosted('GET', '/Menus/Main')).body.data.displayName).toBe('Main');
    expect((await suite.world.hosted('GET', '/Menus/MAIN')).body.message).toBe('The store has no menu named "MAIN"; menu names match exactly, case included: did you mean "Main" or "main"?');
  }); // prettier-ignore
});
