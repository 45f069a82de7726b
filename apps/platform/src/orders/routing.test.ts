import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import { directCommands } from '../admin/commands.ts';
import { rowsOf } from '../db/sql.ts';
import { requestAccessToken } from '../auth/testing.ts';
import { PosOrder } from '@stream/contracts/apis/become-a-pos/index';
import { DSP_EVENT_DELIVERY, ORDER_DELIVERY, POS_UPDATE_DELIVERY, sendStoreEventToDsp } from './calls.ts';
import { ASYNC_CONFIRMATION } from './effects.ts';
import {
  dspEvent,
  dspEvents,
  moveClock,
  newOrder,
  orderRow,
  posCalls,
  postDsp,
  postPos,
  startOrderWorld,
  waitForStatus,
  type OrderWorld,
} from './testing.ts';

/**
 * Order routing end to end over real HTTP: a DSP and a POS written from the contract (node:http,
 * not the sandbox), the platform between them, its database and outbox.
 */

let w: OrderWorld;
beforeAll(async () => {
  w = await startOrderWorld();
});
afterAll(async () => {
  await w?.stop();
});

const accept = (providerId: string, extra: Record<string, unknown> = {}) => ({
  status: 200,
  body: { order: { provider_id: providerId, prep_time_minutes: 20, ...extra } },
});

let numbered = 0;

/** Posts a new order and answers its platform id, checking the 202. */
async function place(overrides: Record<string, unknown> = {}) {
  const body = newOrder(w, overrides);
  const res = await postDsp(w, body);
  expect(res.status, res.text).toBe(202);
  return { dspId: body.order.id as string, id: res.body.order_id as string, res, body };
}

