import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { DspEvent, dspReceiveEvent } from '@stream/contracts/apis/become-a-dsp/index';
import { PosOrderRequest, posReceiveOrder } from '@stream/contracts/apis/become-a-pos/index';
import type { DbOrTx } from '../db/client.ts';
import { locationBindings, orders, orgLocations } from '../db/schema/index.ts';
import { PartnerCallError } from '../connectors/index.ts';
import { UnusableAnswerError } from '../connectors/http.ts';
import { ApiError } from '../http/errors.ts';
import type { Backoff } from '../jobs/backoff.ts';
import { defineJobKind, PermanentJobError } from '../jobs/kinds.ts';
import { enqueue } from '../jobs/outbox.ts';
import { merchant } from '../onboarding/merchant.ts';
import { settleDelivery, deliveryGaveUp, type DeliveryResult } from './outcome.ts';
import { addTimeline, type Order } from './records.ts';

/**
 * The two calls order routing makes, as outbox jobs: to the POS (`POST /stream-pos/v1/orders`) and
 * to the DSP (`POST /stream-dsp/v1/event`), both as the merchant. Each is written in the
 * transaction of the change that causes it, with a `sent` entry on the order's timeline naming
 * the job (whose attempts are the delivery log). The calls of one order to one partner run one at
 * a time in order (ordering key), so a cancel never overtakes the order it cancels.
 */

/**
 * How long a new order may take to reach the POS: retried with backoff for two minutes, well
 * inside a marketplace's acceptance window (typically 5 to 10 minutes), then failed `unknown`.
 * Exported so tests can shrink it; read when a delivery is enqueued and at each failure.
 */
export const ORDER_DELIVERY: { deadlineMs: number; backoff: Backoff } = {
  deadlineMs: 120_000,
  backoff: { baseMs: 500, maxMs: 15_000 },
};
/** Events to a DSP: an hour of retries (an accept that late still settles the order on its side). */
export const DSP_EVENT_DELIVERY: { deadlineMs: number; backoff: Backoff } = {
  deadlineMs: 60 * 60_000,
  backoff: { baseMs: 1_000, maxMs: 5 * 60_000 },
};

export const posKey = (orderId: string) => `order:${orderId}:pos`;
const dspKey = (orderId: string) => `order:${orderId}:dsp`;
const storeKey = (bindingId: string) => `store:${bindingId}`;

/** A grant the merchant must renew will not heal by retrying. */
function permanentIfGrantUnusable(err: unknown): never {
  if (err instanceof ApiError && err.code.startsWith('integration_'))
    throw new PermanentJobError(err.message);
  throw err;
}

const PosCallPayload = z.object({ order_id: z.string(), request: PosOrderRequest });

export const posCall = defineJobKind<z.infer<typeof PosCallPayload>, DeliveryResult>({
  kind: 'orders.pos',
  payload: PosCallPayload,
  maxAttempts: 1_000, // the deadline ends it
  get deadlineMs() {
    return ORDER_DELIVERY.deadlineMs;
  },
  get backoff() {
    return ORDER_DELIVERY.backoff;
  },
  async handle(job, ctx) {
    const { request } = job.payload;
    // The order's status and the POS integration of its location, in one query.
    const [found] = await ctx.db
      .select({ status: orders.status, integrationId: orgLocations.integrationId })
      .from(orders)
      .innerJoin(orgLocations, eq(orgLocations.id, orders.locationId))
      .where(eq(orders.id, job.payload.order_id));
    if (!found) throw new PermanentJobError(`Order ${job.payload.order_id} has no POS location.`);
    // A new order that was settled meanwhile (cancelled before it went out) is not sent.
    if (request.type === 'order.created' && found.status !== 'received') return { skipped: found.status };
    try {
      const answer = await merchant.call(ctx, found.integrationId, posReceiveOrder, {
        body: request,
        job,
      });
      return { answer: answer.order ?? null };
    } catch (err) {
      // A refusal of a new order is its outcome, not a failure to deliver: settle it, do not retry.
      if (err instanceof PartnerCallError && err.reason === 'rejected') {
        if (request.type === 'order.created') return { rejected: err.responseText ?? '' };
        throw new PermanentJobError(err.message);
      }
      // Any 2xx acknowledges an update or a cancellation, whatever its body (`204`, text): only a
      // new order's answer carries something the platform needs.
      if (err instanceof UnusableAnswerError && request.type !== 'order.created') return { answer: null };
      return permanentIfGrantUnusable(err);
    }
  },
  async onSucceeded(tx, job, result) {
    if (job.payload.request.type === 'order.created') await settleDelivery(tx, job.payload.order_id, result);
  },
  async onDead(tx, job) {
    if (job.payload.request.type === 'order.created')
      await deliveryGaveUp(tx, job.payload.order_id, job.error);
  },
});

