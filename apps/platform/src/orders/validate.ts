import {
  ORDER_SOURCES,
  OrderBrand,
  ADDRESSED_FULFILLMENT_TYPES,
  EPOCH_MS_MAX,
  type DspFulfillmentType,
  type OrderSource,
} from '@stream/contracts';
import type { DspCustomer, DspOrder, DspOrderModifier } from '@stream/contracts/apis/become-a-dsp/index';
import { e164Of } from '@stream/contracts/common';

/**
 * The business rules of a DSP order (platform.md section 5), as one pure function. The contract's
 * schema has already checked shapes and types; these are the rules an order can break while being
 * well-formed. Every problem is reported (not only the first), each with the field's path and a
 * sentence saying what to fix, and the order comes back with its defaults filled in.
 */

export interface ValidationContext {
  /** When the platform received the order (epoch ms): the order time. */
  receivedAtMs: number;
  /** The DSP's source when the order names none. */
  defaultSource: string;
}

export type NormalizedDspOrder = DspOrder & {
  source: OrderSource;
  brand: OrderBrand;
  /** Lower-case ISO-4217. */
  currency: string;
  customers: DspCustomer[];
  estimated_ready_at_ms: number;
  should_include_utensils: boolean;
  is_future_order: boolean;
};

export interface OrderProblem {
  path: string;
  message: string;
}

export type Validation = { ok: true; order: NormalizedDspOrder } | { ok: false; problems: OrderProblem[] };

/** Default preparation window when the DSP gives no usable ready time (section 9). */
export const DEFAULT_READY_MS = 30 * 60_000;

/** The order's amounts the customer is charged, the total's terms before discounts. */
const CHARGES = [
  'subtotal',
  'tax',
  'service_charge',
  'driver_tip',
  'store_tip',
  'delivery_fee',
  'delivery_fee_taxes',
] as const;
/** The least time in epoch milliseconds a ready time can be (2001-09-09): any smaller is seconds, or no time. */
const MIN_MS_TIME = 1e12;

const CURRENCY = /^[a-z]{3}$/;
/** `store_tip` is the restaurant's: pickup and dine_in (DSP reading), pickup only (POS reading); kiosk is pickup. */
const STORE_TIP_TYPES: readonly DspFulfillmentType[] = ['pickup', 'dine_in', 'kiosk'];