describe('a new order', () => {
  it('reaches the POS in its contract and the DSP hears it was accepted, with the ready time', async () => {
    w.pos.answer = () => accept('pos-1');
    const before = Date.now();
    const { dspId, id, res } = await place({ store_tip: 100, special_instructions: 'No onions' });
    expect(res.body).toEqual({ event_id: expect.stringMatching(/^evt_/), order_id: id, status: 'received' });

    const event = await dspEvent(w, dspId, 'location.order.accept');
    expect(event.body).toEqual({
      type: 'location.order.accept',
      location_id: w.store,
      order_id: dspId,
      estimated_ready_at_ms: expect.any(Number),
    });
    const ready = (event.body as { estimated_ready_at_ms: number }).estimated_ready_at_ms;
    expect(ready).toBeGreaterThanOrEqual(before + 20 * 60_000);
    expect(event.headers.authorization).toBe('Bearer at_dsp');

    const [sent] = posCalls(w, id);
    expect(sent!.headers.authorization).toBe('Bearer at_pos');
    expect(sent!.headers['idempotency-key']).toMatch(/^job_/);
    expect(sent!.body).toMatchObject({
      type: 'order.created',
      object: {
        location_id: w.posLocation,
        idempotency_key: id,
        source_order_id: dspId,
        source: 'example-dsp',
        brand: 'example-dsp',
        fulfillment_type: 'pickup',
        restaurant_tip: 100,
        special_instructions: 'No onions',
        customers: [{ id: 'c1', name: 'Ada', phone: '+14155550123', email: 'ada@example.com' }],
        customer_name: 'Ada',
        line_items: [
          {
            provider_id: 'var-1',
            item_family_provider_id: 'item-1',
            price_amount: 450,
            price_currency: 'USD',
            modifiers: [{ provider_id: 'mod-1', price_amount: 50, price_currency: 'USD', modifiers: [] }],
          },
        ],
        should_include_utensils: true,
        is_future_order: false,
        // Required by the spec's webhook order data (platform.md section 5).
        placed_at: expect.any(Number),
        subtotal: 950,
        tax: 85,
        tax_withheld_by_dsp: false,
        discounts: [],
      },
    });
    // The whole object, as sent, is the contract's order (every required field there, with its type).
    expect(PosOrder.safeParse((sent!.body as { object: unknown }).object).error).toBeUndefined();
    const row = await waitForStatus(w, id, 'accepted');
    expect(row.pos_order_id).toBe('pos-1');
    // The POS's answer and the delivery job's success are one statement (one commit): one now().
    const [together] = rowsOf<{ same: boolean }>(
      await w.platform.app.ctx.db.execute(
        sql`select j.finished_at = o.updated_at as same from jobs j join orders o on o.id = j.payload->>'order_id'
            where o.id = ${id} and j.kind = 'orders.pos' and j.status = 'succeeded'`,
      ),
    );
    expect(together).toEqual({ same: true });
  });

  it.each([
    [
      'stock',
      { stockValidation: [{ type: 'item', provider_id: 'var-1', quantity: 0 }] },
      'items_unavailable',
      ['var-1'],
    ],
    [
      'totals',
      { orderTotalsValidation: [{ posTotal: 1000, streamTotal: 1035 }] },
      'order_validation_error',
      [],
    ],
    ['invalid cart', { orderValidation: [{ order_error: 'invalid_cart' }] }, 'order_validation_error', []],
    [
      'store closed',
      { orderValidation: [{ order_error: 'store_unavailable' }] },
      'restaurant_not_accepting_orders',
      [],
    ],
    [
      'POS offline',
      { orderValidation: [{ order_error: 'pos_offline' }] },
      'restaurant_not_accepting_orders',
      [],
    ],
    [
      'other',
      { orderValidation: [{ order_error: 'other', order_error_reason: 'Printer jam' }] },
      'unknown',
      [],
    ],
  ])(
    'refused by the POS (%s) fails with the reason the DSP can act on',
    async (_, posValidation, reason, ids) => {
      w.pos.answer = () => ({ status: 400, body: { posValidation } });
      const { dspId, id } = await place();
      const event = await dspEvent(w, dspId, 'location.order.fail');
      // Flat (wire notes, "DSP side"): the DSP's store and order ids beside the reason, no wrapper.
      expect(event.body).toEqual({
        type: 'location.order.fail',
        location_id: w.store,
        order_id: dspId,
        failure_reason: reason,
        failure_details: { invalid_item_ids: ids, error_message: expect.any(String) },
      });
      if (reason === 'unknown') expect(JSON.stringify(event.body)).toContain('Printer jam');
      await waitForStatus(w, id, 'failed');
      expect(posCalls(w, id)).toHaveLength(1); // a refusal is not retried
    },
  );

  it('is accepted by any 2xx carrying the order: 201 and 202 as well as 200', async () => {
    for (const status of [201, 202]) {
      w.pos.answer = () => ({ status, body: { order: { provider_id: `pos-${status}` } } });
      const { dspId, id } = await place();
      const row = await waitForStatus(w, id, 'accepted');
      expect(row.pos_order_id).toBe(`pos-${status}`);
      await dspEvent(w, dspId, 'location.order.accept');
      expect(posCalls(w, id)).toHaveLength(1);
    }
  });

  it('takes ids the partners number: a DSP order id and a POS order id sent as numbers are their decimal strings', async () => {
    const dspNumber = Date.now() * 1000 + (++numbered % 1000);
    const posNumber = dspNumber + 7;
    w.pos.answer = () => ({
      status: 200,
      body: { order: { provider_id: posNumber, prep_time_minutes: 20 } },
    });
    const body = newOrder(w, { id: dspNumber });
    const res = await postDsp(w, body);
    expect(res.status, res.text).toBe(202);
    const id = res.body.order_id as string;
    const event = await dspEvent(w, String(dspNumber), 'location.order.accept');
    expect((event.body as { order_id: unknown }).order_id).toBe(String(dspNumber));
    expect(posCalls(w, id)[0]!.body).toMatchObject({ object: { source_order_id: String(dspNumber) } });
    expect((await waitForStatus(w, id, 'accepted')).pos_order_id).toBe(String(posNumber));
    // The same order posted again with its id as a string is the same order.
    const again = await postDsp(w, newOrder(w, { id: String(dspNumber) }));
    expect(again.body.order_id).toBe(id);
    // The POS names its order by the number again: the DSP hears it is ready.
    const ready = await postPos(w, {
      type: 'order.status.updated',
      object: { status: 'ready_for_pickup', provider_id: posNumber, location_id: w.posLocation },
    });
    expect(ready.status, ready.text).toBe(204);
    await dspEvent(w, String(dspNumber), 'location.order.notify_status_change');
  });

  it('is retried while the POS is down, with the same keys, and accepted once it is back', async () => {
    let tries = 0;
    // A 503, then a 429 (slow down): both mean "later", and the third call is accepted.
    w.pos.answer = () =>
      ++tries >= 3 ? accept('pos-after-503') : { status: tries === 1 ? 503 : 429, body: { error: 'busy' } };
    const { dspId, id } = await place();
    await dspEvent(w, dspId, 'location.order.accept');
    const calls = posCalls(w, id);
    expect(calls.length).toBeGreaterThan(1);
    expect(new Set(calls.map((c) => c.headers['idempotency-key'])).size).toBe(1);
    expect(
      new Set(calls.map((c) => (c.body as { object: { idempotency_key: string } }).object.idempotency_key)),
    ).toEqual(new Set([id]));
    expect(dspEvents(w, dspId)).toHaveLength(1);
  });

  it('fails as unknown when the POS stays down past the delivery deadline', async () => {
    const saved = ORDER_DELIVERY.deadlineMs;
    ORDER_DELIVERY.deadlineMs = 1_000;
    try {
      w.pos.answer = () => ({ status: 503 });
      const { dspId, id } = await place();
      const event = await dspEvent(w, dspId, 'location.order.fail');
      expect(event.body).toMatchObject({ failure_reason: 'unknown' });
      expect((await orderRow(w, id))!.status).toBe('failed');
      // Every attempt was answered 503: the POS did not take it, so it is not asked to cancel it.
      expect(posCalls(w, id).every((c) => (c.body as { type: string }).type === 'order.created')).toBe(true);
      // The DSP cancelling an order that already failed is answered 200: nothing is left to cancel.
      const cancel = await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: dspId });
      expect([cancel.status, cancel.body.status]).toEqual([200, 'failed']);
    } finally {
      ORDER_DELIVERY.deadlineMs = saved;
    }
  });

  it('past the deadline after a call the POS may have received (connection dropped), asks the POS to cancel it', async () => {
    const saved = ORDER_DELIVERY.deadlineMs;
    ORDER_DELIVERY.deadlineMs = 1_000;
    try {
      w.pos.answer = (body) => (body.type === 'order.canceled' ? { status: 204 } : 'drop');
      const { dspId, id } = await place();
      const event = await dspEvent(w, dspId, 'location.order.fail');
      expect(event.body).toMatchObject({
        failure_reason: 'unknown',
        failure_details: { error_message: expect.stringMatching(/^The POS did not answer in time; it may have received the order and was asked to cancel it/) },
      });
      const cancel = await waitFor(
        () => posCalls(w, id).find((c) => (c.body as { type: string }).type === 'order.canceled'),
        10_000,
        'POS cancel',
      );
      expect(cancel.body).toEqual({ type: 'order.canceled', object: { location_id: w.posLocation, order_id: id } });
    } finally {
      ORDER_DELIVERY.deadlineMs = saved;
    }
  }); // prettier-ignore

  it('accepted asynchronously waits for the POS to confirm by webhook', async () => {
    w.pos.answer = () => accept('pos-async-1', { async_acceptance: true });
    const { dspId, id } = await place();
    await waitForStatus(w, id, 'awaiting_confirmation');
    expect(dspEvents(w, dspId)).toHaveLength(0);
    const confirm = await postPos(w, {
      type: 'order.status.updated',
      object: { status: 'accepted', provider_id: 'pos-async-1', location_id: w.posLocation },
    });
    expect(confirm.status, confirm.text).toBe(204);
    const confirmedAt = Date.now();
    const accepted = await dspEvent(w, dspId, 'location.order.accept');
    await waitForStatus(w, id, 'accepted');
    // Ready after the prep time of the POS's answer (20 min), not the location's (15).
    const readyIn = (accepted.body as { estimated_ready_at_ms: number }).estimated_ready_at_ms - confirmedAt;
    expect(readyIn).toBeGreaterThan(19 * 60_000);
    expect(readyIn).toBeLessThanOrEqual(20 * 60_000);
  });

  it('accepted asynchronously, then ready without a confirmation: ready confirms it', async () => {
    w.pos.answer = () => accept('pos-async-ready', { async_acceptance: true });
    const { dspId, id } = await place();
    await waitForStatus(w, id, 'awaiting_confirmation');
    const ready = await postPos(w, {
      type: 'order.status.updated',
      object: { status: 'ready_for_pickup', provider_id: 'pos-async-ready', location_id: w.posLocation },
    });
    expect(ready.status, ready.text).toBe(204);
    await waitForStatus(w, id, 'ready_for_pickup');
    await dspEvent(w, dspId, 'location.order.notify_status_change');
    expect(dspEvents(w, dspId).map((e) => (e.body as { type: string }).type)).toEqual([
      'location.order.accept',
      'location.order.notify_status_change',
    ]);
  });

  it('accepted asynchronously and confirmed before the answer arrives: the confirmation waits for it', async () => {
    let early: Promise<{ status: number; text: string }> | undefined;
    w.pos.answer = (body) => {
      if (body.type !== 'order.created') return { status: 200, body: {} };
      // The confirmation leaves at once; the answer naming the order 300 ms later.
      early = postPos(w, {
        type: 'order.status.updated',
        object: { status: 'accepted', provider_id: 'pos-early', location_id: w.posLocation },
      });
      return { ...accept('pos-early', { async_acceptance: true }), delayMs: 300 };
    };
    const { dspId, id } = await place();
    await dspEvent(w, dspId, 'location.order.accept');
    await waitForStatus(w, id, 'accepted');
    const confirmed = await early!;
    expect(confirmed.status, confirmed.text).toBe(204);
  });

  it('accepted asynchronously and never confirmed fails after the confirmation window', async () => {
    const saved = ASYNC_CONFIRMATION.ms;
    ASYNC_CONFIRMATION.ms = 300;
    try {
      w.pos.answer = () => accept('pos-async-2', { async_acceptance: true });
      const { dspId } = await place();
      const event = await dspEvent(w, dspId, 'location.order.fail');
      expect(JSON.stringify(event.body)).toContain('confirmation_timeout');
    } finally {
      ASYNC_CONFIRMATION.ms = saved;
    }
  });

  it('accepted asynchronously and never confirmed: the POS, which holds the order, is told it is cancelled', async () => {
    const saved = ASYNC_CONFIRMATION.ms;
    ASYNC_CONFIRMATION.ms = 300;
    try {
      w.pos.answer = (body) =>
        body.type === 'order.created' ? accept('pos-async-3', { async_acceptance: true }) : { status: 204 };
      const { dspId, id } = await place();
      await dspEvent(w, dspId, 'location.order.fail');
      const cancel = await waitFor(
        () => posCalls(w, id).find((c) => (c.body as { type: string }).type === 'order.canceled'),
        10_000,
        'the POS told the order is off',
      );
      expect(cancel.body).toEqual({
        type: 'order.canceled',
        object: { location_id: w.posLocation, order_id: id, provider_id: 'pos-async-3' },
      });
    } finally {
      ASYNC_CONFIRMATION.ms = saved;
    }
  });

  it('a POS answer writing its optional fields as null is an acceptance, not an unusable answer', async () => {
    w.pos.answer = () => ({
      status: 200,
      body: { order: { provider_id: 'pos-nulls', prep_time_minutes: null, async_acceptance: null } },
    });
    const { dspId, id } = await place();
    await dspEvent(w, dspId, 'location.order.accept');
    expect((await waitForStatus(w, id, 'accepted')).pos_order_id).toBe('pos-nulls');
  });

  it('a DSP order writing its optional fields as null is taken as if they were absent', async () => {
    w.pos.answer = () => accept('pos-dsp-nulls');
    const nulls = {
      brand: null,
      special_instructions: null,
      discounts: null,
      delivery_address: null,
      estimated_ready_at_ms: null,
      should_include_utensils: null,
      is_future_order: null,
      customers: [{ id: 'c1', name: 'Ada', email: null, phone: '+14155550123' }],
      items: [
        {
          id: 'var-1',
          item_id: 'item-1',
          category_id: null,
          name: 'Taco',
          quantity: 2,
          price: 450,
          currency: 'usd',
          special_instructions: null,
          modifiers: [
            { id: 'mod-1', modifier_group_id: null, name: 'Salsa', quantity: 1, price: 50, currency: 'usd' },
          ],
        },
      ],
    };
    const withNulls = await place(nulls);
    const without = await place({
      customers: [{ id: 'c1', name: 'Ada', phone: '+14155550123' }],
      items: nulls.items.map(({ category_id: _c, special_instructions: _s, modifiers, ...item }) => ({
        ...item,
        modifiers: modifiers.map(({ modifier_group_id: _g, ...m }) => m),
      })),
    });
    await dspEvent(w, withNulls.dspId, 'location.order.accept');
    await dspEvent(w, without.dspId, 'location.order.accept');
    // What the POS receives is the same order either way (ids and times aside).
    const sent = (p: { id: string }) => {
      const o = (posCalls(w, p.id)[0]!.body as { object: Record<string, unknown> }).object;
      const { idempotency_key: _k, source_order_id: _s, placed_at: _p, requested_for: _r, ...rest } = o;
      return rest;
    };
    expect(sent(withNulls)).toEqual(sent(without));
    expect(sent(withNulls)).toMatchObject({ should_include_utensils: true, is_future_order: false });

    // A required field sent as null is named as missing, and nothing is stored.
    const required = await postDsp(w, { ...newOrder(w), location_id: null });
    expect(required.status).toBe(400);
    expect(required.body.error).toMatchObject({ code: 'validation_failed' });
    expect(required.body.error.details).toEqual([
      { path: 'body.location_id', message: 'is required but missing; send a string or a number.' },
    ]);
    expect(required.body.error.message).toBe(
      'body.location_id: is required but missing; send a string or a number.',
    );
    const noSubtotal = await postDsp(w, { ...newOrder(w), order: { ...newOrder(w).order, subtotal: null } });
    expect(noSubtotal.body.error.message).toBe(
      'body.order.subtotal: is required but missing; send a number.',
    );
  });

  it('a POS answering a new order 2xx but unusably fails it at the DSP and is told to cancel it', async () => {
    w.pos.answer = (body) =>
      body.type === 'order.created'
        ? { status: 200, body: { order: { provider_id: true } } }
        : { status: 204 };
    const { dspId, id } = await place();
    const fail = await dspEvent(w, dspId, 'location.order.fail');
    expect(fail.body).toMatchObject({ failure_reason: 'unknown' });
    expect(
      (fail.body as { failure_details: { error_message: string } }).failure_details.error_message,
    ).toMatch(
      /^The POS answered the order, but not as its contract says \(.*provider_id.*\); it was asked to cancel it\.$/,
    );
    const cancel = await waitFor(
      () => posCalls(w, id).find((c) => (c.body as { type: string }).type === 'order.canceled'),
      10_000,
      'the POS told to cancel the order it may have made',
    );
    expect(cancel.body).toEqual({
      type: 'order.canceled',
      object: { location_id: w.posLocation, order_id: id },
    });
    // Reached once: an unusable answer is the order's outcome, not a delivery to retry.
    expect(posCalls(w, id).filter((c) => (c.body as { type: string }).type === 'order.created')).toHaveLength(
      1,
    );
  });

  it('a POS answering a prep time past a day fails the order at the DSP (it never stays received)', async () => {
    w.pos.answer = (body) =>
      body.type === 'order.created'
        ? { status: 200, body: { order: { provider_id: 'pos-slow', prep_time_minutes: 1e300 } } }
        : { status: 204 };
    const { dspId, id } = await place();
    const fail = await dspEvent(w, dspId, 'location.order.fail');
    expect(fail.body).toMatchObject({ failure_reason: 'unknown' });
    expect(
      (fail.body as { failure_details: { error_message: string } }).failure_details.error_message,
    ).toMatch(/prep_time_minutes.*at most 1440 minutes/);
    expect((await orderRow(w, id))?.status).toBe('failed');
  });

  it('posted five times at once makes one POS order and one outcome, each post answered alike', async () => {
    w.pos.answer = () => accept('pos-dup');
    const body = newOrder(w);
    const answers = await Promise.all(Array.from({ length: 5 }, () => postDsp(w, body)));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    const id = answers[0]!.body.order_id as string;
    await dspEvent(w, body.order.id, 'location.order.accept');
    const later = await postDsp(w, body);
    expect(later.text).toBe(answers[0]!.text);
    await new Promise((r) => setTimeout(r, 200));
    expect(posCalls(w, id)).toHaveLength(1);
    expect(dspEvents(w, body.order.id)).toHaveLength(1);
  });
});

