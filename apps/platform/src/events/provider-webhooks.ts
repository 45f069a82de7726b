import { eq } from 'drizzle-orm';
import type { DeliveryStatus, DriverDetails } from '@stream/contracts';
import type {
  EventProviderWebhook,
  ProviderDeliveryAnswer,
  ProviderDriver,
} from '@stream/contracts/apis/integrate-with-events/index';
import { DELIVERY_STATES, transitionRefusal, type OrderStatus } from '@stream/contracts/states';
import type { ProviderDeliveryStatus } from '@stream/contracts/states/delivery';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { orders } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { addTimeline, lockOrder, moveOrder, recordWebhook, toldOf, type Order } from '../orders/records.ts';
import { updateDelivery } from '../orders/relay.ts';
import type { Partner } from '../partners/service.ts';
import { enabledProviders } from './subscriptions.ts';

/**
 * `POST /event-provider/{partner_slug}/webhook`: a driver assignment or delivery status from an
 * event provider, in one transaction with the webhook's record and the order's timeline, applied
 * to the order's delivery (`DELIVERY_STATES`) and relayed to the POS before the 200.
 */

/** An order the provider may deliver: after the POS accepted it, until it is cancelled. */
const DELIVERABLE: readonly OrderStatus[] = ['accepted', 'ready_for_pickup', 'completed'];

const driverOf = (provider: Partner, d: ProviderDriver): DriverDetails => ({
  source: provider.slug,
  name: d.name,
  phone: { number: d.phone.number, ...(d.phone.code ? { code: d.phone.code } : {}) },
});

const providerDriverOf = (d: DriverDetails | null): ProviderDriver | null =>
  d?.name && d.phone
    ? { name: d.name, phone: { number: d.phone.number, ...(d.phone.code ? { code: d.phone.code } : {}) } }
    : null;

const sameDriver = (a: ProviderDriver | null, b: ProviderDriver) =>
  a?.name === b.name && a.phone.number === b.phone.number && (a.phone.code ?? '') === (b.phone.code ?? '');

const answerOf = (eventId: string, order: Order): ProviderDeliveryAnswer => ({
  event_id: eventId,
  order_id: order.id,
  delivery_status: order.providerDeliveryStatus ?? 'unassigned',
  driver: providerDriverOf(order.driverDetails),
});

/**
 * 404 for an order unknown, of another location, or the provider does not hear: it must have been
 * enabled for the location when the order was received (the providers `eventCallsOf` tells of it),
 * or been told of it, or deliver it (an order it was sent stays its to deliver after the location
 * disables it). One enabled later was never told of the order, so it is unknown to it.
 */
async function orderFor(tx: Tx, provider: Partner, body: EventProviderWebhook) {
  const { order_id, location_id } = body.object;
  const order = await lockOrder(tx, eq(orders.id, order_id));
  const mine =
    order?.locationId === location_id &&
    (order.deliveryProviderId === provider.id ||
      (await enabledProviders(tx, order.locationId, order.createdAt)).includes(provider.id) ||
      (await toldOf(tx, order.id, provider.id)));
  if (!order || !mine) {
    throw new ApiError(
      'order_not_found',
      `No order ${order_id} at location ${location_id} is sent to you: use the reference_id and location_id of its events (only locations that enabled you send them).`,
    );
  }
  if (order.deliveryProviderId && order.deliveryProviderId !== provider.id) {
    throw new ApiError(
      'delivery_held_by_another_provider',
      `Another event provider is delivering order ${order_id}; the first provider to assign a driver or report a status delivers it.`,
    );
  }
  return order;
}

/** Why the move is refused, or undefined when it applies (`from` = `to`: a driver, the stage kept). */
function refusalOf(
  order: Order,
  from: ProviderDeliveryStatus,
  to: ProviderDeliveryStatus,
): ApiError | undefined {
  if (!DELIVERABLE.includes(order.status)) {
    return new ApiError(
      'invalid_transition',
      `The order is ${order.status}; a delivery applies only once the restaurant accepted the order and until it is cancelled (${DELIVERABLE.join(', ')}).`,
      [{ path: 'status', message: `allowed in: ${DELIVERABLE.join(', ')}` }],
    );
  }
  const refused = from === to ? undefined : transitionRefusal(DELIVERY_STATES, from, to);
  return refused && new ApiError('invalid_transition', refused.message, refused.details);
}

export async function receiveProviderWebhook(
  ctx: AppContext,
  provider: Partner,
  body: EventProviderWebhook,
): Promise<ProviderDeliveryAnswer> {
  const outcome = await ctx.db.transaction(async (tx) => {
    const order = await orderFor(tx, provider, body);
    const eventId = await recordWebhook(tx, {
      partnerId: provider.id,
      type: body.type,
      body,
      locationId: order.locationId,
      orderId: order.id,
    });
    const from = order.providerDeliveryStatus ?? 'unassigned';
    const assign = body.type === 'order.assign.driver';
    const current = providerDriverOf(order.driverDetails);
    // The first driver of a delivery already under way (its assignment overtaken by a status, or
    // sent late): the driver is recorded and the stage kept, neither lost nor moved back.
    const to: ProviderDeliveryStatus = !assign
      ? body.object.status
      : current || from === 'unassigned'
        ? 'driver_assigned'
        : from;
    const driver = assign ? driverOf(provider, body.object.driver) : undefined;
    const detail = assign ? `${from} -> ${to}: ${body.object.driver.name}` : `${from} -> ${to}`;
    await addTimeline(tx, order.id, {
      kind: 'received',
      type: body.type,
      partnerId: provider.id,
      eventId,
      detail,
    });
    // A repeat (the stage the delivery is at, the driver it has) is accepted and changes nothing,
    // while the order may still be delivered: once it is cancelled, a repeat is refused like any move.
    const repeat = assign ? from !== 'unassigned' && sameDriver(current, body.object.driver) : from === to;
    const refused = refusalOf(order, from, repeat ? from : to);
    if (refused) {
      await addTimeline(tx, order.id, { kind: 'refused', type: body.type, detail: refused.message, eventId });
      return { refused };
    }
    if (repeat) return { answer: answerOf(eventId, order) };
    const updated = await updateDelivery(tx, order, {
      deliveryStatus: assign ? undefined : (to as DeliveryStatus),
      driver,
      patch: { deliveryProviderId: provider.id, providerDeliveryStatus: to },
    });
    // Delivered is handed over: the order completes as a POS `completed` would complete it (the DSP
    // is sent `completed`), not left `accepted` after the POS was told `status: completed`.
    const completed =
      !assign && to === 'completed'
        ? await moveOrder(tx, updated, 'completed', `${provider.slug}: delivered`)
        : undefined;
    return { answer: answerOf(eventId, completed ?? updated) };
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome.answer;
}
