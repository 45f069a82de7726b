import type { Item, Menu } from '@stream/contracts/apis/hr-menu/menu';
import type { OrderInput, PricedOrder, RejectReason } from '@stream/contracts/apis/hr-orders/order';
import type { HostedMessage } from '@stream/contracts/envelopes';
import { MAX_CENTS } from '@stream/contracts/hosted';
import { includedTax, percentOf, spread } from './cents.ts';
import { applyDiscounts } from './discounts.ts';
import { priceLine, type PricedLine } from './lines.ts';
import { Problems } from './problems.ts';
import { dayName, inPeriods, localTime } from '../zoned-time.ts';

/**
 * The pricing engine of the hosted Order API (pure): an order priced against a menu, every price
 * the client sent discarded. Lines (`lines.ts`), then discounts (`discounts.ts`), then the delivery
 * fee, taxes and totals. Integers in cents throughout; the rounding rules are in `cents.ts` and the
 * Pricing rules guide.
 */
export interface PricingInput {
  menu: Menu;
  order: OrderInput;
  applyDefaultModifiers: boolean;
  /** The store's IANA time zone: business date, open hours and discount windows are read in it. */
  timeZone: string;
  /**
   * The request's time: validation codes expire against it, and an order due before it is due at it
   * (`dueAt`).
   */
  now: Date;
  /** The store's own hours for the order type (its Store API order type), checked with the menu's. */
  storeHours?: PricingInput['menu']['orderTypes'][number]['operationPeriods'] | undefined;
  /**
   * The surcharge of the delivery zone `customer.zoneName` names (its Store API `additionalFee`, in
   * cents: what DeliveryMetrics quotes as `deliveryFee`), added to a delivery order's fees.
   */
  zoneFee?: number | undefined;
}

export interface PricingProblem {
  path: string;
  message: string;
}

export interface PricingResult {
  order: PricedOrder;
  cartStatus: { minimumOrderPriceMet: boolean };
  /** WARNINGs: one per discount not applied, saying why, and one for a `deferDue` well in the past. */
  messages: HostedMessage[];
  /** Non-empty: the order cannot be priced (unknown ids, modifier rules, a total past `MAX_CENTS`). */
  errors: PricingProblem[];
  /** The first reason the store would refuse the order. */
  rejection?: { reason: RejectReason; message: string };
}

/** How far in the past a `deferDue` may be before the answer says so: a client's clock a little behind ours. */
export const LATE_DEFER_DUE_MS = 5 * 60_000;

/**
 * When an order is due: `deferDue`, or now when that is in the past (an order cannot be made
 * earlier than it is sent; "now" per a client's clock a little behind ours is now). Its hours,
 * business date, discount windows and ready time are read at this instant.
 */
export const dueAt = (deferDue: string, now: Date): Date =>
  new Date(Math.max(Date.parse(deferDue), now.getTime()));

