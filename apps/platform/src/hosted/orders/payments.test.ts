import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { EXAMPLE_ORDER } from '@stream/contracts/apis/hr-orders/index';
import { cardTransactions } from '../../db/schema/index.ts';
import { hostedClockAt, hostedSuite } from '../testing.ts';

/** What each transaction type does to an order's payments (ApplyCreditCardPayment). */
hostedClockAt();
const suite = hostedSuite();

let txn = 0;
const card = (last4: string, type: string, amount: number, tip = 0, status = 'SUCCESS') => ({
  transaction: { gatewayTransactionId: `txn-${++txn}`, amount, tip, type, status },
  paymentMethod: { cardBrand: 'Visa', last4CardNumber: last4, expMonth: 12, expYear: 2029 },
});
const codeOf = (res: { body: { messagesDetails: { id: string }[] } }) => res.body.messagesDetails[0]?.id;

async function newOrder() {
  const placed = await suite.world.hosted('POST', '/Orders', {
    serviceType: 'DoorDash',
    body: { data: structuredClone(EXAMPLE_ORDER) },
  });
  expect(placed.status, placed.text).toBe(201);
  const id: number = placed.body.data.id;
  return {
    id,
    total: placed.body.data.total as number,
    pay: (body: unknown) =>
      suite.world.hosted('POST', `/Orders/${id}/ApplyCreditCardPayment`, { body: { data: body } }),
    read: async () => (await suite.world.hosted('GET', `/Orders/${id}`)).body.data,
    rows: () =>
      suite.platform.app.ctx.db.select().from(cardTransactions).where(eq(cardTransactions.orderId, id)),
  };
}

/** The order answer's totals are the sums of its payments. */
function expectReconciled(o: {
  payments: { amount: number; tip: number }[];
  paymentTotal: number;
  tipTotal: number;
}) {
  expect(o.paymentTotal).toBe(o.payments.reduce((n, p) => n + p.amount, 0));
  expect(o.tipTotal).toBe(o.payments.reduce((n, p) => n + p.tip, 0));
}

const REVERSING = [
  'FULL_VOID',
  'PARTIAL_VOID',
  'FULL_REVERSAL',
  'PARTIAL_REVERSAL',
  'FULL_REFUND',
  'PARTIAL_REFUND',
  'SYSTEM_REVERSAL',
  'POINTS_RELEASE',
];

