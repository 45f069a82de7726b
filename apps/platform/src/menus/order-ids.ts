import type { DspOrderItem, DspOrderModifier } from '@stream/contracts/apis/become-a-dsp/index';
import { statement, run } from '../db/raw.ts';
import type { DbOrTx } from '../db/client.ts';

/**
 * The POS ids of what a DSP order names, through the location's published menus (`menu_items`):
 * order translation maps each stream_id to its provider_id, and an id the menus never published is
 * `pos_missing_items`.
 */

/**
 * Every id an order's items name: variations, items, categories, modifiers and their groups, nested.
 * A category is looked up only for its state: one the POS turned off takes the items ordered from it
 * off too, as a family takes its sizes (its menu is published again without it, but a DSP may still
 * show the old one); translation never maps it, so a category the menus never held refuses nothing.
 */
export function idsOf(items: readonly DspOrderItem[]): string[] {
  const ids = new Set<string>();
  const modifier = (m: DspOrderModifier): void => {
    ids.add(m.id);
    if (m.modifier_group_id) ids.add(m.modifier_group_id);
    m.modifiers?.forEach(modifier);
  };
  for (const item of items) {
    ids.add(item.id);
    if (item.item_id) ids.add(item.item_id);
    if (item.category_id) ids.add(item.category_id);
    item.modifiers?.forEach(modifier);
  }
  return [...ids];
}

/**
 * The ids an order failing `items_unavailable` names to the DSP: a turned-off category stands for the
 * items ordered from it, which the DSP can match to its lines; any other id is named as it is.
 */
export function unavailableOf(items: readonly DspOrderItem[], inactive: readonly string[]): string[] {
  const named = new Set<string>();
  for (const id of inactive) {
    const ordered = items.filter((i) => i.category_id === id).map((i) => i.id);
    for (const n of ordered.length ? ordered : [id]) named.add(n);
  }
  return [...named];
}

/*
 * An item is off when it is, or when its family is (a POS turns a family off and on as a whole), or
 * when every category listing its family in the served menus is (`category_provider_ids` on the
 * family's row; null, on a row recorded before it was, refuses nothing). A line naming its category is
 * checked by that category as well (`idsOf`): one off refuses it, and one on that lists the family is
 * a category of it on. The check is by item, not by line: a line naming an active category that does
 * not list its family is refused too when all of the family's are off.
 * One statement on the hot path: the family and its categories are found through
 * `menu_items_families_categories` (location_id, kind, provider_id), each in a few index pages.
 */
const LOOKUP = statement(
  'menu_items_lookup',
  `select i.stream_id as "streamId", i.provider_id as "providerId",
     i.is_active and not exists (select 1 from menu_items f where f.location_id = i.location_id
       and f.kind = 'item_family' and f.provider_id = i.family_provider_id
       and (not f.is_active or (cardinality(f.category_provider_ids) > 0
         and not exists (select 1 from menu_items c where c.location_id = i.location_id
           and c.kind = 'category' and c.provider_id = any(f.category_provider_ids) and c.is_active)))) as "isActive"
   from menu_items i where i.location_id = $1 and i.stream_id = any($2::text[])`,
);

/**
 * stream_id -> provider_id for the ids the location's menus published (the others are absent), and
 * the ids the POS turned off (an order with them fails `items_unavailable`).
 */
export async function menuIdsOf(
  db: DbOrTx,
  locationId: string,
  ids: readonly string[],
): Promise<{ ids: Map<string, string>; inactive: string[] }> {
  const rows = await run<{ streamId: string; providerId: string; isActive: boolean }>(db, LOOKUP, [
    locationId,
    ids,
  ]);
  return {
    ids: new Map(rows.map((r) => [r.streamId, r.providerId])),
    inactive: rows.filter((r) => !r.isActive).map((r) => r.streamId),
  };
}
