import { hash } from 'node:crypto';
import type {
  MenuFileV1,
  MenuFileV2,
  MenuModifierGroupV1,
} from '@stream/contracts/apis/become-a-dsp/menu-file';
import type {
  CatalogHoliday,
  CatalogKind,
  CatalogObjects,
  CatalogSchedule,
} from '@stream/contracts/apis/become-a-pos/catalog';
import type { MenuFailureCode } from '@stream/contracts/apis/become-a-pos/menu-events';
import {
  isActive,
  itemsByFamily,
  nextHoliday,
  recursYearly,
  type Catalog,
  type CatalogProblem,
} from './catalog.ts';

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
  // join makes one flat string: a template literal would make a chain of pieces that keeps the whole
  // digest alive, over twice the memory for every object of the file.
  return [PREFIX[kind], digest.slice(0, 22)].join('_');
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
 * A menu's week as the file shows it. A range past midnight (`22:00-02:00`) is split at it: the rest
 * opens the next day (Sunday's on Monday), as a DSP reads only ranges within a day. With
 * `should_adjust_for_prep_time` ordering closes `closeMinutes` before each range really ends, so the
 * last order is ready by closing time; a range too short for that is dropped. Each day's ranges come
 * in order, overlapping ones merged. Ranges are valid `HH:mm-HH:mm` (see `validRange`).
 */
export function weekOf(schedule: CatalogSchedule | undefined, closeMinutes = 0): Schedule {
  const days = DAYS.map((): [number, number][] => []);
  DAYS.forEach((day, i) => {
    for (const range of schedule?.[day] ?? []) {
      const [today, tomorrow] = splitAtMidnight(range, closeMinutes);
      if (today) days[i]!.push(today);
      if (tomorrow) days[(i + 1) % 7]!.push(tomorrow);
    }
  });
  return Object.fromEntries(DAYS.map((day, i) => [day, rangesOf(days[i]!)])) as Schedule;
}
const DAY = 24 * 60;

/**
 * A range as minutes within its day, and its part past midnight (`22:00-02:00`: 22:00-24:00, then
 * 00:00-02:00 the next day), each absent if empty; `closeMinutes` off its end.
 */
function splitAtMidnight(range: string, closeMinutes = 0) {
  const [from, to] = range.split('-').map(minutesOf) as [number, number];
  const end = (to <= from ? to + DAY : to) - closeMinutes;
  const today: [number, number] | undefined = end > from ? [from, Math.min(end, DAY)] : undefined;
  const tomorrow: [number, number] | undefined = end > DAY ? [0, end - DAY] : undefined;
  return [today, tomorrow] as const;
}

/** A day's ranges as the file writes them: in order, overlapping ones merged. */
const rangesOf = (ranges: [number, number][]) => merged(ranges).map(([a, b]) => `${hhmmOf(a)}-${hhmmOf(b)}`);

/**
 * A menu's holidays as the file shows them: hours past midnight split as a week's are, the part
 * after midnight given to the next date when it is a holiday too (`nextHoliday`; else it keeps its
 * regular hours, and the catalog's problems say the holiday closes at midnight).
 */
export function holidaysOf(holidays: readonly CatalogHoliday[]): MenuFileV1['holidays'] {
  const hours = new Map(holidays.map((h) => [h, [] as [number, number][]]));
  for (const h of holidays)
    for (const range of h.hours ?? []) {
      const [today, tomorrow] = splitAtMidnight(range);
      if (today) hours.get(h)!.push(today);
      const next = tomorrow && nextHoliday(holidays, h);
      if (next) hours.get(next)!.push(tomorrow);
    }
  return holidays.map((h) => {
    const open = hours.get(h)!;
    return {
      ...h,
      recurring_yearly: recursYearly(h),
      // No hours: closed all day, unless the night before runs into it.
      ...(h.hours || open.length > 0 ? { hours: rangesOf(open) } : {}),
    };
  });
}

function merged(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [a, b] of ranges.sort((x, y) => x[0] - y[0])) {
    const last = out.at(-1);
    if (last && a < last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** Whether the catalog has an object on sale at a location: its `is_active`, unless that location's override says off. */
export function activeAt(o: Priced, posLocationId: string): boolean {
  return (
    isActive(o) && o.location_overrides?.find((l) => l.location_id === posLocationId)?.is_active !== false
  );
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

/** The POS object a stream_id stands for (`menu_items`: what order translation maps through). */
export interface MappedObject {
  kind: CatalogKind;
  providerId: string;
  familyProviderId?: string | undefined;
  isActive?: boolean;
  /**
   * A family's categories in the menus served, on or off (`menu_items.category_provider_ids`): when
   * all are off, so are its items, on an order line that names no category.
   */
  categoryProviderIds?: string[];
}

/**
 * What `resolve` found: the objects the file holds, each once, in the order first met, and what is
 * wrong. Each object is one record that links to its children's records (no lookup by id to lay out).
 */
export interface Resolved {
  target: MenuTarget;
  currency: string;
  menus: ResolvedMenu[];
  categories: ResolvedCategory[];
  families: ResolvedFamily[];
  items: ResolvedItem[];
  groups: ResolvedGroup[];
  modifiers: ResolvedModifier[];
  taxes: MenuFileV1['taxes'];
  holidays: MenuFileV1['holidays'];
  rejections: Rejection[];
  /** stream_id -> the POS object it stands for; made on first read, as laying out a file needs none. */
  readonly mapping: Map<string, MappedObject>;
}
/** What every record holds: its stream_id and the POS object it stands for. */
interface ResolvedObject {
  id: string;
  kind: CatalogKind;
  providerId: string;
}
interface ResolvedMenu extends ResolvedObject {
  name: string;
  schedule: Schedule;
  categories: ResolvedCategory[];
}
interface ResolvedCategory extends ResolvedObject {
  name: string;
  description?: string | undefined;
  families: ResolvedFamily[];
}
interface ResolvedFamily extends ResolvedObject {
  name: string;
  description?: string | undefined;
  images?: { url: string }[] | undefined;
  isActive: boolean;
  isAlcohol?: boolean | undefined;
  allergens?: CatalogObjects['item_family']['allergens'];
  items: ResolvedItem[];
  groups: ResolvedGroup[];
  taxIds: string[];
  /** The categories that list it, on or off (a turned-off one is added once the walk is over). */
  categoryProviderIds: string[];
}
interface ResolvedItem extends ResolvedObject {
  familyProviderId: string;
  name: string;
  price: number;
  /** Price by menu stream_id, where a menu override differs. */
  menuPrices: Map<string, number>;
  /** As the file shows it: off when its family is off. */
  isActive: boolean;
  /** Its own state, kept in the mapping: the family's is checked beside it when an order names it. */
  ownActive?: boolean;
  sku?: string | undefined;
  upc?: string | undefined;
  stockCount?: number | undefined;
}
interface ResolvedGroup extends ResolvedObject {
  name: string;
  modifiers: ResolvedModifier[];
  rules: NonNullable<MenuModifierGroupV1['rules']>;
  defaults?: { modifier_id: string; quantity: number }[] | undefined;
}
interface ResolvedModifier extends ResolvedObject {
  name: string;
  price: number;
  menuPrices: Map<string, number>;
  isActive: boolean;
  images?: { url: string }[] | undefined;
  groups: ResolvedGroup[];
}

/** No menu overrides: shared, never written to. */
const NO_PRICES: Map<string, number> = new Map();
/** No nested groups (most modifiers): shared, never written to. */
const NO_GROUPS: ResolvedGroup[] = [];
const mergePrices = (a: Map<string, number>, b: Map<string, number>) =>
  a.size === 0 ? b : b.size === 0 ? a : new Map([...a, ...b]);

/** The mapping's entry for a record: its kind and provider_id, and the family and state where it has them. */
function mappedOf(
  o: ResolvedObject & {
    familyProviderId?: string;
    isActive?: boolean;
    ownActive?: boolean;
    categoryProviderIds?: string[];
  },
): MappedObject {
  const mapped: MappedObject = { kind: o.kind, providerId: o.providerId };
  if (o.familyProviderId !== undefined) mapped.familyProviderId = o.familyProviderId;
  const isActive = o.ownActive ?? o.isActive;
  if (isActive !== undefined) mapped.isActive = isActive;
  if (o.categoryProviderIds !== undefined) mapped.categoryProviderIds = o.categoryProviderIds;
  return mapped;
}

/**
 * A build to fill, whose mapping is made from `objects` on first read. (Made out here so that the
 * mapping's closure keeps only `objects` alive, not every map of `resolve`.)
 */
function emptyResolved(target: MenuTarget, objects: ResolvedObject[]): Resolved {
  let mapping: Map<string, MappedObject> | undefined;
  return {
    target,
    currency: 'usd',
    menus: [],
    categories: [],
    families: [],
    items: [],
    groups: [],
    modifiers: [],
    taxes: [],
    holidays: [],
    rejections: [],
    get mapping() {
      return (mapping ??= new Map(objects.map((o) => [o.id, mappedOf(o)])));
    },
  };
}

/** `problems`: the catalog's, which say why a menu may hold nothing (see MENU_BLANK). */
export function resolve(
  catalog: Catalog,
  target: MenuTarget,
  problems: readonly CatalogProblem[] = [],
): Resolved {
  const streamId = (kind: CatalogKind, id: string) => streamIdOf(target.locationId, kind, id);
  // Taxes and menus are named by many objects: their stream_ids are hashed once per build.
  // (Every other record is made once, by provider_id, and hashes its own.)
  const sids = { tax: new Map<string, string>(), menu: new Map<string, string>() };
  const sid = (kind: keyof typeof sids, id: string) => {
    let found = sids[kind].get(id);
    if (found === undefined) sids[kind].set(id, (found = streamId(kind, id)));
    return found;
  };
  const rejections = new Map<MenuFailureCode, Rejection>();
  const reject = (code: MenuFailureCode, reason: string, kind: CatalogKind, id: string) => {
    // One rejection per code: the first reason, and every object at fault.
    const r = rejections.get(code) ?? { code, reason, objects: [] };
    rejections.set(code, r);
    r.objects.push({ kind, id });
  };
  // A catalog as pulled or read names only objects it holds (`settleReferences` leaves out or drops the
  // rest, each with its problem, even in a version stored before it did): this is a guard.
  const missing = (kind: CatalogKind, id: string, from: CatalogKind, fromId: string) =>
    reject(
      'MENU_CATALOG_MISMATCH',
      `${from} ${fromId} names ${kind} ${id}, which the catalog does not hold: add it or remove the reference.`,
      from,
      fromId,
    );
  // Every record in the order first met: the mapping's order.
  const objects: ResolvedObject[] = [];
  const out = emptyResolved(target, objects);
  // The records made so far, by provider_id: each object is resolved once.
  const made = {
    category: new Map<string, ResolvedCategory>(),
    item_family: new Map<string, ResolvedFamily>(),
    item: new Map<string, ResolvedItem>(),
    modifier_group: new Map<string, ResolvedGroup>(),
    modifier: new Map<string, ResolvedModifier>(),
  };
  let currency: string | undefined;
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
  const active = (o: Priced) => activeAt(o, target.posLocationId);
  /** Its own price on the DSP: its platform's override, else the location's, else the catalog's. */
  const ownPrice = (o: Priced) => {
    const dsp = target.platform
      ? o.dsp_price_amount_overrides?.find((d) => d.dsp === target.platform)
      : undefined;
    return dsp?.price_amount ?? locationOverride(o)?.price_amount ?? o.price_amount;
  };
  const basePrice = (o: Priced, fallback = 0) => {
    // The file's currency is the first one met (lower-cased when the build ends).
    currency ??= o.price_currency || undefined;
    return ownPrice(o) ?? fallback;
  };
  /** Menu overrides by menu stream_id (a DSP override beats them: it is the price on that platform). */
  const menuPrices = (o: Priced): Map<string, number> => {
    if (!o.menu_overrides?.length) return NO_PRICES;
    const prices = new Map<string, number>();
    const dsp = target.platform && o.dsp_price_amount_overrides?.some((d) => d.dsp === target.platform);
    if (!dsp) for (const m of o.menu_overrides ?? []) prices.set(sid('menu', m.menu_id), m.price_amount);
    return prices;
  };
  /** Its price and its menus' prices (they reach the DSP too) are at most `maxPrice`. */
  const checkPrice = (price: number, kind: CatalogKind, id: string, menus: ReadonlyMap<string, number>) => {
    const highest = Math.max(price, ...menus.values());
    if (highest > MENU_LIMITS.maxPrice)
      reject(
        'MENU_ITEMS_PRICE_TOO_HIGH',
        `${kind} ${id} costs ${highest}${highest === price ? '' : ' on a menu'}: at most ${MENU_LIMITS.maxPrice} (100,000.00).`,
        kind,
        id,
      );
  };
  /**
   * An item met again (two families list it, or one lists it twice) keeps its first place but takes
   * the fields of the last meeting, in every family that lists it.
   */
  const putItem = (key: string, item: ResolvedItem) => {
    const known = made.item.get(key);
    if (known) return Object.assign(known, item);
    made.item.set(key, item);
    out.items.push(item);
    objects.push(item);
    return item;
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

  /** A modifier not made yet (undefined if the catalog does not hold it). */
  const resolveModifier = (modifierId: string, depth: number, groupPath: () => string[]) => {
    const modifier = catalog.modifier.get(modifierId);
    if (!modifier) return undefined;
    const price = basePrice(modifier);
    const prices = menuPrices(modifier);
    checkPrice(price, 'modifier', modifierId, prices);
    const m: ResolvedModifier = {
      id: streamId('modifier', modifierId),
      kind: 'modifier',
      providerId: modifierId,
      name: modifier.name,
      price,
      menuPrices: prices,
      isActive: active(modifier),
      images: modifier.images?.map((i) => ({ url: i.provider_url })),
      groups: modifier.modifier_group_ids?.length ? [] : NO_GROUPS,
    };
    made.modifier.set(modifierId, m);
    out.modifiers.push(m);
    objects.push(m);
    for (const nested of modifier.modifier_group_ids ?? []) {
      const group = resolveGroup(nested, depth + 1, 'modifier', modifierId, groupPath());
      if (group) m.groups.push(group);
    }
    return m;
  };

  const resolveGroup = (
    groupId: string,
    depth: number,
    from: CatalogKind,
    fromId: string,
    path: string[],
  ): ResolvedGroup | undefined => {
    const group = catalog.modifier_group.get(groupId);
    if (!group) return void missing('modifier_group', groupId, from, fromId);
    if (!isActive(group)) return;
    if (depth > target.maxModifierDepth || path.includes(groupId)) {
      return void reject(
        'MENU_CONTENT_ISSUE',
        path.includes(groupId)
          ? `Modifier group ${groupId} contains itself (through ${path.join(' > ')}).`
          : `Modifier group ${groupId} is nested ${depth} levels deep; the DSP allows ${target.maxModifierDepth}.`,
        'modifier_group',
        groupId,
      );
    }
    const known = made.modifier_group.get(groupId);
    if (known) return known;
    const rules = group.rules ?? {};
    const resolved: ResolvedGroup = {
      id: streamId('modifier_group', groupId),
      kind: 'modifier_group',
      providerId: groupId,
      name: group.name,
      modifiers: [],
      rules: {
        selection_type: rules.selection_type ?? 'single',
        minimum_unique_modifiers_allowed: rules.minimum_unique_modifiers_allowed ?? 0,
        maximum_unique_modifiers_allowed:
          rules.maximum_unique_modifiers_allowed ??
          ((rules.selection_type ?? 'single') === 'single' ? 1 : (group.modifier_ids?.length ?? 0)),
        amount_of_modifiers_free: rules.amount_of_modifiers_free ?? 0,
      },
      defaults: undefined,
    };
    made.modifier_group.set(groupId, resolved);
    out.groups.push(resolved);
    objects.push(resolved);
    // The path to a nested group, made only if a modifier has nested groups.
    let inner: string[] | undefined;
    const innerPath = () => (inner ??= [...path, groupId]);
    for (const modifierId of group.modifier_ids ?? []) {
      // A modifier offered by several groups is made once.
      const modifier = made.modifier.get(modifierId) ?? resolveModifier(modifierId, depth, innerPath);
      if (modifier) resolved.modifiers.push(modifier);
      else missing('modifier', modifierId, 'modifier_group', groupId);
    }
    if (rules.default_modifier_quantities) {
      resolved.defaults = rules.default_modifier_quantities.flatMap((d) => {
        if (!catalog.modifier.has(d.modifier_id)) {
          missing('modifier', d.modifier_id, 'modifier_group', groupId);
          return [];
        }
        return [{ modifier_id: streamId('modifier', d.modifier_id), quantity: d.quantity }];
      });
    }
    return resolved;
  };

  const resolveFamily = (familyId: string, categoryId: string): ResolvedFamily | undefined => {
    const family = catalog.item_family.get(familyId);
    if (!family) return void missing('item_family', familyId, 'category', categoryId);
    const known = made.item_family.get(familyId);
    if (known) return known;
    const taxIds: string[] = [];
    if (!family.is_tax_exempt)
      for (const t of family.tax_ids ?? []) {
        if (!catalog.tax.has(t)) missing('tax', t, 'item_family', familyId);
        else if (activeTax.has(t)) taxIds.push(sid('tax', t));
      }
    const resolved: ResolvedFamily = {
      id: streamId('item_family', familyId),
      kind: 'item_family',
      providerId: familyId,
      name: family.name,
      description: family.description,
      images: family.images?.map((i) => ({ url: i.provider_url })),
      isActive: active(family),
      isAlcohol: family.is_alcohol,
      allergens: family.allergens,
      items: [],
      groups: [],
      categoryProviderIds: [],
      taxIds:
        family.is_tax_exempt || (taxIds.length > 0 && !family.use_default_tax_rates)
          ? taxIds
          : [...new Set([...taxIds, ...defaultTaxes])],
    };
    made.item_family.set(familyId, resolved);
    out.families.push(resolved);
    objects.push(resolved);
    const items = familyItems.get(familyId) ?? [];
    for (const itemId of items) {
      const item = catalog.item.get(itemId);
      if (!item) {
        missing('item', itemId, 'item_family', familyId);
        continue;
      }
      const price = basePrice(item, basePrice(family));
      // The family's menu prices are for the sizes that take the family's price, as its base price is.
      const prices =
        ownPrice(item) === undefined ? mergePrices(menuPrices(family), menuPrices(item)) : menuPrices(item);
      checkPrice(price, 'item', itemId, prices);
      const variation = putItem(itemId, {
        id: streamId('item', itemId),
        kind: 'item',
        providerId: itemId,
        familyProviderId: familyId,
        name: item.name,
        price,
        menuPrices: prices,
        isActive: active(item) && resolved.isActive,
        ownActive: active(item),
        sku: item.sku,
        upc: item.upc,
        stockCount: item.stock_count,
      });
      resolved.items.push(variation);
    }
    if (items.length === 0) {
      // A family with its own price and no items is sold as one variation: itself.
      const price = basePrice(family);
      const prices = menuPrices(family);
      checkPrice(price, 'item_family', familyId, prices);
      const variation = putItem(familyVariation(familyId), {
        id: streamId('item', familyVariation(familyId)),
        kind: 'item_family',
        providerId: familyId,
        familyProviderId: familyId,
        name: family.name,
        price,
        menuPrices: prices,
        isActive: resolved.isActive,
        sku: family.sku,
        upc: family.upc,
        stockCount: undefined,
      });
      resolved.items.push(variation);
    }
    for (const groupId of family.modifier_group_ids ?? []) {
      const group = resolveGroup(groupId, 1, 'item_family', familyId, []);
      if (group) resolved.groups.push(group);
    }
    return resolved;
  };

  const resolveCategory = (categoryId: string): ResolvedCategory => {
    const known = made.category.get(categoryId);
    if (known) return known;
    const category = catalog.category.get(categoryId)!;
    const families: ResolvedFamily[] = [];
    for (const familyId of category.item_family_ids ?? []) {
      const family = resolveFamily(familyId, categoryId);
      if (!family) continue;
      families.push(family);
      if (!family.categoryProviderIds.includes(categoryId)) family.categoryProviderIds.push(categoryId);
    }
    const resolved: ResolvedCategory = {
      id: streamId('category', categoryId),
      kind: 'category',
      providerId: categoryId,
      name: category.name,
      description: category.description,
      families,
    };
    // Made after its families, as the mapping has always listed it. One with nothing to order is in
    // no file: an empty section is no use to a customer, and marketplaces may refuse it.
    made.category.set(categoryId, resolved);
    if (families.length > 0) {
      out.categories.push(resolved);
      objects.push(resolved);
    }
    return resolved;
  };

  /**
   * A category turned off is in no file, but in the mapping as off: a DSP still showing an older menu
   * may order from it, and `menu_items` must refuse that as it does after an object update turning it off.
   * The families it lists (that the catalog holds) count it among their categories: by family, the
   * turned-off categories listing it (`offFamilies`, added to the families once the walk is over).
   */
  const off = new Set<string>();
  const offFamilies = new Map<string, string[]>();
  const turnedOff = (categoryId: string) => {
    if (off.has(categoryId)) return;
    off.add(categoryId);
    const record: ResolvedObject & { isActive: boolean } = {
      id: streamId('category', categoryId),
      kind: 'category',
      providerId: categoryId,
      isActive: false,
    };
    objects.push(record);
    for (const familyId of catalog.category.get(categoryId)?.item_family_ids ?? []) {
      if (!catalog.item_family.has(familyId)) continue;
      const categories = offFamilies.get(familyId);
      if (!categories) offFamilies.set(familyId, [categoryId]);
      else if (!categories.includes(categoryId)) categories.push(categoryId);
    }
  };

  for (const menu of menus) {
    const adjust = menu.should_adjust_for_prep_time === true;
    const schedule = weekOf(menu.schedule, adjust ? target.prepTimeMinutes : 0);
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
    const categories: ResolvedCategory[] = [];
    for (const categoryId of menu.category_ids ?? []) {
      const category = catalog.category.get(categoryId);
      if (!category) missing('category', categoryId, 'menu', menu.provider_id);
      else if (!isActive(category)) turnedOff(categoryId);
      else {
        const resolved = resolveCategory(categoryId);
        if (resolved.families.length > 0) categories.push(resolved);
      }
    }
    const resolved: ResolvedMenu = {
      id: sid('menu', menu.provider_id),
      kind: 'menu',
      providerId: menu.provider_id,
      name: menu.name,
      schedule,
      categories,
    };
    out.menus.push(resolved);
    objects.push(resolved);
    for (const holiday of holidaysOf(menu.holidays ?? [])) {
      if (!out.holidays.some((o) => JSON.stringify(o) === JSON.stringify(holiday)))
        out.holidays.push(holiday);
    }
  }
  // A family also listed by an active category has its record: the turned-off ones join its list. One
  // only turned-off categories list is in no file, but in the mapping with them (and its own state),
  // so that its items, which a DSP showing an older menu may still order, are refused.
  for (const [familyId, categoryIds] of offFamilies) {
    const family = made.item_family.get(familyId);
    if (family) {
      for (const c of categoryIds)
        if (!family.categoryProviderIds.includes(c)) family.categoryProviderIds.push(c);
      continue;
    }
    const record: ResolvedObject & { isActive: boolean; categoryProviderIds: string[] } = {
      id: streamId('item_family', familyId),
      kind: 'item_family',
      providerId: familyId,
      isActive: active(catalog.item_family.get(familyId)!),
      categoryProviderIds: categoryIds,
    };
    objects.push(record);
  }
  if (menus.length > 0 && out.items.length === 0)
    rejections.set('MENU_BLANK', {
      code: 'MENU_BLANK',
      reason: blankReason(made.category, problems),
      objects: menus.map((m) => ({ kind: 'menu' as const, id: m.provider_id })),
    });
  if (currency !== undefined) out.currency = currency.toLowerCase();
  out.rejections = [...rejections.values()];
  return out;
}

/**
 * Why the menus hold no item. When the active categories they serve listed item families the catalog
 * left out (each entry dropped with a warning on the category), adding families is not the fix: fixing
 * those is. (A warning names the family, so one listed by two categories counts once.)
 */
function blankReason(categories: ReadonlyMap<string, unknown>, problems: readonly CatalogProblem[]) {
  const dropped = new Set(
    problems
      .filter((p) => p.kind === 'category' && p.field === 'item_family_ids' && categories.has(p.id ?? ''))
      .map((p) => p.message),
  ).size;
  if (dropped === 0)
    return 'The menus assigned to the location hold no item: add item families to their categories.';
  const [families, were, them] =
    dropped === 1 ? ['item family', 'was', 'it'] : ['item families', 'were', 'them'];
  return `The menus assigned to the location hold no item: the ${dropped} ${families} their categories list ${were} left out for a problem or never sent: fix ${them} as the catalog's problems say.`;
}

export function toV1(r: Resolved): MenuFileV1 {
  // A group is laid out once and shared by every family and modifier offering it: its layout does
  // not depend on where it is offered, and the file's JSON is the same (a large catalog shares many).
  const laidOut = new Map<ResolvedGroup, MenuModifierGroupV1>();
  const group = (g: ResolvedGroup): MenuModifierGroupV1 => {
    let found = laidOut.get(g);
    if (!found) laidOut.set(g, (found = groupV1(g, r.currency, group)));
    return found;
  };
  return {
    prep_time_minutes: r.target.prepTimeMinutes,
    taxes: r.taxes,
    holidays: r.holidays,
    menus: r.menus.map((menu) => ({
      stream_id: menu.id,
      name: menu.name,
      schedule: menu.schedule,
      categories: menu.categories.map((c) => ({
        stream_id: c.id,
        name: c.name,
        ...(c.description ? { description: c.description } : {}),
        items: c.families.map((f) => ({
          ...familyFields(f),
          modifier_groups: f.groups.map(group),
          variations: f.items.map((i) => variation(i, r.currency, i.menuPrices.get(menu.id) ?? i.price)),
        })),
      })),
    })),
  };
}

function groupV1(
  g: ResolvedGroup,
  currency: string,
  nested: (g: ResolvedGroup) => MenuModifierGroupV1,
): MenuModifierGroupV1 {
  return {
    stream_id: g.id,
    name: g.name,
    modifiers: g.modifiers.map((m) => ({
      stream_id: m.id,
      name: m.name,
      price: m.price,
      currency,
      ...(m.images ? { images: m.images } : {}),
      is_active: m.isActive,
      nested_modifier_groups: m.groups.map(nested),
    })),
    rules: g.rules,
    ...(g.defaults ? { default_modifier_quantities: g.defaults } : {}),
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
  ...(f.items.length > 1 ? { default_item_id: f.items[0]!.id } : {}),
});

/** An item as a variation: at its price on one menu in v1, at its base price in v2. */
const variation = (i: ResolvedItem, currency: string, price = i.price) => ({
  stream_id: i.id,
  name: i.name,
  price,
  currency,
  is_active: i.isActive,
  ...(i.sku ? { sku: i.sku } : {}),
  ...(i.upc ? { upc: i.upc } : {}),
  ...(i.stockCount !== undefined ? { stock_count: i.stockCount } : {}),
});

const overridesOf = (prices: Map<string, number>, base: number) => {
  if (prices.size === 0) return {};
  const list = [...prices].filter(([, p]) => p !== base).map(([menu_id, price]) => ({ menu_id, price }));
  return list.length > 0 ? { menu_specific_overrides: list } : {};
};

const idsOf = (records: ResolvedObject[]) => records.map((o) => o.id);

export function toV2(r: Resolved): MenuFileV2 {
  return {
    prep_time_minutes: r.target.prepTimeMinutes,
    taxes: r.taxes,
    holidays: r.holidays,
    menus: r.menus.map((m) => ({
      stream_id: m.id,
      name: m.name,
      schedule: m.schedule,
      category_ids: idsOf(m.categories),
    })),
    categories: r.categories.map((c) => ({
      stream_id: c.id,
      name: c.name,
      ...(c.description ? { description: c.description } : {}),
      item_family_ids: idsOf(c.families),
    })),
    item_families: r.families.map((f) => ({
      ...familyFields(f),
      item_ids: idsOf(f.items),
      modifier_group_ids: idsOf(f.groups),
    })),
    items: r.items.map((i) => ({
      ...variation(i, r.currency),
      ...overridesOf(i.menuPrices, i.price),
    })),
    modifier_groups: r.groups.map((g) => ({
      stream_id: g.id,
      name: g.name,
      modifier_ids: idsOf(g.modifiers),
      rules: g.rules,
      ...(g.defaults ? { default_modifier_quantities: g.defaults } : {}),
    })),
    modifiers: r.modifiers.map((m) => ({
      stream_id: m.id,
      name: m.name,
      price: m.price,
      currency: r.currency,
      ...(m.images ? { images: m.images } : {}),
      is_active: m.isActive,
      ...(m.groups.length ? { nested_modifier_group_ids: idsOf(m.groups) } : {}),
      ...overridesOf(m.menuPrices, m.price),
    })),
  };
}
