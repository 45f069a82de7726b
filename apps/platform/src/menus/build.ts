import { hash } from 'node:crypto';
import type {
  MenuFileV1,
  MenuFileV2,
  MenuModifierGroupV1,
} from '@stream/contracts/apis/become-a-dsp/menu-file';
import type {
  CatalogKind,
  CatalogObjects,
  CatalogSchedule,
} from '@stream/contracts/apis/become-a-pos/catalog';
import type { MenuFailureCode } from '@stream/contracts/apis/become-a-pos/menu-events';
import { isActive, itemsByFamily, type Catalog } from './catalog.ts';

/**
 * A POS location's catalog -> one DSP store's menu file, v1 (nested) or v2 (flat), as pure functions,
 * and every failure the platform can know before calling the DSP, with the objects at fault.
 * `resolve` walks the menus assigned to the location once; `toV1` and `toV2` only lay out what it
 * resolved, so both forms hold the same objects, prices and ids.
 */

export interface MenuTarget {
  /** The org location (`loc_…`): the namespace of its stream_ids. */
  locationId: string;
  /** The POS's id of the location: `location_memberships` and location overrides name it. */
  posLocationId: string;
  /** The delivery platform whose price overrides apply (`dsp_price_amount_overrides`), if any. */
  platform: string | null;
  prepTimeMinutes: number;
  /** Modifier groups nested deeper than this are refused (MENU_CONTENT_ISSUE). */
  maxModifierDepth: number;
}

export const MENU_LIMITS = {
  /** The highest price a DSP accepts: 100,000.00 in the smallest unit. */
  maxPrice: 10_000_000,
  maxModifierDepth: 3,
};

export interface Rejection {
  code: MenuFailureCode;
  reason: string;
  objects: { kind: CatalogKind; id: string }[];
}

/** A stream_id: stable for ever for one location, kind and provider_id (a hash, so no table is needed to keep it). */
export function streamIdOf(locationId: string, kind: CatalogKind, providerId: string): string {
  const digest = hash('sha256', `${locationId}\0${kind}\0${providerId}`, 'base64url');
  return `${PREFIX[kind]}_${digest.slice(0, 22)}`;
}
const PREFIX: Record<CatalogKind, string> = {
  category: 'cat',
  item_family: 'ifm',
  item: 'itm',
  modifier_group: 'mgr',
  modifier: 'mod',
  menu: 'mnu',
  tax: 'tax',
};

/** The provider_id under which a family sold without items is its own variation. */
export const familyVariation = (familyId: string) => `${familyId}#family`;

