import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import { rowsOf } from '../db/sql.ts';
import {
  newOrder,
  posCalls,
  postDsp,
  postPos,
  postSigned,
  sign,
  startOrderWorld,
  waitForStatus,
  type OrderWorld,
} from './testing.ts';

/**
 * Bad input at both webhooks: whatever arrives, the answer is the documented 4xx with a stable
 * code, never a 5xx, and nothing is stored as an order.
 */

let w: OrderWorld;
beforeAll(async () => {
  w = await startOrderWorld();
});
afterAll(() => w?.stop());

const orderCount = async () =>
  rowsOf<{ n: number }>(await w.platform.app.ctx.db.execute(sql`select count(*)::int as n from orders`))[0]!
    .n;

const webhookCount = async () =>
  rowsOf<{ n: number }>(
    await w.platform.app.ctx.db.execute(sql`select count(*)::int as n from webhook_events`),
  )[0]!.n;

const dspUrl = () => `${w.url}/order/${w.dspPartner.partner_id}`;

describe('the DSP webhook refuses', () => {
  it('a missing, malformed or wrong signature, and a body re-serialised after signing', async () => {
    const body = JSON.stringify(newOrder(w));
    const cases: [Record<string, string>, string][] = [
      [{}, 'signature_missing'],
      [{ 'stream-webhook-signature': 'sha256=abc' }, 'signature_malformed'],
      [{ 'stream-webhook-signature': sign('not-the-secret', body) }, 'signature_mismatch'],
    ];
    for (const [headers, code] of cases) {
      const res = await call('POST', dspUrl(), { body, headers });
      expect(res.status, code).toBe(401);
      expect(res.body.error.code).toBe(code);
    }
    // Signed, then re-serialised with other whitespace: the bytes differ, so the signature does too.
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const res = await call('POST', dspUrl(), {
      body: pretty,
      headers: { 'stream-webhook-signature': sign(w.dspPartner.webhook_secret, body) },
    });
    expect(res.body.error.code).toBe('signature_mismatch');
    expect(await orderCount()).toBe(0);
  });

  it('an unknown partner, and a partner that is not a DSP', async () => {
    const body = newOrder(w);
    const unknown = await postSigned(`${w.url}/order/ptr_nobody`, w.dspPartner.webhook_secret, body);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('unknown_partner');
    const asPos = await postSigned(
      `${w.url}/order/${w.posPartner.partner_id}`,
      w.posPartner.webhook_secret,
      body,
    );
    expect(asPos.status).toBe(404);
    expect(asPos.body.error.code).toBe('unknown_partner');
  });

  it.each([
    ['not JSON', '{"type": "new_order",', 'invalid_json', undefined],
    ['an unknown type', { type: 'order_created', location_id: 's' }, 'validation_failed', 'type'],
    ['no order', { type: 'new_order', location_id: 's' }, 'validation_failed', 'order'],
    ['a string price', 'price', 'validation_failed', 'order.items[0].price'],
    ['items not a list', 'items', 'validation_failed', 'order.items'],
    ['an unknown fulfillment type', 'fulfillment', 'validation_failed', 'order.fulfillment_type'],
    ['a JSON array', [], 'validation_failed', undefined],
    ['null', 'null', 'validation_failed', undefined],
  ])('%s with a 400 naming the field, storing nothing', async (_, shape, code, path) => {
    const valid = newOrder(w);
    const body =
      shape === 'price'
        ? { ...valid, order: { ...valid.order, items: [{ ...valid.order.items[0], price: '4.50' }] } }
        : shape === 'items'
          ? { ...valid, order: { ...valid.order, items: { id: 'x' } } }
          : shape === 'fulfillment'
            ? { ...valid, order: { ...valid.order, fulfillment_type: 'teleport' } }
            : shape;
    const res = await postDsp(w, body);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe(code);
    if (path) expect(JSON.stringify(res.body.error.details ?? res.body.error.message)).toContain(path);
    if (shape && typeof shape === 'object' && 'type' in shape && shape.type === 'order_created') {
      expect(res.body.error.details[0].message).toContain(
        'new_order, cancel_order, store_status_update, delivery_status_update',
      );
    }
    expect(await orderCount()).toBe(0);
  });

  it('a signed body behind a UTF-8 byte order mark with 400 invalid_json naming the mark, storing nothing', async () => {
    const raw = `\ufeff${JSON.stringify(newOrder(w))}`;
    const res = await call('POST', dspUrl(), {
      body: raw,
      headers: { 'stream-webhook-signature': sign(w.dspPartner.webhook_secret, raw) },
    });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_json']);
    expect(res.body.error.message).toBe(
      'The body starts with a UTF-8 byte order mark (EF BB BF), which JSON does not allow: send (and sign) the JSON without it.',
    );
    expect(await orderCount()).toBe(0);
  });

  it('a body over the size limit with 413, and deep nesting without a 5xx', async () => {
    const huge = newOrder(w, { special_instructions: 'x'.repeat(2 * 1024 * 1024) });
    const big = await postDsp(w, huge);
    expect(big.status).toBe(413);
    let modifiers: unknown[] = [];
    for (let i = 0; i < 2_000; i++)
      modifiers = [{ id: `m${i}`, name: 'm', quantity: 1, price: 0, currency: 'usd', modifiers }];
    const deep = await postDsp(
      w,
      newOrder(w, { items: [{ id: 'v', name: 'n', quantity: 1, price: 1, currency: 'usd', modifiers }] }),
    );
    expect(deep.status).toBeLessThan(500);
  });

  it('a store status in seconds where the contract says epoch milliseconds, or ending before it starts, with 400', async () => {
    const now = Date.now();
    const before = await webhookCount();
    for (const [status_update, path, words] of [
      [{ status: 'paused', end_time: Math.floor(now / 1000) + 3600 }, 'end_time', 'seconds'],
      [{ status: 'paused', start_time: Math.floor(now / 1000) }, 'start_time', 'seconds'],
      [{ status: 'paused', start_time: now + 7_200_000, end_time: now + 3_600_000 }, 'end_time', 'start_time'],
      // Past the year 9999 no date is stored (it was a 500).
      [{ status: 'paused', end_time: 9e15 }, 'end_time', 'before the year 10000'],
      [{ status: 'paused', start_time: 3e14 }, 'start_time', 'before the year 10000'],
    ] as const) {
      const res = await postDsp(w, { type: 'store_status_update', location_id: w.store, status_update });
      expect([res.status, res.body.error?.code], JSON.stringify(status_update)).toEqual([400, 'validation_failed']);
      expect(res.body.error.details).toEqual([
        { path: `body.status_update.${path}`, message: expect.stringContaining(words) },
      ]);
    }
    expect(await webhookCount()).toBe(before);
  }); // prettier-ignore

  it('a cancellation or delivery status for an order it does not know with 404', async () => {
    const res = await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: 'never-posted' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('order_not_found');
    const store = await postDsp(w, {
      type: 'store_status_update',
      location_id: 'no-store',
      status_update: { status: 'paused' },
    });
    expect(store.status).toBe(404);
    expect(store.body.error.code).toBe('location_not_found');
  });
});

