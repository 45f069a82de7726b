import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MenuFileV1, MenuFileV2 } from '@stream/contracts/apis/become-a-dsp/menu-file';
import type { PosCatalog } from '@stream/contracts/apis/become-a-pos/catalog';
import { DEMO_CATALOG } from '@stream/sandbox/catalog';
import { MENU_LIMITS, resolve, streamIdOf, toV1, toV2, weekOf, type MenuTarget } from './build.ts';
import { loadCatalog, normalizeCatalog, type StoredCatalog } from './catalog.ts';

const target: MenuTarget = {
  locationId: 'loc_golden',
  posLocationId: 'loc-mission',
  platform: 'doordash',
  prepTimeMinutes: 20,
  maxModifierDepth: MENU_LIMITS.maxModifierDepth,
};
const build = (raw: PosCatalog, t: Partial<MenuTarget> = {}) =>
  resolve(normalizeCatalog(raw).catalog, { ...target, ...t });

/** Compares with the golden file; `UPDATE_GOLDEN=1` rewrites it (review the diff before committing). */
function golden(name: string, value: unknown) {
  const path = new URL(`./golden/${name}`, import.meta.url);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, 'utf8'));
}

describe('menu files of the demo catalog', () => {
  const resolved = build(DEMO_CATALOG);

  it('have no rejection', () => {
    expect(resolved.rejections).toEqual([]);
  });

  it('v1 (nested) matches its golden file and the contract', () => {
    const v1 = toV1(resolved);
    expect(MenuFileV1.safeParse(v1).error?.issues).toBeUndefined();
    golden('demo-v1.json', v1);
  });

  it('v2 (flat) matches its golden file and the contract', () => {
    const v2 = toV2(resolved);
    expect(MenuFileV2.safeParse(v2).error?.issues).toBeUndefined();
    golden('demo-v2.json', v2);
  });

  it('hold the menus of the location only, with prices after location, menu and platform overrides', () => {
    const v2 = toV2(resolved);
    expect(v2.menus.map((m) => m.name)).toEqual(['Lunch', 'Dinner', 'Weekend brunch']);
    expect(toV2(build(DEMO_CATALOG, { posLocationId: 'loc-williamsburg' })).menus.map((m) => m.name)).toEqual(
      ['Lunch', 'Dinner'],
    );
    const item = (raw: PosCatalog, id: string, t: Partial<MenuTarget> = {}) =>
      toV2(build(raw, t)).items.find((i) => i.stream_id === streamIdOf(target.locationId, 'item', id))!;
    // doordash's price beats the lunch menu's
    expect(item(DEMO_CATALOG, 'itm-carnitas-3')).toMatchObject({ price: 1300 });
    expect(item(DEMO_CATALOG, 'itm-carnitas-3', { platform: 'uber' })).toMatchObject({
      price: 1200,
      menu_specific_overrides: [
        { menu_id: streamIdOf(target.locationId, 'menu', 'menu-lunch'), price: 1100 },
      ],
    });
    expect(item(DEMO_CATALOG, 'itm-bowl-large').price).toBe(1450);
    expect(item(DEMO_CATALOG, 'itm-bowl-large', { posLocationId: 'loc-williamsburg' }).price).toBe(1550);
    // v1 prices each variation on its menu
    const v1 = toV1(build(DEMO_CATALOG, { platform: null }));
    const threeTacos = (menu: string) =>
      v1.menus
        .find((m) => m.name === menu)!
        .categories[0]!.items[0]!.variations.find((v) => v.name === 'Three tacos')!;
    expect([threeTacos('Lunch').price, threeTacos('Dinner').price]).toEqual([1100, 1200]);
    expect(threeTacos('Lunch').currency).toBe('usd');
    // A family's menu price is for the sizes that take the family's price, not those with their own
    // (nor on a platform whose price a size sets).
    const lunch = streamIdOf(target.locationId, 'menu', 'menu-lunch');
    const familyPriced = structuredClone(DEMO_CATALOG);
    familyPriced.item_family!.find((f) => f.provider_id === 'fam-carnitas')!.menu_overrides = [
      { menu_id: 'menu-lunch', price_amount: 999 },
    ];
    const one = item(familyPriced, 'itm-carnitas-1', { platform: null });
    expect(one.menu_specific_overrides ?? []).not.toContainEqual({ menu_id: lunch, price: 999 });
    const bare = structuredClone(familyPriced);
    delete bare.item!.find((i) => i.provider_id === 'itm-carnitas-1')!.price_amount;
    expect(item(bare, 'itm-carnitas-1', { platform: null }).menu_specific_overrides).toContainEqual({
      menu_id: lunch,
      price: 999,
    });
  });

  it('keep every stream_id across builds, and a location its own', () => {
    const again = build(JSON.parse(JSON.stringify(DEMO_CATALOG)));
    expect([...again.mapping.keys()]).toEqual([...resolved.mapping.keys()]);
    const elsewhere = build(DEMO_CATALOG, { locationId: 'loc_other' });
    expect([...elsewhere.mapping.keys()].some((id) => resolved.mapping.has(id))).toBe(false);
    expect(resolved.mapping.get(streamIdOf(target.locationId, 'item', 'itm-carnitas-1'))).toEqual({
      kind: 'item',
      providerId: 'itm-carnitas-1',
      familyProviderId: 'fam-carnitas',
      isActive: true,
    });
    expect(resolved.mapping.get(streamIdOf(target.locationId, 'item', 'itm-horchata-24'))?.isActive).toBe(
      false,
    );
  });

  it('nest modifiers three levels, apply the defaults of rules, and show what is inactive', () => {
    const v1 = toV1(resolved);
    const bowl = v1.menus[0]!.categories[1]!.items[0]!;
    const steak = bowl.modifier_groups[0]!.modifiers.find((m) => m.name === 'Steak')!;
    const medium = steak.nested_modifier_groups[0]!.modifiers[0]!;
    expect(medium.nested_modifier_groups[0]!.name).toBe('Char');
    expect(bowl.modifier_groups[0]!.modifiers.find((m) => m.name === 'Tofu')!.is_active).toBe(false);
    expect(medium.nested_modifier_groups[0]!.rules).toEqual({
      selection_type: 'single',
      minimum_unique_modifiers_allowed: 0,
      maximum_unique_modifiers_allowed: 1,
      amount_of_modifiers_free: 0,
    });
  });
});