describe('ApplyCreditCardPayment: what each transaction type does', () => {
  it('refuses voids, reversals, refunds and releases (422 transaction_type_not_accepted): they pay nothing and are not recorded', async () => {
    const o = await newOrder();
    expect((await o.pay(card('4242', 'SALE', 1000))).status).toBe(200);
    for (const type of REVERSING) {
      for (const status of ['SUCCESS', 'FAILURE']) {
        const res = await o.pay(card('1111', type, 500, 0, status));
        expect([type, status, res.status, codeOf(res)]).toEqual([type, status, 422, 'transaction_type_not_accepted']);
        expect(res.body.messagesDetails[0].message).toContain(type);
      }
    }
    const after = await o.read();
    expect(after).toMatchObject({ paymentTotal: 1000, payments: [{ amount: 1000 }] });
    expect(await o.rows()).toHaveLength(1);
  });

  it('answers a retried payment of the whole total 409 card_already_applied, not 422 payment_exceeds_balance', async () => {
    const o = await newOrder();
    const paid = card('4242', 'SALE', o.total, 200);
    expect((await o.pay(paid)).status).toBe(200);
    const retried = await o.pay(paid);
    expect([retried.status, codeOf(retried), retried.body.data]).toEqual([409, 'card_already_applied', null]);
    expect(retried.body.message).toBe(`The Visa card ending 4242 already paid order ${o.id}; a card pays an order once.`);
    expect(await o.rows()).toHaveLength(1);
  });

  it('completes an authorization with its capture: the captured amount and tip replace the authorized ones, in one payment', async () => {
    const o = await newOrder();
    const auth = await o.pay(card('4242', 'AUTHORIZATION', 2000));
    expect(auth.body.data).toMatchObject({ paymentTotal: 2000, tipTotal: 0, payments: [{ paymentNumber: 1, amount: 2000, tip: 0 }] });
    const captured = await o.pay(card('4242', 'PARTIAL_CAPTURE', 1500, 300));
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body.message).toBe(`The authorization of the Visa card ending 4242 was captured: payment 1 of order ${o.id} is 1500 cents and a 300 cents tip.`);
    expect(captured.body.data).toMatchObject({ paymentTotal: 1500, tipTotal: 300, payments: [{ paymentNumber: 1, amount: 1500, tip: 300, last4Digits: '4242' }] });
    expect(captured.body.data.payments).toHaveLength(1);
    expectReconciled(captured.body.data);
    expect(await o.read()).toEqual(captured.body.data);
    // Both transactions are kept as sent; the capture names the authorization it completed.
    const rows = await o.rows();
    expect(rows.map((r) => [r.type, r.amount, r.authorizationId === rows[0]!.id])).toEqual([['AUTHORIZATION', 2000, false], ['PARTIAL_CAPTURE', 1500, true]]);

    // Once captured the card has paid: a second capture or payment is 409.
    for (const type of ['FULL_CAPTURE', 'SALE']) {
      const again = await o.pay(card('4242', type, 100));
      expect([type, again.status, codeOf(again)]).toEqual([type, 409, 'card_already_applied']);
    }
    // Another card pays the rest (the balance counts the captured amount, not the authorized one).
    const rest = await o.pay(card('5555', 'FULL_CAPTURE', 1));
    expect([rest.status, codeOf(rest)]).toEqual([422, 'capture_without_authorization']);
    const sale = await o.pay(card('5555', 'SALE', o.total - 1500));
    expect(sale.body.data).toMatchObject({ paymentTotal: o.total, tipTotal: 300 });
    expectReconciled(sale.body.data);
  });

  it('refuses a capture with no authorization of that card, or of more than was authorized', async () => {
    const o = await newOrder();
    const none = await o.pay(card('4242', 'FULL_CAPTURE', 1000));
    expect([none.status, codeOf(none)]).toEqual([422, 'capture_without_authorization']);
    expect(none.body.messagesDetails[0].message).toBe(`The Visa card ending 4242 has no authorization on order ${o.id} to capture; send its AUTHORIZATION first (one of 0 cents and no tip is a card check, not an authorization to capture: authorize at least the tip).`);
    expect((await o.pay(card('1111', 'SALE', 1000))).status).toBe(200);
    const ofSale = await o.pay(card('1111', 'FULL_CAPTURE', 1000));
    expect([ofSale.status, codeOf(ofSale)]).toEqual([422, 'capture_without_authorization']);
    expect((await o.pay(card('2222', 'AUTHORIZATION', 800))).status).toBe(200);
    const over = await o.pay(card('2222', 'FULL_CAPTURE', 801));
    expect([over.status, codeOf(over)]).toEqual([422, 'capture_exceeds_authorization']);
    // A failed capture is recorded and changes nothing; the authorization can still be captured.
    expect((await o.pay(card('2222', 'FULL_CAPTURE', 800, 0, 'FAILURE'))).body.data.paymentTotal).toBe(1800);
    expect((await o.pay(card('2222', 'FULL_CAPTURE', 800, 150))).body.data).toMatchObject({ paymentTotal: 1800, tipTotal: 150 });
    // A points reservation is captured the same way.
    expect((await o.pay(card('3333', 'POINTS_RESERVATION', 100))).status).toBe(200);
    expect((await o.pay(card('3333', 'FULL_CAPTURE', 100))).body.data.payments).toHaveLength(3);
  });

  it('refuses a capture of 0 cents and no tip (422 capture_amount_zero), records nothing and leaves the authorization to capture; 1 cent captures', async () => {
    const o = await newOrder();
    expect((await o.pay(card('4242', 'AUTHORIZATION', 800))).status).toBe(200);
    for (const type of ['FULL_CAPTURE', 'PARTIAL_CAPTURE']) {
      const zero = await o.pay(card('4242', type, 0, 0));
      expect([type, zero.status, codeOf(zero)]).toEqual([type, 422, 'capture_amount_zero']);
      expect(zero.body.messagesDetails[0].message).toBe('A capture of 0 cents and no tip captures nothing: capture 1 to 800 cents of the Visa card ending 4242\'s authorization, or a tip (transaction.tip), or void the authorization at your gateway to release it.');
    }
    expect(await o.rows()).toHaveLength(1);
    expect(await o.read()).toMatchObject({ paymentTotal: 800, payments: [{ amount: 800 }] });
    const one = await o.pay(card('4242', 'PARTIAL_CAPTURE', 1));
    expect(one.status, one.text).toBe(200);
    expect(one.body.data).toMatchObject({ paymentTotal: 1, payments: [{ paymentNumber: 1, amount: 1 }] });
    // A failed capture of 0 is a gateway record like any failure: recorded, pays nothing.
    expect((await o.pay(card('5555', 'AUTHORIZATION', 300))).status).toBe(200);
    const failed = await o.pay(card('5555', 'FULL_CAPTURE', 0, 0, 'FAILURE'));
    expect(failed.status).toBe(200);
    expect(failed.body.data).toMatchObject({ paymentTotal: 301 });
  });

  it('captures a tip alone: an order paid by other means, the card authorized for 0 cents and a tip, then captured with the final tip', async () => {
    const o = await newOrder();
    expect((await o.pay(card('1111', 'SALE', o.total))).body.data).toMatchObject({ paymentTotal: o.total, tipTotal: 0 });
    const auth = await o.pay(card('4242', 'AUTHORIZATION', 0, 300));
    expect([auth.status, auth.body.data?.tipTotal, auth.body.data?.payments?.length]).toEqual([200, 300, 2]);
    const nothing = await o.pay(card('4242', 'FULL_CAPTURE', 0, 0));
    expect([nothing.status, nothing.body.messagesDetails[0]?.message]).toEqual([422, "A capture of 0 cents and no tip captures nothing: capture the tip (transaction.tip) the Visa card ending 4242 authorized, or void the authorization at your gateway to release it."]);
    // A card check (0 cents, no tip) is not an authorization to capture, and the message says so.
    expect((await o.pay(card('5555', 'AUTHORIZATION', 0))).status).toBe(200);
    const check = await o.pay(card('5555', 'FULL_CAPTURE', 0, 200));
    expect([check.status, codeOf(check), check.body.messagesDetails[0]?.message]).toEqual([422, 'capture_without_authorization', expect.stringContaining('a card check')]);
    // The tip the customer wrote on the receipt replaces the authorized one.
    const captured = await o.pay(card('4242', 'FULL_CAPTURE', 0, 450));
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body.message).toBe(`The authorization of the Visa card ending 4242 was captured: payment 2 of order ${o.id} is 0 cents and a 450 cents tip.`);
    expect(captured.body.data).toMatchObject({ paymentTotal: o.total, tipTotal: 450, payments: [{ paymentNumber: 1, amount: o.total, tip: 0 }, { paymentNumber: 2, amount: 0, tip: 450, last4Digits: '4242' }] });
    expectReconciled(captured.body.data);
    expect(await o.read()).toEqual(captured.body.data);
    const rows = await o.rows();
    expect(rows.filter((r) => r.cardKey !== 'visa|5555|12|2029').map((r) => [r.type, r.amount, r.tip, r.authorizationId === rows[1]!.id])).toEqual([['SALE', o.total, 0, false], ['AUTHORIZATION', 0, 300, false], ['FULL_CAPTURE', 0, 450, true]]);
    // Captured once: the card has paid.
    expect(codeOf(await o.pay(card('4242', 'FULL_CAPTURE', 0, 500)))).toBe('card_already_applied');
  }); // prettier-ignore

  it("takes a gateway's optional fields sent as null (approvalCode, tip, names...) as absent", async () => {
    const o = await newOrder();
    const sent = card('1881', 'SALE', 500);
    const res = await o.pay({
      ...sent,
      transaction: { ...sent.transaction, tip: null, approvalCode: null, avsResponseCode: null, orderId: null, transactionDateTime: null },
      firstName: null,
      lastName: null,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ paymentTotal: 500, tipTotal: 0 });
  }); // prettier-ignore

  it('reads the transaction type and status in any case (Sale, success), as ASP.NET reads an enum', async () => {
    const o = await newOrder();
    const res = await o.pay(card('1882', 'Sale', 500, 0, 'success'));
    expect([res.status, res.body.data?.paymentTotal]).toEqual([200, 500]);
    const rows = await o.rows();
    expect(rows.map((r) => [r.type, r.status])).toEqual([['SALE', 'SUCCESS']]);
  });

  it('records a zero-amount success (a card check) without using up the card', async () => {
    const o = await newOrder();
    const check = await o.pay(card('4242', 'AUTHORIZATION', 0));
    expect(check.status).toBe(200);
    expect(check.body.message).toBe(`The zero-amount transaction was recorded on order ${o.id}; it is not a payment.`);
    expect(check.body.data).toMatchObject({ paymentTotal: 0, payments: [] });
    const paid = await o.pay(card('4242', 'SALE', 1000));
    expect(paid.body.data).toMatchObject({ paymentTotal: 1000, payments: [{ paymentNumber: 1, amount: 1000 }] });
    // A tip alone is a payment.
    const tipOnly = await o.pay(card('1111', 'SALE', 0, 200));
    expect(tipOnly.body.data).toMatchObject({ paymentTotal: 1000, tipTotal: 200 });
    expect(tipOnly.body.data.payments).toHaveLength(2);
  });

  it('keeps one payment per card and one capture per authorization in the database, whatever races', async () => {
    const o = await newOrder();
    const db = suite.platform.app.ctx.db;
    const row = (type: string, amount: number, authorizationId: number | null = null) => ({
      orderId: o.id, cardKey: 'visa|9999|12|2029', status: 'SUCCESS' as const, type, amount, tip: 0,
      cardBrand: 'Visa', last4: '9999', payment: {}, authorizationId,
    });
    const [auth] = await db.insert(cardTransactions).values(row('AUTHORIZATION', 500)).returning();
    await db.insert(cardTransactions).values(row('SALE', 0)); // zero: not a payment
    await expect(db.insert(cardTransactions).values(row('SALE', 100))).rejects.toThrow();
    await db.insert(cardTransactions).values(row('FULL_CAPTURE', 500, auth!.id));
    await expect(db.insert(cardTransactions).values(row('PARTIAL_CAPTURE', 400, auth!.id))).rejects.toThrow();
  });
}); // prettier-ignore
