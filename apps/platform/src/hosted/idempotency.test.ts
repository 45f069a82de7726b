import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_ORDER } from '@stream/contracts/apis/hr-orders/index';
import { DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import { HostedErrorBody } from '@stream/contracts/envelopes';
import { pruneIdempotencyKeys } from '../http/idempotency-keys.ts';
import { hostedOrders, idempotencyKeys, storeEmails } from '../db/schema/index.ts';
import { hostedClockAt, hostedSuite, hostedWorld, type HostedWorld } from './testing.ts';

/** `Idempotency-Key` on the hosted calls that create something: a retry is answered, never repeated. */
hostedClockAt();
const suite = hostedSuite();

const order = (over: Record<string, unknown> = {}) => ({ ...structuredClone(EXAMPLE_ORDER), ...over });
const placeAs = (world: HostedWorld, key: string | undefined, data: unknown) =>
  world.hosted('POST', '/Orders', {
    serviceType: 'DoorDash',
    headers: key === undefined ? {} : { 'idempotency-key': key },
    body: { data },
  });
const place = (key: string | undefined, data: unknown = order()) => placeAs(suite.world, key, data);
const email = (key: string, subject = 'Your receipt', path = 'Email') =>
  suite.world.hosted('POST', `/Stores/${DEMO_STORE_ID}/${path}`, {
    headers: { 'idempotency-key': key },
    body: {
      data: [
        {
          toEmails: [{ email: 'ana@example.com' }],
          fromEmail: { email: 'orders@pizza.example' },
          subject,
          contents: [{ contentType: 'text/plain', value: 'Thanks!' }],
        },
      ],
    },
  });

const db = () => suite.platform.app.ctx.db;
const ordersOf = async (world: HostedWorld) =>
  (await db().select().from(hostedOrders).where(eq(hostedOrders.partnerId, world.partner.partner_id))).length;
const codeOf = (res: { body: unknown }) => HostedErrorBody.parse(res.body).messagesDetails[0]?.id;

describe('Idempotency-Key on POST /Orders', () => {
  it('answers a retry with the first answer, byte for byte, and places one order', async () => {
    const before = await ordersOf(suite.world);
    const key = randomUUID();
    const first = await place(key);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await place(key);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await ordersOf(suite.world)).toBe(before + 1);
  });

  it('places one order for concurrent posts with one key, and answers each the same', async () => {
    const before = await ordersOf(suite.world);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => place(key)));
    expect(new Set(answers.map((a) => `${a.status} ${a.text}`)).size).toBe(1);
    expect(answers[0]!.status).toBe(201);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    expect(await ordersOf(suite.world)).toBe(before + 1);
  });

  it('places an order a post for each post without a key (the key is optional)', async () => {
    const before = await ordersOf(suite.world);
    expect((await place(undefined)).status).toBe(201);
    expect((await place(undefined)).status).toBe(201);
    expect(await ordersOf(suite.world)).toBe(before + 2);
  });

  it('replays a rejected order as the 422 it was, without storing a second one', async () => {
    const before = await ordersOf(suite.world);
    const key = randomUUID();
    const closed = order({ deferDue: '2026-12-02T04:00:00-05:00' }); // before Pickup opens
    const first = await place(key, closed);
    expect(first.status).toBe(422);
    expect(first.body.messagesDetails[0]).toMatchObject({ id: 'order_rejected' });
    const retry = await place(key, closed);
    expect([retry.status, retry.text]).toEqual([422, first.text]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await ordersOf(suite.world)).toBe(before + 1);
  });

  it('is 422 idempotency_key_reused for the key with another body, another store or another endpoint', async () => {
    const key = randomUUID();
    expect((await place(key)).status).toBe(201);
    const before = await ordersOf(suite.world);

    const otherBody = await place(key, order({ preperationNote: 'extra crispy' }));
    expect(otherBody.status).toBe(422);
    expect(codeOf(otherBody)).toBe('idempotency_key_reused');
    expect(otherBody.body.message).toMatch(/used in the last 24 hours for a request with other parameters/);

    const otherEndpoint = await email(key);
    expect(otherEndpoint.status).toBe(422);
    expect(otherEndpoint.body.message).toMatch(/another endpoint \(POST \/Orders\)/);
    expect(await ordersOf(suite.world)).toBe(before);
  });

  it('keeps nothing for an error answer: the fixed request may use the same key', async () => {
    const key = randomUUID();
    const invalid = await place(key, order({ items: [{ id: 'calzone', qty: 1, price: 0 }] }));
    expect([invalid.status, codeOf(invalid)]).toEqual([422, 'order_invalid']);
    const fixed = await place(key);
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('scopes keys to the partner: another partner with the same key places its own order', async () => {
    const other = await hostedWorld(suite.platform);
    const key = randomUUID();
    const mine = await place(key);
    const theirs = await placeAs(other, key, order());
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('forgets a key after 24 hours: it may then name a new request, and the pruner deletes it', async () => {
    const key = randomUUID();
    const first = await place(key);
    const where = eq(idempotencyKeys.key, key);
    await db()
      .update(idempotencyKeys)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(where);
    const again = await place(key, order({ preperationNote: 'a new order' }));
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
    expect(again.headers.get('idempotent-replayed')).toBeNull();

    await db()
      .update(idempotencyKeys)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(where);
    expect(await pruneIdempotencyKeys(db())).toBeGreaterThanOrEqual(1);
    expect(await db().select().from(idempotencyKeys).where(where)).toEqual([]);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
  ])('is 400 validation_failed for a key that is %s', async (_, key) => {
    const res = await place(key);
    expect(res.status).toBe(400);
    expect(res.body.messagesDetails.map((m: { id: string }) => m.id)).toContain('headers.idempotency-key');
  });
});

describe('Idempotency-Key on POST /Orders/{id}/ApplyCreditCardPayment', () => {
  const pay = (orderId: number, key: string, amount: number) =>
    suite.world.hosted('POST', `/Orders/${orderId}/ApplyCreditCardPayment`, {
      headers: { 'idempotency-key': key },
      body: {
        data: {
          transaction: {
            gatewayTransactionId: `txn-${key}`,
            amount,
            tip: 0,
            type: 'SALE',
            status: 'SUCCESS',
          },
          paymentMethod: { cardBrand: 'Visa', last4CardNumber: '4242', expMonth: 12, expYear: 2029 },
        },
      },
    });

  it('answers a retried payment with the first answer instead of 409 card_already_applied', async () => {
    const placed = await place(undefined);
    const key = randomUUID();
    const first = await pay(placed.body.data.id, key, 500);
    expect(first.status, first.text).toBe(200);
    const retry = await pay(placed.body.data.id, key, 500);
    expect([retry.status, retry.text]).toEqual([200, first.text]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.payments).toHaveLength(1);
    // With a new key it is a new payment, and the card rule refuses it.
    const again = await pay(placed.body.data.id, randomUUID(), 500);
    expect([again.status, codeOf(again)]).toEqual([409, 'card_already_applied']);
  });
});

describe('Idempotency-Key on POST /Stores/{id}/Email and PostEmail', () => {
  const emailsWith = async (subject: string) =>
    (await db().select().from(storeEmails)).filter(
      (r) => (r.message as { subject: string }).subject === subject,
    ).length;

  it('queues the messages once and answers a retry with the same ids', async () => {
    const key = randomUUID();
    const subject = `receipt ${key}`;
    const first = await email(key, subject);
    expect(first.status, first.text).toBe(202);
    const retry = await email(key, subject);
    expect([retry.status, retry.text]).toEqual([202, first.text]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await emailsWith(subject)).toBe(1);
  });

  it('keeps the deprecation headers on a replayed PostEmail answer', async () => {
    const key = randomUUID();
    const subject = `receipt ${key}`;
    const first = await email(key, subject, 'PostEmail');
    const retry = await email(key, subject, 'PostEmail');
    expect([retry.status, retry.text]).toEqual([202, first.text]);
    expect(retry.headers.get('deprecation')).toBe('true');
    expect(retry.body.messagesDetails).toEqual([expect.objectContaining({ id: 'deprecated' })]);
    expect(await emailsWith(subject)).toBe(1);
  });
});