/** The demo catalog with `change` applied to a copy. */
function broken(change: (c: Required<PosCatalog>) => void): PosCatalog {
  const copy = JSON.parse(JSON.stringify(DEMO_CATALOG)) as Required<PosCatalog>;
  change(copy);
  return copy;
}

describe('checks before publish', () => {
  it.each([
    [
      'NO_MENUS_ASSIGNED',
      broken((c) => c.menu.forEach((m) => (m.location_memberships = ['loc-elsewhere']))),
      [],
    ],
    [
      'MENU_BLANK',
      broken((c) => c.menu.forEach((m) => (m.category_ids = []))),
      [
        { kind: 'menu', id: 'menu-lunch' },
        { kind: 'menu', id: 'menu-dinner' },
        { kind: 'menu', id: 'menu-brunch' },
      ],
    ],
    [
      'MENU_SCHEDULE_MISSING',
      broken((c) => (c.menu[2]!.schedule = { saturday: ['9-14'] })),
      [{ kind: 'menu', id: 'menu-brunch' }],
    ],
    [
      'MENU_ITEMS_PRICE_TOO_HIGH',
      broken((c) => (c.modifier[3]!.price_amount = 10_000_001)),
      [{ kind: 'modifier', id: 'mod-guac' }],
    ],
    [
      'MENU_ITEMS_PRICE_TOO_HIGH',
      broken((c) => (c.item[0]!.menu_overrides = [{ menu_id: 'menu-lunch', price_amount: 50_000_000 }])),
      [{ kind: 'item', id: 'itm-carnitas-1' }],
    ],
    ['TAX_RATE_TOO_HIGH', broken((c) => (c.tax[0]!.rate = 108.625)), [{ kind: 'tax', id: 'tax-sales' }]],
    ['INVALID_TAX_RATE', broken((c) => (c.tax[1]!.rate = -2.5)), [{ kind: 'tax', id: 'tax-alcohol' }]],
    [
      'MENU_CONTENT_ISSUE',
      broken(
        (c) =>
          (c.modifier.find((m) => m.provider_id === 'mod-light-char')!.modifier_group_ids = ['grp-eggs']),
      ),
      [{ kind: 'modifier_group', id: 'grp-eggs' }],
    ],
    [
      'MENU_CONTENT_ISSUE',
      broken(
        (c) =>
          (c.modifier.find((m) => m.provider_id === 'mod-medium')!.modifier_group_ids = [
            'grp-steak-doneness',
          ]),
      ),
      [{ kind: 'modifier_group', id: 'grp-steak-doneness' }],
    ],
  ])('%s is found locally, with the objects at fault', (code, raw, objects) => {
    const { rejections } = build(raw);
    expect(rejections.map((r) => r.code)).toEqual([code]);
    expect(rejections[0]!.reason).toMatch(/\S/);
    expect(rejections[0]!.objects).toEqual(objects);
  });

  it('lets a DSP allow deeper nesting', () => {
    const deep = broken(
      (c) => (c.modifier.find((m) => m.provider_id === 'mod-light-char')!.modifier_group_ids = ['grp-eggs']),
    );
    expect(build(deep, { maxModifierDepth: 4 }).rejections).toEqual([]);
  });
});