describe('a DSP down for good', () => {
  it("is given up after its retries: the order's timeline and the store's binding show which event it never got", async () => {
    const policy = { ...DSP_EVENT_DELIVERY };
    // The deadline is read when an event is enqueued: this order's accept is retried only briefly.
    DSP_EVENT_DELIVERY.deadlineMs = 300;
    w.pos.answer = () => accept('pos-dsp-down');
    w.dsp.answer = () => ({ status: 503, body: { error: 'down for maintenance' } });
    try {
      const { id, dspId } = await place();
      await waitForStatus(w, id, 'accepted');
      Object.assign(DSP_EVENT_DELIVERY, policy);
      const entries = await waitFor(
        async () => {
          const res = await call('GET', `${w.url}/orders/${id}/timeline`, { token: w.token });
          const all = res.body.entries as { kind: string; type: string; partner_id: string }[];
          return all.some((e) => e.kind === 'gave_up') ? all : undefined;
        },
        10_000,
        'the accept given up',
      );
      expect(entries.filter((e) => e.partner_id === w.dspPartner.partner_id && e.type === 'location.order.accept')).toEqual([
        expect.objectContaining({ kind: 'sent', delivery: expect.objectContaining({ state: 'dead' }) }),
        expect.objectContaining({
          kind: 'gave_up',
          detail: expect.stringMatching(/^The DSP was never delivered location\.order\.accept; the platform stopped retrying: .*503/),
        }),
      ]);
      expect(dspEvents(w, dspId).length).toBeGreaterThan(0); // it was tried
      const res = await call('GET', `${w.url}/onboarding/org/${w.orgId}/locations?location_id=${w.locationId}`, { token: w.token });
      expect(res.body.locations[0].dsps[0].last_undelivered).toEqual({
        type: 'location.order.accept',
        order_id: id,
        at: expect.any(String),
        error: expect.stringContaining('503'),
      });
      // The order itself stays accepted: the POS has it; only the DSP never heard.
      expect((await orderRow(w, id))?.status).toBe('accepted');
    } finally {
      Object.assign(DSP_EVENT_DELIVERY, policy);
      w.dsp.answer = () => ({ status: 200, body: {} });
    }
  }); // prettier-ignore
});

