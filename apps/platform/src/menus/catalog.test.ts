import { describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG } from '@stream/contracts/apis/become-a-pos/catalog';
import { useIssueSentences } from '@stream/contracts/issue-sentences';
import { DEMO_CATALOG } from '@stream/sandbox/catalog';
import { resolve, toV1 } from './build.ts';
import { loadCatalog, normalizeCatalog, storeCatalog, validDate, validRange } from './catalog.ts';

useIssueSentences(); // as every server of the platform does

describe('normalizeCatalog', () => {
  it('takes a well-formed catalog whole, with no problem', () => {
    for (const raw of [EXAMPLE_CATALOG, DEMO_CATALOG]) {
      const { catalog, problems } = normalizeCatalog(raw);
      expect(problems).toEqual([]);
      expect([...catalog.item.keys()]).toEqual((raw.item ?? []).map((i) => i.provider_id));
      expect(loadCatalog(JSON.parse(JSON.stringify(storeCatalog(catalog))))).toEqual(catalog);
    }
  });

  it('keeps extra fields out and takes absent kinds as empty', () => {
    const { catalog, problems } = normalizeCatalog({
      tax: [{ provider_id: 't', name: 'T', rate: 5, vendor_field: 1 }],
      version: 3,
      vendor: { name: 'x' },
    });
    expect(problems).toEqual([]);
    expect(catalog.tax.get('t')).toEqual({ provider_id: 't', name: 'T', rate: 5 });
    expect(catalog.menu.size).toBe(0);
  });

  it('warns about a list under a key that is not a kind, naming the kind meant (a plural)', () => {
    const { catalog, problems } = normalizeCatalog({ items: [{ provider_id: 'i', name: 'I' }], modifier_groups: [], extras: [{}] });
    expect(catalog.item.size).toBe(0);
    expect(problems.map((p) => [p.severity, p.kind, p.field])).toEqual([['warning', 'catalog', 'items'], ['warning', 'catalog', 'modifier_groups'], ['warning', 'catalog', 'extras']]);
    expect(problems[0]!.message).toBe('"items" is not a kind and was ignored: did you mean "item"? Kinds are singular; the kinds are category, item_family, item, modifier_group, modifier, menu, tax.');
    expect(problems[2]!.message).not.toContain('did you mean');
  }); // prettier-ignore

  it('refuses what is not a catalog', () => {
    for (const raw of [null, [], 'catalog', 3]) {
      expect(normalizeCatalog(raw).problems).toEqual([
        {
          severity: 'error',
          kind: 'catalog',
          id: null,
          field: null,
          message: 'The catalog must be a JSON object keyed by kind (category, item_family, item, ...).',
        },
      ]);
    }
  });

  it('names every broken rule on the object at fault, and keeps the rest', () => {
    const { catalog, problems } = normalizeCatalog({
      category: 'tacos',
      item_family: [
        { provider_id: 'fam-ok', name: 'OK', price_amount: 100, price_currency: 'USD' },
        { provider_id: 'fam-ok', name: 'Second' },
        { provider_id: 'fam-empty', name: 'No price, no item' },
        { provider_id: 'fam-lower', name: 'Lower', price_amount: 100, price_currency: 'usd' },
        { provider_id: 'fam-nocur', name: 'No currency', price_amount: 100 },
        { provider_id: 'fam-cents', name: 'Cents', price_amount: 1.5, price_currency: 'USD' },
      ],
      modifier: [{ provider_id: 'mod-x' }],
      menu: [
        {
          provider_id: 'menu-1',
          name: 'Menu',
          schedule: {
            monday: ['11:00-15:00', '9-17', '18:00-18:00', '22:00-02:00'],
            tuesday: ['17:00-24:00'],
          },
          // An hour of one digit is read (the public docs write holiday hours so); `8-12` is no range.
          holidays: [{ date: '02-30' }, { date: '12-25', hours: ['8:00-12:00', '8-12'] }],
        },
      ],
    });
    expect(problems.map((p) => [p.severity, p.kind, p.id, p.field])).toEqual([
      ['error', 'category', null, 'category'],
      ['warning', 'item_family', 'fam-ok', 'provider_id'],
      ['error', 'item_family', 'fam-lower', 'price_currency'],
      ['error', 'item_family', 'fam-nocur', 'price_currency'],
      ['error', 'item_family', 'fam-cents', 'price_amount'],
      ['error', 'modifier', 'mod-x', 'name'],
      ['warning', 'menu', 'menu-1', 'schedule.monday[1]'],
      ['warning', 'menu', 'menu-1', 'schedule.monday[2]'],
      ['warning', 'menu', 'menu-1', 'holidays[0].date'],
      ['warning', 'menu', 'menu-1', 'holidays[1].hours[1]'],
      ['error', 'item_family', 'fam-empty', 'price_amount'],
      ['warning', 'item_family', 'fam-ok', null], // no category lists it
    ]);
    expect(problems.at(-1)!.message).toBe(
      'No category lists it (item_family_ids), so no menu shows it; add it to a category.',
    );
    expect(problems.find((p) => p.id === 'fam-ok')!.message).toBe(
      'A second item_family fam-ok is dropped (the first one listed is kept): provider_ids are unique per kind, so give each its own.',
    );
    expect(problems.find((p) => p.id === 'fam-lower')!.message).toBe(
      'price_currency must be upper-case ISO-4217 such as USD, not "usd"; the object is left out.',
    );
    // In the words every server installs (`useIssueSentences`), its full stop folded into the sentence.
    expect(problems.find((p) => p.id === 'fam-cents')!.message).toBe(
      'price_amount: must be a whole number, not 1.5; the item_family is left out.',
    );
    expect(problems.find((p) => p.id === 'fam-empty')!.message).toMatch(/needs at least one item/);
    expect([...catalog.item_family.keys()]).toEqual(['fam-ok']);
    expect(catalog.item_family.get('fam-ok')!.name).toBe('OK');
    expect(catalog.menu.get('menu-1')!.schedule).toEqual({
      monday: ['11:00-15:00', '22:00-02:00'],
      tuesday: ['17:00-24:00'],
    });
    expect(catalog.menu.get('menu-1')!.holidays).toEqual([{ date: '12-25', hours: ['08:00-12:00'] }]);
  });
});

