import type { Item, Menu, ModifierCategory, Modifier } from '@stream/contracts/apis/hr-menu/menu';
import type { OrderItem, OrderModifier } from '@stream/contracts/apis/hr-orders/order';
import type { Problems } from './problems.ts';

/**
 * One order line priced against the menu (pure): the item's unit price (order type, tier or halves),
 * its modifiers (defaults, quantities, halves, credits) and the line total. Problems that make the
 * line unpriceable are errors; an unavailable item or modifier is noted for the rejection.
 */
export interface PricedLine {
  line: OrderItem;
  item: Item;
  groupId: string;
  /** Every item id of the line (the halves too): discount conditions look at them. */
  itemIds: string[];
  modifierIds: string[];
  /** Cents per unit, modifiers and credits included. */
  unit: number;
  total: number;
}

interface Context {
  menu: Menu;
  orderTypeId: string;
  applyDefaultModifiers: boolean;
  problems: Problems;
}

const priceFor = (
  p: {
    price: number;
    orderTypePrices?: { orderTypeId: string; price: number; halfPrice?: number | undefined }[] | undefined;
  },
  orderTypeId: string,
) => p.orderTypePrices?.find((o) => o.orderTypeId === orderTypeId)?.price ?? p.price;

type PriceInfo = Parameters<typeof priceFor>[0] & { halfPrice?: number | undefined };

/**
 * The price of one half (an item's or a modifier's): the order type's half price, else half the
 * order type's price when it sets one, else `halfPrice`, else half the price; halves round up.
 */
function halfPriceOf(p: PriceInfo, orderTypeId: string): number {
  const byType = p.orderTypePrices?.find((o) => o.orderTypeId === orderTypeId);
  if (byType?.halfPrice !== undefined) return byType.halfPrice;
  if (byType) return Math.ceil(byType.price / 2);
  return p.halfPrice ?? Math.ceil(p.price / 2);
}

export function priceLine(
  ctx: Context,
  items: ReadonlyMap<string, { item: Item; groupId: string }>,
  line: OrderItem,
  index: number,
): PricedLine | undefined {
  const at = `items[${index}]`;
  const found = items.get(line.id);
  if (!found) {
    ctx.problems.error(`${at}.id`, `No item ${line.id} on menu ${ctx.menu.displayName}.`);
    return undefined;
  }
  const { item, groupId } = found;
  if (line.menuGroupId !== undefined && line.menuGroupId !== groupId) {
    ctx.problems.error(
      `${at}.menuGroupId`,
      `Item ${item.id} is in group ${groupId}, not ${line.menuGroupId}.`,
    );
  }
  ctx.problems.available(item, () => `${item.displayName} is out of stock.`);
  const itemIds = [item.id];
  let original: number;
  let unit: number;
  const half = line.leftHalfItemId !== undefined && line.rightHalfItemId !== undefined;
  if (half) {
    if (!item.allowHalf) ctx.problems.error(`${at}.id`, `${item.displayName} cannot be ordered in halves.`);
    original = 0;
    for (const [side, id] of [
      ['leftHalfItemId', line.leftHalfItemId!],
      ['rightHalfItemId', line.rightHalfItemId!],
    ] as const) {
      const halfItem = items.get(id)?.item;
      if (!halfItem) {
        ctx.problems.error(`${at}.${side}`, `No item ${id} on menu ${ctx.menu.displayName}.`);
        continue;
      }
      if (!halfItem.allowHalf)
        ctx.problems.error(`${at}.${side}`, `${halfItem.displayName} cannot be a half.`);
      ctx.problems.available(halfItem, () => `${halfItem.displayName} is out of stock.`);
      itemIds.push(halfItem.id);
      original += halfPriceOf(halfItem.priceInfo, ctx.orderTypeId);
    }
    unit = original;
  } else {
    original = priceFor(item.priceInfo, ctx.orderTypeId);
    const tier = [...(item.priceInfo.tierPrices ?? [])]
      .filter((t) => t.quantityAndAbove <= line.qty)
      .sort((a, b) => b.quantityAndAbove - a.quantityAndAbove)[0];
    unit = tier ? tier.price : original;
  }
  const modifierIds: string[] = [];
  const mods = priceModifiers(ctx, item.modifiers, line.orderModifiers, {
    at,
    level: 1,
    half,
    credit: item.modifierCredit,
    modifierIds,
  });
  const perUnit = Math.max(0, unit + mods.charge);
  return {
    // Written field by field, in the contract's order: one object shape for every line, whatever
    // the request held (spreading request objects of varying shapes was a third of pricing's time).
    line: {
      qty: line.qty,
      menuGroupId: line.menuGroupId,
      id: line.id,
      leftHalfItemId: line.leftHalfItemId,
      rightHalfItemId: line.rightHalfItemId,
      itemNumber: index + 1,
      originalUnitPrice: original,
      price: perUnit * line.qty,
      noteText: line.noteText,
      orderModifiers: mods.answers,
      discounts: [],
    },
    item,
    groupId,
    itemIds,
    modifierIds,
    unit: perUnit,
    total: perUnit * line.qty,
  };
}

interface Walk {
  at: string;
  level: number;
  half: boolean;
  /** Cents of credit the parent gives modifiers that `allowModifierCredit`. */
  credit: number;
  modifierIds: string[];
}