describe('failures before the POS', () => {
  it('an order breaking a rule fails at once with every problem, and the POS never sees it', async () => {
    const body = newOrder(w, {
      customers: [{ name: 'Ada', phone: '4155550123' }],
      unpaid: true,
      driver_tip: 300,
    });
    const res = await postDsp(w, body);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'failed', failure_reason: 'order_validation_error' });
    const message = res.body.failure_details.error_message as string;
    for (const path of ['order.customers[0].phone', 'order.unpaid', 'order.driver_tip'])
      expect(message).toContain(path);
    await dspEvent(w, body.order.id, 'location.order.fail');
    expect(posCalls(w, res.body.order_id)).toHaveLength(0);
  });

  it('an order for an unknown store fails with location_not_found', async () => {
    const body = { ...newOrder(w), location_id: 'store-nobody' };
    const res = await postDsp(w, body);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'failed', failure_reason: 'location_not_found' });
  });
});

describe('after acceptance', () => {
  async function accepted(providerId: string) {
    w.pos.answer = () => accept(providerId);
    const placed = await place();
    await waitForStatus(w, placed.id, 'accepted');
    return placed;
  }
  const posUpdates = (id: string) =>
    posCalls(w, id).filter((c) => (c.body as { type: string }).type === 'order.updated');
  const firstPosUpdate = (id: string) => waitFor(() => posUpdates(id)[0], 10_000, 'order.updated');
  /** A DSP's `delivery_status_update` of `enroute_to_pickup` with these driver details. */
  const driverUpdate = (dspId: string, driver_details?: unknown) =>
    postDsp(w, {
      type: 'delivery_status_update',
      location_id: w.store,
      order_id: dspId,
      delivery_status: 'enroute_to_pickup',
      ...(driver_details === undefined ? {} : { driver_details }),
    });
  const posStatus = (providerId: string, status: string) =>
    postPos(w, {
      type: 'order.status.updated',
      object: { status, provider_id: providerId, location_id: w.posLocation },
    });

  it('relays ready and completed from the POS to the DSP, and refuses what does not fit with 409', async () => {
    const { dspId } = await accepted('pos-status-1');
    expect((await posStatus('pos-status-1', 'ready_for_pickup')).status).toBe(204);
    await waitFor(
      () =>
        dspEvents(w, dspId).find(
          (e) => (e.body as { order_status_update?: string }).order_status_update === 'ready_for_pickup',
        ),
      10_000,
      'ready relayed',
    );
    expect((await posStatus('pos-status-1', 'completed')).status).toBe(204);
    await dspEvent(w, dspId, 'location.order.notify_status_change');
    await waitFor(() => dspEvents(w, dspId)[2], 10_000, 'completed relayed');
    // Flat bodies naming the DSP's store and order (wire notes, "DSP side"), one per status.
    expect(dspEvents(w, dspId).map((e) => e.body)).toEqual([
      {
        type: 'location.order.accept',
        location_id: w.store,
        order_id: dspId,
        estimated_ready_at_ms: expect.any(Number),
      },
      {
        type: 'location.order.notify_status_change',
        location_id: w.store,
        order_id: dspId,
        order_status_update: 'ready_for_pickup',
      },
      {
        type: 'location.order.notify_status_change',
        location_id: w.store,
        order_id: dspId,
        order_status_update: 'completed',
      },
    ]);
    const late = await posStatus('pos-status-1', 'merchant_canceled');
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('invalid_transition');
    const again = await posStatus('pos-status-1', 'completed');
    expect(again.status).toBe(204); // a repeated status changes nothing
  });

  it('retries a cancellation longer than a new order: a POS down past that deadline still hears it', async () => {
    const one = await accepted('pos-cancel-late');
    const saved = ORDER_DELIVERY.deadlineMs;
    ORDER_DELIVERY.deadlineMs = 300; // a new order's deadline, shrunk: the cancellation must outlive it
    const upAt = Date.now() + 1_500;
    w.pos.answer = (body) => (body.type !== 'order.canceled' ? accept('pos-cancel-late') : Date.now() < upAt ? { status: 503 } : { status: 204 });
    try {
      const res = await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: one.dspId, cancel_reason: 'customer_requested' });
      expect(res.status, res.text).toBe(200);
      const job = await waitFor(
        async () => {
          const rows = rowsOf<{ status: string; attempts: number }>(
            await w.platform.app.ctx.db.execute(sql`select status, attempts from jobs where payload->'request'->>'type' = 'order.canceled' and payload->>'order_id' = ${one.id}`),
          );
          return rows[0]?.status === 'succeeded' || rows[0]?.status === 'dead' ? rows[0] : undefined;
        },
        10_000,
        'the cancellation settled',
      );
      expect(job.status).toBe('succeeded');
      expect(job.attempts).toBeGreaterThan(1);
    } finally {
      ORDER_DELIVERY.deadlineMs = saved;
    }
  }); // prettier-ignore

  it("a cancellation the POS never takes is given up: the order's timeline and its location show which the kitchen never heard", async () => {
    const one = await accepted('pos-cancel-never');
    const policy = { ...POS_UPDATE_DELIVERY };
    POS_UPDATE_DELIVERY.deadlineMs = 300; // read when the cancellation is enqueued
    w.pos.answer = (body) => (body.type === 'order.canceled' ? { status: 503, body: { error: 'kitchen offline' } } : accept('pos-cancel-never'));
    try {
      const res = await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: one.dspId, cancel_reason: 'customer_requested' });
      expect(res.status, res.text).toBe(200);
      Object.assign(POS_UPDATE_DELIVERY, policy);
      const entries = await waitFor(
        async () => {
          const got = await call('GET', `${w.url}/orders/${one.id}/timeline`, { token: w.token });
          const all = got.body.entries as { kind: string; type: string; partner_id: string }[];
          return all.some((e) => e.kind === 'gave_up') ? all : undefined;
        },
        10_000,
        'the cancellation given up',
      );
      expect(entries.filter((e) => e.type === 'order.canceled' && e.partner_id === w.posPartner.partner_id)).toEqual([
        expect.objectContaining({ kind: 'sent', delivery: expect.objectContaining({ state: 'dead' }) }),
        expect.objectContaining({
          kind: 'gave_up',
          detail: expect.stringMatching(/^The POS was never delivered order\.canceled; the platform stopped retrying: .*503/),
        }),
      ]);
      const listed = await call('GET', `${w.url}/onboarding/org/${w.orgId}/locations?location_id=${w.locationId}`, { token: w.token });
      expect(listed.body.locations[0].last_undelivered).toEqual({
        type: 'order.canceled',
        order_id: one.id,
        at: expect.any(String),
        error: expect.stringContaining('503'),
      });
    } finally {
      Object.assign(POS_UPDATE_DELIVERY, policy);
    }
  }); // prettier-ignore

  it('retries a 4xx to an event or a cancellation, as any answer but a 2xx (wire-notes); only a new order takes a 4xx as its answer', async () => {
    // The DSP answers its first accept 404 (it has not stored the order yet); the POS its first cancel 409.
    const refused = new Set<string>();
    const once = (key: string, status: number) => (refused.has(key) ? undefined : (refused.add(key), { status, body: { error: 'not yet' } }));
    w.dsp.answer = (body) => (body.type === 'location.order.accept' && once(`accept ${body.order_id}`, 404)) || { status: 200, body: {} };
    try {
      const one = await accepted('pos-4xx-retried');
      w.pos.answer = (body) => (body.type === 'order.canceled' ? (once('cancel', 409) ?? { status: 204 }) : accept('pos-4xx-retried'));
      await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: one.dspId, cancel_reason: 'customer_requested' });
      const settled = (kind: string) =>
        waitFor(async () => {
          const [job] = rowsOf<{ status: string; attempts: number; last_error: string | null }>(
            await w.platform.app.ctx.db.execute(sql`select status, attempts, last_error from jobs where kind = ${kind} and payload->>'order_id' = ${one.id} order by created_at limit 1`),
          );
          return job?.status === 'succeeded' || job?.status === 'dead' ? job : undefined;
        }, 15_000, `${kind} settled`);
      expect(await settled('orders.dsp')).toMatchObject({ status: 'succeeded', attempts: 2 });
      expect(await settled('orders.pos-update')).toMatchObject({ status: 'succeeded', attempts: 2 });
      expect(dspEvents(w, one.dspId).filter((e) => (e.body as { type: string }).type === 'location.order.accept')).toHaveLength(2);
    } finally {
      w.dsp.answer = () => ({ status: 200, body: {} });
    }
  }); // prettier-ignore

  it('a DSP cancellation reaches the POS with both ids; a restaurant one reaches the DSP', async () => {
    const one = await accepted('pos-cancel-1');
    w.pos.answer = (body) => (body.type === 'order.canceled' ? { status: 204 } : accept('pos-cancel-1'));
    const res = await postDsp(w, {
      type: 'cancel_order',
      location_id: w.store,
      order_id: one.dspId,
      cancel_reason: 'customer_requested',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('dsp_canceled');
    const cancel = await waitFor(
      () => posCalls(w, one.id).find((c) => (c.body as { type: string }).type === 'order.canceled'),
      10_000,
      'POS cancel',
    );
    expect(cancel.body).toEqual({
      type: 'order.canceled',
      object: {
        location_id: w.posLocation,
        order_id: one.id,
        provider_id: 'pos-cancel-1',
        cancel_reason: 'customer_requested',
      },
    });
    const twice = await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: one.dspId });
    expect(twice.status).toBe(200);
    // A POS answering the cancellation 204 (or 200 with text) acknowledged it: not retried, not dead.
    const job = await waitFor(
      async () => {
        const rows = rowsOf<{ status: string; attempts: number }>(
          await w.platform.app.ctx.db.execute(
            sql`select status, attempts from jobs where kind = 'orders.pos-update' and payload->'request'->>'type' = 'order.canceled' and payload->>'order_id' = ${one.id}`,
          ),
        );
        return rows[0]?.status === 'succeeded' || rows[0]?.status === 'dead' ? rows[0] : undefined;
      },
      10_000,
      'the cancellation settled',
    );
    expect(job).toEqual({ status: 'succeeded', attempts: 1 });

    const two = await accepted('pos-cancel-2');
    expect((await posStatus('pos-cancel-2', 'merchant_canceled')).status).toBe(204);
    const cancelled = await dspEvent(w, two.dspId, 'location.order.cancel');
    expect(cancelled.body).toEqual({
      type: 'location.order.cancel',
      location_id: w.store,
      order_id: two.dspId,
    });
  });

  it('relays delivery status and driver to the POS as order.updated', async () => {
    const { dspId, id } = await accepted('pos-delivery-1');
    const driver = { source: 'doordash', name: 'Sam', phone: { number: '+14155550199', code: '12' } };
    const res = await postDsp(w, {
      type: 'delivery_status_update',
      location_id: w.store,
      order_id: dspId,
      delivery_status: 'enroute_to_dropoff',
      driver_details: driver,
    });
    expect(res.status, res.text).toBe(200);
    const update = await firstPosUpdate(id);
    expect(update.body).toEqual({
      type: 'order.updated',
      object: {
        location_id: w.posLocation,
        order_id: id,
        provider_id: 'pos-delivery-1',
        status: 'out_for_delivery',
        delivery_status: 'enroute_to_dropoff',
        driver_details: driver,
      },
    });
  });

  it('takes a repeated delivery status as a no-op, and completes the order when the DSP delivered it', async () => {
    const { dspId, id } = await accepted('pos-delivery-done');
    const driver = { name: 'Sam', phone: { number: '+14155550199' } };
    for (let i = 0; i < 3; i++) expect((await driverUpdate(dspId, driver)).status).toBe(200);
    expect((await driverUpdate(dspId)).status).toBe(200); // the same status, no driver: a repeat too
    const done = await postDsp(w, {
      type: 'delivery_status_update',
      location_id: w.store,
      order_id: dspId,
      delivery_status: 'completed',
    });
    expect(done.status, done.text).toBe(200);
    await waitForStatus(w, id, 'completed');
    const completed = await dspEvent(w, dspId, 'location.order.notify_status_change');
    expect(completed.body).toMatchObject({ order_id: dspId, order_status_update: 'completed' });
    // One order.updated per change, decided in the webhook's transaction: two, not five.
    const sent = rowsOf<{ status: string }>(
      await w.platform.app.ctx.db.execute(
        sql`select body->'object'->>'status' as status from order_timeline
            where order_id = ${id} and kind = 'sent' and type = 'order.updated' order by seq`,
      ),
    );
    expect(sent.map((r) => r.status)).toEqual(['in_progress', 'completed']);
  });

  it('relays a driver phone written with spaces, dashes, dots or parentheses to the POS as E.164', async () => {
    const { dspId, id } = await accepted('pos-delivery-phone');
    const res = await driverUpdate(dspId, {
      source: 'doordash',
      name: 'Sam',
      phone: { number: ' +1 (415) 555.01-99 ', code: '12' },
    });
    expect(res.status, res.text).toBe(200);
    const update = await firstPosUpdate(id);
    expect(update.raw).toBe(
      `{"type":"order.updated","object":{"location_id":"${w.posLocation}","order_id":"${id}","provider_id":"pos-delivery-phone","status":"in_progress","delivery_status":"enroute_to_pickup","driver_details":{"source":"doordash","name":"Sam","phone":{"number":"+14155550199","code":"12"}}}}`,
    );
  });

  it('refuses a driver phone that is not E.164 with 400 naming the field, and applies nothing', async () => {
    const { dspId, id } = await accepted('pos-delivery-bad-phone');
    for (const number of ['415-555-0199', '0044 20 7183 8750', '+1 415 555 0199 ext. 2', '+1-415-CALL-NOW']) {
      const res = await driverUpdate(dspId, { name: 'Sam', phone: { number } });
      const problem = `must be an E.164 phone number such as +14155550123 (+ and the country code; spaces, dashes, dots and parentheses are ignored), not ${JSON.stringify(number)}.`;
      expect([res.status, res.body]).toEqual([
        400,
        {
          error: {
            code: 'validation_failed',
            message: `body.driver_details.phone.number: ${problem}`,
            request_id: expect.any(String),
            details: [{ path: 'body.driver_details.phone.number', message: problem }],
          },
        },
      ]);
    }
    // Nothing was recorded or relayed: the POS heard of no delivery.
    expect(posUpdates(id)).toEqual([]);
    expect((await orderRow(w, id))!.delivery_status).toBeNull();
  }); // prettier-ignore

  it('refuses a driver picture_url that is not an http(s) URL with 400 naming the field, and relays nothing', async () => {
    const { dspId, id } = await accepted('pos-delivery-bad-picture');
    for (const picture_url of ['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', '/img/driver.jpg']) {
      const res = await driverUpdate(dspId, { name: 'Sam', picture_url });
      expect([res.status, res.body.error?.code], picture_url).toEqual([400, 'validation_failed']);
      expect(res.body.error.details).toEqual([
        { path: 'body.driver_details.picture_url', message: 'must be an absolute http or https URL' },
      ]);
    }
    expect(posUpdates(id)).toEqual([]);
    expect((await orderRow(w, id))!.delivery_status).toBeNull();
  }); // prettier-ignore

  it('takes a driver picture_url sent empty as no picture: the delivery status is relayed without it', async () => {
    const { dspId, id } = await accepted('pos-delivery-empty-picture');
    const res = await driverUpdate(dspId, { name: 'Sam', picture_url: '' });
    expect(res.status, res.text).toBe(200);
    const update = await firstPosUpdate(id);
    expect(JSON.parse(update.raw).object.driver_details).toEqual({ name: 'Sam' });
  }); // prettier-ignore

  it('a driver recorded before phones were checked reaches the POS with its phone as E.164, or without it', async () => {
    for (const [stored, relayed] of [['+1 (415) 555-0199', '+14155550199'], ['415-555-0199', undefined]] as const) {
      const { dspId, id } = await accepted(`pos-legacy-${relayed ?? 'none'}`);
      const driver = { name: 'Sam', phone: { number: stored } };
      await w.platform.app.ctx.db.execute(sql`update orders set driver_details = ${JSON.stringify(driver)}::jsonb where id = ${id}`);
      const res = await driverUpdate(dspId);
      expect(res.status, res.text).toBe(200);
      const update = await firstPosUpdate(id);
      expect(JSON.parse(update.raw).object.driver_details).toEqual(relayed ? { name: 'Sam', phone: { number: relayed } } : { name: 'Sam' });
    }
  }); // prettier-ignore

  it('takes a delivery status with driver_details null, and a store status with end_time null, as absent', async () => {
    const { dspId } = await accepted('pos-delivery-nulls');
    const res = await postDsp(w, {
      type: 'delivery_status_update',
      location_id: w.store,
      order_id: dspId,
      delivery_status: 'pending',
      driver_details: null,
    });
    expect(res.status, res.text).toBe(200);
    const store = await postDsp(w, {
      type: 'store_status_update',
      location_id: w.store,
      status_update: { status: 'online', start_time: null, end_time: null },
    });
    expect(store.status, store.text).toBe(200);
  });

  it('an event for an order still on its way to the POS is applied after it, in order', async () => {
    let up = false;
    w.pos.answer = () => (up ? accept('pos-queued') : { status: 503 });
    const { dspId, id } = await place();
    await waitFor(() => posCalls(w, id)[0], 10_000, 'order sent');
    const cancel = await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: dspId });
    expect(cancel.status, cancel.text).toBe(202);
    expect(cancel.body).toMatchObject({ status: 'received', queued: true });
    // The POS comes back: the order is accepted, then the cancel follows it to the POS.
    up = true;
    await waitForStatus(w, id, 'dsp_canceled', 30_000);
    await waitFor(
      () => posCalls(w, id).find((c) => (c.body as { type: string }).type === 'order.canceled'),
      10_000,
      'cancel',
    );
    const types = posCalls(w, id).map((c) => (c.body as { type: string }).type);
    expect(types.at(-1)).toBe('order.canceled');
    expect(types.filter((t) => t === 'order.canceled')).toHaveLength(1);
    await dspEvent(w, dspId, 'location.order.accept');
  });
});