type Schedule = Required<{ [D in keyof CatalogSchedule]: string[] }>;
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const hhmmOf = (m: number) =>
  `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/**
 * `should_adjust_for_prep_time`: ordering closes `minutes` before each range ends, so the last order
 * is ready by closing time; a range too short for that is dropped. Ranges are `HH:mm-HH:mm`, valid.
 */
export function closeEarlier(ranges: readonly string[], minutes: number): string[] {
  return ranges.flatMap((range) => {
    const [from, to] = range.split('-') as [string, string];
    const end = minutesOf(to) - minutes;
    return end > minutesOf(from) ? [`${from}-${hhmmOf(end)}`] : [];
  });
}

interface Priced {
  price_amount?: number | undefined;
  price_currency?: string | undefined;
  location_overrides?:
    | { location_id: string; price_amount?: number | undefined; is_active?: boolean | undefined }[]
    | undefined;
  menu_overrides?: { menu_id: string; price_amount: number }[] | undefined;
  dsp_price_amount_overrides?: { dsp: string; price_amount: number }[] | undefined;
  is_active?: boolean | undefined;
}

/** What `resolve` found: the objects the file holds, each once, by stream_id, and what is wrong. */
export interface Resolved {
  target: MenuTarget;
  currency: string;
  menus: { id: string; name: string; schedule: Schedule; categoryIds: string[]; providerId: string }[];
  categories: Map<
    string,
    { id: string; name: string; description?: string | undefined; familyIds: string[] }
  >;
  families: Map<string, ResolvedFamily>;
  items: Map<string, ResolvedItem>;
  groups: Map<string, ResolvedGroup>;
  modifiers: Map<string, ResolvedModifier>;
  taxes: MenuFileV1['taxes'];
  holidays: MenuFileV1['holidays'];
  rejections: Rejection[];
  /** stream_id -> the POS object it stands for (what order translation maps through). */
  mapping: Map<
    string,
    { kind: CatalogKind; providerId: string; familyProviderId?: string | undefined; isActive?: boolean }
  >;
}
interface ResolvedFamily {
  id: string;
  name: string;
  description?: string | undefined;
  images?: { url: string }[] | undefined;
  isActive: boolean;
  isAlcohol?: boolean | undefined;
  allergens?: CatalogObjects['item_family']['allergens'];
  itemIds: string[];
  groupIds: string[];
  taxIds: string[];
}
interface ResolvedItem {
  id: string;
  name: string;
  price: number;
  /** Price by menu stream_id, where a menu override differs. */
  menuPrices: Map<string, number>;
  isActive: boolean;
  sku?: string | undefined;
  upc?: string | undefined;
  stockCount?: number | undefined;
}
interface ResolvedGroup {
  id: string;
  name: string;
  modifierIds: string[];
  rules: NonNullable<MenuModifierGroupV1['rules']>;
  defaults?: { modifier_id: string; quantity: number }[] | undefined;
}
interface ResolvedModifier {
  id: string;
  name: string;
  price: number;
  menuPrices: Map<string, number>;
  isActive: boolean;
  images?: { url: string }[] | undefined;
  groupIds: string[];
}

/** No menu overrides: shared, never written to. */
const NO_PRICES: Map<string, number> = new Map();
const mergePrices = (a: Map<string, number>, b: Map<string, number>) =>
  a.size === 0 ? b : b.size === 0 ? a : new Map([...a, ...b]);

export function resolve(catalog: Catalog, target: MenuTarget): Resolved {
  // Groups and menus are named many times: each stream_id is hashed once per build.
  // One map per kind: no key string to build on every lookup.
  const sids = new Map<CatalogKind, Map<string, string>>();
  const sid = (kind: CatalogKind, id: string) => {
    let ofKind = sids.get(kind);
    if (!ofKind) sids.set(kind, (ofKind = new Map()));
    let found = ofKind.get(id);
    if (found === undefined) ofKind.set(id, (found = streamIdOf(target.locationId, kind, id)));
    return found;
  };
  const rejections = new Map<MenuFailureCode, Rejection>();
  const reject = (code: MenuFailureCode, reason: string, kind: CatalogKind, id: string) => {
    // One rejection per code: the first reason, and every object at fault.
    const r = rejections.get(code) ?? { code, reason, objects: [] };
    rejections.set(code, r);
    r.objects.push({ kind, id });
  };
  const missing = (kind: CatalogKind, id: string, from: CatalogKind, fromId: string) =>
    reject(
      'MENU_CATALOG_MISMATCH',
      `${from} ${fromId} names ${kind} ${id}, which the catalog does not hold: add it or remove the reference.`,
      from,
      fromId,
    );
  const out: Resolved = {
    target,
    currency: 'usd',
    menus: [],
    categories: new Map(),
    families: new Map(),
    items: new Map(),
    groups: new Map(),
    modifiers: new Map(),
    taxes: [],
    holidays: [],
    rejections: [],
    mapping: new Map(),
  };
  const currencies = new Set<string>();
  const familyItems = itemsByFamily(catalog);

  // Taxes: the active ones, checked.
  const taxes = [...catalog.tax.values()].filter(isActive);
  for (const tax of taxes) {
    if (!Number.isFinite(tax.rate) || tax.rate < 0)
      reject(
        'INVALID_TAX_RATE',
        `Tax ${tax.provider_id} has rate ${tax.rate}: a rate is a percentage from 0 to 100.`,
        'tax',
        tax.provider_id,
      );
    else if (tax.rate > 100)
      reject(
        'TAX_RATE_TOO_HIGH',
        `Tax ${tax.provider_id} has rate ${tax.rate} %: at most 100.`,
        'tax',
        tax.provider_id,
      );
  }
  out.taxes = taxes.map((t) => ({
    stream_id: sid('tax', t.provider_id),
    name: t.name,
    rate: t.rate,
    ...(t.is_inclusive !== undefined ? { is_inclusive: t.is_inclusive } : {}),
    ...(t.is_default !== undefined ? { is_default: t.is_default } : {}),
  }));
  const activeTax = new Set(taxes.map((t) => t.provider_id));
  const defaultTaxes = taxes.filter((t) => t.is_default).map((t) => sid('tax', t.provider_id));

  const locationOverride = (o: Priced) =>
    o.location_overrides?.find((l) => l.location_id === target.posLocationId);
  const active = (o: Priced) => isActive(o) && locationOverride(o)?.is_active !== false;
  /** The price on the DSP: its platform's override, else the location's, else the catalog's. */
  const basePrice = (o: Priced, fallback = 0) => {
    if (o.price_currency) currencies.add(o.price_currency.toLowerCase());
    const dsp = target.platform
      ? o.dsp_price_amount_overrides?.find((d) => d.dsp === target.platform)
      : undefined;
    return dsp?.price_amount ?? locationOverride(o)?.price_amount ?? o.price_amount ?? fallback;
  };
  /** Menu overrides by menu stream_id (a DSP override beats them: it is the price on that platform). */
  const menuPrices = (o: Priced): Map<string, number> => {
    if (!o.menu_overrides?.length) return NO_PRICES;
    const prices = new Map<string, number>();
    const dsp = target.platform && o.dsp_price_amount_overrides?.some((d) => d.dsp === target.platform);
    if (!dsp) for (const m of o.menu_overrides ?? []) prices.set(sid('menu', m.menu_id), m.price_amount);
    return prices;
  };
  const checkPrice = (price: number, kind: CatalogKind, id: string) => {
    if (price > MENU_LIMITS.maxPrice)
      reject(
        'MENU_ITEMS_PRICE_TOO_HIGH',
        `${kind} ${id} costs ${price}: at most ${MENU_LIMITS.maxPrice} (100,000.00).`,
        kind,
        id,
      );
  };

  // Menus served at the location.
  const menus = [...catalog.menu.values()].filter(
    (m) => isActive(m) && (!m.location_memberships || m.location_memberships.includes(target.posLocationId)),
  );
  if (menus.length === 0)
    rejections.set('NO_MENUS_ASSIGNED', {
      code: 'NO_MENUS_ASSIGNED',
      reason: `No active menu is assigned to location ${target.posLocationId}: add it to a menu's location_memberships (or leave them out).`,
      objects: [],
    });

  const resolveGroup = (
    groupId: string,
    depth: number,
    from: CatalogKind,
    fromId: string,
    path: string[],
  ) => {
    const group = catalog.modifier_group.get(groupId);
    if (!group) return missing('modifier_group', groupId, from, fromId);
    if (!isActive(group)) return;
    const id = sid('modifier_group', groupId);
    if (depth > target.maxModifierDepth || path.includes(groupId)) {
      return reject(
        'MENU_CONTENT_ISSUE',
        path.includes(groupId)
          ? `Modifier group ${groupId} contains itself (through ${path.join(' > ')}).`
          : `Modifier group ${groupId} is nested ${depth} levels deep; the DSP allows ${target.maxModifierDepth}.`,
        'modifier_group',
        groupId,
      );
    }
    if (out.groups.has(id)) return id;
    const rules = group.rules ?? {};
    const resolved: ResolvedGroup = {
      id,
      name: group.name,
      modifierIds: [],
      rules: {
        selection_type: rules.selection_type ?? 'single',
        minimum_unique_modifiers_allowed: rules.minimum_unique_modifiers_allowed ?? 0,
        maximum_unique_modifiers_allowed:
          rules.maximum_unique_modifiers_allowed ??
          ((rules.selection_type ?? 'single') === 'single' ? 1 : (group.modifier_ids?.length ?? 0)),
        amount_of_modifiers_free: rules.amount_of_modifiers_free ?? 0,
      },
    };
    out.groups.set(id, resolved);
    out.mapping.set(id, { kind: 'modifier_group', providerId: groupId });
    for (const modifierId of group.modifier_ids ?? []) {
      const modifier = catalog.modifier.get(modifierId);
      if (!modifier) {
        missing('modifier', modifierId, 'modifier_group', groupId);
        continue;
      }
      const mid = sid('modifier', modifierId);
      resolved.modifierIds.push(mid);
      if (out.modifiers.has(mid)) continue;
      const price = basePrice(modifier);
      checkPrice(price, 'modifier', modifierId);
      const m: ResolvedModifier = {
        id: mid,
        name: modifier.name,
        price,
        menuPrices: menuPrices(modifier),
        isActive: active(modifier),
        images: modifier.images?.map((i) => ({ url: i.provider_url })),
        groupIds: [],
      };
      out.modifiers.set(mid, m);
      out.mapping.set(mid, { kind: 'modifier', providerId: modifierId, isActive: m.isActive });
      for (const nested of modifier.modifier_group_ids ?? []) {
        const nid = resolveGroup(nested, depth + 1, 'modifier', modifierId, [...path, groupId]);
        if (nid) m.groupIds.push(nid);
      }
    }
    if (rules.default_modifier_quantities) {
      resolved.defaults = rules.default_modifier_quantities.flatMap((d) => {
        if (!catalog.modifier.has(d.modifier_id)) {
          missing('modifier', d.modifier_id, 'modifier_group', groupId);
          return [];
        }
        return [{ modifier_id: sid('modifier', d.modifier_id), quantity: d.quantity }];
      });
    }
    return id;
  };

  const resolveFamily = (familyId: string, categoryId: string) => {
    const family = catalog.item_family.get(familyId);
    if (!family) return missing('item_family', familyId, 'category', categoryId);
    const id = sid('item_family', familyId);
    if (out.families.has(id)) return id;
    const taxIds = family.is_tax_exempt
      ? []
      : (family.tax_ids ?? []).flatMap((t) => {
          if (!catalog.tax.has(t)) {
            missing('tax', t, 'item_family', familyId);
            return [];
          }
          return activeTax.has(t) ? [sid('tax', t)] : [];
        });
    const resolved: ResolvedFamily = {
      id,
      name: family.name,
      description: family.description,
      images: family.images?.map((i) => ({ url: i.provider_url })),
      isActive: active(family),
      isAlcohol: family.is_alcohol,
      allergens: family.allergens,
      itemIds: [],
      groupIds: [],
      taxIds:
        family.is_tax_exempt || (taxIds.length > 0 && !family.use_default_tax_rates)
          ? taxIds
          : [...new Set([...taxIds, ...defaultTaxes])],
    };
    out.families.set(id, resolved);
    out.mapping.set(id, { kind: 'item_family', providerId: familyId, isActive: resolved.isActive });
    const items = familyItems.get(familyId) ?? [];
    for (const itemId of items) {
      const item = catalog.item.get(itemId);
      if (!item) {
        missing('item', itemId, 'item_family', familyId);
        continue;
      }
      const iid = sid('item', itemId);
      const price = basePrice(item, basePrice(family));
      checkPrice(price, 'item', itemId);
      out.items.set(iid, {
        id: iid,
        name: item.name,
        price,
        menuPrices: mergePrices(menuPrices(family), menuPrices(item)),
        isActive: active(item) && resolved.isActive,
        sku: item.sku,
        upc: item.upc,
        stockCount: item.stock_count,
      });
      out.mapping.set(iid, {
        kind: 'item',
        providerId: itemId,
        familyProviderId: familyId,
        isActive: out.items.get(iid)!.isActive,
      });
      resolved.itemIds.push(iid);
    }
    if (items.length === 0) {
      // A family with its own price and no items is sold as one variation: itself.
      const iid = sid('item', familyVariation(familyId));
      const price = basePrice(family);
      checkPrice(price, 'item_family', familyId);
      out.items.set(iid, {
        id: iid,
        name: family.name,
        price,
        menuPrices: menuPrices(family),
        isActive: resolved.isActive,
        sku: family.sku,
        upc: family.upc,
      });
      out.mapping.set(iid, {
        kind: 'item_family',
        providerId: familyId,
        familyProviderId: familyId,
        isActive: resolved.isActive,
      });
      resolved.itemIds.push(iid);
    }
    for (const groupId of family.modifier_group_ids ?? []) {
      const gid = resolveGroup(groupId, 1, 'item_family', familyId, []);
      if (gid) resolved.groupIds.push(gid);
    }
    return id;
  };

  for (const menu of menus) {
    const adjust = menu.should_adjust_for_prep_time === true;
    const schedule = Object.fromEntries(
      DAYS.map((d) => {
        const ranges = menu.schedule?.[d] ?? [];
        return [d, adjust ? closeEarlier(ranges, target.prepTimeMinutes) : ranges];
      }),
    ) as Schedule;
    if (DAYS.every((d) => schedule[d].length === 0)) {
      reject(
        'MENU_SCHEDULE_MISSING',
        adjust && DAYS.some((d) => (menu.schedule?.[d] ?? []).length > 0)
          ? `Menu "${menu.name}" (${menu.provider_id}) has no range longer than the prep time (${target.prepTimeMinutes} min), which should_adjust_for_prep_time takes off each: lengthen them or turn it off.`
          : `Menu "${menu.name}" (${menu.provider_id}) has no opening hours: give it at least one HH:mm-HH:mm range.`,
        'menu',
        menu.provider_id,
      );
    }
    const categoryIds: string[] = [];
    for (const categoryId of menu.category_ids ?? []) {
      const category = catalog.category.get(categoryId);
      if (!category) {
        missing('category', categoryId, 'menu', menu.provider_id);
        continue;
      }
      if (!isActive(category)) continue;
      const cid = sid('category', categoryId);
      categoryIds.push(cid);
      if (out.categories.has(cid)) continue;
      const familyIds: string[] = [];
      for (const familyId of category.item_family_ids ?? []) {
        const fid = resolveFamily(familyId, categoryId);
        if (fid) familyIds.push(fid);
      }
      out.categories.set(cid, { id: cid, name: category.name, description: category.description, familyIds });
      out.mapping.set(cid, { kind: 'category', providerId: categoryId });
    }
    const id = sid('menu', menu.provider_id);
    out.menus.push({ id, name: menu.name, schedule, categoryIds, providerId: menu.provider_id });
    out.mapping.set(id, { kind: 'menu', providerId: menu.provider_id });
    for (const h of menu.holidays ?? []) {
      const recurring = h.recurring_yearly ?? !h.specific_years;
      const holiday = { ...h, recurring_yearly: recurring };
      if (!out.holidays.some((o) => JSON.stringify(o) === JSON.stringify(holiday)))
        out.holidays.push(holiday);
    }
  }
  if (menus.length > 0 && out.items.size === 0)
    rejections.set('MENU_BLANK', {
      code: 'MENU_BLANK',
      reason: 'The menus assigned to the location hold no item: add item families to their categories.',
      objects: menus.map((m) => ({ kind: 'menu' as const, id: m.provider_id })),
    });
  if (currencies.size > 0) out.currency = [...currencies][0]!;
  out.rejections = [...rejections.values()];
  return out;
}

