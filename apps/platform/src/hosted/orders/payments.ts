import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { CreditCardPayment } from '@stream/contracts/apis/hr-orders/order';
import type { DbOrTx, Tx } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { cardTransactions } from '../../db/schema/index.ts';
import { ApiError } from '../../http/errors.ts';
import type { OrderRow } from './records.ts';

/**
 * Card transactions, modelled as Stripe, Square and Adyen model a payment: a SALE, AUTHORIZATION or
 * POINTS_RESERVATION is the card's one payment of the order; a capture completes an authorization
 * (its amount and tip replace the authorized ones); voids, reversals, refunds and releases are not
 * payments and are refused. Every transaction taken is kept as sent; a zero-amount success (a card
 * check) is recorded but is not a payment. Keep PAYING in step with the `card_transactions_once_per_card`
 * index, which settles racing payments with one card.
 */
export const PAYING = ['SALE', 'AUTHORIZATION', 'POINTS_RESERVATION'] as const;
const CAPTURES = new Set(['FULL_CAPTURE', 'PARTIAL_CAPTURE']);
const CAPTURABLE = new Set(['AUTHORIZATION', 'POINTS_RESERVATION']);

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

type TransactionRow = typeof cardTransactions.$inferSelect;
/** A payment of an order: its paying transaction, with the amount and tip of its capture if captured. */
export type OrderPayment = TransactionRow & { captured: boolean };

const capture = alias(cardTransactions, 'capture');

/** The payments of orders, oldest first; the one source of `payments`, `paymentTotal` and `tipTotal`. */
export async function paymentsOf(db: DbOrTx, orderIds: number[]): Promise<OrderPayment[]> {
  const p = cardTransactions;
  const rows = await db
    .select({ payment: p, capture: { amount: capture.amount, tip: capture.tip } })
    .from(p)
    .leftJoin(capture, and(eq(capture.authorizationId, p.id), eq(capture.status, 'SUCCESS')))
    .where(
      and(
        inArray(p.orderId, orderIds),
        eq(p.status, 'SUCCESS'),
        inArray(p.type, [...PAYING]),
        or(sql`${p.amount} > 0`, sql`${p.tip} > 0`),
      ),
    )
    .orderBy(asc(p.id));
  return rows.map(({ payment, capture }) => ({ ...payment, ...(capture ?? {}), captured: capture !== null }));
}

const cardKeyOf = (card: CreditCardPayment['paymentMethod']) =>
  [card.cardBrand.toLowerCase(), card.last4CardNumber, card.expMonth, card.expYear].join('|');
const cardName = (card: CreditCardPayment['paymentMethod']) =>
  `${card.cardBrand} card ending ${card.last4CardNumber}`;

/**
 * Records a card transaction on a locked order and says in a sentence what it did. A success may
 * not take the payments past the order's total; a failure is recorded and pays nothing.
 */