export function priceOrder(input: PricingInput): PricingResult {
  const { menu, order } = input;
  const problems = new Problems();
  const due = dueAt(order.deferDue, input.now);
  const local = localTime(due, input.timeZone);
  const late: HostedMessage[] =
    input.now.getTime() - Date.parse(order.deferDue) > LATE_DEFER_DUE_MS
      ? [
          {
            id: 'deferDue',
            message: `deferDue ${order.deferDue} is past; the order is due now, ${when(local)} in the store's time zone: its hours, business date and discounts are read then. Send the time the customer wants it, or now for as soon as possible.`,
            messageType: 'WARNING',
          },
        ]
      : [];
  const orderType = menu.orderTypes.find((t) => t.id === order.orderType);
  if (!orderType) {
    problems.error(
      'orderType',
      `No order type ${order.orderType} on menu ${menu.displayName}; it has ${menu.orderTypes.map((t) => t.id).join(', ') || 'none'}.`,
    );
  } else if (closedAt(orderType.operationPeriods, local) || closedAt(input.storeHours, local)) {
    problems.reject(
      'storeClosed',
      `${orderType.displayName} is closed at ${when(local)} in the store's time zone.`,
    );
  }
  const orderTypeId = order.orderType;
  const items = new Map<string, { item: Item; groupId: string }>();
  for (const g of menu.groups) for (const item of g.items) items.set(item.id, { item, groupId: g.id });

  const lines = order.items.flatMap((line, i) => {
    const priced = priceLine(
      { menu, orderTypeId, applyDefaultModifiers: input.applyDefaultModifiers, problems },
      items,
      line,
      i,
    );
    if (priced) {
      const group = menu.groups.find((g) => g.id === priced.groupId)!;
      // No periods (absent or empty): whenever its order type can, as for order types.
      if (closedAt(group.operationPeriods, local)) {
        problems.reject(
          'storeClosed',
          `${group.displayName} cannot be ordered at ${when(local)} in the store's time zone.`,
        );
      }
    }
    return priced ? [priced] : [];
  });

  const subtotal = lines.reduce((n, l) => n + l.total, 0);
  const d = applyDiscounts({ menu, orderTypeId, local, now: input.now, subtotal }, lines, order.discounts);
  const discountTotal = d.orderDiscount + d.lineDiscounts.reduce((a, b) => a + b, 0);
  const afterDiscounts = subtotal - discountTotal;

  const fees: { feeName: string; feeAmount: number }[] = [];
  const delivery = menu.deliveryOptions;
  if (orderType?.isDelivery && delivery && delivery.deliveryFeeType !== 'None') {
    const amount =
      delivery.deliveryFeeType === 'Amount'
        ? delivery.deliveryFeeValue
        : percentOf(afterDiscounts, delivery.deliveryFeeValue);
    // `feeName` is 1 to 25 characters: an empty display name is no name.
    fees.push({ feeName: (delivery.displayName || 'Delivery Fee').slice(0, 25), feeAmount: amount });
  }
  if (orderType?.isDelivery && input.zoneFee) fees.push({ feeName: 'Zone Fee', feeAmount: input.zoneFee });
  const feeTotal = fees.reduce((n, f) => n + f.feeAmount, 0);

  // Taxes: each line after its discounts and its share of the order's, by its item's tax type.
  const shares = spread(
    d.orderDiscount,
    lines.map((l, i) => l.total - d.lineDiscounts[i]!),
  );
  const taxable = new Map<string, number>();
  lines.forEach((l, i) => {
    if (l.item.taxType === undefined) return;
    taxable.set(
      l.item.taxType,
      (taxable.get(l.item.taxType) ?? 0) + l.total - d.lineDiscounts[i]! - shares[i]!,
    );
  });
  if (fees.length > 0 && delivery?.deliveryFeeTaxType !== undefined) {
    taxable.set(delivery.deliveryFeeTaxType, (taxable.get(delivery.deliveryFeeTaxType) ?? 0) + feeTotal);
  }
  const taxes: { taxName: string; taxableAmount: number; taxAmount: number }[] = [];
  let exclusive = 0;
  for (const t of menu.taxTypes) {
    const amount = taxable.get(t.id);
    if (amount === undefined) continue;
    const rate =
      t.taxRateInfo.orderTypeTaxes?.find((o) => o.orderTypeId === orderTypeId)?.taxRate ??
      t.taxRateInfo.taxRate;
    const tax = t.taxIncluded ? includedTax(amount, rate) : percentOf(amount, rate);
    if (!t.taxIncluded) exclusive += tax;
    taxes.push({ taxName: t.displayName.slice(0, 25), taxableAmount: amount, taxAmount: tax });
  }
  const taxTotal = taxes.reduce((n, t) => n + t.taxAmount, 0);

  const minimumOrderPriceMet = afterDiscounts >= (orderType?.minOrderPrice ?? 0);
  if (!minimumOrderPriceMet) {
    problems.reject(
      'orderValidation',
      `${orderType!.displayName} orders need at least ${orderType!.minOrderPrice} cents after discounts; this one has ${afterDiscounts}.`,
    );
  }

  const priced: PricedOrder = {
    orderType: order.orderType,
    deferDue: order.deferDue,
    menuName: menu.displayName,
    businessDate: local.date,
    items: lines.map((l: PricedLine, i) => ({ ...l.line, discounts: d.lineApplied[i]! })),
    discounts: d.discounts,
    fees,
    taxes,
    subtotal,
    discountTotal,
    feeTotal,
    taxTotal,
    total: afterDiscounts + feeTotal + exclusive,
    tipTotal: 0,
    paymentTotal: 0,
    ...(order.customer ? { customer: order.customer } : {}),
    ...(order.preperationNote !== undefined ? { preperationNote: order.preperationNote } : {}),
    ...(order.deliveryNote !== undefined ? { deliveryNote: order.deliveryNote } : {}),
    orderSource: order.orderSource,
    ...(order.sourceReferenceId !== undefined ? { sourceReferenceId: order.sourceReferenceId } : {}),
    taxRemittanceHandledByFacilitator: order.taxRemittanceHandledByFacilitator,
    ...(order.extendedProperties ? { extendedProperties: order.extendedProperties } : {}),
  };
  // An amount is at most MAX_CENTS (prices, payments): a total past it is no order the store can be paid.
  if (priced.total > MAX_CENTS) {
    problems.error(
      'items',
      `The order totals ${priced.total} cents, more than an order may total (${MAX_CENTS} cents): order fewer or cheaper items, or split them over several orders.`,
    );
  }
  return {
    order: priced,
    cartStatus: { minimumOrderPriceMet },
    messages: [...late, ...d.messages],
    errors: problems.errors,
    ...(problems.rejection ? { rejection: problems.rejection } : {}),
  };
}

const when = (t: { date: string; weekday: number; minutes: number }) =>
  `${t.date} ${String(Math.floor(t.minutes / 60)).padStart(2, '0')}:${String(t.minutes % 60).padStart(2, '0')} (${dayName(t.weekday)})`;

/** Periods (none, or empty: always open) that do not cover the local time. */
const closedAt = (periods: Parameters<typeof inPeriods>[0] | undefined, t: Parameters<typeof inPeriods>[1]) =>
  periods !== undefined && periods.length > 0 && !inPeriods(periods, t);
