import type { FulfillmentType } from '@stream/contracts';
import type { DspOrderItem, DspOrderModifier } from '@stream/contracts/apis/become-a-dsp/index';
import type { PosLineItem, PosLineItemModifier, PosOrder } from '@stream/contracts/apis/become-a-pos/index';
import type { NormalizedDspOrder } from './validate.ts';

/**
 * A validated DSP order in the POS contract (`order.created`'s object: platform.md "New order
 * data"), as one pure function. Item and modifier ids resolve through the location's published
 * menu when it has one (`itemIds`); with none they pass through unchanged.
 */

export interface TranslationContext {
  /** The platform's order id: the POS's `idempotency_key`. */
  orderId: string;
  /** The POS's id of the location. */
  posLocationId: string;
  placedAtMs: number;
  /** DSP stream_id -> POS provider_id, from the menu published to the store; undefined: ids pass through. */
  itemIds?: ReadonlyMap<string, string> | undefined;
}

export type Translation = { ok: true; order: PosOrder } | { ok: false; missingItemIds: string[] };

/** What the POS calls the DSP's fulfillment type: a kiosk order is collected at the counter. */
const fulfillmentOf = (t: NormalizedDspOrder['fulfillment_type']): FulfillmentType =>
  t === 'kiosk' ? 'pickup' : t;

export function toPosOrder(order: NormalizedDspOrder, ctx: TranslationContext): Translation {
  const missing = new Set<string>();
  const posId = (id: string) => {
    if (!ctx.itemIds) return id;
    const mapped = ctx.itemIds.get(id);
    if (mapped === undefined) missing.add(id);
    return mapped ?? id;
  };
  const upper = (c: string) => c.toUpperCase();
  const modifier = (m: DspOrderModifier): PosLineItemModifier => ({
    provider_id: posId(m.id),
    ...(m.modifier_group_id !== undefined ? { modifier_group_provider_id: posId(m.modifier_group_id) } : {}),
    name: m.name,
    quantity: m.quantity,
    price_amount: m.price,
    price_currency: upper(m.currency),
    modifiers: (m.modifiers ?? []).map(modifier),
  });
  const discountOf = (item: DspOrderItem) => order.discounts?.find((d) => d.item_id === item.id);
  const lineItem = (item: DspOrderItem): PosLineItem => {
    const discount = discountOf(item);
    return {
      provider_id: posId(item.id),
      ...(item.item_id !== undefined ? { item_family_provider_id: posId(item.item_id) } : {}),
      name: item.name,
      quantity: item.quantity,
      price_amount: item.price,
      price_currency: upper(item.currency),
      modifiers: (item.modifiers ?? []).map(modifier),
      ...(item.special_instructions !== undefined ? { special_instructions: item.special_instructions } : {}),
      ...(discount ? { discount_id: discount.id } : {}),
      ...(item.customer_id !== undefined ? { customer_id: item.customer_id } : {}),
    };
  };
  const line_items = order.items.map(lineItem);
  if (missing.size > 0) return { ok: false, missingItemIds: [...missing] };

  const customers = order.customers.map((c) => ({
    ...(c.id !== undefined ? { id: c.id } : {}),
    ...(c.name !== undefined ? { name: c.name } : {}),
    ...(c.phone !== undefined ? { phone: c.phone } : {}),
    ...(c.masked_phone_code !== undefined ? { phone_code: c.masked_phone_code } : {}),
    ...(c.email !== undefined ? { email: c.email } : {}),
  }));
  const first = customers[0];
  const type = order.fulfillment_type;
  const restaurantDelivers = type === 'merchant_managed_delivery';
  const delivered = restaurantDelivers || type === 'stream_managed_delivery';
  const deliveryFee =
    order.delivery_fee !== undefined || order.delivery_fee_taxes !== undefined
      ? (order.delivery_fee ?? 0) + (order.delivery_fee_taxes ?? 0)
      : undefined;

  return {
    ok: true,
    order: {
      location_id: ctx.posLocationId,
      idempotency_key: ctx.orderId,
      source_order_id: order.id,
      source: order.source,
      brand: order.brand,
      fulfillment_type: fulfillmentOf(type),
      customers,
      // Deprecated single-customer fields, for POS builds that still read them; the spec's webhook
      // order data requires name, phone and phone code, so they are sent empty rather than left out.
      customer_name: first?.name ?? '',
      ...(first?.email !== undefined ? { customer_email: first.email } : {}),
      customer_phone: first?.phone ?? '',
      customer_phone_code: first?.phone_code ?? '',
      line_items,
      ...(order.special_instructions !== undefined
        ? { special_instructions: order.special_instructions }
        : {}),
      should_include_utensils: order.should_include_utensils,
      is_future_order: order.is_future_order,
      placed_at: ctx.placedAtMs,
      requested_for: order.estimated_ready_at_ms,
      subtotal: order.subtotal,
      tax: order.tax,
      tax_withheld_by_dsp: order.tax_withheld ?? false,
      ...(order.service_charge !== undefined ? { service_charge: order.service_charge } : {}),
      ...(restaurantDelivers && order.driver_tip !== undefined ? { driver_tip: order.driver_tip } : {}),
      ...(order.store_tip !== undefined ? { restaurant_tip: order.store_tip } : {}),
      ...(restaurantDelivers && deliveryFee !== undefined ? { delivery_fee: deliveryFee } : {}),
      ...(delivered && order.delivery_address ? { delivery_address: order.delivery_address } : {}),
      ...(restaurantDelivers && order.fulfillment_instructions !== undefined
        ? { fulfillment_instructions: order.fulfillment_instructions }
        : {}),
      discounts: (order.discounts ?? []).map((d) => ({
        provider_id: d.id,
        amount: d.amount,
        items: d.item_id !== undefined ? [posId(d.item_id)] : [],
      })),
      ...(order.unpaid ? { unpaid: true } : {}),
    },
  };
}
