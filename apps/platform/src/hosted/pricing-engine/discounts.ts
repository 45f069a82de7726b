import type { AvailableDiscount, Menu } from '@stream/contracts/apis/hr-menu/menu';
import type { OrderDiscount } from '@stream/contracts/apis/hr-orders/order';
import type { HostedMessage } from '@stream/contracts/envelopes';
import { percentOf, spread } from './cents.ts';
import type { PricedLine } from './lines.ts';
import { dayName, inWindow, type LocalTime } from '../zoned-time.ts';

/**
 * The discounts an order asks for, checked and applied in the order asked (pure). Each takes at
 * most what remains of its base (the order, a line, a unit) after the ones before it; what it takes is recorded against lines
 * (`lineDiscounts`) or the order as a whole (`orderDiscount`, spread over lines for tax later).
 */
export interface DiscountOutcome {
  discounts: OrderDiscount[];
  /** Cents taken off each line by line-scoped discounts. */
  lineDiscounts: number[];
  /** Per line, the applied discounts that touched it (for the line's `discounts`). */
  lineApplied: OrderDiscount[][];
  /** Cents taken off the order as a whole (Order scope). */
  orderDiscount: number;
  messages: HostedMessage[];
}

interface Context {
  menu: Menu;
  orderTypeId: string;
  local: LocalTime;
  now: Date;
  subtotal: number;
}

export function applyDiscounts(
  ctx: Context,
  lines: readonly PricedLine[],
  requested: readonly OrderDiscount[],
): DiscountOutcome {
  const lineDiscounts = lines.map(() => 0);
  const lineApplied: OrderDiscount[][] = lines.map(() => []);
  // What line discounts left of each unit of each line (its price at first).
  const unitsLeft = lines.map((l) => new Array<number>(l.line.qty).fill(l.unit));
  let orderDiscount = 0;
  const messages: HostedMessage[] = [];
  const applied: AvailableDiscount[] = [];
  const orderLeft = () => ctx.subtotal - orderDiscount - lineDiscounts.reduce((a, b) => a + b, 0);

  const discounts = requested.map((asked, k): OrderDiscount => {
    const id = `d${k + 1}`;
    const def = ctx.menu.availableDiscounts.find((d) => d.id === asked.sourceDiscount);
    const refuse = (why: string): OrderDiscount => {
      messages.push({ id: `discounts[${k}]`, message: why, messageType: 'WARNING' });
      return {
        id,
        sourceDiscount: asked.sourceDiscount,
        ...(def
          ? { displayName: def.displayName, discountType: def.discountType, discountScope: def.discountScope }
          : {}),
        ...(asked.validationCode ? { validationCode: asked.validationCode } : {}),
        discountValue: 0,
        valid: false,
      };
    };
    if (!def) return refuse(`No discount ${asked.sourceDiscount} on menu ${ctx.menu.displayName}.`);
    const why = refusal(ctx, def, asked, lines, applied);
    if (why) return refuse(`${def.displayName}: ${why}`);
    const targets = targetsOf(def, lines);
    // A Reward takes its cheapest target, whatever its scope.
    if ((def.discountScope !== 'Order' || def.discountType === 'Reward') && targets.length === 0) {
      return refuse(`${def.displayName}: the order holds none of the items it applies to.`);
    }
    const taken = amounts(def, lines, targets, unitsLeft, orderLeft());
    const perLine = taken.units.map(sum);
    // A set price not below the price takes nothing: not applied, so it uses no limit and blocks no combining.
    if (def.discountType === 'SetPrice' && taken.before.cents <= def.discountValue) {
      const base = BASE_NAMES[taken.before.what](taken.before.cents);
      return refuse(
        `${def.displayName}: its set price of ${def.discountValue} cents is not below ${base}, so it takes nothing and was not applied.`,
      );
    }
    // Nor is any other discount that takes nothing: a BOGO of one unit, or items already made free.
    if (taken.order + sum(perLine) === 0) {
      const units = sum(targets.map((i) => lines[i]!.line.qty));
      const why =
        def.discountScope === 'BOGO' && units < 2
          ? 'it needs two units of the items it applies to and the order has one'
          : 'what it applies to is already free';
      return refuse(`${def.displayName}: ${why}, so it takes nothing and was not applied.`);
    }
    const answer: OrderDiscount = {
      id,
      sourceDiscount: def.id,
      displayName: def.displayName,
      discountType: def.discountType,
      discountScope: def.discountScope,
      ...(asked.validationCode ? { validationCode: asked.validationCode } : {}),
      discountValue: taken.order + sum(perLine),
      valid: true,
    };
    orderDiscount += taken.order;
    perLine.forEach((cents, i) => {
      taken.units[i]!.forEach((c, u) => (unitsLeft[i]![u]! -= c));
      if (cents <= 0) return;
      lineDiscounts[i]! += cents;
      lineApplied[i]!.push({ ...answer, discountValue: cents });
    });
    applied.push(def);
    return answer;
  });
  return { discounts, lineDiscounts, lineApplied, orderDiscount, messages };
}

