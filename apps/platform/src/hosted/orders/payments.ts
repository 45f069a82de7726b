import { and, eq, sql } from 'drizzle-orm';
import type { CreditCardPayment } from '@stream/contracts/apis/hr-orders/order';
import type { Tx } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { cardTransactions } from '../../db/schema/index.ts';
import { ApiError } from '../../http/errors.ts';
import type { OrderRow } from './records.ts';

/** Statuses an order takes payments in. */
const PAYABLE = new Set([
  'accepted',
  'ready',
  'deliveryStarted',
  'deliveryArriving',
  'deliveryDelivered',
  'completed',
  'unknown',
]);

/**
 * Records a card transaction on a locked order. A card (brand, last 4, expiry) pays an order once:
 * the partial unique index on successful transactions settles two racing requests. A success may
 * not take the payments past the order's total; a failure is recorded and pays nothing.
 */
export async function applyCardPayment(tx: Tx, order: OrderRow, payment: CreditCardPayment): Promise<void> {
  if (!PAYABLE.has(order.status)) {
    throw new ApiError('conflict', `Order ${order.id} is ${order.status}; it takes no payments.`);
  }
  const { transaction: t, paymentMethod: card } = payment;
  if (t.status === 'SUCCESS') {
    const [paid] = await tx
      // bigint, read as a number: payments of an order may sum past what an integer holds.
      .select({ amount: sql<number>`coalesce(sum(${cardTransactions.amount}), 0)::bigint`.mapWith(Number) })
      .from(cardTransactions)
      .where(and(eq(cardTransactions.orderId, order.id), eq(cardTransactions.status, 'SUCCESS')));
    const owed = order.order.total - paid!.amount;
    if (t.amount > owed) {
      throw new ApiError(
        'payment_exceeds_balance',
        `The payment of ${t.amount} cents is more than the ${owed} cents order ${order.id} still owes (tips go in transaction.tip).`,
      );
    }
  }
  const cardKey = [card.cardBrand.toLowerCase(), card.last4CardNumber, card.expMonth, card.expYear].join('|');
  try {
    await tx.insert(cardTransactions).values({
      orderId: order.id,
      cardKey,
      status: t.status,
      type: t.type,
      amount: t.amount,
      tip: t.tip,
      cardBrand: card.cardBrand,
      last4: card.last4CardNumber,
      payment,
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError(
        'card_already_applied',
        `The ${card.cardBrand} card ending ${card.last4CardNumber} already paid order ${order.id}; a card pays an order once.`,
      );
    }
    throw err;
  }
}