export function toV1(r: Resolved): MenuFileV1 {
  const group = (id: string): MenuModifierGroupV1 => {
    const g = r.groups.get(id)!;
    return {
      stream_id: g.id,
      name: g.name,
      modifiers: g.modifierIds.map((mid) => {
        const m = r.modifiers.get(mid)!;
        return {
          stream_id: m.id,
          name: m.name,
          price: m.price,
          currency: r.currency,
          ...(m.images ? { images: m.images } : {}),
          is_active: m.isActive,
          nested_modifier_groups: m.groupIds.map(group),
        };
      }),
      rules: g.rules,
      ...(g.defaults ? { default_modifier_quantities: g.defaults } : {}),
    };
  };
  return {
    prep_time_minutes: r.target.prepTimeMinutes,
    taxes: r.taxes,
    holidays: r.holidays,
    menus: r.menus.map((menu) => ({
      stream_id: menu.id,
      name: menu.name,
      schedule: menu.schedule,
      categories: menu.categoryIds.map((cid) => {
        const c = r.categories.get(cid)!;
        return {
          stream_id: c.id,
          name: c.name,
          ...(c.description ? { description: c.description } : {}),
          items: c.familyIds.map((fid) => {
            const f = r.families.get(fid)!;
            return {
              ...familyFields(f),
              modifier_groups: f.groupIds.map(group),
              variations: f.itemIds.map((iid) => {
                const i = r.items.get(iid)!;
                return { ...variation(i, r.currency), price: i.menuPrices.get(menu.id) ?? i.price };
              }),
            };
          }),
        };
      }),
    })),
  };
}

