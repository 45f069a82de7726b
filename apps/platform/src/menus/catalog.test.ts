import { describe, expect, it } from 'vitest';
import { EXAMPLE_CATALOG } from '@stream/contracts/apis/become-a-pos/catalog';
import { DEMO_CATALOG } from '@stream/sandbox/catalog';
import { loadCatalog, normalizeCatalog, storeCatalog, validDate, validRange } from './catalog.ts';

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
      item: [
        {
          provider_id: 'i',
          name: 'I',
          price_amount: 100,
          price_currency: 'USD',
          dsp_price_amount_overrides: [{ dsp: 'deliveroo', price_amount: 120 }, { dsp: 'uber', price_amount: 110 }],
        },
      ],
    });
    expect(catalog.item.get('i')!.dsp_price_amount_overrides).toEqual([{ dsp: 'uber', price_amount: 110 }]);
    expect(problems).toEqual([
      {
        severity: 'warning',
        kind: 'item',
        id: 'i',
        field: 'dsp_price_amount_overrides[0].dsp',
        message:
          '"deliveroo" is not a delivery platform a price can be overridden for (doordash, uber, grubhub, chownow, flipdish); this override is dropped and the item keeps its other prices.',
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
      item: [
        { provider_id: 'ok', name: 'Taco', price_amount: 100, price_currency: 'USD' },
        { provider_id: 'nul', name: 'Ta\u0000co', price_amount: 100, price_currency: 'USD' },
        { provider_id: 'half', name: 'Taco \ud800', price_amount: 100, price_currency: 'USD' },
      ],
    });
    expect([...catalog.item.keys()]).toEqual(['ok']);
    expect(problems.map((p) => [p.severity, p.kind, p.id, p.field])).toEqual([
      ['error', 'item', 'nul', 'name'],
      ['error', 'item', 'half', 'name'],
    ]);
    expect(problems[0]!.message).toMatch(/^name: .+; the item is left out\.$/);
    expect(() => JSON.stringify(storeCatalog(catalog))).not.toThrow();
  }); // prettier-ignore
});