describe('schedule and holiday formats', () => {
  it.each([
    ['11:00-15:00', true],
    ['00:00-24:00', true],
    ['23:30-23:59', true],
    ['9:00-17:00', false],
    ['17:00-11:00', false],
    ['22:00-02:00', false],
    ['11:00-11:00', false],
    ['24:00-24:30', false],
    ['11:60-12:00', false],
    ['11:00 - 15:00', false],
  ])('%s is %s as a range', (range, ok) => expect(validRange(range)).toBe(ok));
  it.each([
    ['22:00-02:00', true],
    ['18:00-00:00', true],
    ['11:00-15:00', true],
    ['11:00-11:00', false],
    ['23:00-24:30', false],
  ])('%s is %s as a schedule range, which may run past midnight', (range, ok) =>
    expect(validRange(range, true)).toBe(ok),
  );
  it.each([
    ['12-25', true],
    ['02-29', true],
    ['02-30', false],
    ['13-01', false],
    ['1-5', false],
  ])('%s is %s as a date', (date, ok) => expect(validDate(date)).toBe(ok));
});

describe('what real POS serialisers send', () => {
  it('reads null as absent: an optional field sent as null keeps the object (a required one is still named)', () => {
    const { catalog, problems } = normalizeCatalog({
      category: [{ provider_id: 'c', name: 'Cafés ☕', description: null, is_active: null, item_family_ids: ['f'] }],
      item_family: [
        {
          provider_id: 'f',
          name: 'Crème brûlée',
          description: null,
          price_amount: 650,
          price_currency: 'EUR',
          item_ids: null,
          modifier_group_ids: null,
          tax_ids: null,
          sku: null,
          upc: null,
          images: null,
          allergens: null,
          location_overrides: [{ location_id: 'loc-1', price_amount: null, is_active: false }],
        },
        { provider_id: 'f-noname', name: null, price_amount: 1, price_currency: 'EUR' },
      ],
      modifier_group: [{ provider_id: 'g', name: 'G', rules: { selection_type: null, maximum_unique_modifiers_allowed: null } }],
      menu: [{ provider_id: 'm', name: 'M', schedule: { monday: ['08:00-12:00'], tuesday: null }, holidays: null, location_memberships: null, category_ids: ['c'] }],
      tax: [{ provider_id: 't', name: 'VAT', rate: 10, is_inclusive: true, is_default: null }],
    });
    expect(problems.map((p) => [p.severity, p.kind, p.id, p.field])).toEqual([['error', 'item_family', 'f-noname', 'name']]);
    expect(catalog.category.get('c')).toEqual({ provider_id: 'c', name: 'Cafés ☕', item_family_ids: ['f'] });
    expect(catalog.item_family.get('f')).toEqual({
      provider_id: 'f',
      name: 'Crème brûlée',
      price_amount: 650,
      price_currency: 'EUR',
      location_overrides: [{ location_id: 'loc-1', is_active: false }],
    });
    expect(catalog.modifier_group.get('g')!.rules).toEqual({});
    expect(catalog.menu.get('m')!.schedule).toEqual({ monday: ['08:00-12:00'] });
    expect(catalog.tax.get('t')).toEqual({ provider_id: 't', name: 'VAT', rate: 10, is_inclusive: true });
  }); // prettier-ignore

  it('drops a price override for a platform it does not know with a warning, and keeps the object', () => {
    const { catalog, problems } = normalizeCatalog({
      modifier: [
        {
          provider_id: 'i',
          name: 'I',
          price_amount: 100,
          price_currency: 'USD',
          dsp_price_amount_overrides: [{ dsp: 'deliveroo', price_amount: 120 }, { dsp: 'uber', price_amount: 110 }],
        },
      ],
    });
    expect(catalog.modifier.get('i')!.dsp_price_amount_overrides).toEqual([{ dsp: 'uber', price_amount: 110 }]);
    expect(problems).toEqual([
      {
        severity: 'warning',
        kind: 'modifier',
        id: 'i',
        field: 'dsp_price_amount_overrides[0].dsp',
        message:
          '"deliveroo" is not a delivery platform a price can be overridden for (doordash, uber, grubhub, chownow, flipdish); this override is dropped and the modifier keeps its other prices.',
      },
    ]);
  }); // prettier-ignore
  it('drops an image a DSP must not receive (not http(s), or with credentials) with a warning, and keeps the object', () => {
    const kept = [{ provider_url: 'https://pos.example/img/taco.jpg' }, { provider_url: 'http://pos.example/b.png' }];
    const bad = ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'file:///etc/passwd', '/img/relative.jpg', 'https://user:pw@pos.example/a.jpg'];
    const { catalog, problems } = normalizeCatalog({
      item_family: [{ provider_id: 'f', name: 'F', price_amount: 100, price_currency: 'USD', images: [...bad.map((provider_url) => ({ provider_url })), ...kept] }],
      modifier: [{ provider_id: 'm', name: 'M', images: [{ provider_url: 'javascript:alert(1)' }] }],
    });
    expect(catalog.item_family.get('f')!.images).toEqual(kept);
    expect(catalog.modifier.get('m')!.images).toEqual([]);
    const imageProblems = problems.filter((p) => p.field?.startsWith('images'));
    expect(imageProblems.map((p) => [p.severity, p.kind, p.id, p.field])).toEqual([
      ...bad.map((_, i) => ['warning', 'item_family', 'f', `images[${i}].provider_url`]),
      ['warning', 'modifier', 'm', 'images[0].provider_url'],
    ]);
    expect(imageProblems[0]!.message).toBe('The image URL is not an absolute http:// or https:// URL; this image is dropped and the item_family keeps its other fields.');
    expect(imageProblems[4]!.message).toBe('The image URL carries a user name or password, which every DSP would receive; this image is dropped and the item_family keeps its other fields.');
    // The password is not repeated in the problem the partner reads.
    expect(JSON.stringify(problems)).not.toContain('pw@');
  }); // prettier-ignore

  it('leaves out an object holding text the database cannot keep (NUL, a lone surrogate), naming the field, and keeps the rest', () => {
    const { catalog, problems } = normalizeCatalog({
      modifier: [
        { provider_id: 'ok', name: 'Taco', price_amount: 100, price_currency: 'USD' },
        { provider_id: 'nul', name: 'Ta\u0000co', price_amount: 100, price_currency: 'USD' },
        { provider_id: 'half', name: 'Taco \ud800', price_amount: 100, price_currency: 'USD' },
      ],
    });
    expect([...catalog.modifier.keys()]).toEqual(['ok']);
    expect(problems.map((p) => [p.severity, p.kind, p.id, p.field])).toEqual([
      ['error', 'modifier', 'nul', 'name'],
      ['error', 'modifier', 'half', 'name'],
    ]);
    expect(problems[0]!.message).toMatch(/^name: .+; the modifier is left out\.$/);
    expect(() => JSON.stringify(storeCatalog(catalog))).not.toThrow();
  }); // prettier-ignore
  it('takes whole numbers for every id and reference, as their decimal strings, and builds the menu they name', () => {
    const schedule = { monday: ['11:00-15:00'] };
    const numbered = {
      menu: [{ provider_id: 40, name: 'Lunch', schedule, category_ids: [1], location_memberships: [1042] }],
      category: [{ provider_id: 1, name: 'Tacos', item_family_ids: [10] }],
      item_family: [{ provider_id: 10, name: 'Taco', item_ids: [11], modifier_group_ids: [20], tax_ids: [30] }],
      item: [{ provider_id: 11, name: 'One', item_family_id: 10, price_amount: 450, price_currency: 'USD', location_overrides: [{ location_id: 1042, price_amount: 500 }], menu_overrides: [{ menu_id: 40, price_amount: 475 }] }],
      modifier_group: [{ provider_id: 20, name: 'Salsa', modifier_ids: [21], rules: { default_modifier_quantities: [{ modifier_id: 21, quantity: 1 }] } }],
      modifier: [{ provider_id: 21, name: 'Verde', price_amount: 0, price_currency: 'USD' }],
      tax: [{ provider_id: 30, name: 'Sales tax', rate: 8.625 }],
    };
    const { catalog, problems } = normalizeCatalog(numbered);
    expect(problems).toEqual([]);
    const strings = JSON.parse(JSON.stringify(numbered).replace(/("(?:provider_id|item_family_id|location_id|menu_id|modifier_id)":)(\d+)/g, '$1"$2"').replace(/\[(\d+)\]/g, '["$1"]')) as unknown;
    expect(catalog).toEqual(normalizeCatalog(strings).catalog);
    expect(catalog.item.get('11')).toMatchObject({ item_family_id: '10', location_overrides: [{ location_id: '1042', price_amount: 500 }] });
    const target = { locationId: 'loc_n', posLocationId: '1042', platform: null, prepTimeMinutes: 15, maxModifierDepth: 3 };
    const resolved = resolve(catalog, target);
    expect(resolved.rejections).toEqual([]);
    expect(toV1(resolved).menus[0]!.categories[0]!.items[0]!.variations[0]).toMatchObject({ name: 'One', price: 475 });
    // A problem names an object by its id as a string too.
    expect(normalizeCatalog({ item: [{ provider_id: 12, name: 'No currency', price_amount: 1 }] }).problems[0]!.id).toBe('12');
  }); // prettier-ignore
});

