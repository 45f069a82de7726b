import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { OrderStatus } from '@stream/contracts/states';
import type { Tx } from '../db/client.ts';
import { orders } from '../db/schema/index.ts';
import { defineJobKind } from '../jobs/kinds.ts';
import { eventCallsOf } from '../events/delivery.ts';
import { refusingOrders } from './availability.ts';
import { dspCallOf, posCallOf, posKey, type OrderCall } from './calls.ts';
import { failOrder } from './outcome.ts';
import { lockOrder, moveOrder, type Order } from './records.ts';

/**
 * What each order status causes, in one place: `effectsOf` plans the calls (and timers) a status
 * means, and `moveOrder` / `insertOrder` (`records.ts`) write them in the statement of the move, so
 * a status is never reached without what it causes. Pure: it reads nothing but the order and the
 * location's event providers it is given. This is where event providers hook in.
 */

/** The POS confirms an `async_acceptance` order within this, or the order fails (tests shrink it). */
export const ASYNC_CONFIRMATION = { ms: 60_000 };

/** Which order of which store a DSP event is about, in the DSP's ids. */
const dspOrderRef = (order: Order) => ({ location_id: order.dspLocationId, order_id: order.dspOrderId });

/**
 * What reaching `order.status` (from `from`; null for a new order) causes: the calls to the POS and
 * the DSP, and the events for `providers`, the event providers enabled for the order's location.
 */
export function effectsOf(
  order: Order,
  from: OrderStatus | null,
  providers: readonly string[] = [],
  why: Why = {},
): OrderCall[] {
  return [...partnerCallsOf(order, from, why), ...eventCallsOf(order, from, providers)];
}

/** What the event that moved the order said about it, for the calls the move causes. */
export interface Why {
  /** The DSP's `cancel_reason`, passed on in the POS's `order.canceled`. */
  cancelReason?: string | undefined;
  /**
   * A failure of an order the POS may hold (it took it, then did not confirm; or answered it
   * unusably): the POS is told `order.canceled` too, so it does not make an order the DSP was told failed.
   */
  posMayHoldIt?: boolean | undefined;
}

function partnerCallsOf(order: Order, from: OrderStatus | null, why: Why): OrderCall[] {
  switch (order.status) {
    case 'received':
      return [posCallOf(order, { type: 'order.created', object: order.posOrder as never })];
    case 'scheduled':
      return [
        {
          job: {
            kind: releaseJob,
            payload: { order_id: order.id },
            runAt: order.releaseAt ?? undefined,
            orderingKey: posKey(order.id),
          },
        },
      ];
    case 'awaiting_confirmation':
      return [
        {
          job: {
            kind: confirmationTimeout,
            payload: { order_id: order.id },
            runAt: new Date(Date.now() + ASYNC_CONFIRMATION.ms),
          },
        },
      ];
    case 'accepted':
      return [
        dspCallOf(order, {
          type: 'location.order.accept',
          ...dspOrderRef(order),
          estimated_ready_at_ms: (order.estimatedReadyAt ?? new Date()).getTime(),
        }),
      ];
    case 'failed':
      return [
        dspCallOf(order, {
          type: 'location.order.fail',
          ...dspOrderRef(order),
          failure_reason: order.failureReason ?? 'unknown',
          failure_details: order.failureDetails ?? { invalid_item_ids: [] },
        }),
        ...(why.posMayHoldIt ? [posCancelOf(order)] : []),
      ];
    case 'ready_for_pickup':
    case 'completed':
      return [
        dspCallOf(order, {
          type: 'location.order.notify_status_change',
          ...dspOrderRef(order),
          order_status_update: order.status,
        }),
      ];
    case 'merchant_canceled':
      return [dspCallOf(order, { type: 'location.order.cancel', ...dspOrderRef(order) })];
    case 'dsp_canceled':
      // A scheduled order never reached the POS: nothing to tell it.
      if (from === 'scheduled') return [];
      return [posCancelOf(order, why.cancelReason)];
  }
}

/** `order.canceled` to the POS, naming the order by both ids (POS builds read either), and why when known. */
const posCancelOf = (order: Order, reason?: string): OrderCall =>
  posCallOf(order, {
    type: 'order.canceled',
    object: {
      location_id: order.posLocationId ?? '',
      order_id: order.id,
      ...(order.posOrderId ? { provider_id: order.posOrderId } : {}),
      ...(reason ? { cancel_reason: reason } : {}),
    },
  });

const OrderPayload = z.object({ order_id: z.string() });
/**
 * Timers (and queued work) are jobs with nothing to call: their work is done in `onSucceeded`, in
 * the transaction that finishes them. Spread into a `defineJobKind`.
 */
export const TIMER = {
  maxAttempts: 10,
  deadlineMs: 24 * 60 * 60_000,
  backoff: { baseMs: 1_000, maxMs: 60_000 },
  async handle() {},
};

/** A scheduled order's release: at `release_at` it goes to the POS, unless the location is closed then. */
export const releaseJob = defineJobKind<z.infer<typeof OrderPayload>, void>({
  kind: 'orders.release',
  payload: OrderPayload,
  ...TIMER,
  async onSucceeded(tx, job) {
    const order = await lockOrder(tx, eq(orders.id, job.payload.order_id));
    if (order?.status !== 'scheduled') return; // cancelled before its release
    const refusing = await refusingOrders(tx, order);
    if (refusing) {
      await failOrder(
        tx,
        order,
        'restaurant_not_accepting_orders',
        { invalid_item_ids: [], error_message: refusing },
        'location closed at release',
      );
      return;
    }
    await moveOrder(tx, order, 'received', 'release time reached');
  },
});

export const confirmationTimeout = defineJobKind<z.infer<typeof OrderPayload>, void>({
  kind: 'orders.confirmation-timeout',
  payload: OrderPayload,
  ...TIMER,
  async onSucceeded(tx: Tx, job) {
    const order = await lockOrder(tx, eq(orders.id, job.payload.order_id));
    if (order?.status !== 'awaiting_confirmation') return;
    // The POS holds the order (it answered with its id): without the cancel it could still cook an
    // order the DSP was told failed. A decline needs no such call: the POS itself said no.
    await failOrder(
      tx,
      order,
      'unknown',
      {
        invalid_item_ids: [],
        error_message: `The POS took the order but did not confirm it within ${ASYNC_CONFIRMATION.ms / 1000} seconds (confirmation_timeout).`,
      },
      'POS did not confirm in time',
      {},
      { why: { posMayHoldIt: true } },
    );
  },
});
