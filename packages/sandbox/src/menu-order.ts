import type { DspOrder, MenuFile } from '@stream/contracts/apis/become-a-dsp/index';
import { demoDspOrder } from './send.ts';

/**
 * Orders from a published menu, as a DSP's customer would: what the DSP's `POST /_sandbox/send`
 * and `stream-sandbox dsp send-order` both put in a `new_order` sent without items. No Fastify
 * here: the CLI uses it without starting a server.
 */

/**
 * A `new_order` for store S without items, given S's published menu file (`menuFileOf(S)`), orders
 * from that menu: its stream_ids, their prices, a subtotal and an 8.625 % tax, in the demo order with
 * the given fields on top (a partial order is a partial order, even one naming its id and fulfillment
 * type: it still gets the demo customer). Anything else, or a store without a menu, is answered as given.
 */
export function withMenuItems(input: unknown, menuFileOf: (storeId: string) => unknown): unknown {
  const given = (input ?? {}) as { type?: unknown; location_id?: unknown; order?: Record<string, unknown> };
  if (!needsMenuItems(given)) return input;
  const menu = menuOrderFrom(menuFileOf(given.location_id as string));
  if (!menu) return input;
  const tax = Math.round(menu.subtotal * 0.08625);
  const fromMenu = { items: menu.items, subtotal: menu.subtotal, tax };
  return { ...given, order: demoDspOrder({ ...(given.order as Partial<DspOrder>), ...fromMenu }) };
}

/** Whether `input` is a `new_order` naming a store whose order has no items (absent or a partial object). */
export function needsMenuItems(input: unknown): boolean {
  const given = (input ?? {}) as { type?: unknown; location_id?: unknown; order?: unknown };
  if (given.type !== 'new_order' || typeof given.location_id !== 'string') return false;
  const { order } = given;
  return (
    order === undefined ||
    (typeof order === 'object' && order !== null && !Array.isArray(order) && !('items' in order))
  );
}

interface FileItem {
  id: string;
  item_id: string;
  name: string;
  quantity: number;
  price: number;
  currency: string;
  modifiers: {
    id: string;
    modifier_group_id: string;
    name: string;
    quantity: number;
    price: number;
    currency: string;
  }[];
}

/**
 * What a demo order orders from a store's published menu `menuFile` (v1 or v2): the first active item
 * with its first variation and, if it has choices, the first modifier of its first group; named by the
 * menu's stream_ids, as a real DSP's order would be. Undefined without a menu or an orderable item.
 */
export function menuOrderFrom(menuFile: unknown): { items: FileItem[]; subtotal: number } | undefined {
  const file = menuFile as
    | (MenuFile & { item_families?: undefined })
    | {
        item_families: {
          stream_id: string;
          name: string;
          is_active?: boolean;
          item_ids: string[];
          modifier_group_ids: string[];
        }[];
        items: { stream_id: string; name: string; price: number; currency: string; is_active?: boolean }[];
        modifier_groups: { stream_id: string; modifier_ids: string[] }[];
        modifiers: { stream_id: string; name: string; price: number; currency: string }[];
      }
    | undefined;
  if (!file) return undefined;
  type Named = { stream_id: string; name: string };
  type Priced = Named & { price: number; currency: string; is_active?: boolean | undefined };
  /** The first family's first active variation, and its first choice if it has one, in either form. */
  const choices: {
    family: Named & { is_active?: boolean | undefined };
    variations: (Priced | undefined)[];
    group?: { stream_id: string } | undefined;
    modifier?: Priced | undefined;
  }[] = [];
  if (file.item_families) {
    const byId = <T extends { stream_id: string }>(list: T[]) => new Map(list.map((o) => [o.stream_id, o]));
    const [items, groups, modifiers] = [byId(file.items), byId(file.modifier_groups), byId(file.modifiers)];
    for (const family of file.item_families) {
      const group = groups.get(family.modifier_group_ids[0] ?? '');
      choices.push({
        family,
        variations: family.item_ids.map((id) => items.get(id)),
        group,
        modifier: modifiers.get(group?.modifier_ids[0] ?? ''),
      });
    }
  } else {
    for (const family of file.menus.flatMap((m) => m.categories.flatMap((c) => c.items))) {
      const group = family.modifier_groups[0];
      choices.push({ family, variations: family.variations, group, modifier: group?.modifiers[0] });
    }
  }
  let item: FileItem | undefined;
  for (const { family, variations, group, modifier } of choices) {
    const variation = variations.find((v) => v && v.is_active !== false);
    if (family.is_active === false || !variation) continue;
    item = {
      id: variation.stream_id,
      item_id: family.stream_id,
      name: `${family.name} (${variation.name})`,
      quantity: 1,
      price: variation.price,
      currency: variation.currency,
      modifiers:
        group && modifier
          ? [
              {
                id: modifier.stream_id,
                modifier_group_id: group.stream_id,
                name: modifier.name,
                quantity: 1,
                price: modifier.price,
                currency: modifier.currency,
              },
            ]
          : [],
    };
    break;
  }
  if (!item) return undefined;
  return { items: [item], subtotal: item.price + item.modifiers.reduce((sum, m) => sum + m.price, 0) };
}
