import type { DspOrder } from '@stream/contracts/apis/become-a-dsp/index';
import type { PosLineItemModifier, PosOrder } from '@stream/contracts/apis/become-a-pos/index';
import {
  EventDeliveryAddress,
  type EventFulfillmentType,
  type EventOrder,
  type EventOrderItem,
  type OrderEvent,
  type OrderEventType,
} from '@stream/contracts/apis/integrate-with-events/index';
import type { OrderStatus } from '@stream/contracts/states';
import type { Order } from '../orders/records.ts';

/**
 * What an event provider is told about an order, as pure functions: which moves of the order are
 * events (`eventOf`), and the event's body in the events contract (`orderEventOf`), built from the
 * order as the platform keeps it (the POS order it translated, the DSP's amounts).
 */

export interface EventKind {
  type: OrderEventType;
  status: EventOrder['status'];
}

/** Moves after which a provider had been told of the order: a cancel then cancels what it knows. */
const CONFIRMED: readonly (OrderStatus | null)[] = ['accepted', 'ready_for_pickup'];

/**
 * The event a move of an order is, if any: accepted -> `order.confirmed` (`in_progress`); ready ->
 * `order.updated`; a cancellation of an order the provider was told of -> `order.canceled`
 * (`dsp_canceled` by the marketplace, `canceled` by the restaurant). `completed` and failures are
 * no event (the events contract has no status for them).
 */
export function eventOf(to: OrderStatus, from: OrderStatus | null): EventKind | undefined {
  if (to === 'accepted') return { type: 'order.confirmed', status: 'in_progress' };
  if (to === 'ready_for_pickup') return { type: 'order.updated', status: 'ready_for_pickup' };
  if (!CONFIRMED.includes(from)) return undefined;
  if (to === 'dsp_canceled') return { type: 'order.canceled', status: 'dsp_canceled' };
  if (to === 'merchant_canceled') return { type: 'order.canceled', status: 'canceled' };
  return undefined;
}

/** The events contract has no `stream_managed_delivery` nor `drive_thru` (spec section 4). */
function eventFulfillment(type: PosOrder['fulfillment_type']): EventFulfillmentType {
  if (type === 'stream_managed_delivery') return 'delivery';
  if (type === 'drive_thru') return 'pickup';
  return type;
}
const DELIVERED: readonly EventFulfillmentType[] = ['delivery', 'merchant_managed_delivery'];
const ADDRESS_FIELDS = Object.keys(EventDeliveryAddress.shape) as (keyof DspOrder['delivery_address'] &
  string)[];

/** The contract's fields of the DSP's address (a DSP may send more). */
const addressOf = (a: NonNullable<DspOrder['delivery_address']>) =>
  Object.fromEntries(ADDRESS_FIELDS.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));

const itemOf = (i: {
  provider_id: string;
  name: string;
  quantity: number;
  price_amount: number;
  modifiers: PosLineItemModifier[];
}): EventOrderItem => ({
  id: i.provider_id,
  name: i.name,
  quantity: i.quantity,
  price: i.price_amount,
  modifiers: i.modifiers.map(itemOf),
});

/** The event `kind` of `order` for a provider, at the org location `locationId`. */
export function orderEventOf(order: Order, kind: EventKind): OrderEvent {
  const pos = order.posOrder as unknown as PosOrder;
  const dsp = order.dspOrder as unknown as DspOrder;
  const fulfillment = eventFulfillment(pos.fulfillment_type);
  const customer = pos.customers[0] ?? {};
  const instructions = [dsp.special_instructions, dsp.fulfillment_instructions].filter(Boolean).join('\n');
  const [subtotal, tax, serviceCharge, driverTip, storeTip, deliveryFee, deliveryFeeTax] = [
    dsp.subtotal,
    dsp.tax,
    dsp.service_charge,
    dsp.driver_tip,
    dsp.store_tip,
    dsp.delivery_fee,
    dsp.delivery_fee_taxes,
  ].map((n) => n ?? 0) as [number, number, number, number, number, number, number];
  const discounts = (dsp.discounts ?? []).reduce((sum, d) => sum + d.amount, 0);
  const eventOrder: EventOrder = {
    id: order.id,
    status: kind.status,
    source: pos.source as EventOrder['source'], // validated as an OrderSource on the way in
    dsp_order_id: order.dspOrderId,
    // A blank customer_facing_id is none: the courier needs a number to quote.
    dsp_order_number: dsp.customer_facing_id?.trim() ? dsp.customer_facing_id : order.dspOrderId,
    fulfillment_type: fulfillment,
    estimated_fulfillment_time: (order.estimatedReadyAt ?? order.createdAt).getTime(),
    customer: {
      ...(customer.name !== undefined ? { name: customer.name } : {}),
      ...(customer.phone !== undefined ? { phone: customer.phone } : {}),
      ...(customer.phone_code !== undefined ? { phone_code: customer.phone_code } : {}),
      ...(customer.email !== undefined ? { email: customer.email } : {}),
    },
    ...(DELIVERED.includes(fulfillment) && dsp.delivery_address
      ? { delivery_address: addressOf(dsp.delivery_address) }
      : {}),
    ...(instructions ? { instructions } : {}),
    currency: pos.line_items[0]?.price_currency ?? (dsp.currency ?? 'usd').toUpperCase(),
    items: pos.line_items.map(itemOf),
    subtotal,
    tax,
    driver_tip: driverTip,
    delivery_fee: deliveryFee,
    delivery_fee_tax: deliveryFeeTax,
    // What the customer pays is never below nothing, whatever discounts a marketplace grants.
    total: Math.max(
      0,
      subtotal + tax + serviceCharge + driverTip + storeTip + deliveryFee + deliveryFeeTax - discounts,
    ),
    unpaid: pos.unpaid ?? false,
  };
  return {
    type: kind.type,
    location_id: order.locationId ?? '',
    reference_id: order.id,
    order: eventOrder,
  } as OrderEvent;
}