describe('store status', () => {
  const orgLocation = async () => {
    const res = await call(
      'GET',
      `${w.url}/onboarding/org/${w.orgId}/locations?location_id=${w.locationId}`,
      {
        token: w.token,
      },
    );
    return res.body.locations[0];
  };

  it('a POS pause reaches the DSP with until_ms, refuses orders, and resumes by itself', async () => {
    const until = Date.now() + 60 * 60_000;
    const pause = await postPos(w, {
      type: 'location.status.updated',
      object: { status: 'inactive', location_id: w.posLocation, paused_until: until },
    });
    expect(pause.status, pause.text).toBe(204);
    const paused = await waitFor(
      () =>
        w.dsp
          .ofPath('/stream-dsp/v1/event')
          .find((e) => (e.body as { type: string }).type === 'location.pause'),
      10_000,
      'pause',
    );
    expect(paused.body).toEqual({ type: 'location.pause', location_id: w.store, until_ms: until });
    const refused = await postDsp(w, newOrder(w));
    expect(refused.body).toMatchObject({
      status: 'failed',
      failure_reason: 'restaurant_not_accepting_orders',
    });
    expect((await orgLocation()).accepting_orders).toEqual({
      pos_status: 'inactive',
      paused_until: new Date(until).toISOString(),
      offline_since: null,
    });

    await moveClock(w, 60 * 60_000 + 1_000);
    const resumed = await waitFor(
      () =>
        w.dsp
          .ofPath('/stream-dsp/v1/event')
          .find((e) => (e.body as { type: string }).type === 'location.resume'),
      10_000,
      'automatic resume',
    );
    expect(resumed.body).toEqual({ type: 'location.resume', location_id: w.store });
    w.pos.answer = () => accept('pos-after-pause');
    const after = await place();
    expect(after.res.body.status).toBe('received');
  });

  const dspStoreEvents = () =>
    w.dsp.ofPath('/stream-dsp/v1/event').map((e) => e.body as { type: string; until_ms?: number });
  /** The store event of `type` the DSP received after the first `seen` ones. */
  const storeEventAfter = (seen: number, type: string) =>
    waitFor(
      () =>
        dspStoreEvents()
          .slice(seen)
          .find((e) => e.type === type),
      10_000,
      type,
    );

  it('offline at the POS refuses orders until it says active; an automatic resume meanwhile keeps it offline', async () => {
    const start = dspStoreEvents().length;
    const until = Date.now() + 30 * 60_000;
    const pause = await postPos(w, {
      type: 'location.status.updated',
      object: { status: 'inactive', location_id: w.posLocation, paused_until: until },
    });
    expect(pause.status, pause.text).toBe(204);
    const offline = await postPos(w, {
      type: 'location.connection.offline',
      object: { location_id: w.posLocation },
    });
    expect(offline.status, offline.text).toBe(204);
    // Both are relayed: the pause with its end, then the offline one with none.
    await waitFor(
      () =>
        dspStoreEvents()
          .slice(start)
          .filter((e) => e.type === 'location.pause').length === 2,
      10_000,
      'both pauses',
    );
    const seen = dspStoreEvents().length;

    await moveClock(w, 30 * 60_000 + 1_000);
    await waitFor(
      async () =>
        rowsOf<{ status: string }>(
          await w.platform.app.ctx.db.execute(
            sql`select status from jobs where kind = 'locations.resume' and payload->>'paused_until' = ${new Date(until).toISOString()}`,
          ),
        )[0]?.status === 'succeeded',
      10_000,
      'the automatic resume',
    );
    expect((await orgLocation()).accepting_orders).toMatchObject({
      pos_status: 'active',
      paused_until: null,
    });
    expect((await orgLocation()).accepting_orders.offline_since).not.toBeNull();
    expect(dspStoreEvents().slice(seen)).toEqual([]);
    const refused = await postDsp(w, newOrder(w));
    expect(refused.body).toMatchObject({ failure_reason: 'restaurant_not_accepting_orders' });
    expect(refused.body.failure_details.error_message).toContain('offline');

    const back = await postPos(w, {
      type: 'location.status.updated',
      object: { status: 'active', location_id: w.posLocation },
    });
    expect(back.status, back.text).toBe(204);
    await storeEventAfter(seen, 'location.resume');
    expect((await orgLocation()).accepting_orders.offline_since).toBeNull();
    w.pos.answer = () => accept('pos-back-online');
    expect((await place()).res.body.status).toBe('received');
  });

  it('a pause whose paused_until has already passed is no pause', async () => {
    const seen = dspStoreEvents().length;
    const late = await postPos(w, {
      type: 'location.status.updated',
      object: { status: 'inactive', location_id: w.posLocation, paused_until: Date.now() - 60_000 },
    });
    expect(late.status, late.text).toBe(204);
    await storeEventAfter(seen, 'location.resume');
    expect(
      dspStoreEvents()
        .slice(seen)
        .some((e) => e.type === 'location.pause'),
    ).toBe(false);
    expect((await orgLocation()).accepting_orders).toMatchObject({
      pos_status: 'active',
      paused_until: null,
    });
    w.pos.answer = () => accept('pos-late-pause');
    expect((await place()).res.body.status).toBe('received');
  });

  it('a pause is not held back by an item update the DSP keeps refusing: they are queued apart', async () => {
    const [binding] = rowsOf<{ id: string; dspPartnerId: string }>(
      await w.platform.app.ctx.db.execute(
        sql`select id, dsp_partner_id as "dspPartnerId" from location_bindings where dsp_provider_id = ${w.store}`,
      ),
    );
    w.dsp.answer = (body) => (body.type === 'location.update' ? { status: 503, body: {} } : { status: 200, body: {} });
    try {
      const seen = dspStoreEvents().length;
      await sendStoreEventToDsp(w.platform.app.ctx.db, binding!, {
        type: 'location.update',
        location_id: w.store,
        object_updates: { items: [{ stream_id: 'sid_refused', is_active: false }] },
      });
      await storeEventAfter(seen, 'location.update');
      const pause = await postPos(w, { type: 'location.status.updated', object: { status: 'inactive', location_id: w.posLocation } });
      expect(pause.status, pause.text).toBe(204);
      await storeEventAfter(seen, 'location.pause');
      const resume = await postPos(w, { type: 'location.status.updated', object: { status: 'active', location_id: w.posLocation } });
      expect(resume.status, resume.text).toBe(204);
      await storeEventAfter(seen, 'location.resume');
    } finally {
      w.dsp.answer = () => ({ status: 200, body: {} });
      await w.platform.app.ctx.db.execute(sql`update jobs set status = 'dead' where kind = 'orders.dsp' and payload->'event'->>'type' = 'location.update' and status = 'pending'`);
    }
  }); // prettier-ignore

  it('a store whose binding is not APPROVED refuses orders at once, as at a scheduled release', async () => {
    const setStatus = (status: string) =>
      w.platform.app.ctx.db.execute(sql`update location_bindings set status = ${status} where dsp_provider_id = ${w.store}`);
    await setStatus('needs_reconnection');
    try {
      const refused = await postDsp(w, newOrder(w));
      expect(refused.body).toMatchObject({ status: 'failed', failure_reason: 'restaurant_not_accepting_orders' });
      expect(refused.body.failure_details.error_message).toBe("The store's connection is needs_reconnection.");
    } finally {
      await setStatus('APPROVED');
    }
  }); // prettier-ignore

  it('a DSP store status is recorded and a paused store refuses orders', async () => {
    const res = await postDsp(w, {
      type: 'store_status_update',
      location_id: w.store,
      status_update: { status: 'paused' },
    });
    expect(res.status, res.text).toBe(200);
    expect((await orgLocation()).dsps[0].store_status).toMatchObject({
      status: 'paused',
      start_time: null,
      end_time: null,
    });
    const refused = await postDsp(w, newOrder(w));
    expect(refused.body).toMatchObject({ failure_reason: 'restaurant_not_accepting_orders' });
    await postDsp(w, {
      type: 'store_status_update',
      location_id: w.store,
      status_update: { status: 'online' },
    });
    w.pos.answer = () => accept('pos-online');
    expect((await place()).res.body.status).toBe('received');
  });
});