describe('the POS webhook refuses', () => {
  it('a correctly signed body sent as a form (curl -d without a JSON content type) with 415, saying so', async () => {
    const body = JSON.stringify(newOrder(w));
    const headers = { 'content-type': 'application/x-www-form-urlencoded', 'stream-webhook-signature': sign(w.dspPartner.webhook_secret, body) };
    const before = await orderCount();
    for (const url of [dspUrl(), `${w.url}/pos/${w.posPartner.slug}/webhook`]) {
      const res = await call('POST', url, { body, headers });
      expect([res.status, res.body.error.code]).toEqual([415, 'unsupported_media_type']);
      expect(res.body.error.message).toContain('Content-Type: application/json');
    }
    expect(await orderCount()).toBe(before);
  }); // prettier-ignore

  it('an empty body as unreadable before its signature: 400 invalid_json as JSON, 415 without a type', async () => {
    const empty = sign(w.posPartner.webhook_secret, '');
    const before = await webhookCount();
    for (const url of [dspUrl(), `${w.url}/pos/${w.posPartner.slug}/webhook`]) {
      for (const headers of [{}, { 'stream-webhook-signature': empty }] as Record<string, string>[]) {
        const res = await call('POST', url, { body: '', headers: { 'content-type': 'application/json', ...headers } });
        expect([res.status, res.body.error.code, res.body.error.message]).toEqual([400, 'invalid_json', "The body is empty: send the webhook's JSON, signed."]);
        const untyped = await call('POST', url, { headers });
        expect([untyped.status, untyped.body.error.code]).toEqual([415, 'unsupported_media_type']);
      }
    }
    expect(await webhookCount()).toBe(before);
  }); // prettier-ignore

  it('an unknown type with the list of known ones', async () => {
    const res = await postPos(w, { type: 'order.exploded', object: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(JSON.stringify(res.body.error)).toContain('order.status.updated, location.status.updated');
  });

  it('an unknown location or order with 404, a bad signature with 401, every field of the wrong type with 400', async () => {
    const unknownLocation = await postPos(w, {
      type: 'location.connection.offline',
      object: { location_id: 'nope' },
    });
    expect(unknownLocation.body.error.code).toBe('location_not_found');
    const unknownOrder = await postPos(w, {
      type: 'order.status.updated',
      object: { status: 'completed', provider_id: 'nope', location_id: w.posLocation },
    });
    expect(unknownOrder.body.error.code).toBe('order_not_found');
    const body = JSON.stringify({ type: 'location.catalog.updated', object: { location_id: w.posLocation } });
    const unsigned = await call('POST', `${w.url}/pos/${w.posPartner.slug}/webhook`, { body });
    expect(unsigned.status).toBe(401);
    for (const object of [
      { status: 'paused', location_id: w.posLocation },
      { status: 'inactive', location_id: true },
      { status: 'inactive', location_id: w.posLocation, paused_until: 'tomorrow' },
    ]) {
      const res = await postPos(w, { type: 'location.status.updated', object });
      expect(res.status, JSON.stringify(object)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('a time in seconds where the contract says epoch milliseconds with 400, not a pause already over', async () => {
    const inAnHour = Math.floor(Date.now() / 1000) + 3600; // seconds: read as ms, a time in 1970
    const before = await webhookCount();
    const res = await postPos(w, {
      type: 'location.status.updated',
      object: { status: 'inactive', location_id: w.posLocation, paused_until: inAnHour },
    });
    expect([res.status, res.body.error?.code]).toEqual([400, 'validation_failed']);
    expect(res.body.error.details).toEqual([
      { path: 'body.object.paused_until', message: expect.stringContaining('seconds') },
    ]);
    expect(await webhookCount()).toBe(before); // nothing recorded, no store paused or resumed
  });

  it('a pause ending after the year 9999 with 400 naming the field, never a 500', async () => {
    const before = await webhookCount();
    const res = await postPos(w, {
      type: 'location.status.updated',
      object: { status: 'inactive', location_id: w.posLocation, paused_until: 9e15 },
    });
    expect([res.status, res.body.error?.code]).toEqual([400, 'validation_failed']);
    expect(res.body.error.details).toEqual([
      { path: 'body.object.paused_until', message: expect.stringContaining('before the year 10000') },
    ]);
    expect(await webhookCount()).toBe(before);
  });

  it('a catalog webhook naming no location with 400, a location that is not connected with 404 as the others', async () => {
    const before = await webhookCount();
    const none = await postPos(w, { type: 'location.catalog.updated', object: {} });
    expect([none.status, none.body.error?.code]).toEqual([400, 'validation_failed']);
    expect(none.body.error.message).toMatch(/location_id .*or merchant_id/);
    for (const body of [
      { type: 'location.catalog.updated', object: { location_id: 'loc-nowhere' } },
      {
        type: 'location.catalog.object.updated',
        object: {
          location_id: 'loc-nowhere',
          object_id: 'i1',
          object_type: 'item',
          object_update: { is_active: false },
        },
      },
    ]) {
      const res = await postPos(w, body);
      expect([res.status, res.body.error?.code], JSON.stringify(body)).toEqual([404, 'location_not_found']);
    }
    expect(await webhookCount()).toBe(before);
  });

  it('records catalog webhooks and in-store orders with 204', async () => {
    for (const body of [
      { type: 'location.catalog.updated', object: { location_id: w.posLocation } },
      {
        type: 'location.catalog.object.updated',
        object: {
          location_id: w.posLocation,
          object_id: 'i1',
          object_type: 'item',
          object_update: { is_active: false },
        },
      },
      {
        type: 'order.created',
        object: { location_id: w.posLocation, provider_id: 'in-store-1', subtotal: 500 },
      },
      // The platform's own order shape names an order by idempotency_key; a numbering POS sends a number.
      { type: 'order.created', object: { location_id: w.posLocation, idempotency_key: 'kiosk-7' } },
      { type: 'order.created', object: { location_id: w.posLocation, provider_id: 1042 } },
    ]) {
      const res = await postPos(w, body);
      expect(res.status, res.text).toBe(204);
    }
    const types = rowsOf<{ type: string }>(
      await w.platform.app.ctx.db.execute(
        sql`select type from webhook_events where partner_id = ${w.posPartner.partner_id} order by created_at`,
      ),
    ).map((r) => r.type);
    expect(types).toEqual([
      'location.catalog.updated',
      'location.catalog.object.updated',
      'order.created',
      'order.created',
      'order.created',
    ]);
  });

  it('refuses an in-store order named by neither provider_id nor idempotency_key', async () => {
    const before = await webhookCount();
    const res = await postPos(w, {
      type: 'order.created',
      object: { location_id: w.posLocation, subtotal: 500 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.message).toContain('provider_id (your id of the order) or idempotency_key');
    expect(await webhookCount()).toBe(before);
  });
});

describe('numbered ids and null fields', () => {
  const lastPosEvent = async (type: string) =>
    rowsOf<{ body: { object: Record<string, unknown> } }>(
      await w.platform.app.ctx.db.execute(
        sql`select body from webhook_events where partner_id = ${w.posPartner.partner_id} and type = ${type} order by created_at desc limit 1`,
      ),
    )[0]!.body.object;

  it("takes a DSP order's customer, discount and item customer ids, and a customer's and a driver's masking code, as numbers: their decimal strings", async () => {
    w.pos.answer = () => ({ status: 200, body: { order: { provider_id: `pos-numbered-${Date.now()}` } } });
    const valid = newOrder(w);
    const body = newOrder(w, {
      customers: [{ id: 5, name: 'Ada', phone: '+14155550123', masked_phone_code: 771 }],
      items: [{ ...valid.order.items[0], customer_id: 5 }],
      discounts: [{ id: 9, amount: 100, item_id: 'var-1' }],
    });
    const res = await postDsp(w, body);
    expect(res.status, res.text).toBe(202);
    const id = res.body.order_id as string;
    await waitForStatus(w, id, 'accepted');
    expect(posCalls(w, id)[0]!.body).toMatchObject({
      object: {
        customers: [{ id: '5', phone_code: '771' }],
        line_items: [{ customer_id: '5', discount_id: '9' }],
        discounts: [{ provider_id: '9' }],
      },
    });
    const status = await postDsp(w, {
      type: 'delivery_status_update',
      location_id: w.store,
      order_id: body.order.id,
      delivery_status: 'enroute_to_pickup',
      driver_details: { name: 'Sam', phone: { number: '+14155550199', code: 1234 } },
    });
    expect(status.status, status.text).toBe(200);
    const update = await waitFor(
      () => posCalls(w, id).find((c) => (c.body as { type: string }).type === 'order.updated'),
      20_000,
      'order.updated',
    );
    expect(update.body).toMatchObject({
      object: { driver_details: { phone: { number: '+14155550199', code: '1234' } } },
    });
  });

  it('takes a POS catalog webhook naming its merchant or catalog object by number, as its decimal string', async () => {
    const merchant = await postPos(w, { type: 'location.catalog.updated', object: { merchant_id: 4242 } });
    expect(merchant.status, merchant.text).toBe(204);
    expect(await lastPosEvent('location.catalog.updated')).toEqual({ merchant_id: '4242' });
    const object = await postPos(w, {
      type: 'location.catalog.object.updated',
      object: { location_id: w.posLocation, object_id: 77, object_type: 'item', object_update: { is_active: false } },
    });
    expect(object.status, object.text).toBe(204);
    expect(await lastPosEvent('location.catalog.object.updated')).toMatchObject({ object_id: '77' });
  }); // prettier-ignore

  it('takes null as absent at the POS webhook, as at the DSP webhook: a null merchant_id, an in-store order with null fields', async () => {
    const catalog = await postPos(w, {
      type: 'location.catalog.updated',
      object: { location_id: w.posLocation, merchant_id: null },
    });
    expect(catalog.status, catalog.text).toBe(204);
    const inStore = await postPos(w, {
      type: 'order.created',
      object: { location_id: w.posLocation, provider_id: 'in-store-null', special_instructions: null, customer_email: null },
    });
    expect(inStore.status, inStore.text).toBe(204);
    expect(await lastPosEvent('order.created')).toEqual({ location_id: w.posLocation, provider_id: 'in-store-null' });
    // A required field left null is named as missing.
    const missing = await postPos(w, { type: 'order.status.updated', object: { status: 'completed', provider_id: null, location_id: w.posLocation } });
    expect([missing.status, missing.body.error?.code]).toEqual([400, 'validation_failed']);
    expect(JSON.stringify(missing.body.error.details)).toContain('body.object.provider_id');
  }); // prettier-ignore
});

describe('a POS location two organisations connected', () => {
  it('records a catalog object update for each org location, as a status update (each menu reads the objects turned off at its own)', async () => {
    const api = (method: string, path: string, body?: unknown) => call(method, `${w.url}${path}`, { token: w.token, body });
    const org = await api('POST', '/onboarding/org', { name: 'Tacos too', provider_id: 'org-two', user: { email: 't@example.com', first_name: 'T', last_name: 'W' } });
    expect(org.status, org.text).toBe(201);
    const created = await api('POST', '/onboarding/integrations', { org_id: org.body.org_id, source: w.posPartner.slug, type: 'pos', return_url: 'https://partner.example/done' });
    expect(created.status, created.text).toBe(201);
    expect((await api('PUT', `/onboarding/integrations/${created.body.onboarding._id}`, { code: 'code' })).status).toBe(200);
    const ingested = await api('POST', '/onboarding/locations/ingest', { onboarding_id: created.body.onboarding._id, locations: [{ provider_id: w.posLocation }] });
    expect(ingested.status, ingested.text).toBe(200);
    const other = ingested.body.locations[0]._id as string;

    const res = await postPos(w, {
      type: 'location.catalog.object.updated',
      object: { location_id: w.posLocation, object_id: 'two-orgs', object_type: 'item', object_update: { is_active: false } },
    });
    expect(res.status, res.text).toBe(204);
    const recorded = rowsOf<{ location_id: string }>(
      await w.platform.app.ctx.db.execute(
        sql`select location_id from webhook_events where body->'object'->>'object_id' = 'two-orgs' order by location_id`,
      ),
    ).map((r) => r.location_id);
    expect(recorded).toEqual([w.locationId, other].sort());
  });
}); // prettier-ignore