export function validateDspOrder(order: DspOrder, ctx: ValidationContext): Validation {
  const problems: OrderProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path: `order.${path}`, message });
  const type = order.fulfillment_type;

  const sent = order.customers?.length ? order.customers : order.customer ? [order.customer] : [];
  if (sent.length === 0) problem('customers', 'is required: send at least one customer.');
  const customersPath = order.customers?.length ? 'customers' : 'customer';
  // A phone is E.164 as a driver's is (`e164Of`): spaces, dashes, dots and parentheses are taken out,
  // so the POS is sent E.164; an empty one is no phone; only one without + and country code, or with
  // letters or an extension, breaks the order (its country cannot be told).
  const customers = sent.map((c, i): DspCustomer => {
    if (c.phone === undefined) return c;
    const { phone, ...rest } = c;
    if (phone.trim() === '') return rest;
    const e164 = e164Of(phone);
    if (e164 !== undefined) return { ...rest, phone: e164 };
    const at = customersPath === 'customers' ? `customers[${i}]` : 'customer';
    problem(
      `${at}.phone`,
      `must be an E.164 phone number such as +14155550123 (+ and the country code; spaces, dashes, dots and parentheses are ignored), not ${JSON.stringify(phone)}.`,
    );
    return c;
  });

  const source = order.source ?? ctx.defaultSource;
  if (!(ORDER_SOURCES as readonly string[]).includes(source)) {
    problem('source', `"${source}" is not a known source; use one of ${ORDER_SOURCES.join(', ')}.`);
  }
  const brand = order.brand ?? source;
  // An absent brand is the source, already judged above.
  if (order.brand !== undefined && !OrderBrand.safeParse(brand).success) {
    problem('brand', `"${brand}" is not a known brand; use one of ${OrderBrand.options.join(', ')}.`);
  }

  const currencies = new Set<string>();
  const money = (path: string, value: number | undefined) => {
    if (value === undefined) return;
    if (!Number.isSafeInteger(value) || value < 0) {
      problem(
        path,
        `must be a non-negative integer in the smallest currency unit (150 = 1.50), not ${value}.`,
      );
    }
  };
  const currency = (path: string, value: string) => {
    if (!CURRENCY.test(value))
      problem(path, `must be a lower-case ISO-4217 code such as "usd", not "${value}".`);
    else currencies.add(value);
  };
  const quantity = (path: string, value: number) => {
    if (!Number.isSafeInteger(value) || value < 1)
      problem(path, `must be a whole number of at least 1, not ${value}.`);
  };
  const modifiers = (path: string, list: DspOrderModifier[] | undefined) =>
    list?.forEach((m, i) => {
      const at = `${path}.modifiers[${i}]`;
      quantity(`${at}.quantity`, m.quantity);
      money(`${at}.price`, m.price);
      currency(`${at}.currency`, m.currency);
      modifiers(at, m.modifiers);
    });

  if (order.items.length === 0) problem('items', 'must hold at least one item.');
  order.items.forEach((item, i) => {
    const at = `items[${i}]`;
    quantity(`${at}.quantity`, item.quantity);
    money(`${at}.price`, item.price);
    currency(`${at}.currency`, item.currency);
    modifiers(`items[${i}]`, item.modifiers);
  });
  if (order.currency !== undefined) currency('currency', order.currency);
  if (currencies.size > 1)
    problem('currency', `must be one currency for the whole order, not ${[...currencies].join(' and ')}.`);

  for (const field of CHARGES) money(field, order[field]);
  const itemIds = new Set(order.items.map((i) => i.id));
  order.discounts?.forEach((d, i) => {
    money(`discounts[${i}].amount`, d.amount);
    if (d.item_id !== undefined && !itemIds.has(d.item_id)) {
      problem(
        `discounts[${i}].item_id`,
        `names no item of the order ("${d.item_id}"); use an item's id or leave it out.`,
      );
    }
  });
  // Each amount alone may be a safe integer while their sum is not: the order's total (an event
  // provider's `total`) would then be no integer, and the order could not be told to anyone.
  const tooMuch = (path: string, amounts: (number | undefined)[], what: string) => {
    const sent = amounts.filter((n) => n !== undefined);
    if (!sent.every((n) => Number.isSafeInteger(n) && n >= 0)) return; // each said above
    if (!Number.isSafeInteger(sent.reduce((sum, n) => sum + n, 0)))
      problem(
        path,
        `${what} more than ${Number.MAX_SAFE_INTEGER}, the largest amount an order may total; send amounts in the smallest currency unit (150 = 1.50).`,
      );
  };
  const [, ...others] = CHARGES;
  tooMuch(
    'subtotal',
    CHARGES.map((field) => order[field]),
    `with ${others.join(', ')} adds up to`,
  );
  tooMuch('discounts', order.discounts?.map((d) => d.amount) ?? [], 'add up to');

  if (ADDRESSED_FULFILLMENT_TYPES.includes(type)) {
    const a = order.delivery_address;
    const coordinates =
      a?.latitude !== undefined &&
      a.longitude !== undefined &&
      Math.abs(a.latitude) <= 90 &&
      Math.abs(a.longitude) <= 180;
    const street = Boolean(
      a?.address_line_1?.trim() && a.city?.trim() && (a.postal_code?.trim() || a.country?.trim()),
    );
    if (!a) problem('delivery_address', `is required for ${type}.`);
    else if (!street && !coordinates) {
      problem(
        'delivery_address',
        'needs a street address (address_line_1, city, and postal_code or country) or coordinates (latitude -90..90, longitude -180..180).',
      );
    }
  }
  if (order.unpaid === true && type !== 'drive_thru')
    problem('unpaid', `may be true only for drive_thru orders, not ${type}.`);
  if (type !== 'merchant_managed_delivery') {
    for (const field of ['driver_tip', 'delivery_fee', 'delivery_fee_taxes'] as const) {
      if (order[field])
        problem(field, `applies only to merchant_managed_delivery; leave it out (or 0) for ${type}.`);
    }
    if (order.fulfillment_instructions?.trim()) {
      problem(
        'fulfillment_instructions',
        `applies only to merchant_managed_delivery; leave it out for ${type}.`,
      );
    }
  }
  if (order.store_tip && !STORE_TIP_TYPES.includes(type)) {
    problem('store_tip', `applies only to pickup or dine_in orders; leave it out (or 0) for ${type}.`);
  }

  const future = order.is_future_order === true || order.status === 'scheduled';
  const ready = order.estimated_ready_at_ms;
  const isMsTime =
    typeof ready === 'number' && Number.isSafeInteger(ready) && ready >= MIN_MS_TIME && ready <= EPOCH_MS_MAX;
  // A future order's time is its point: the 30-minute default would send the kitchen an order due
  // tomorrow now. So it must be a time in milliseconds (one already past is due now).
  if (future && !isMsTime) {
    const seconds =
      typeof ready === 'number' && ready > 0 && ready < MIN_MS_TIME
        ? `; ${ready} looks like seconds`
        : typeof ready === 'number' && ready > EPOCH_MS_MAX
          ? `; ${ready} is after the year 9999`
          : '';
    problem(
      'estimated_ready_at_ms',
      `a future order needs it: when the customer wants the order, in epoch milliseconds (such as 1763920000000)${seconds}.`,
    );
  }

  if (problems.length > 0) return { ok: false, problems };
  const readyAt = isMsTime && ready > ctx.receivedAtMs ? ready : ctx.receivedAtMs + DEFAULT_READY_MS;
  return {
    ok: true,
    order: {
      ...order,
      source: source as OrderSource,
      brand: brand as OrderBrand,
      currency: order.currency ?? [...currencies][0] ?? 'usd',
      customers,
      estimated_ready_at_ms: readyAt,
      should_include_utensils: order.should_include_utensils ?? true,
      is_future_order: order.is_future_order === true || order.status === 'scheduled',
    },
  };
}

/** The problems as one `error_message`: `path: sentence; …`, short enough for a DSP's screen. */
export function problemsMessage(problems: readonly OrderProblem[]): string {
  const text = problems.map((p) => `${p.path}: ${p.message}`).join('; ');
  return text.length > 1000 ? `${text.slice(0, 997)}...` : text;
}
