import { and, asc, desc, eq, gte, inArray, isNull, lte, sql } from 'drizzle-orm';
import { HOSTED_ORDER_MACHINE, type HostedOrderStatus } from '@stream/contracts/states';
import type { HostedOrder, PricedOrder, RejectReason } from '@stream/contracts/apis/hr-orders/order';
import type { ServiceType } from '@stream/contracts/hosted';
import type { Db, DbOrTx, Tx } from '../../db/client.ts';
import { hostedOrders, hostedOrderStages } from '../../db/schema/index.ts';
import { ApiError, transition } from '../../http/errors.ts';
import { paymentsOf, type OrderPayment } from './payments.ts';

/**
 * Hosted orders as stored: the priced order, its status with one stage per status it held, and its
 * card payments (`payments.ts`). `HostedOrder` (the wire shape) is assembled here from the three.
 */
export type OrderRow = typeof hostedOrders.$inferSelect;
type StageRow = typeof hostedOrderStages.$inferSelect;

export interface NewOrder {
  storeId: number;
  partnerId: string;
  serviceType: ServiceType;
  priced: PricedOrder;
  status: 'accepted' | 'rejected';
  rejectReason: RejectReason | null;
  estimatedTime: Date | null;
}

/** Stores a placed order with its stages (`created`, then where it went) in the caller's transaction. */
export async function insertOrder(tx: Tx, o: NewOrder): Promise<OrderRow> {
  transition(HOSTED_ORDER_MACHINE, 'created', o.status);
  const [row] = await tx
    .insert(hostedOrders)
    .values({
      storeId: o.storeId,
      partnerId: o.partnerId,
      serviceType: o.serviceType,
      status: o.status,
      rejectReason: o.rejectReason,
      sourceReferenceId: o.priced.sourceReferenceId ?? null,
      customerId: o.priced.customer?.id ?? null,
      phoneNumber: o.priced.customer?.phoneNumber ?? null,
      businessDate: o.priced.businessDate,
      estimatedTime: o.estimatedTime,
      order: o.priced,
    })
    .returning();
  await tx.insert(hostedOrderStages).values([
    { orderId: row!.id, name: 'created', startTime: row!.createdAt, endTime: row!.createdAt },
    { orderId: row!.id, name: o.status, startTime: row!.createdAt },
  ]);
  return row!;
}

const notFound = (id: number) => new ApiError('not_found', `The store has no order ${id}.`);

/** Whose orders a call sees: the store's orders that the calling partner placed. */
export interface OrderScope {
  storeId: number;
  partnerId: string;
}
const inScope = (s: OrderScope) =>
  and(eq(hostedOrders.storeId, s.storeId), eq(hostedOrders.partnerId, s.partnerId));

export async function findStoreOrder(
  db: DbOrTx,
  scope: OrderScope,
  id: number,
  forUpdate = false,
): Promise<OrderRow> {
  const query = db
    .select()
    .from(hostedOrders)
    .where(and(eq(hostedOrders.id, id), inScope(scope)));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw notFound(id);
  return row;
}

/** Moves a locked order to `to` (422 `order_status_unprocessable` when the machine does not allow it), closing its stage. */
export async function moveOrder(tx: Tx, row: OrderRow, to: HostedOrderStatus): Promise<OrderRow> {
  transition(HOSTED_ORDER_MACHINE, row.status as HostedOrderStatus, to, 'order_status_unprocessable');
  const [moved] = await tx
    .update(hostedOrders)
    .set({ status: to, updatedAt: sql`now()` })
    .where(eq(hostedOrders.id, row.id))
    .returning();
  await tx
    .update(hostedOrderStages)
    .set({ endTime: moved!.updatedAt })
    .where(and(eq(hostedOrderStages.orderId, row.id), isNull(hostedOrderStages.endTime)));
  await tx.insert(hostedOrderStages).values({ orderId: row.id, name: to, startTime: moved!.updatedAt });
  return moved!;
}

export interface OrderFilter {
  from: string;
  to: string;
  sourceReferenceId?: string | undefined;
  customerId?: string | undefined;
  phoneNumber?: string | undefined;
  serviceType?: ServiceType | undefined;
}