const DspCallPayload = z.object({ binding_id: z.string(), order_id: z.string().optional(), event: DspEvent });

export const dspCall = defineJobKind<z.infer<typeof DspCallPayload>, void>({
  kind: 'orders.dsp',
  payload: DspCallPayload,
  maxAttempts: 1_000,
  get deadlineMs() {
    return DSP_EVENT_DELIVERY.deadlineMs;
  },
  get backoff() {
    return DSP_EVENT_DELIVERY.backoff;
  },
  async handle(job, ctx) {
    const [binding] = await ctx.db
      .select()
      .from(locationBindings)
      .where(eq(locationBindings.id, job.payload.binding_id));
    if (!binding) throw new PermanentJobError(`Binding ${job.payload.binding_id} no longer exists.`);
    try {
      await merchant.call(ctx, binding.dspIntegrationId, dspReceiveEvent, {
        body: job.payload.event,
        job,
        allow: ['active'],
      });
    } catch (err) {
      if (err instanceof PartnerCallError && err.reason === 'rejected')
        throw new PermanentJobError(err.message);
      permanentIfGrantUnusable(err);
    }
  },
});

/** Sends the POS a new, updated or cancelled order (after the order's earlier POS calls). */
export async function sendToPos(
  tx: DbOrTx,
  order: Order,
  request: z.input<typeof PosOrderRequest>,
): Promise<void> {
  const jobId = await enqueue(tx, {
    kind: posCall,
    payload: { order_id: order.id, request },
    partnerId: order.posPartnerId,
    orderingKey: posKey(order.id),
  });
  await addTimeline(tx, order.id, {
    kind: 'sent',
    type: request.type,
    partnerId: order.posPartnerId,
    jobId,
    body: request,
  });
}

type DspEventInput = z.input<typeof DspEvent>;

/**
 * Sends the DSP an event about an order, through the binding the order came in on. An order for an
 * unknown store has none: the event then goes through the latest binding that store ever had (its
 * DSP grant), if any; otherwise the DSP learns the outcome only from the webhook's answer.
 */
export async function sendOrderEventToDsp(tx: DbOrTx, order: Order, event: DspEventInput): Promise<void> {
  const bindingId = order.bindingId ?? (await latestBindingOf(tx, order.dspPartnerId, order.dspLocationId));
  if (!bindingId) return;
  const jobId = await enqueue(tx, {
    kind: dspCall,
    payload: { binding_id: bindingId, order_id: order.id, event },
    partnerId: order.dspPartnerId,
    orderingKey: dspKey(order.id),
  });
  await addTimeline(tx, order.id, {
    kind: 'sent',
    type: event.type,
    partnerId: order.dspPartnerId,
    jobId,
    body: event,
  });
}

/** Sends a DSP store a store event (pause, resume), after the store's earlier ones. */
export async function sendStoreEventToDsp(
  tx: DbOrTx,
  binding: { id: string; dspPartnerId: string },
  event: DspEventInput,
): Promise<void> {
  await enqueue(tx, {
    kind: dspCall,
    payload: { binding_id: binding.id, event },
    partnerId: binding.dspPartnerId,
    orderingKey: storeKey(binding.id),
  });
}

async function latestBindingOf(
  db: DbOrTx,
  dspPartnerId: string,
  storeId: string,
): Promise<string | undefined> {
  const [row] = await db
    .select({ id: locationBindings.id })
    .from(locationBindings)
    .where(and(eq(locationBindings.dspPartnerId, dspPartnerId), eq(locationBindings.dspProviderId, storeId)))
    .orderBy(desc(locationBindings.createdAt))
    .limit(1);
  return row?.id;
}