describe('MENU_BLANK', () => {
  const reasonOf = (raw: PosCatalog) => {
    const { catalog, problems } = normalizeCatalog(raw);
    return resolve(catalog, target, problems).rejections.map((r) => [r.code, r.reason]);
  };

  it('says to add item families when the categories list none', () => {
    expect(reasonOf(broken((c) => c.category.forEach((cat) => (cat.item_family_ids = []))))).toEqual([
      [
        'MENU_BLANK',
        'The menus assigned to the location hold no item: add item families to their categories.',
      ],
    ]);
  });

  it('says to fix the item families the categories list when every one was left out for a problem', () => {
    // Every family is taxed by a broken tax (left out with it), once the veggie taco is in no category.
    const allLeftOut = broken((c) => {
      (c.tax[0] as { rate: unknown }).rate = 'eight';
      c.category[0]!.item_family_ids!.pop();
    });
    expect(reasonOf(allLeftOut)).toEqual([
      ['MENU_BLANK', "The menus assigned to the location hold no item: the 5 item families their categories list were left out for a problem or never sent: fix them as the catalog's problems say."],
    ]);
    const one = broken((c) => {
      c.menu.forEach((m) => (m.category_ids = ['cat-bowls']));
      c.item_family.find((f) => f.provider_id === 'fam-bowl')!.modifier_group_ids = ['grp-gone'];
    });
    expect(reasonOf(one)[0]![1]).toBe("The menus assigned to the location hold no item: the 1 item family their categories list was left out for a problem or never sent: fix it as the catalog's problems say.");
  }); // prettier-ignore
});

describe('objects naming one the catalog does not hold', () => {
  const dangling = broken((c) => {
    c.menu[0]!.category_ids!.push('cat-gone');
    c.category[0]!.item_family_ids!.push('fam-gone');
    c.modifier_group[0]!.modifier_ids!.push('mod-gone');
    c.item_family[0]!.tax_ids!.push('tax-gone');
  });

  it('publish the rest: only the family that cannot be sold without its tax is left out, the lists lose the entries', () => {
    const r = build(dangling);
    expect(r.rejections).toEqual([]);
    const withoutCarnitas = broken((c) => {
      c.item_family.shift();
      c.category[0]!.item_family_ids!.shift();
    });
    expect(toV1(r)).toEqual(toV1(build(withoutCarnitas)));
    expect(toV2(r)).toEqual(toV2(build(withoutCarnitas)));
  });

  it('are refused (MENU_CATALOG_MISMATCH) only in a catalog not settled (a stored version is, as it is read)', () => {
    const { rejections } = resolve(loadCatalog(dangling as StoredCatalog), target);
    expect(rejections.map((r) => [r.code, r.objects])).toEqual([
      [
        'MENU_CATALOG_MISMATCH',
        [
          { kind: 'item_family', id: 'fam-carnitas' },
          { kind: 'modifier_group', id: 'grp-salsa' },
          { kind: 'category', id: 'cat-tacos' },
          { kind: 'menu', id: 'menu-lunch' },
        ],
      ],
    ]);
  });
});

