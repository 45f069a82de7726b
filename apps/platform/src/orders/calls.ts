import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import { DspEvent, dspReceiveEvent } from '@stream/contracts/apis/become-a-dsp/index';
import { PosOrderRequest, posReceiveOrder } from '@stream/contracts/apis/become-a-pos/index';
import type { UndeliveredCall } from '@stream/contracts/apis/partner/onboarding-locations';
import type { DbOrTx } from '../db/client.ts';
import { prepared } from '../db/prepared.ts';
import { integrations, locationBindings, orders, orgLocations, partners } from '../db/schema/index.ts';
import { PartnerCallError, permanentIfGrantUnusable } from '../connectors/index.ts';
import { UnusableAnswerError } from '../connectors/http.ts';
import type { Backoff } from '../jobs/backoff.ts';
import { defineDeadlineJobKind, PermanentJobError, type JobKind } from '../jobs/kinds.ts';
import { enqueue, type EnqueueInput } from '../jobs/outbox.ts';
import type { Integration, IntegrationStatus } from '../connectors/merchant.ts';
import type { Binding } from '../onboarding/bindings.ts';
import { merchant } from '../onboarding/merchant.ts';
import type { Partner } from '../partners/service.ts';
import { settleDelivery, deliveryGaveUp, type DeliveryResult } from './outcome.ts';
import { addGaveUp, sendCalls, type Order, type TimelineInput } from './records.ts';

/**
 * The two calls order routing makes, as outbox jobs: to the POS (`POST /stream-pos/v1/orders`) and
 * to the DSP (`POST /stream-dsp/v1/event`), both as the merchant. Each is written in the
 * statement of the change that causes it, with a `sent` entry on the order's timeline naming
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
/**
 * An update or a cancellation of an order the POS has: an hour of retries, not a new order's two
 * minutes. A cancellation the kitchen hears late still stops a scheduled order or a meal not yet
 * cooked; given up, it is `dead` on the order's timeline and logged as an error.
 */
export const POS_UPDATE_DELIVERY: { deadlineMs: number; backoff: Backoff } = {
  deadlineMs: 60 * 60_000,
  backoff: { baseMs: 500, maxMs: 60_000 },
};
/** Events to a DSP: an hour of retries (an accept that late still settles the order on its side). */
export const DSP_EVENT_DELIVERY: { deadlineMs: number; backoff: Backoff } = {
  deadlineMs: 60 * 60_000,
  backoff: { baseMs: 1_000, maxMs: 5 * 60_000 },
};

export const posKey = (orderId: string) => `order:${orderId}:pos`;
const dspKey = (orderId: string) => `order:${orderId}:dsp`;
/**
 * A store's events: pause and resume in one queue, item updates in another, so an update the DSP
 * keeps refusing (retried for an hour) never holds back a pause, nor a pause an update.
 */
const storeKey = (bindingId: string, type: string) =>
  type === 'location.update' ? `store:${bindingId}:items` : `store:${bindingId}`;

/**
 * A partner call about an order, planned: its job and the `sent` entry it leaves on the order's
 * timeline. Written by `moveOrder`, `insertOrder` or `sendCalls` in the statement of the change that
 * causes it.
 */
export interface OrderCall {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  job: EnqueueInput<any>;
  sent?: Omit<TimelineInput, 'kind' | 'jobId'>;
}

/**
 * The grants an order's calls may use. A new order needs a live one; an order the partner already
 * has is settled with a deleted integration's grant too (which the platform keeps to delete the
 * connections), so a kitchen hears a cancellation, and a customer the outcome, of an order placed
 * before the merchant disconnected.
 */
const LIVE_GRANT: readonly IntegrationStatus[] = ['active'];
const SETTLING_GRANT: readonly IntegrationStatus[] = ['active', 'deprovisioned'];

/**
 * The location's event providers that hear an order received at `receivedAt` (enabled by then: a
 * provider hears the orders a location receives from the moment it is enabled, so never an update
 * of an order it was not told of), for the events of a delivery's outcome (read with the grant, so
 * settling the outcome needs no query of its own).
 */
export const locationProviders = (receivedAt: SQL) => sql<
  string[]
>`coalesce((select array_agg(s.provider_partner_id order by s.created_at)
  from event_subscriptions s where s.location_id = ${orgLocations.id} and s.enabled and s.enabled_at <= ${receivedAt}), '{}')`;

