import { itemsByFamily, type Catalog } from '../menus/catalog.ts';
import type { RunState } from './check.ts';

/**
 * The catalog object the order checks order, as production sells it (`menus/build.ts` resolve): an
 * active item of an active family, priced by itself or its family; else a priced family with no
 * items, sold as itself; else an active item with its own price outside any family.
 */
export function orderableItem(catalog: Catalog): RunState['item'] {
  const byFamily = itemsByFamily(catalog);
  const active = (o: { is_active?: boolean | undefined }) => o.is_active !== false;
  for (const family of catalog.item_family.values()) {
    if (!active(family)) continue;
    const ids = byFamily.get(family.provider_id) ?? [];
    for (const id of ids) {
      const item = catalog.item.get(id);
      const price = item?.price_amount ?? family.price_amount;
      if (!item || !active(item) || price === undefined) continue;
      const currency = item.price_currency ?? family.price_currency ?? 'USD';
      return { provider_id: id, family_id: family.provider_id, name: item.name, price, currency };
    }
    if (ids.length === 0 && family.price_amount !== undefined) {
      const { provider_id, name, price_amount: price } = family;
      return { provider_id, family_id: provider_id, name, price, currency: family.price_currency ?? 'USD' };
    }
  }
  for (const item of catalog.item.values()) {
    if (active(item) && item.price_amount !== undefined) {
      const { provider_id, name, price_amount: price } = item;
      return { provider_id, name, price, currency: item.price_currency ?? 'USD' };
    }
  }
  return undefined;
}
