import { isDeepStrictEqual } from 'node:util';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type {
  CancelOrderWebhook,
  DeliveryStatusUpdateWebhook,
} from '@stream/contracts/apis/become-a-dsp/index';
import { type DspWebhook } from '@stream/contracts/apis/become-a-dsp/index';
import type { PosOrderUpdateStatus } from '@stream/contracts/apis/become-a-pos/index';
import type { DeliveryStatus, DriverDetails } from '@stream/contracts';
import { e164Of } from '@stream/contracts/common';
import { canTransition, ORDER_STATES, type OrderStatus } from '@stream/contracts/states';
import type { DbOrTx } from '../db/client.ts';
import { orders, webhookEvents } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { defineJobKind } from '../jobs/kinds.ts';
import { sendToPos } from './calls.ts';
import { TIMER, type Why } from './effects.ts';
import { acceptOrder, failOrder } from './outcome.ts';
import { addTimeline, lockOrder, moveOrder, refusal, type Order } from './records.ts';

/**
 * Events about an existing order, from either side, applied to its state: DSP cancellations and
 * delivery statuses, POS status updates. An event that does not fit the order's status is refused
 * (the caller records it and answers 409), never applied. A repeat of the status the order already
 * has is accepted and changes nothing (a partner retrying its webhook).
 */

export type Applied = { order: Order } | { refused: ApiError };
export type Settled<T> = { value: T } | { refused: ApiError };

/** Maps an application to the caller's answer; a refusal passes through (recorded by `applyDspEvent`/`applyPosStatus`). */
export function settle<T>(applied: Applied, answer: (order: Order) => T): Settled<T> {
  return 'refused' in applied ? applied : { value: answer(applied.order) };
}

/** Moves the order to `to` and runs its effects, or refuses. */
async function moveOrRefuse(
  tx: DbOrTx,
  order: Order,
  to: OrderStatus,
  cause: string,
  why?: Why,
): Promise<Applied> {
  if (order.status === to) return { order };
  if (!canTransition(ORDER_STATES, order.status, to)) return { refused: refusal(order, to) };
  const moved = await moveOrder(tx, order, to, cause, {}, { why });
  return moved ? { order: moved } : { refused: refusal(order, to) };
}

async function recordRefusal(
  tx: DbOrTx,
  order: Order,
  applied: Applied,
  type: string,
  eventId: string | null,
) {
  if ('refused' in applied) {
    await addTimeline(tx, order.id, { kind: 'refused', type, detail: applied.refused.message, eventId });
  }
  return applied;
}

/** A delivery status applies while the POS holds the order. */
export const DELIVERY_APPLIES: readonly OrderStatus[] = [
  'awaiting_confirmation',
  'accepted',
  'ready_for_pickup',
  'completed',
];

/** Ended without the DSP's cancel: a `cancel_order` finds nothing to cancel and is answered 200. */
const CANCEL_SETTLED: readonly OrderStatus[] = ['failed', 'merchant_canceled'];

type OrderEvent = z.output<typeof CancelOrderWebhook> | z.output<typeof DeliveryStatusUpdateWebhook>;

export async function applyDspEvent(
  tx: DbOrTx,
  order: Order,
  event: OrderEvent,
  eventId: string | null,
): Promise<Applied> {
  let applied: Applied;
  if (event.type === 'cancel_order' && CANCEL_SETTLED.includes(order.status)) {
    // Already ended without the DSP's cancel (it failed, or the restaurant cancelled it): nothing is
    // left to cancel, and a 409 would have a DSP retrying a cancellation that is already true.
    applied = { order };
  } else if (event.type === 'cancel_order') {
    const why = [event.cancel_source, event.cancel_reason].filter(Boolean).join(': ');
    applied = await moveOrRefuse(tx, order, 'dsp_canceled', `DSP cancel_order${why ? ` (${why})` : ''}`, {
      cancelReason: event.cancel_reason,
    });
  } else if (!DELIVERY_APPLIES.includes(order.status)) {
    applied = {
      refused: new ApiError(
        'invalid_transition',
        `The order is ${order.status}; a delivery status applies only while the POS holds the order (${DELIVERY_APPLIES.join(', ')}).`,
        [{ path: 'status', message: `allowed in: ${DELIVERY_APPLIES.join(', ')}` }],
      ),
    };
  } else if (isRepeat(order, event)) {
    applied = { order };
  } else {
    const updated = await updateDelivery(tx, order, {
      deliveryStatus: event.delivery_status,
      driver: event.driver_details ?? order.driverDetails ?? undefined,
    });
    // Delivered is handed over: the order completes as a POS `completed` would complete it, not
    // left `accepted` after the POS was told `status: completed` (as for an event provider's delivery).
    const delivered =
      event.delivery_status === 'completed' && canTransition(ORDER_STATES, updated.status, 'completed')
        ? await moveOrder(tx, updated, 'completed', 'DSP: delivered')
        : undefined;
    applied = { order: delivered ?? updated };
  }
  return recordRefusal(tx, order, applied, event.type, eventId);
}

/**
 * A delivery status the order already has, with no driver or the driver it has: a DSP retrying
 * its webhook. Accepted and not relayed again (the POS would hear the same update twice).
 */
function isRepeat(order: Order, event: z.output<typeof DeliveryStatusUpdateWebhook>): boolean {
  if (order.deliveryStatus !== event.delivery_status) return false;
  if (!event.driver_details) return true;
  return isDeepStrictEqual(
    withE164Phone(event.driver_details),
    withE164Phone(order.driverDetails ?? undefined),
  );
}

