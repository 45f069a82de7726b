import { and, asc, eq, inArray, or } from 'drizzle-orm';
import type { z } from 'zod';
import type { OrderTimeline, RoutedOrder } from '@stream/contracts/apis/partner/orders';
import type { PartnerAuth } from '../auth/access-token.ts';
import type { DbOrTx } from '../db/client.ts';
import { deliveryAttempts, jobs, orderTimeline, orgs, webhookEvents } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { findOrder, toldOf, type Order } from './records.ts';

/** Reading orders: who may see one, the order as the Partner API shows it, and its timeline. */

const notFound = (id: string) =>
  new ApiError(
    'order_not_found',
    `No order ${id} is visible to you: it must be an order of your DSP, POS or organisations, or one you were sent events of.`,
  );

/**
 * The order, when the caller is its DSP, its POS, the white-label partner of its org (an
 * org-limited token: that org only), or an event provider told of it (`toldOf`) or delivering it.
 * `eventProvider` is true for the last: it reads the order's timeline as `timelineOf`'s `onlyOf`.
 */
export async function visibleOrder(
  db: DbOrTx,
  auth: Pick<PartnerAuth, 'partnerId' | 'orgId'>,
  id: string,
): Promise<{ order: Order; eventProvider: boolean }> {
  const order = await findOrder(db, id);
  if (!order) throw notFound(id);
  if (auth.orgId && auth.orgId !== order.orgId) throw notFound(id);
  if (auth.partnerId === order.dspPartnerId || auth.partnerId === order.posPartnerId) {
    return { order, eventProvider: false };
  }
  const [org] = order.orgId
    ? await db.select({ partnerId: orgs.partnerId }).from(orgs).where(eq(orgs.id, order.orgId))
    : [];
  if (org?.partnerId === auth.partnerId) return { order, eventProvider: false };
  if (order.deliveryProviderId === auth.partnerId || (await toldOf(db, order.id, auth.partnerId))) {
    return { order, eventProvider: true };
  }
  throw notFound(id);
}

export async function findVisibleOrder(
  db: DbOrTx,
  auth: Pick<PartnerAuth, 'partnerId' | 'orgId'>,
  id: string,
): Promise<Order> {
  return (await visibleOrder(db, auth, id)).order;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function orderToWire(o: Order): z.input<typeof RoutedOrder> {
  return {
    _id: o.id,
    status: o.status,
    failure_reason: o.failureReason,
    failure_details: o.failureDetails,
    org_id: o.orgId,
    location_id: o.locationId,
    dsp: { partner_id: o.dspPartnerId, order_id: o.dspOrderId, location_id: o.dspLocationId },
    pos:
      o.posPartnerId && o.posLocationId
        ? { partner_id: o.posPartnerId, location_id: o.posLocationId, provider_id: o.posOrderId }
        : null,
    fulfillment_type: o.fulfillmentType,
    is_future_order: o.isFutureOrder,
    requested_for: iso(o.requestedFor),
    release_at: iso(o.releaseAt),
    estimated_ready_at: iso(o.estimatedReadyAt),
    delivery_status: o.deliveryStatus,
    driver_details: o.driverDetails,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}

type Entry = z.input<typeof OrderTimeline>['entries'][number];

/**
 * The order's timeline, oldest first: each `sent` entry with its delivery and every attempt.
 * `onlyOf` (an event provider reading it) keeps the order's changes of state and what concerns that
 * partner: the events sent to it and their attempts, its webhooks (and their refusals), what it was
 * not delivered. The other partners' webhooks and the calls made to them are theirs (customer data,
 * their answers), as a Svix endpoint sees only its own attempts.
 */
export async function timelineOf(
  db: DbOrTx,
  orderId: string,
  onlyOf?: string,
): Promise<z.input<typeof OrderTimeline>> {
  const rows = await db
    .select({ entry: orderTimeline, received: webhookEvents.body, jobStatus: jobs.status })
    .from(orderTimeline)
    .leftJoin(webhookEvents, eq(webhookEvents.id, orderTimeline.eventId))
    .leftJoin(jobs, eq(jobs.id, orderTimeline.jobId))
    .where(
      and(
        eq(orderTimeline.orderId, orderId),
        onlyOf
          ? or(
              eq(orderTimeline.kind, 'status'),
              eq(orderTimeline.partnerId, onlyOf),
              // A refusal names no partner; the webhook it refused does.
              eq(webhookEvents.partnerId, onlyOf),
            )
          : undefined,
      ),
    )
    .orderBy(asc(orderTimeline.seq));
  const jobIds = rows.flatMap((r) => (r.entry.jobId ? [r.entry.jobId] : []));
  const attempts = jobIds.length
    ? await db
        .select()
        .from(deliveryAttempts)
        .where(inArray(deliveryAttempts.jobId, jobIds))
        .orderBy(asc(deliveryAttempts.attempt), asc(deliveryAttempts.createdAt))
    : [];
  const entries = rows.map(
    ({ entry: e, received, jobStatus }): Entry => ({
      seq: e.seq,
      at: e.createdAt.toISOString(),
      kind: e.kind,
      type: e.type,
      partner_id: e.partnerId,
      from: e.fromStatus as Entry['from'],
      to: e.toStatus as Entry['to'],
      detail: e.detail,
      ...(received !== null || e.body !== null ? { body: received ?? e.body } : {}),
      ...(e.jobId && jobStatus
        ? {
            delivery: {
              job_id: e.jobId,
              state: jobStatus,
              attempts: attempts
                .filter((a) => a.jobId === e.jobId)
                .map((a) => ({
                  attempt: a.attempt,
                  started_at: a.createdAt.toISOString(),
                  finished_at: iso(a.finishedAt),
                  status: a.responseStatus,
                  latency_ms: a.latencyMs,
                  error: a.error,
                  response: a.responseExcerpt,
                })),
            },
          }
        : {}),
    }),
  );
  return { order_id: orderId, entries };
}