export async function applyCardPayment(tx: Tx, order: OrderRow, payment: CreditCardPayment): Promise<string> {
  const { transaction: t, paymentMethod: card } = payment;
  const paying = (PAYING as readonly string[]).includes(t.type);
  if (!paying && !CAPTURES.has(t.type)) {
    throw new ApiError(
      'transaction_type_not_accepted',
      `${t.type} is not a payment: an order takes payments (${PAYING.join(', ')}) and captures of an authorization (FULL_CAPTURE, PARTIAL_CAPTURE); voids, reversals, refunds and releases are not recorded, and the order's payments stay as they were.`,
    );
  }
  if (!PAYABLE.has(order.status)) {
    throw new ApiError(
      'order_status_unprocessable',
      `Order ${order.id} is ${order.status}; it takes no payments (an order takes them while ${[...PAYABLE].join(', ')}).`,
    );
  }
  const cardKey = cardKeyOf(card);
  const record = (authorizationId: number | null = null) =>
    tx.insert(cardTransactions).values({
      orderId: order.id,
      cardKey,
      authorizationId,
      status: t.status,
      type: t.type,
      amount: t.amount,
      tip: t.tip,
      cardBrand: card.cardBrand,
      last4: card.last4CardNumber,
      payment,
    });
  const alreadyApplied = () =>
    new ApiError(
      'card_already_applied',
      `The ${cardName(card)} already paid order ${order.id}; a card pays an order once.`,
    );
  try {
    if (t.status === 'FAILURE') {
      await record();
      return `The failed transaction was recorded on order ${order.id}; it paid nothing.`;
    }
    if (!paying) return await captureAuthorization(tx, order, payment, cardKey, record, alreadyApplied);
    if (t.amount === 0 && t.tip === 0) {
      await record();
      return `The zero-amount transaction was recorded on order ${order.id}; it is not a payment.`;
    }
    const payments = await paymentsOf(tx, [order.id]);
    // Before the balance: a retried payment of the whole total is this card's again, not an overpayment.
    if (payments.some((p) => p.cardKey === cardKey)) throw alreadyApplied();
    const owed = order.order.total - payments.reduce((n, p) => n + p.amount, 0);
    if (t.amount > owed) {
      throw new ApiError(
        'payment_exceeds_balance',
        `The payment of ${t.amount} cents is more than the ${owed} cents order ${order.id} still owes (tips go in transaction.tip).`,
      );
    }
    await record();
    return `Payment ${payments.length + 1} applied to order ${order.id}.`;
  } catch (err) {
    if (isUniqueViolation(err)) throw alreadyApplied();
    throw err;
  }
}

/** A successful capture: completes the card's uncaptured authorization, for at most what it authorized. */
async function captureAuthorization(
  tx: Tx,
  order: OrderRow,
  { transaction: t, paymentMethod: card }: CreditCardPayment,
  cardKey: string,
  record: (authorizationId: number) => Promise<unknown>,
  alreadyApplied: () => ApiError,
): Promise<string> {
  // The order's payments, read once: the card's is the one to capture, its place is its number.
  const payments = await paymentsOf(tx, [order.id]);
  const index = payments.findIndex((p) => p.cardKey === cardKey);
  const auth = payments[index];
  if (!auth || !CAPTURABLE.has(auth.type)) {
    throw new ApiError(
      'capture_without_authorization',
      auth
        ? `The ${cardName(card)} paid order ${order.id} with a ${auth.type}, which needs no capture.`
        : `The ${cardName(card)} has no authorization on order ${order.id} to capture; send its AUTHORIZATION first (one of 0 cents and no tip is a card check, not an authorization to capture: authorize at least the tip).`,
    );
  }
  if (auth.captured) throw alreadyApplied();
  // A capture of 0 and no tip would leave a payment of nothing and use the card up (Stripe refuses an
  // amount_to_capture of 0 too). Tips are apart from the amount here, so 0 cents with a tip is a real
  // capture: the card of an order paid by other means (credits, another card) that carries the tip.
  if (t.amount === 0 && t.tip === 0) {
    const what =
      auth.amount > 0
        ? `1 to ${auth.amount} cents of the ${cardName(card)}'s authorization, or a tip (transaction.tip)`
        : `the tip (transaction.tip) the ${cardName(card)} authorized`;
    throw new ApiError(
      'capture_amount_zero',
      `A capture of 0 cents and no tip captures nothing: capture ${what}, or void the authorization at your gateway to release it.`,
    );
  }
  // Captured for at most the authorized amount, the payments stay within the total.
  if (t.amount > auth.amount) {
    throw new ApiError(
      'capture_exceeds_authorization',
      `The capture of ${t.amount} cents is more than the ${auth.amount} cents authorized on the ${cardName(card)}; capture at most that (tips go in transaction.tip).`,
    );
  }
  await record(auth.id);
  return `The authorization of the ${cardName(card)} was captured: payment ${index + 1} of order ${order.id} is ${t.amount} cents and a ${t.tip} cents tip.`;
}
