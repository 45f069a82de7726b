import { and, eq, sql } from 'drizzle-orm';
import { canTransition, ORDER_STATES, transitionRefusal, type OrderStatus } from '@stream/contracts/states';
import type { DbOrTx, Tx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { orderTimeline, orders, webhookEvents } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';

/**
 * The order records: webhooks received, the order row, its timeline, and the one guarded move of
 * an order's status. Effects of a move (the partner calls it causes) are `effects.ts`'s business.
 */

export type Order = typeof orders.$inferSelect;
export type TimelineKind = (typeof orderTimeline.$inferInsert)['kind'];

/** Stores a webhook as received (before anything answers 2xx); answers its `evt_…` id. */
export async function recordWebhook(
  tx: DbOrTx,
  e: {
    id?: string;
    partnerId: string;
    type: string;
    body: unknown;
    orderId?: string | null;
    locationId?: string | null;
  },
): Promise<string> {
  const id = e.id ?? newId('evt');
  await tx.insert(webhookEvents).values({
    id,
    partnerId: e.partnerId,
    type: e.type,
    body: e.body,
    orderId: e.orderId ?? null,
    locationId: e.locationId ?? null,
  });
  return id;
}

export interface TimelineInput {
  kind: TimelineKind;
  type: string;
  partnerId?: string | null;
  from?: OrderStatus | null;
  to?: OrderStatus | null;
  detail?: string | null;
  eventId?: string | null;
  jobId?: string | null;
  body?: unknown;
}

/** Appends entries to the order's timeline, in the order given (one statement). */
export async function addTimeline(tx: DbOrTx, orderId: string, ...entries: TimelineInput[]): Promise<void> {
  await tx.insert(orderTimeline).values(
    entries.map((e) => ({
      orderId,
      kind: e.kind,
      type: e.type,
      partnerId: e.partnerId ?? null,
      fromStatus: e.from ?? null,
      toStatus: e.to ?? null,
      detail: e.detail ?? null,
      eventId: e.eventId ?? null,
      jobId: e.jobId ?? null,
      body: e.body ?? null,
    })),
  );
}

export async function findOrder(db: DbOrTx, id: string): Promise<Order | undefined> {
  const [row] = await db.select().from(orders).where(eq(orders.id, id));
  return row;
}

/** The order, locked for the rest of the transaction (events about one order apply one at a time). */
export async function lockOrder(tx: Tx, where: ReturnType<typeof eq>): Promise<Order | undefined> {
  const [row] = await tx.select().from(orders).where(where).for('update');
  return row;
}

export const byDspOrder = (dspPartnerId: string, dspOrderId: string) =>
  and(eq(orders.dspPartnerId, dspPartnerId), eq(orders.dspOrderId, dspOrderId))!;

export type OrderPatch = Partial<
  Pick<
    Order,
    | 'failureReason'
    | 'failureDetails'
    | 'posOrderId'
    | 'estimatedReadyAt'
    | 'deliveryStatus'
    | 'driverDetails'
    | 'releaseAt'
  >
>;

/**
 * Moves the order from `order.status` to `to`, if the machine allows that move and the order is
 * still in that status: one guarded UPDATE (`WHERE status = <from>`), so of two racing writers only
 * one moves it, and a timeline entry. Answers the moved row, or undefined when the move is not
 * allowed or the order moved meanwhile (the caller decides whether that is a 409 or a no-op). The
 * caller runs `orderChanged`.
 */
export async function moveOrder(
  tx: DbOrTx,
  order: Pick<Order, 'id' | 'status'>,
  to: OrderStatus,
  cause: string,
  patch: OrderPatch = {},
): Promise<Order | undefined> {
  if (!canTransition(ORDER_STATES, order.status, to)) return undefined;
  const [moved] = await tx
    .update(orders)
    .set({ ...patch, status: to, updatedAt: sql`now()` })
    .where(and(eq(orders.id, order.id), eq(orders.status, order.status)))
    .returning();
  if (moved)
    await addTimeline(tx, order.id, { kind: 'status', type: to, from: order.status, to, detail: cause });
  return moved;
}

/** The 409 for an event that does not fit the order's status (recorded by the caller first). */
export function refusal(order: Pick<Order, 'status'>, to: OrderStatus): ApiError {
  const refused = transitionRefusal(ORDER_STATES, order.status, to);
  return new ApiError(
    'invalid_transition',
    refused?.message ?? `The order is ${order.status}; it cannot become ${to}.`,
    refused?.details,
  );
}