describe('should_adjust_for_prep_time', () => {
  it.each([
    [['17:00-22:00'], 20, ['17:00-21:40']],
    [['11:00-11:30', '12:00-15:05'], 30, ['12:00-14:35']],
    [['09:00-09:20'], 20, []],
    [['00:00-23:59'], 0, ['00:00-23:59']],
  ])('closes %j %i minutes earlier: %j', (ranges, minutes, expected) => {
    expect(weekOf({ monday: ranges }, minutes).monday).toEqual(expected);
  });

  it('closes the flagged menus only, by the location prep time, and refuses one left with no hours', () => {
    const dinner = (r: ReturnType<typeof build>) => r.menus.find((m) => m.providerId === 'menu-dinner')!;
    const lunch = (r: ReturnType<typeof build>) => r.menus.find((m) => m.providerId === 'menu-lunch')!;
    const slow = build(DEMO_CATALOG, { prepTimeMinutes: 45 });
    expect(dinner(slow).schedule.saturday).toEqual(['17:00-22:45']);
    expect(lunch(slow).schedule).toEqual(lunch(build(DEMO_CATALOG, { prepTimeMinutes: 5 })).schedule);
    const { rejections } = build(DEMO_CATALOG, { prepTimeMinutes: 400 });
    expect(rejections.map((r) => [r.code, r.objects])).toEqual([
      ['MENU_SCHEDULE_MISSING', [{ kind: 'menu', id: 'menu-dinner' }]],
    ]);
    expect(rejections[0]!.reason).toContain('prep time (400 min)');
  });
});

describe('ranges past midnight', () => {
  const night = (schedule: Record<string, string[]>, adjust = false) =>
    build({
      ...DEMO_CATALOG,
      menu: [
        {
          provider_id: 'menu-late',
          name: 'Late',
          schedule,
          category_ids: ['cat-tacos'],
          ...(adjust ? { should_adjust_for_prep_time: true } : {}),
        },
      ],
    });

  it('splits "22:00-02:00" at midnight: the rest opens the next day (Sunday into Monday), merged with its ranges', () => {
    const r = night({ friday: ['11:00-15:00', '22:00-02:00'], saturday: ['00:00-01:00', '18:00-00:00'], sunday: ['23:00-03:30'] });
    expect(r.rejections).toEqual([]);
    expect(r.menus[0]!.schedule).toEqual({
      monday: ['00:00-03:30'],
      tuesday: [],
      wednesday: [],
      thursday: [],
      friday: ['11:00-15:00', '22:00-24:00'],
      saturday: ['00:00-02:00', '18:00-24:00'],
      sunday: ['23:00-24:00'],
    });
    expect(MenuFileV1.safeParse(toV1(r)).error?.issues).toBeUndefined();
  }); // prettier-ignore

  it('closes an overnight range the prep time before its real end, not at midnight', () => {
    // Prep time 20 min: 02:00 becomes 01:40; 23:50-00:10 is too short to take an order in.
    expect(night({ friday: ['22:00-02:00'], saturday: ['23:50-00:10'] }, true).menus[0]!.schedule).toMatchObject({
      friday: ['22:00-24:00'],
      saturday: ['00:00-01:40'],
      sunday: [],
    });
  }); // prettier-ignore
});