describe('scheduled orders', () => {
  it('are held until the requested time minus the prep time, then sent', async () => {
    w.pos.answer = () => accept('pos-scheduled');
    const wanted = Date.now() + 3 * 60 * 60_000;
    const { id, res } = await place({ is_future_order: true, estimated_ready_at_ms: wanted });
    expect(res.body.status).toBe('scheduled');
    const row = await orderRow(w, id);
    expect(new Date(row!.release_at as string).getTime()).toBe(wanted - 15 * 60_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(posCalls(w, id)).toHaveLength(0);
    await moveClock(w, 3 * 60 * 60_000);
    await waitForStatus(w, id, 'accepted');
    expect((posCalls(w, id)[0]!.body as { object: { requested_for: number } }).object.requested_for).toBe(
      wanted,
    );
  });

  it('of a location whose POS gave no prep time are released 30 minutes ahead, as they are accepted', async () => {
    const setPrep = (minutes: number | null) =>
      w.platform.app.ctx.db.execute(
        sql`update org_locations set prep_time_minutes = ${minutes} where id = ${w.locationId}`,
      );
    await setPrep(null);
    try {
      const wanted = Date.now() + 3 * 60 * 60_000;
      const { id } = await place({ is_future_order: true, estimated_ready_at_ms: wanted });
      const row = await orderRow(w, id);
      expect(new Date(row!.release_at as string).getTime()).toBe(wanted - 30 * 60_000);
    } finally {
      await setPrep(15);
    }
  });

  it('cancelled before release never reach the POS', async () => {
    const { dspId, id } = await place({
      status: 'scheduled',
      estimated_ready_at_ms: Date.now() + 2 * 60 * 60_000,
    });
    const res = await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: dspId });
    expect(res.body.status).toBe('dsp_canceled');
    await moveClock(w, 2 * 60 * 60_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(posCalls(w, id)).toHaveLength(0);
  });
});

