import type { z } from 'zod';
import type { CreateOrderData } from '@stream/contracts/apis/hr-orders/index';
import { HostedOrder, type OrderInput } from '@stream/contracts/apis/hr-orders/order';
import type { HostedMessage } from '@stream/contracts/envelopes';
import type { ServiceType } from '@stream/contracts/hosted';
import type { FastifyRequest } from 'fastify';
import { authOf, type PartnerAuth } from '../../auth/bearer.ts';
import type { DbOrTx, Tx } from '../../db/client.ts';
import { ApiError } from '../../http/errors.ts';
import type { HostedStore } from '../access.ts';
import type { Loose } from '../ignored-fields.ts';
import { dueAt, priceOrder, type PricingResult } from '../pricing-engine/price.ts';
import { spelledAsListed, storeOrderTypeFor } from '../stores/order-types.ts';
import { storeAndMenuForOrder } from './menu-for.ts';
import { zoneFeeFor } from './zone-fee.ts';
import { applyCardPayment } from './payments.ts';
import { insertOrder, type OrderRow } from './records.ts';

/**
 * The fields an order (`body.data`) takes: those of its input, and those of an answer, which a
 * partner may send back (their values are discarded and recomputed, as documented).
 */
export const orderFields = (input: { shape: object }): Loose => ({
  path: 'body.data',
  names: new Set([...Object.keys(input.shape), ...Object.keys(HostedOrder.shape), 'cartStatus']),
});

export interface PricingRequest {
  auth: PartnerAuth;
  storeId: number;
  serviceType: ServiceType;
  applyDefaultModifiers: boolean;
  order: OrderInput;
  now: Date;
}

/** The pricing request of a PriceOrder or Orders call: its caller, `X-Store`, `X-Service-Type` and body. */
export function pricingRequestOf<O extends OrderInput>(
  req: FastifyRequest & {
    headers: { 'x-store': number; 'x-service-type': ServiceType };
    body: { applyDefaultModifiers: boolean; data: O };
  },
): Omit<PricingRequest, 'order'> & { order: O } {
  return {
    auth: authOf(req),
    storeId: req.headers['x-store'],
    serviceType: req.headers['x-service-type'],
    applyDefaultModifiers: req.body.applyDefaultModifiers,
    order: req.body.data,
    now: new Date(),
  };
}

/**
 * Prices an order against the store's menu, on the terms of the store's own order type (offered
 * for the service type, open, its `estimatedTime`); 422 `order_invalid` when it cannot be priced.
 */
export async function priceForStore(
  db: DbOrTx,
  r: PricingRequest,
): Promise<PricingResult & { store: Pick<HostedStore, 'id' | 'zone'>; prepMinutes: number }> {
  const { store, menu } = await storeAndMenuForOrder(db, r.auth, r.storeId, r.serviceType, r.order);
  // The order type in any case, as in the Store API's paths: `pickup` is the menu's `Pickup`.
  const orderType = spelledAsListed(r.order.orderType, [
    ...menu.orderTypes.map((t) => t.id),
    ...store.orderTypes.map((t) => t.id),
  ]);
  const order = orderType === r.order.orderType ? r.order : { ...r.order, orderType };
  const terms = storeOrderTypeFor(store.id, store.orderTypes, order.orderType, r.serviceType);
  const menuOrderType = menu.orderTypes.find((t) => t.id === order.orderType);
  const zoneName = order.customer?.zoneName;
  const zone = menuOrderType?.isDelivery && zoneName ? await zoneFeeFor(db, store.id, zoneName) : undefined;
  const result = priceOrder({
    menu,
    order,
    applyDefaultModifiers: r.applyDefaultModifiers,
    timeZone: store.zone,
    now: r.now,
    storeHours: terms?.operationPeriods,
    zoneFee: zone?.cents,
  });
  if (result.errors.length > 0) {
    const details = result.errors.map((e) => ({ path: `body.data.${e.path}`, message: e.message }));
    throw new ApiError(
      'order_invalid',
      `The order cannot be priced against menu ${menu.displayName}: ${details[0]!.path}: ${details[0]!.message}`,
      details,
    );
  }
  // The store's current estimate (a manager may have changed it), else the menu's prep minutes.
  const prepMinutes = terms?.estimatedTime ?? menuOrderType?.deferPrepMinutes ?? 0;
  // The engine's warnings name fields of the order (`discounts[1]`): on the wire, of the body.
  const messages = [
    ...result.messages.map((m) => ({ ...m, id: `body.data.${m.id}` })),
    ...(zone?.messages ?? []),
  ];
  return { ...result, messages, store, prepMinutes };
}

export interface Placed {
  row: OrderRow;
  messages: HostedMessage[];
  rejection?: { message: string } | undefined;
}

/**
 * Places an order in the caller's transaction: priced, stored `accepted` (ready when it is due:
 * `deferDue`, or now when that is past; or after the order type's minutes when that is later) or
 * `rejected` with the engine's reason, and its card payments applied. A rejected order takes no
 * payments.
 */
export async function placeOrder(
  tx: Tx,
  r: Omit<PricingRequest, 'order'> & { order: z.output<typeof CreateOrderData> },
): Promise<Placed> {
  const { creditCardPayments, ...order } = r.order;
  const priced = await priceForStore(tx, { ...r, order });
  const rejection = priced.rejection;
  const ready = Math.max(
    dueAt(order.deferDue, r.now).getTime(),
    r.now.getTime() + priced.prepMinutes * 60_000,
  );
  const row = await insertOrder(tx, {
    storeId: priced.store.id,
    partnerId: r.auth.partnerId,
    serviceType: r.serviceType,
    priced: priced.order,
    status: rejection ? 'rejected' : 'accepted',
    rejectReason: rejection?.reason ?? null,
    estimatedTime: rejection ? null : new Date(ready),
  });
  const messages = [...priced.messages];
  if (!rejection) {
    for (const [i, payment] of creditCardPayments.entries()) {
      try {
        await applyCardPayment(tx, row, payment);
      } catch (err) {
        // Which of the payments was refused: the error names it (ApplyCreditCardPayment has one).
        if (!(err instanceof ApiError) || err.details?.length) throw err;
        throw new ApiError(err.code, err.message, [
          { path: `body.data.creditCardPayments[${i}]`, message: err.message },
        ]);
      }
    }
  } else if (creditCardPayments.length > 0) {
    messages.push({
      id: 'body.data.creditCardPayments',
      message: 'The order was rejected, so its card payments were not applied; void or reverse them.',
      messageType: 'WARNING',
    });
  }
  return { row, messages, rejection };
}