/** Why a discount does not apply to this order, or undefined when it does. */
function refusal(
  ctx: Context,
  d: AvailableDiscount,
  asked: OrderDiscount,
  lines: readonly PricedLine[],
  applied: readonly AvailableDiscount[],
): string | undefined {
  const { local } = ctx;
  if (d.orderTypes.length > 0 && !d.orderTypes.includes(ctx.orderTypeId)) {
    return `it is not offered for ${ctx.orderTypeId} orders.`;
  }
  if (d.validFromDate && local.date < d.validFromDate) return `it starts on ${d.validFromDate}.`;
  if (d.validToDate && local.date > d.validToDate) return `it ended on ${d.validToDate}.`;
  if ((d.validWeekdays & (1 << local.weekday)) === 0)
    return `it is not offered on ${dayName(local.weekday)}s.`;
  if (d.startTime && d.endTime && !inWindow(local.minutes, d.startTime, d.endTime)) {
    return `it runs from ${d.startTime} to ${d.endTime}; the order is due at ${hhmm(local.minutes)}.`;
  }
  if (d.validationCodeRequired) {
    if (!asked.validationCode) return 'it needs a validation code.';
    const code = d.validationCodes.find((c) => c.code === asked.validationCode);
    if (!code) return `${asked.validationCode} is not one of its codes.`;
    if (code.hasExpireDate && code.expireDate && Date.parse(code.expireDate) <= ctx.now.getTime()) {
      return `the code ${code.code} expired at ${code.expireDate}.`;
    }
  }
  if (ctx.subtotal < d.minimumOrderPrice) {
    return `it needs a subtotal of at least ${d.minimumOrderPrice} cents; the order has ${ctx.subtotal}.`;
  }
  const c = d.conditions;
  const groups = c.menuGroups.filter((g) => lines.some((l) => l.groupId === g)).length;
  if (c.menuGroups.length > 0 && groups < (c.menuGroupRequirments ?? c.menuGroups.length)) {
    return `the order needs items from ${c.menuGroupRequirments ?? c.menuGroups.length} of the groups ${c.menuGroups.join(', ')}.`;
  }
  const items = c.items.filter((i) => lines.some((l) => l.itemIds.includes(i))).length;
  if (c.items.length > 0 && items < (c.itemRequirments ?? 1)) {
    return `the order needs ${c.itemRequirments ?? 1} of the items ${c.items.join(', ')}.`;
  }
  const modifiers = c.modifiers.filter((m) => lines.some((l) => l.modifierIds.includes(m))).length;
  if (c.modifiers.length > 0 && modifiers < (c.modifierRequirments ?? 1)) {
    return `the order needs ${c.modifierRequirments ?? 1} of the modifiers ${c.modifiers.join(', ')}.`;
  }
  if (applied.filter((a) => a.id === d.id).length >= d.limit) {
    return `it applies at most ${d.limit} time${d.limit === 1 ? '' : 's'} per order.`;
  }
  // Combining is about other discounts: a second use of this one is what `limit` allows.
  const others = applied.filter((a) => a.id !== d.id);
  if (others.length > 0 && !d.combinable) return 'it cannot be combined with other discounts.';
  const alone = others.find((a) => !a.combinable);
  if (alone) return `${alone.displayName} cannot be combined with other discounts.`;
  return undefined;
}

const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The lines a discount applies to: those of its groups and items, every line when it names none. */
function targetsOf(d: AvailableDiscount, lines: readonly PricedLine[]): number[] {
  const { menuGroups, items } = d.conditions;
  const all = menuGroups.length === 0 && items.length === 0;
  return lines.flatMap((l, i) =>
    all || menuGroups.includes(l.groupId) || l.itemIds.some((id) => items.includes(id)) ? [i] : [],
  );
}