describe('objects naming one the catalog does not hold (never sent, or left out for a problem of its own)', () => {
  it('leaves out what cannot be sold without it, in turn, and drops only the entry of a list naming it', () => {
    const priced = { price_amount: 100, price_currency: 'USD' };
    const { catalog, problems } = normalizeCatalog({
      menu: [{ provider_id: 'menu', name: 'Menu', schedule: { monday: ['11:00-15:00'] }, category_ids: ['cat', 'cat-gone'] }],
      category: [{ provider_id: 'cat', name: 'Cat', item_family_ids: ['fam-ok', 'fam-group', 'fam-tax', 'fam-sizes', 'fam-exempt'] }],
      item_family: [
        { provider_id: 'fam-ok', name: 'OK', ...priced, modifier_group_ids: ['grp-ok'], tax_ids: ['tax'] },
        // Its group is left out (below): so is it.
        { provider_id: 'fam-group', name: 'Group', ...priced, modifier_group_ids: ['grp-ok', 'grp-short'] },
        { provider_id: 'fam-tax', name: 'Tax', ...priced, tax_ids: ['tax', 'tax-broken'] },
        // Its sizes all gone and no price of its own: nothing to sell.
        { provider_id: 'fam-sizes', name: 'Sizes', item_ids: ['itm-gone'] },
        { provider_id: 'fam-exempt', name: 'Exempt', ...priced, tax_ids: ['tax-gone'], is_tax_exempt: true },
      ],
      modifier_group: [
        { provider_id: 'grp-ok', name: 'OK', modifier_ids: ['mod-ok', 'mod-gone'], rules: { default_modifier_quantities: [{ modifier_id: 'mod-gone', quantity: 1 }, { modifier_id: 'mod-ok', quantity: 1 }] } },
        // Needs one of its modifiers, whose only one nests a group that is not there.
        { provider_id: 'grp-short', name: 'Short', modifier_ids: ['mod-nested'], rules: { minimum_unique_modifiers_allowed: 1 } },
      ],
      modifier: [
        { provider_id: 'mod-ok', name: 'OK', ...priced },
        { provider_id: 'mod-nested', name: 'Nested', ...priced, modifier_group_ids: ['grp-gone'] },
      ],
      tax: [{ provider_id: 'tax', name: 'Tax', rate: 5 }, { provider_id: 'tax-broken', name: 'Broken', rate: 'five' }],
    });
    expect(problems.map((p) => [p.severity, p.kind, p.id, p.field])).toEqual([
      ['error', 'tax', 'tax-broken', 'rate'],
      ['warning', 'modifier_group', 'grp-ok', 'modifier_ids'],
      ['error', 'modifier', 'mod-nested', 'modifier_group_ids'],
      ['error', 'modifier_group', 'grp-short', 'modifier_ids'],
      ['error', 'item_family', 'fam-group', 'modifier_group_ids'],
      ['error', 'item_family', 'fam-tax', 'tax_ids'],
      ['warning', 'item_family', 'fam-sizes', 'item_ids'],
      ['error', 'item_family', 'fam-sizes', 'price_amount'],
      ['warning', 'menu', 'menu', 'category_ids'],
      ['warning', 'category', 'cat', 'item_family_ids'],
      ['warning', 'category', 'cat', 'item_family_ids'],
      ['warning', 'category', 'cat', 'item_family_ids'],
      ['warning', 'modifier_group', 'grp-ok', 'rules.default_modifier_quantities'],
    ]);
    expect(problems[1]!.message).toBe('It names modifier mod-gone, which the catalog does not hold (never sent, or left out for a problem of its own); only this entry is dropped: add it or remove the reference.');
    expect(problems[2]!.message).toBe('It names modifier_group grp-gone, which the catalog does not hold (never sent, or left out for a problem of its own); the modifier is left out until you add it or remove the reference.');
    expect(problems[3]!.message).toBe('It asks for at least 1 of its modifiers and the catalog holds 0 of them; the modifier_group is left out until you add modifiers or lower minimum_unique_modifiers_allowed.');
    expect(problems.slice(9).map((p) => p.message)).toEqual(['fam-group', 'fam-tax', 'fam-sizes', 'mod-gone'].map((id) => expect.stringContaining(` ${id}, `)));
    expect([...catalog.item_family.keys()]).toEqual(['fam-ok', 'fam-exempt']);
    expect(catalog.menu.get('menu')!.category_ids).toEqual(['cat']);
    expect(catalog.category.get('cat')!.item_family_ids).toEqual(['fam-ok', 'fam-exempt']);
    expect(catalog.modifier_group.get('grp-ok')).toMatchObject({ modifier_ids: ['mod-ok'], rules: { default_modifier_quantities: [{ modifier_id: 'mod-ok', quantity: 1 }] } });
    expect(resolve(catalog, { locationId: 'loc_d', posLocationId: 'loc-1', platform: null, prepTimeMinutes: 15, maxModifierDepth: 3 }).rejections).toEqual([]);
  }); // prettier-ignore

  it('leaves out an item no family holds, saying why, as it would be on no menu; one a family lists needs no item_family_id', () => {
    const priced = { price_amount: 100, price_currency: 'USD' };
    const { catalog, problems } = normalizeCatalog({
      category: [{ provider_id: 'cat', name: 'Cat', item_family_ids: ['fam', 'fam-group'] }],
      item_family: [
        { provider_id: 'fam', name: 'Fam', item_ids: ['itm-listed'] },
        { provider_id: 'fam-group', name: 'Group', modifier_group_ids: ['grp-gone'] },
      ],
      item: [
        { provider_id: 'itm-listed', name: 'Listed', ...priced },
        { provider_id: 'itm-named', name: 'Named', item_family_id: 'fam', ...priced },
        { provider_id: 'itm-none', name: 'None', ...priced },
        { provider_id: 'itm-gone', name: 'Gone', item_family_id: 'fam-gone', ...priced },
        // Its family is left out for a problem of its own: so is it.
        { provider_id: 'itm-group', name: 'Group', item_family_id: 'fam-group', ...priced },
      ],
    });
    expect(problems.map((p) => [p.severity, p.kind, p.id, p.field])).toEqual([
      ['error', 'item_family', 'fam-group', 'modifier_group_ids'],
      ['error', 'item', 'itm-none', 'item_family_id'],
      ['error', 'item', 'itm-gone', 'item_family_id'],
      ['error', 'item', 'itm-group', 'item_family_id'],
      ['warning', 'category', 'cat', 'item_family_ids'],
    ]);
    expect(problems[1]!.message).toBe("No item family holds it, so no menu can show it: give it its item_family_id, or list it in a family's item_ids. The item is left out.");
    expect(problems[2]!.message).toBe('It names item_family fam-gone, which the catalog does not hold (never sent, or left out for a problem of its own); the item is left out until you add it or remove the reference.');
    expect([...catalog.item.keys()]).toEqual(['itm-listed', 'itm-named']);
  }); // prettier-ignore
});