/** Prices the chosen modifiers of some categories: their charge per unit (after credits) and answers. */
function priceModifiers(
  ctx: Context,
  categories: readonly ModifierCategory[],
  chosen: readonly OrderModifier[],
  w: Walk,
): { charge: number; answers: OrderModifier[] } {
  let charge = 0;
  let credit = w.credit;
  const answers: OrderModifier[] = [];
  const counts = new Map<ModifierCategory, number>();
  const removedDefaults: [ModifierCategory, Modifier][] = [];
  // By id and half, in a set: a search of the list per modifier took seconds for a 1 MB list.
  const listed = new Set<string>();
  chosen.forEach((m, j) => {
    const at = `${w.at}.orderModifiers[${j}]`;
    // Once per half: its quantity says how many (listing it twice would pass `maximumQuantity` by).
    const key = `${m.selectedHalf}:${m.id}`;
    if (listed.has(key)) {
      ctx.problems.error(`${at}.id`, `${m.id} is listed twice here; list it once with its quantity.`);
      return;
    }
    listed.add(key);
    const category = categories.find((c) => c.modifiers.some((x) => x.id === m.id));
    const modifier = category?.modifiers.find((x) => x.id === m.id);
    if (!category || !modifier) {
      ctx.problems.error(`${at}.id`, `${m.id} is not a modifier offered here (level ${w.level}).`);
      return;
    }
    if (w.level > ctx.menu.maxModifierLevels) {
      ctx.problems.error(
        `${at}.id`,
        `Modifiers nest at most ${ctx.menu.maxModifierLevels} levels on this menu.`,
      );
    }
    if (m.quantity > modifier.maximumQuantity) {
      ctx.problems.error(
        `${at}.quantity`,
        `${modifier.displayName} takes at most ${modifier.maximumQuantity}.`,
      );
    }
    if (m.selectedSide && !modifier.allowSide)
      ctx.problems.error(`${at}.selectedSide`, `${modifier.displayName} cannot be on the side.`);
    if (m.isLite && !modifier.allowLite)
      ctx.problems.error(`${at}.isLite`, `${modifier.displayName} cannot be lite.`);
    const onHalf = m.selectedHalf !== 'Whole';
    if (onHalf && !w.half)
      ctx.problems.error(`${at}.selectedHalf`, `${m.selectedHalf} needs a half-and-half item.`);
    if (onHalf && !modifier.allowHalf)
      ctx.problems.error(`${at}.selectedHalf`, `${modifier.displayName} cannot go on one half.`);
    if (m.quantity > 0) ctx.problems.available(modifier, () => `${modifier.displayName} is out of stock.`);
    counts.set(category, (counts.get(category) ?? 0) + m.quantity);
    if (modifier.isDefault && m.quantity === 0) removedDefaults.push([category, modifier]);
    if (m.quantity > 0) w.modifierIds.push(modifier.id);

    const info = modifier.modifierpriceInfo;
    const unitPrice = !info
      ? 0
      : onHalf
        ? halfPriceOf(info, ctx.orderTypeId)
        : priceFor(info, ctx.orderTypeId);
    const defaultQuantity = modifier.isDefault ? 1 : 0;
    let own = unitPrice * Math.max(0, m.quantity - defaultQuantity);
    if (modifier.allowModifierCredit && credit > 0) {
      const used = Math.min(credit, own);
      credit -= used;
      own -= used;
    }
    const nested = priceModifiers(ctx, modifier.modifiers, m.orderModifiers, {
      ...w,
      at,
      level: w.level + 1,
      credit: modifier.modifierCredit,
    });
    charge += own + nested.charge;
    answers.push({
      id: m.id,
      name: modifier.name ?? m.name,
      displayName: modifier.displayName,
      selectedHalf: m.selectedHalf,
      selectedSide: m.selectedSide,
      isLite: m.isLite,
      preselectedDefaultQuantity: defaultQuantity,
      quantity: m.quantity,
      price: own + nested.charge,
      orderModifiers: nested.answers,
    });
  });
  for (const category of categories) {
    if (ctx.applyDefaultModifiers) {
      for (const d of category.modifiers.filter((x) => x.isDefault && !chosen.some((c) => c.id === x.id))) {
        // A choice that fills its category replaces the default (Thick crust instead of the default Thin).
        const n = counts.get(category) ?? 0;
        if (category.maximumModifiers !== undefined && n >= category.maximumModifiers) continue;
        counts.set(category, n + 1);
        ctx.problems.available(
          d,
          () => `${d.displayName} (a default) is out of stock; send it at quantity 0 to go without.`,
        );
        w.modifierIds.push(d.id);
        answers.push({
          id: d.id,
          name: d.name,
          displayName: d.displayName,
          selectedHalf: 'Whole',
          selectedSide: false,
          isLite: false,
          preselectedDefaultQuantity: 1,
          quantity: 1,
          price: 0,
          orderModifiers: [],
        });
      }
    }
    const n = counts.get(category) ?? 0;
    const max = category.maximumModifiers;
    if (n < category.minimumModifiers || (max !== undefined && n > max)) {
      const range =
        max === undefined
          ? `at least ${category.minimumModifiers}`
          : `${category.minimumModifiers} to ${max}`;
      ctx.problems.error(
        `${w.at}.orderModifiers`,
        `${category.displayName} takes ${range} modifiers; the order has ${n}.`,
      );
    }
  }
  // A default removed with nothing in its place: its no-substitution credit, once per category.
  for (const [category, modifier] of removedDefaults) {
    if ((counts.get(category) ?? 0) === 0) charge -= modifier.noSubstitutionCredit;
  }
  return { charge, answers };
}