/**
 * Records where the order's delivery is, and who drives it, and tells the POS (`order.updated` with
 * `delivery_status` and `driver_details`): a DSP's `delivery_status_update` and an event provider's
 * webhooks alike. `patch` may name the event provider delivering it.
 */
export async function updateDelivery(
  tx: DbOrTx,
  order: Order,
  change: {
    deliveryStatus?: DeliveryStatus | undefined;
    driver?: DriverDetails | undefined;
    patch?: Partial<Pick<Order, 'deliveryProviderId' | 'providerDeliveryStatus'>>;
  },
): Promise<Order> {
  const deliveryStatus = change.deliveryStatus ?? order.deliveryStatus ?? undefined;
  const driver = withE164Phone(change.driver ?? order.driverDetails ?? undefined);
  const [updated] = await tx
    .update(orders)
    .set({
      ...change.patch,
      deliveryStatus: deliveryStatus ?? null,
      driverDetails: driver ?? null,
      updatedAt: new Date(),
    })
    .where(eq(orders.id, order.id))
    .returning();
  await sendToPos(tx, order, {
    type: 'order.updated',
    object: {
      location_id: order.posLocationId ?? '',
      order_id: order.id,
      ...(order.posOrderId ? { provider_id: order.posOrderId } : {}),
      status: posUpdateStatus(order.status, deliveryStatus),
      ...(deliveryStatus ? { delivery_status: deliveryStatus } : {}),
      ...(driver ? { driver_details: driver } : {}),
    },
  });
  return updated ?? order;
}

/**
 * The driver with its phone as E.164, the only form the POS is sent. The webhooks' schemas take
 * nothing else (`SentPhoneE164`); a driver recorded before they did, or queued then, has its number
 * normalised, or its phone left out when it is not E.164 once spaces, dashes, dots and parentheses are out.
 */
export function withE164Phone(driver: DriverDetails | undefined): DriverDetails | undefined {
  if (!driver?.phone) return driver;
  const number = e164Of(driver.phone.number);
  if (number === driver.phone.number) return driver;
  const { phone, ...rest } = driver;
  return number === undefined ? rest : { ...rest, phone: { ...phone, number } };
}

/** The `status` of an `order.updated` to the POS: where the delivery puts the order, else where it is. */
export function posUpdateStatus(
  order: OrderStatus,
  delivery: DeliveryStatus | undefined,
): PosOrderUpdateStatus {
  switch (delivery) {
    case 'completed':
      return 'completed';
    case 'enroute_to_dropoff':
    case 'arrived_at_dropoff':
      return 'out_for_delivery';
    case 'failed':
    case 'failed_to_assign_driver':
    case 'failed_to_deliver':
    case 'failed_to_pickup':
    case 'enroute_to_return':
    case 'arrived_at_return':
    case 'returned':
      return 'failed';
    case 'merchant_canceled':
      return 'merchant_canceled';
    default:
      return order === 'ready_for_pickup' || order === 'completed' ? order : 'in_progress';
  }
}

export type PosOrderStatus = 'accepted' | 'ready_for_pickup' | 'completed' | 'merchant_canceled';

export async function applyPosStatus(
  tx: DbOrTx,
  order: Order,
  status: PosOrderStatus,
  eventId: string,
): Promise<Applied> {
  let applied: Applied;
  if (order.status === 'awaiting_confirmation' && status !== 'merchant_canceled') {
    // Ready or completed before its confirmation: the POS made it, so that is the confirmation
    // (the DSP hears the accept, then the status), not an event refused for coming early.
    const prep = order.posPrepMinutes ?? undefined;
    const confirmed = (await acceptOrder(tx, order, null, prep, 'POS confirms')) ?? order;
    applied =
      status === 'accepted'
        ? { order: confirmed }
        : await moveOrRefuse(tx, confirmed, status, `POS ${status}`);
  } else if (order.status === 'awaiting_confirmation' && status === 'merchant_canceled') {
    const failed = await failOrder(
      tx,
      order,
      'restaurant_not_accepting_orders',
      { invalid_item_ids: [], error_message: 'The restaurant declined the order.' },
      'POS declines',
    );
    applied = { order: failed ?? order };
  } else if (status === 'accepted') {
    // A repeated confirmation of an order already accepted (or further along) changes nothing.
    applied = ['accepted', 'ready_for_pickup', 'completed'].includes(order.status)
      ? { order }
      : { refused: refusal(order, 'accepted') };
  } else {
    applied = await moveOrRefuse(tx, order, status, `POS ${status}`);
  }
  return recordRefusal(tx, order, applied, `order.status.updated:${status}`, eventId);
}

const QueuedPayload = z.object({ order_id: z.string(), event_id: z.string() });

/**
 * A DSP event that arrived while its order was on its way to the POS, applied once that delivery
 * settled (it runs behind the delivery on the order's POS ordering key). A refusal is recorded on
 * the timeline; the DSP was answered 202 `queued` and sees the outcome there and in its events.
 */
export const applyQueuedEvent = defineJobKind<z.infer<typeof QueuedPayload>, void>({
  kind: 'orders.apply-queued',
  payload: QueuedPayload,
  ...TIMER,
  async onSucceeded(tx, job) {
    const order = await lockOrder(tx, eq(orders.id, job.payload.order_id));
    const [event] = await tx.select().from(webhookEvents).where(eq(webhookEvents.id, job.payload.event_id));
    if (!order || !event) return;
    const body = event.body as DspWebhook;
    if (body.type !== 'cancel_order' && body.type !== 'delivery_status_update') return;
    await applyDspEvent(tx, order, body, event.id);
  },
});