describe('a category with nothing to order', () => {
  it('is left out of both forms (its families missing or none)', () => {
    const r = build({
      ...DEMO_CATALOG,
      category: [...DEMO_CATALOG.category!, { provider_id: 'cat-none', name: 'Coming soon', item_family_ids: [] }],
      menu: DEMO_CATALOG.menu!.map((m) => ({ ...m, category_ids: [...(m.category_ids ?? []), 'cat-none'] })),
    });
    const none = streamIdOf(target.locationId, 'category', 'cat-none');
    expect(JSON.stringify(toV1(r))).not.toContain(none);
    expect(JSON.stringify(toV2(r))).not.toContain(none);
    expect(toV1(r)).toEqual(toV1(build(DEMO_CATALOG)));
    expect(toV2(r)).toEqual(toV2(build(DEMO_CATALOG)));
  }); // prettier-ignore
});

describe("a family's categories in the mapping", () => {
  /** The demo catalog with horchata also in a Specials category on the lunch menu; `off` turned off. */
  const withSpecials = (...off: string[]): PosCatalog =>
    broken((c) => {
      c.category.push({ provider_id: 'cat-specials', name: 'Specials', item_family_ids: ['fam-horchata'] });
      c.menu.find((m) => m.provider_id === 'menu-lunch')!.category_ids!.push('cat-specials');
      for (const cat of c.category) if (off.includes(cat.provider_id)) cat.is_active = false;
    });
  const family = (r: ReturnType<typeof build>, id: string) =>
    r.mapping.get(streamIdOf(target.locationId, 'item_family', id));

  it('lists every category of the served menus that lists the family, on or off, each once', () => {
    expect(family(build(DEMO_CATALOG), 'fam-horchata')?.categoryProviderIds).toEqual(['cat-drinks']);
    expect(family(build(withSpecials()), 'fam-horchata')).toEqual({ kind: 'item_family', providerId: 'fam-horchata', isActive: true, categoryProviderIds: ['cat-drinks', 'cat-specials'] });
    expect(family(build(withSpecials('cat-specials')), 'fam-horchata')?.categoryProviderIds).toEqual(['cat-drinks', 'cat-specials']);
    expect(family(build(withSpecials('cat-drinks')), 'fam-horchata')?.categoryProviderIds).toEqual(['cat-specials', 'cat-drinks']);
    // Only at the location whose menus list it: Brunch is served at the Mission only.
    expect(family(build(DEMO_CATALOG, { posLocationId: 'loc-williamsburg' }), 'fam-chilaquiles')).toBeUndefined();
    // A family's record has it; its items (a family sold as its own variation too) and the rest do not.
    const r = build(DEMO_CATALOG);
    for (const m of r.mapping.values())
      expect(m.categoryProviderIds !== undefined, `${m.kind} ${m.providerId}`).toBe(m.kind === 'item_family' && !m.familyProviderId);
  }); // prettier-ignore

  it('holds a family only turned-off categories list, with them and its own state, though no file does', () => {
    const r = build(withSpecials('cat-specials', 'cat-drinks'));
    const horchata = streamIdOf(target.locationId, 'item_family', 'fam-horchata');
    expect(family(r, 'fam-horchata')).toEqual({ kind: 'item_family', providerId: 'fam-horchata', isActive: true, categoryProviderIds: ['cat-drinks', 'cat-specials'] });
    expect(family(r, 'fam-beer')).toMatchObject({ isActive: true, categoryProviderIds: ['cat-drinks'] });
    expect(JSON.stringify(toV2(r))).not.toContain(horchata);
    // The file is the one without the drinks: the mapping's extra records change nothing in it.
    expect(toV2(r)).toEqual(toV2(build(broken((c) => c.category.find((x) => x.provider_id === 'cat-drinks')!.is_active = false))));
    // Its own state is the catalog's.
    const familyOff = broken((c) => {
      c.category.find((x) => x.provider_id === 'cat-drinks')!.is_active = false;
      c.item_family.find((f) => f.provider_id === 'fam-horchata')!.is_active = false;
    });
    expect(family(build(familyOff), 'fam-horchata')?.isActive).toBe(false);
  }); // prettier-ignore
});