describe('the order and its timeline, for partners', () => {
  it('shows the order and every event, state and attempt to its partners, and 404 to others', async () => {
    let tries = 0;
    w.pos.answer = () => (++tries === 1 ? { status: 503 } : accept('pos-timeline'));
    const { dspId, id } = await place();
    await dspEvent(w, dspId, 'location.order.accept');
    const readers = [w.dspPartner, w.posPartner];
    for (const creds of readers) {
      const { access_token } = await requestAccessToken(w.url, creds);
      const order = await call('GET', `${w.url}/orders/${id}`, { token: access_token });
      expect(order.status, order.text).toBe(200);
      expect(order.body.order).toMatchObject({ _id: id, status: 'accepted', dsp: { order_id: dspId } });
    }
    const timeline = await call('GET', `${w.url}/orders/${id}/timeline`, { token: w.token });
    expect(timeline.status, timeline.text).toBe(200);
    const entries = timeline.body.entries as {
      kind: string;
      type: string;
      delivery?: { attempts: { status: number }[] };
    }[];
    expect(entries.map((e) => `${e.kind}:${e.type}`)).toEqual(
      expect.arrayContaining([
        'received:new_order',
        'status:received',
        'sent:order.created',
        'status:accepted',
        'sent:location.order.accept',
      ]),
    );
    const created = entries.find((e) => e.type === 'order.created')!;
    expect(created.delivery!.attempts.map((a) => a.status)).toEqual(expect.arrayContaining([503, 200]));

    // The operator's view (`stream-platform orders show`) is the same timeline.
    const shown = await directCommands(
      w.platform.app.ctx.database,
      w.platform.config.encryptionKey,
    ).showOrder(id);
    expect(shown.order).toMatchObject({ _id: id, status: 'accepted' });
    expect(shown.timeline).toEqual(timeline.body.entries);
    await expect(
      directCommands(w.platform.app.ctx.database, w.platform.config.encryptionKey).showOrder('ord_nope'),
    ).rejects.toMatchObject({ code: 'order_not_found' });

    const stranger = await w.platform.partner();
    const { access_token } = await requestAccessToken(w.url, stranger);
    const hidden = await call('GET', `${w.url}/orders/${id}`, { token: access_token });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('order_not_found');
  });

  it('answers an order id that cannot be one 400 validation_failed, naming no other kind of id', async () => {
    for (const path of ['/orders/%20x', '/orders/%20x/timeline']) {
      const bad = await call('GET', `${w.url}${path}`, { token: w.token });
      expect(bad.status, bad.text).toBe(400);
      expect(bad.body.error).toMatchObject({
        code: 'validation_failed',
        details: [
          {
            path: 'params.order_id',
            message: 'must be an id as the platform gave it: 1 to 64 letters, digits, _ or -',
          },
        ],
      });
    }
  });
});