/** What a DSP call reads before it calls: the binding and its DSP merchant grant. */
export interface DspCallContext {
  binding: Binding;
  row: Integration;
  partner: Partner;
}

/**
 * What a POS call reads before it calls: the order, the merchant grant of its location, its event
 * providers, and the DSP grant of the order's binding for the DSP call its outcome causes (null
 * where the store is not bound or the DSP not connected).
 */
export interface PosCallContext {
  order: Order;
  row: Integration;
  partner: Partner;
  providers: readonly string[];
  binding: Binding | null;
  dspRow: Integration | null;
  dspPartner: Partner | null;
}

/** The DSP's side of a binding: its integration and partner, beside the POS's. */
export const dspIntegrations = alias(integrations, 'dsp_integrations');
export const dspPartners = alias(partners, 'dsp_partners');

// The order with both grants, in one query (every POS call not started by the order's intake,
// which read them with the route: see `withPosGrant`).
const posCallContext = prepared('orders_pos_grant', (db, name) =>
  db
    .select({
      order: orders,
      row: integrations,
      partner: partners,
      providers: locationProviders(sql`${orders.createdAt}`),
      binding: locationBindings,
      dspRow: dspIntegrations,
      dspPartner: dspPartners,
    })
    .from(orders)
    .innerJoin(orgLocations, eq(orgLocations.id, orders.locationId))
    .innerJoin(integrations, eq(integrations.id, orgLocations.integrationId))
    .innerJoin(partners, eq(partners.id, integrations.sourcePartnerId))
    .leftJoin(locationBindings, eq(locationBindings.id, orders.bindingId))
    .leftJoin(dspIntegrations, eq(dspIntegrations.id, locationBindings.dspIntegrationId))
    .leftJoin(dspPartners, eq(dspPartners.id, dspIntegrations.sourcePartnerId))
    .where(eq(orders.id, sql.placeholder('orderId')))
    .prepare(name),
);

/** The DSP call of a delivery's outcome gets the DSP grant the POS call read (`withDspGrant`). */
function dspGrantOf(c: PosCallContext): ((call: OrderCall) => OrderCall) | undefined {
  return c.binding && c.dspRow && c.dspPartner
    ? withDspGrant({ binding: c.binding, row: c.dspRow, partner: c.dspPartner })
    : undefined;
}

const PosCallPayload = z.object({ order_id: z.string(), request: PosOrderRequest });

/** A call to the POS about an order: a new one (`posCall`), or an update or cancellation (`posUpdateCall`). */
const posCallDef: Omit<
  JobKind<z.infer<typeof PosCallPayload>, DeliveryResult>,
  'kind' | 'maxAttempts' | 'deadlineMs' | 'backoff'
> = {
  payload: PosCallPayload,
  async handle(job, ctx) {
    const { request } = job.payload;
    const [found] = job.context
      ? [job.context as PosCallContext]
      : await posCallContext(ctx.db).execute({ orderId: job.payload.order_id });
    if (!found) throw new PermanentJobError(`Order ${job.payload.order_id} has no POS location.`);
    const { order, providers } = found;
    const prepare = dspGrantOf(found);
    // A new order that was settled meanwhile (cancelled before it went out) is not sent.
    if (request.type === 'order.created' && order.status !== 'received')
      return { order, providers, skipped: order.status };
    try {
      const answer = await merchant.call(ctx, found.row.id, posReceiveOrder, {
        body: request,
        job,
        grant: found,
        allow: request.type === 'order.created' ? LIVE_GRANT : SETTLING_GRANT,
      });
      return { order, providers, prepare, answer: answer.order ?? null };
    } catch (err) {
      // A refusal of a new order is its outcome, not a failure to deliver: settle it, do not retry.
      // An update or a cancellation refused is retried like any failure (wire-notes: anything but a
      // 2xx is retried), as a POS may refuse one for a while (409 while it is still storing the order).
      if (err instanceof PartnerCallError && err.reason === 'rejected' && request.type === 'order.created')
        return { order, providers, prepare, rejected: err.responseText ?? '' };
      // Any 2xx acknowledges an update or a cancellation, whatever its body (`204`, text): only a
      // new order's answer carries something the platform needs. A new order answered 2xx but
      // unusably was reached: its outcome, not a delivery to retry or give up on.
      if (err instanceof UnusableAnswerError)
        return request.type === 'order.created'
          ? { order, providers, prepare, unusable: err.message }
          : { order, providers, answer: null };
      return permanentIfGrantUnusable(err);
    }
  },
  // Every move settleDelivery makes is guarded on the order's status, so it is safe to run twice.
  async settle(db, job, result) {
    if (job.payload.request.type === 'order.created') await settleDelivery(db, result, job.finish);
  },
  // A new order given up is failed `unknown` for the DSP. An update or a cancellation given up cannot
  // be told to the POS: the order's timeline and its location (which the merchant's partner reads
  // in its locations) say which the kitchen never heard.
  async onDead(tx, job) {
    const { order_id, request } = job.payload;
    if (request.type === 'order.created') return deliveryGaveUp(tx, job);
    const error = job.error.slice(0, 1000);
    // The order's location, and the POS partner its grant is of, in one statement.
    const [pos] = await tx
      .update(orgLocations)
      .set({ lastUndelivered: undeliveredOf(request.type, order_id, error) })
      .from(integrations)
      .where(
        and(
          eq(
            orgLocations.id,
            tx.select({ id: orders.locationId }).from(orders).where(eq(orders.id, order_id)),
          ),
          eq(integrations.id, orgLocations.integrationId),
        ),
      )
      .returning({ partnerId: integrations.sourcePartnerId });
    if (pos)
      await addGaveUp(tx, order_id, { type: request.type, partnerId: pos.partnerId, who: 'The POS', error });
  },
};