/** What one unit (or a base) loses to the discount's type. */
function off(d: AvailableDiscount, base: number, units = 1): number {
  switch (d.discountType) {
    case 'AmountOff':
      return Math.min(d.discountValue, base);
    case 'PercentOff':
      return percentOf(base, d.discountValue);
    case 'SetPrice':
      return Math.max(0, base - d.discountValue * units);
    case 'AdjustedItem':
      return Math.min(d.discountValue * units, base);
    case 'Reward':
      return d.discountValue > 0 ? Math.min(d.discountValue, base) : base;
  }
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** What a discount takes, and what its base cost before it (to say why a `SetPrice` took nothing). */
interface Taken {
  units: number[][];
  order: number;
  before: { cents: number; what: 'order' | 'unit' | 'free unit' | 'together' };
}
const BASE_NAMES: Record<Taken['before']['what'], (cents: number) => string> = {
  order: (c) => `the order's ${c} cents`,
  unit: (c) => `the ${c} cents its dearest unit costs`,
  'free unit': (c) => `the ${c} cents its dearest free unit costs`,
  together: (c) => `the ${c} cents its items cost together`,
};

/**
 * The cents one discount takes off each unit of each line, and off the order as a whole. `left` is
 * what earlier line discounts left of each unit: a unit discount (Reward, BOGO, a per-unit price)
 * takes from its unit, a line discount is spread over the line's units by what is left of each, so
 * no unit, line or order ever goes below 0.
 */
function amounts(
  d: AvailableDiscount,
  lines: readonly PricedLine[],
  targets: readonly number[],
  left: readonly (readonly number[])[],
  orderLeft: number,
): Taken {
  const taken = left.map((units) => units.map(() => 0));
  let total = 0;
  // What the base costs before this discount: its dearest unit for a unit discount.
  let before = 0;
  const unitLeft = (i: number, u: number) => left[i]![u]! - taken[i]![u]!;
  const lineLeft = (i: number) => sum(left[i]!) - sum(taken[i]!);
  // Never more than what is left of the unit (or line), nor of the order (an order discount before it counts).
  const fit = (cents: number, most: number) => Math.max(0, Math.min(cents, most, orderLeft - total));
  const takeUnit = (i: number, u: number, cents: number) => {
    before = Math.max(before, unitLeft(i, u));
    const c = fit(cents, unitLeft(i, u));
    taken[i]![u]! += c;
    total += c;
  };
  const takeLine = (i: number, cents: number) => {
    const c = fit(cents, lineLeft(i));
    spread(
      c,
      left[i]!.map((_, u) => unitLeft(i, u)),
    ).forEach((x, u) => (taken[i]![u]! += x));
    total += c;
  };
  const eachUnit = (i: number) => left[i]!.forEach((_, u) => takeUnit(i, u, off(d, unitLeft(i, u))));
  // A line's units, the one with most left first.
  const unitsOf = (i: number) => left[i]!.map((_, u) => u).sort((a, b) => unitLeft(i, b) - unitLeft(i, a));

  if (d.discountType === 'Reward' && d.discountScope !== 'BOGO') {
    const i = [...targets].sort((a, b) => lines[a]!.unit - lines[b]!.unit)[0]!;
    const u = unitsOf(i)[0]!;
    takeUnit(i, u, off(d, unitLeft(i, u)));
    return { units: taken, order: 0, before: { cents: before, what: 'unit' } };
  }
  const perUnit = d.discountType === 'AdjustedItem' || d.discountType === 'SetPrice';
  switch (d.discountScope) {
    case 'Order':
      if (d.discountType === 'AdjustedItem') {
        lines.forEach((_, i) => eachUnit(i));
        return { units: taken, order: 0, before: { cents: before, what: 'unit' } };
      }
      return {
        units: taken,
        order: Math.min(orderLeft, off(d, orderLeft)),
        before: { cents: orderLeft, what: 'order' },
      };
    case 'Item':
      for (const i of targets) {
        if (perUnit) eachUnit(i);
        else takeLine(i, off(d, lineLeft(i), lines[i]!.line.qty));
      }
      return { units: taken, order: 0, before: { cents: before, what: 'unit' } };
    case 'Multiple': {
      const base = sum(targets.map(lineLeft));
      const units = sum(targets.map((i) => lines[i]!.line.qty));
      const all = d.discountType === 'SetPrice' ? Math.max(0, base - d.discountValue) : off(d, base, units);
      spread(Math.min(all, base), targets.map(lineLeft)).forEach((cents, k) => takeLine(targets[k]!, cents));
      return { units: taken, order: 0, before: { cents: base, what: 'together' } };
    }
    case 'BOGO': {
      // Every target unit by price, dearest first; of each pair the second (cheaper) one is the base.
      const units = targets
        .flatMap((i) => unitsOf(i).map((u) => [i, u] as const))
        .sort(([a], [b]) => lines[b]!.unit - lines[a]!.unit || a - b);
      for (let k = 1; k < units.length; k += 2) {
        const [i, u] = units[k]!;
        takeUnit(i, u, off(d, unitLeft(i, u)));
      }
      return { units: taken, order: 0, before: { cents: before, what: 'free unit' } };
    }
  }
}