/** The newest `limit` orders of the scope that pass the filter. */
export async function listStoreOrders(
  db: DbOrTx,
  scope: OrderScope,
  f: OrderFilter,
  limit: number,
): Promise<OrderRow[]> {
  return db
    .select()
    .from(hostedOrders)
    .where(
      and(
        inScope(scope),
        gte(hostedOrders.businessDate, f.from),
        lte(hostedOrders.businessDate, f.to),
        f.sourceReferenceId === undefined
          ? undefined
          : eq(hostedOrders.sourceReferenceId, f.sourceReferenceId),
        f.customerId === undefined ? undefined : eq(hostedOrders.customerId, f.customerId),
        f.phoneNumber === undefined ? undefined : eq(hostedOrders.phoneNumber, f.phoneNumber),
        f.serviceType === undefined ? undefined : eq(hostedOrders.serviceType, f.serviceType),
      ),
    )
    .orderBy(desc(hostedOrders.id))
    .limit(limit);
}

/** The newest order of the store placed with this reference and service type. */
export async function findByReference(
  db: DbOrTx,
  scope: OrderScope,
  serviceType: ServiceType,
  sourceReferenceId: string,
): Promise<OrderRow> {
  const [row] = await db
    .select()
    .from(hostedOrders)
    .where(
      and(
        inScope(scope),
        eq(hostedOrders.serviceType, serviceType),
        eq(hostedOrders.sourceReferenceId, sourceReferenceId),
      ),
    )
    .orderBy(desc(hostedOrders.id))
    .limit(1)
    .for('update');
  if (!row) {
    throw new ApiError(
      'not_found',
      `The store has no ${serviceType} order with sourceReferenceId ${sourceReferenceId}.`,
    );
  }
  return row;
}

/** The wire shape of orders, with their payments (and stages when asked), in two queries for any number. */
export async function ordersToWire(
  db: DbOrTx,
  rows: readonly OrderRow[],
  withStages: boolean,
): Promise<HostedOrder[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const payments = await paymentsOf(db, ids);
  const stages = withStages
    ? await db
        .select()
        .from(hostedOrderStages)
        .where(inArray(hostedOrderStages.orderId, ids))
        .orderBy(asc(hostedOrderStages.startTime), sql`${hostedOrderStages.endTime} ASC NULLS LAST`)
    : [];
  return rows.map((row) =>
    orderWire(
      row,
      payments.filter((p) => p.orderId === row.id),
      withStages ? stages.filter((s) => s.orderId === row.id) : undefined,
    ),
  );
}

export async function orderToWire(db: DbOrTx, row: OrderRow, withStages = true): Promise<HostedOrder> {
  return (await ordersToWire(db, [row], withStages))[0]!;
}

function orderWire(row: OrderRow, payments: OrderPayment[], stages: StageRow[] | undefined): HostedOrder {
  return {
    ...row.order,
    ...statusOf(row),
    orderNumber: row.id,
    startTime: row.createdAt.toISOString(),
    payments: payments.map((p, i) => ({
      paymentNumber: i + 1,
      paymentType: p.cardBrand,
      paymentTypeCategory: 'CreditCard',
      last4Digits: p.last4,
      tip: p.tip,
      amount: p.amount,
      paymentTime: p.createdAt.toISOString(),
    })),
    tipTotal: payments.reduce((n, p) => n + p.tip, 0),
    paymentTotal: payments.reduce((n, p) => n + p.amount, 0),
    ...(stages
      ? {
          stages: stages.map((s) => ({
            name: s.name,
            startTime: s.startTime.toISOString(),
            endTime: s.endTime?.toISOString() ?? null,
          })),
        }
      : {}),
  };
}

/** The status fields of an order (`GET /Orders/{id}/Status`, Cancel). */
export function statusOf(row: OrderRow) {
  return {
    id: row.id,
    status: row.status as HostedOrderStatus,
    estimatedTime: row.estimatedTime?.toISOString() ?? null,
    sourceReferenceId: row.sourceReferenceId,
    rejectReason: row.rejectReason as RejectReason | null,
  };
}

/**
 * The store's side of the machine, for the operator (`stream-platform companies order-status`):
 * an order moved to `ready`, a delivery status or `completed`. `order_status_unprocessable` names the moves
 * allowed from where the order is.
 */
export async function moveByOperator(
  db: Db,
  orderId: number,
  status: string,
): Promise<ReturnType<typeof statusOf>> {
  if (!(HOSTED_ORDER_MACHINE.states as readonly string[]).includes(status)) {
    throw new ApiError(
      'validation_failed',
      `${status} is not an order status; one of ${HOSTED_ORDER_MACHINE.states.join(', ')}.`,
    );
  }
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(hostedOrders).where(eq(hostedOrders.id, orderId)).for('update');
    if (!row) throw new ApiError('not_found', `No hosted order ${orderId}.`);
    return statusOf(await moveOrder(tx, row, status as HostedOrderStatus));
  });
}
