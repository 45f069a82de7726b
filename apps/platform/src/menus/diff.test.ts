import { describe, expect, it } from 'vitest';
import { DEMO_CATALOG } from '@stream/sandbox/catalog';
import { MENU_LIMITS, resolve, toV1, toV2 } from './build.ts';
import { normalizeCatalog } from './catalog.ts';
import { diffMenus } from './diff.ts';

const target = {
  locationId: 'loc_d',
  posLocationId: 'loc-mission',
  platform: null,
  prepTimeMinutes: 20,
  maxModifierDepth: MENU_LIMITS.maxModifierDepth,
};
const files = (raw: typeof DEMO_CATALOG) => {
  const r = resolve(normalizeCatalog(raw).catalog, target);
  return { v1: toV1(r), v2: toV2(r) };
};

describe('diffMenus', () => {
  const before = files(DEMO_CATALOG);

  it('finds nothing between a file and itself read back with its keys reordered', () => {
    const reordered = JSON.parse(JSON.stringify(before.v1), (_k, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    );
    expect(diffMenus(before.v1, reordered)).toEqual({ added: [], removed: [], changed: [] });
  });

  it('names what was added, removed and changed, with the fields, in both forms', () => {
    const changed = structuredClone(DEMO_CATALOG);
    changed.modifier!.find((m) => m.provider_id === 'mod-cheese')!.price_amount = 100;
    changed.category!.find((c) => c.provider_id === 'cat-drinks')!.item_family_ids = ['fam-horchata'];
    changed.item_family!.push({
      provider_id: 'fam-agua',
      name: 'Agua fresca',
      price_amount: 300,
      price_currency: 'USD',
    });
    changed.category!.find((c) => c.provider_id === 'cat-drinks')!.item_family_ids!.push('fam-agua');
    const after = files(changed);
    for (const form of ['v1', 'v2'] as const) {
      const diff = diffMenus(before[form], after[form]);
      expect(diff.added.map((a) => [a.kind, a.name])).toEqual([
        ['item_family', 'Agua fresca'],
        ['item', 'Agua fresca'],
      ]);
      expect(diff.removed.map((a) => [a.kind, a.name])).toEqual([
        ['item_family', 'Mexican lager'],
        ['item', 'Mexican lager'],
      ]);
      expect(diff.changed.map((c) => [c.kind, c.name, c.fields]).sort()).toEqual([
        ['category', 'Drinks', [form === 'v1' ? 'items' : 'item_family_ids']],
        ['modifier', 'Cheese', ['price']],
      ]);
    }
  });
});