/** A call given up, as a location or a binding shows it (`last_undelivered`). */
const undeliveredOf = (type: string, orderId: string | null, error: string): UndeliveredCall => ({
  type,
  order_id: orderId,
  at: new Date().toISOString(),
  error,
});
export const posCall = defineDeadlineJobKind(ORDER_DELIVERY, { kind: 'orders.pos', ...posCallDef });
export const posUpdateCall = defineDeadlineJobKind(POS_UPDATE_DELIVERY, {
  kind: 'orders.pos-update',
  ...posCallDef,
});

// A DSP event's binding with its merchant grant, in one query (every DSP call).
const dspCallContext = prepared('orders_dsp_grant', (db, name) =>
  db
    .select({ binding: locationBindings, row: integrations, partner: partners })
    .from(locationBindings)
    .innerJoin(integrations, eq(integrations.id, locationBindings.dspIntegrationId))
    .innerJoin(partners, eq(partners.id, integrations.sourcePartnerId))
    .where(eq(locationBindings.id, sql.placeholder('id')))
    .prepare(name),
);

const DspCallPayload = z.object({
  /** The binding the event goes through; absent for an order of a store that is not bound (see below). */
  binding_id: z.string().optional(),
  /** The DSP and its store, for an order of an unbound store: the store's latest binding, if any. */
  store: z.object({ dsp_partner_id: z.string(), store_id: z.string() }).optional(),
  order_id: z.string().optional(),
  event: DspEvent,
});

export const dspCall = defineDeadlineJobKind<z.infer<typeof DspCallPayload>, void>(DSP_EVENT_DELIVERY, {
  kind: 'orders.dsp',
  payload: DspCallPayload,
  async handle(job, ctx) {
    const { store } = job.payload;
    const context = job.context as DspCallContext | undefined;
    const bindingId = context?.binding.id ?? (await bindingOfCall(ctx.db, job.payload));
    // A store never bound: the DSP has no grant to call; it learnt the outcome from the webhook's answer.
    if (!bindingId) return;
    const [found] = context ? [context] : await dspCallContext(ctx.db).execute({ id: bindingId });
    if (!found) throw new PermanentJobError(`Binding ${bindingId} no longer exists.`);
    try {
      await merchant.call(ctx, found.row.id, dspReceiveEvent, {
        body: job.payload.event,
        job,
        // An event about an order that came through a binding settles it; a store event (pause,
        // resume), or one about an order for a store bound to nothing, needs a live grant.
        allow: job.payload.order_id && !store ? SETTLING_GRANT : LIVE_GRANT,
        grant: found,
      });
    } catch (err) {
      // Any answer but a 2xx is retried until the deadline (a DSP may answer 404 for an order it is
      // still storing); only a grant the merchant must renew gives up at once.
      permanentIfGrantUnusable(err);
    }
  },
  // The DSP is not taking calls, so it cannot be told: the store's binding (which the merchant's
  // partner reads in its locations) and the order's timeline say which event it never got.
  async onDead(tx, job) {
    const { order_id, event } = job.payload;
    const bindingId = await bindingOfCall(tx, job.payload);
    if (!bindingId) return;
    const error = job.error.slice(0, 1000);
    const lastUndelivered = undeliveredOf(event.type, order_id ?? null, error);
    const [binding] = await tx
      .update(locationBindings)
      .set({ lastUndelivered })
      .where(eq(locationBindings.id, bindingId))
      .returning({ dspPartnerId: locationBindings.dspPartnerId });
    if (order_id && binding)
      await addGaveUp(tx, order_id, {
        type: event.type,
        partnerId: binding.dspPartnerId,
        who: 'The DSP',
        error,
      });
  },
});