/** An item family's own fields, the same in both forms (what links it to others differs). */
const familyFields = (f: ResolvedFamily) => ({
  stream_id: f.id,
  name: f.name,
  ...(f.description ? { description: f.description } : {}),
  ...(f.images ? { images: f.images } : {}),
  is_active: f.isActive,
  ...(f.isAlcohol !== undefined ? { is_alcohol: f.isAlcohol } : {}),
  ...(f.allergens ? { allergens: f.allergens } : {}),
  tax_ids: f.taxIds,
  ...(f.itemIds.length > 1 ? { default_item_id: f.itemIds[0] } : {}),
});

const variation = (i: ResolvedItem, currency: string) => ({
  stream_id: i.id,
  name: i.name,
  price: i.price,
  currency,
  is_active: i.isActive,
  ...(i.sku ? { sku: i.sku } : {}),
  ...(i.upc ? { upc: i.upc } : {}),
  ...(i.stockCount !== undefined ? { stock_count: i.stockCount } : {}),
});

const overridesOf = (prices: Map<string, number>, base: number) => {
  const list = [...prices].filter(([, p]) => p !== base).map(([menu_id, price]) => ({ menu_id, price }));
  return list.length > 0 ? { menu_specific_overrides: list } : {};
};

export function toV2(r: Resolved): MenuFileV2 {
  return {
    prep_time_minutes: r.target.prepTimeMinutes,
    taxes: r.taxes,
    holidays: r.holidays,
    menus: r.menus.map((m) => ({
      stream_id: m.id,
      name: m.name,
      schedule: m.schedule,
      category_ids: m.categoryIds,
    })),
    categories: [...r.categories.values()].map((c) => ({
      stream_id: c.id,
      name: c.name,
      ...(c.description ? { description: c.description } : {}),
      item_family_ids: c.familyIds,
    })),
    item_families: [...r.families.values()].map((f) => ({
      ...familyFields(f),
      item_ids: f.itemIds,
      modifier_group_ids: f.groupIds,
    })),
    items: [...r.items.values()].map((i) => ({
      ...variation(i, r.currency),
      ...overridesOf(i.menuPrices, i.price),
    })),
    modifier_groups: [...r.groups.values()].map((g) => ({
      stream_id: g.id,
      name: g.name,
      modifier_ids: g.modifierIds,
      rules: g.rules,
      ...(g.defaults ? { default_modifier_quantities: g.defaults } : {}),
    })),
    modifiers: [...r.modifiers.values()].map((m) => ({
      stream_id: m.id,
      name: m.name,
      price: m.price,
      currency: r.currency,
      ...(m.images ? { images: m.images } : {}),
      is_active: m.isActive,
      ...(m.groupIds.length ? { nested_modifier_group_ids: m.groupIds } : {}),
      ...overridesOf(m.menuPrices, m.price),
    })),
  };
}