describe("a POS location's prep time", () => {
  it('past a day (or past what the database holds) is a 502 naming the field at ingest, never a 500', async () => {
    w.pos.prepTimeMinutes = 3_000_000_000;
    try {
      const res = await call('POST', `${w.url}/onboarding/locations/ingest`, {
        token: w.token,
        body: { onboarding_id: w.onboardings.pos, locations: [{ provider_id: 'loc-2' }] },
      });
      expect(res.status, res.text).toBe(502);
      expect(res.body.error.code).toBe('partner_unreachable');
      expect(res.body.error.message).toMatch(/prep_time_minutes.*at most 1440 minutes/);
    } finally {
      w.pos.prepTimeMinutes = 15;
    }
  });

  it('a location name holding NUL (text PostgreSQL cannot store) is a 502 naming the field, never a 500', async () => {
    w.pos.names['loc-2'] = 'Tacos\u0000 Downtown';
    try {
      const res = await call('POST', `${w.url}/onboarding/locations/ingest`, {
        token: w.token,
        body: { onboarding_id: w.onboardings.pos, locations: [{ provider_id: 'loc-2' }] },
      });
      expect(res.status, res.text).toBe(502);
      expect(res.body.error.code).toBe('partner_unreachable');
      expect(res.body.error.message).toMatch(/locations\[1\]\.name: must not contain the NUL character/);
    } finally {
      delete w.pos.names['loc-2'];
    }
  });
});