/** The binding a DSP call goes through: its own, or for an order of a store bound to nothing, the store's latest. */
async function bindingOfCall(
  db: DbOrTx,
  { binding_id, store }: z.infer<typeof DspCallPayload>,
): Promise<string | undefined> {
  return binding_id ?? (store && (await latestBindingOf(db, store.dsp_partner_id, store.store_id)));
}

/** The POS is sent a new, updated or cancelled order (after the order's earlier POS calls). */
export function posCallOf(order: Order, request: z.input<typeof PosOrderRequest>): OrderCall {
  return {
    job: {
      kind: request.type === 'order.created' ? posCall : posUpdateCall,
      payload: { order_id: order.id, request },
      partnerId: order.posPartnerId,
      orderingKey: posKey(order.id),
      runHere: true, // every change of an order locks or updates its row first (see `runHere`)
    },
    sent: { type: request.type, partnerId: order.posPartnerId, body: request },
  };
}

/**
 * For a new order's calls: the POS call gets the order as inserted and the grant the intake read
 * with the route, so it starts without reading them again (when it starts in this process at once).
 */
export const withPosGrant =
  (grant: Omit<PosCallContext, 'order'>) =>
  (call: OrderCall): OrderCall =>
    call.job.kind === posCall
      ? { ...call, job: { ...call.job, context: (order: Order): PosCallContext => ({ ...grant, order }) } }
      : call;

/** The DSP call through this binding gets its grant, already read, so it starts without reading it. */
export const withDspGrant =
  (grant: DspCallContext) =>
  (call: OrderCall): OrderCall =>
    call.job.kind === dspCall && (call.job.payload as { binding_id?: string }).binding_id === grant.binding.id
      ? { ...call, job: { ...call.job, context: grant } }
      : call;

/** Sends the POS an update of an order that is not moving (a delivery status): one statement. */
export function sendToPos(tx: DbOrTx, order: Order, request: z.input<typeof PosOrderRequest>): Promise<void> {
  return sendCalls(tx, order.id, [posCallOf(order, request)]);
}

type DspEventInput = z.input<typeof DspEvent>;

/**
 * The DSP is sent an event about an order, through the binding the order came in on. An order for
 * an unknown store has none: the event then goes through the latest binding that store ever had
 * (its DSP grant), if any, found when the job runs; otherwise the DSP learns the outcome only from
 * the webhook's answer.
 */
export function dspCallOf(order: Order, event: DspEventInput): OrderCall {
  return {
    job: {
      kind: dspCall,
      payload: {
        ...(order.bindingId
          ? { binding_id: order.bindingId }
          : { store: { dsp_partner_id: order.dspPartnerId, store_id: order.dspLocationId } }),
        order_id: order.id,
        event,
      },
      partnerId: order.dspPartnerId,
      orderingKey: dspKey(order.id),
      runHere: true,
    },
    sent: { type: event.type, partnerId: order.dspPartnerId, body: event },
  };
}

/** Sends a DSP store a store event (pause, resume, item update), after the store's earlier ones of its kind. */
export async function sendStoreEventToDsp(
  tx: DbOrTx,
  binding: { id: string; dspPartnerId: string },
  event: DspEventInput,
): Promise<void> {
  await enqueue(tx, {
    kind: dspCall,
    payload: { binding_id: binding.id, event },
    partnerId: binding.dspPartnerId,
    orderingKey: storeKey(binding.id, event.type),
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