describe('hours with an hour of one digit', () => {
  // The public docs write holiday hours so ("7:15-14:30"); the spec writes HH:mm. Both are read, HH:mm is sent.
  it('reads 7:15-14:30 as 07:15-14:30, in holidays and in the week, and writes the file HH:mm', () => {
    const raw = structuredClone(DEMO_CATALOG);
    const menu = raw.menu![0]!;
    raw.menu = [
      {
        ...menu,
        schedule: { ...menu.schedule, monday: ['7:15-9:45', '11:00-14:30'] },
        holidays: [{ date: '12-24', name: 'Christmas Eve', hours: ['7:15-14:30'] }],
      },
    ];
    const { catalog, problems } = normalizeCatalog(raw);
    expect(problems).toEqual([]);
    const file = toV1(resolve(catalog, target));
    expect(MenuFileV1.safeParse(file).error?.issues).toBeUndefined();
    expect(file.holidays).toEqual([
      { date: '12-24', name: 'Christmas Eve', hours: ['07:15-14:30'], recurring_yearly: true },
    ]);
    expect(file.menus[0]!.schedule.monday).toEqual(['07:15-09:45', '11:00-14:30']);
  });
});

describe('holiday hours past midnight', () => {
  /** The file's holidays for a menu with `holidays`, and the catalog's problems. */
  const holidays = (list: NonNullable<PosCatalog['menu']>[number]['holidays']) => {
    const raw = structuredClone(DEMO_CATALOG);
    raw.menu = [{ ...raw.menu![0]!, holidays: list }];
    const { catalog, problems } = normalizeCatalog(raw);
    const file = toV1(resolve(catalog, target));
    expect(MenuFileV1.safeParse(file).error?.issues).toBeUndefined();
    return { file: file.holidays, problems: problems.filter((p) => p.field?.startsWith('holidays')) };
  };

  it('gives the part after midnight to the next date, split as a week is', () => {
    const { file, problems } = holidays([
      { date: '12-24', name: 'Christmas Eve', hours: ['10:00-14:00', '22:00-02:00'] },
      { date: '12-25', name: 'Christmas' },
      { date: '12-31', hours: ['20:00-01:30'], recurring_yearly: false, specific_years: [2026] },
      { date: '01-01', hours: ['12:00-18:00'], recurring_yearly: false, specific_years: [2027] },
    ]);
    expect(problems).toEqual([]);
    expect(file).toEqual([
      { date: '12-24', name: 'Christmas Eve', hours: ['10:00-14:00', '22:00-24:00'], recurring_yearly: true },
      // Closed all day, but for the night before.
      { date: '12-25', name: 'Christmas', hours: ['00:00-02:00'], recurring_yearly: true },
      { date: '12-31', hours: ['20:00-24:00'], recurring_yearly: false, specific_years: [2026] },
      {
        date: '01-01',
        hours: ['00:00-01:30', '12:00-18:00'],
        recurring_yearly: false,
        specific_years: [2027],
      },
    ]);
  });

  it('closes at midnight, with a warning, when the next date is no holiday (it keeps its regular hours)', () => {
    const { file, problems } = holidays([
      { date: '07-04', hours: ['18:00-01:00'] },
      { date: '12-31', hours: ['20:00-01:30'], recurring_yearly: false, specific_years: [2026] },
      { date: '01-01', hours: ['12:00-18:00'], recurring_yearly: false, specific_years: [2026] },
    ]);
    expect(file.map((h) => [h.date, h.hours])).toEqual([
      ['07-04', ['18:00-24:00']],
      ['12-31', ['20:00-24:00']],
      ['01-01', ['12:00-18:00']],
    ]);
    expect(problems.map((p) => [p.severity, p.field])).toEqual([
      ['warning', 'holidays[0].hours[0]'],
      ['warning', 'holidays[1].hours[0]'],
    ]);
    expect(problems[0]!.message).toMatch(/closes at 24:00/);
  });
});
