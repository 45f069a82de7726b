import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  disableLocationEventProvider,
  enableLocationEventProvider,
} from '@stream/contracts/apis/partner/event-providers';
import { call } from '../../test/http.ts';
import { waitFor } from '../../test/wait.ts';
import { requestAccessToken } from '../auth/testing.ts';
import { directCommands } from '../admin/commands.ts';
import { CIRCUIT } from '../jobs/circuit.ts';
import { rowsOf } from '../db/sql.ts';
import type { PartnerCredentials } from '../partners/service.ts';
import {
  dspEvent,
  newOrder,
  orderRow,
  posCalls,
  postDsp,
  postPos,
  postSigned,
  startOrderWorld,
  waitForStatus,
  type OrderWorld,
} from '../orders/testing.ts';
import { EVENT_DELIVERY } from './delivery.ts';

/**
 * Event providers end to end over real HTTP: providers written from the events contract (node:http,
 * not the sandbox) enabled per location through the Partner API, the orders of the order world
 * (a fake POS and DSP), the platform's outbox and database between them.
 */

interface ProviderCall {
  raw: string;
  headers: Record<string, string | string[] | undefined>;
  signature: string | undefined;
  body: { type: string; location_id: string; reference_id: string; order: Record<string, unknown> };
}

interface FakeProvider {
  url: string;
  calls: ProviderCall[];
  /** Every call answered so far, delivered or not. */
  attempts: number;
  /** The status to answer `POST /event` with (default 200 with an empty body; a 2xx is recorded as a call). */
  status: number;
  server: Server;
  partner: PartnerCredentials;
  of(orderId: string): ProviderCall[];
}

let w: OrderWorld;
let n = 0;

async function fakeProvider(): Promise<FakeProvider> {
  const p = { calls: [], attempts: 0, status: 200 } as unknown as FakeProvider;
  p.server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      p.attempts += 1;
      if (req.url !== '/event' || p.status >= 300) {
        res.writeHead(req.url === '/event' ? p.status : 404);
        return res.end();
      }
      const signature = req.headers['x-stream-signature'];
      p.calls.push({
        raw,
        headers: req.headers,
        signature: typeof signature === 'string' ? signature : undefined,
        body: JSON.parse(raw),
      });
      res.writeHead(p.status);
      res.end();
    });
  });
  await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
  p.url = `http://127.0.0.1:${(p.server.address() as AddressInfo).port}`;
  p.partner = await w.platform.partner({
    kind: 'events',
    slug: `fleet-${++n}-${Date.now()}`,
    name: `Fleet ${n}`,
    baseUrl: p.url,
  });
  p.of = (orderId) => p.calls.filter((c) => c.body.reference_id === orderId);
  return p;
}

const partnerApi = (method: string, path: string, token = w.token) =>
  call(method, `${w.url}${path}`, { token });
const providersPath = (provider?: string) =>
  `/onboarding/org/${w.orgId}/locations/${w.locationId}/event-providers${provider ? `/${provider}` : ''}`;
const enable = (p: FakeProvider) => partnerApi('PUT', providersPath(p.partner.slug));
const disable = (p: FakeProvider) => partnerApi('DELETE', providersPath(p.partner.slug));

const postProvider = (p: FakeProvider, body: unknown) =>
  postSigned(`${w.url}/event-provider/${p.partner.slug}/webhook`, p.partner.webhook_secret, body);
const assign = (p: FakeProvider, orderId: string, name = 'Dana Cruz') =>
  postProvider(p, {
    type: 'order.assign.driver',
    object: {
      order_id: orderId,
      location_id: w.locationId,
      driver: { name, phone: { number: '+14155550199', code: '77' } },
    },
  });
const deliveryStatus = (p: FakeProvider, orderId: string, status: string) =>
  postProvider(p, {
    type: 'order.update.delivery.status',
    object: { order_id: orderId, location_id: w.locationId, status },
  });

const accept = (providerId: string) => ({ status: 200, body: { order: { provider_id: providerId } } });

/** A new order, accepted by the POS (`posId` its provider_id). */
async function acceptedOrder(posId = `pos-${Date.now()}-${++n}`, overrides: Record<string, unknown> = {}) {
  w.pos.answer = () => accept(posId);
  const body = newOrder(w, overrides);
  const res = await postDsp(w, body);
  expect(res.status, res.text).toBe(202);
  const id = res.body.order_id as string;
  await waitForStatus(w, id, 'accepted').catch(async (err) => {
    const row = await orderRow(w, id);
    throw new Error(`${err.message}: ${row?.status} ${JSON.stringify(row?.failure_details)}`);
  });
  return { id, posId, dspId: body.order.id as string };
}

const eventsOf = (p: FakeProvider, orderId: string, count: number) =>
  waitFor(
    () => (p.of(orderId).length >= count ? p.of(orderId) : undefined),
    20_000,
    `${count} events of ${orderId}`,
  );

const hmac = (secret: string, raw: string) => createHmac('sha256', secret).update(raw).digest('hex');

let a: FakeProvider;
let b: FakeProvider;
beforeAll(async () => {
  w = await startOrderWorld();
  Object.assign(EVENT_DELIVERY, { backoff: { baseMs: 50, maxMs: 200 } });
  [a, b] = [await fakeProvider(), await fakeProvider()];
});
afterAll(async () => {
  for (const p of [a, b]) {
    p?.server.closeAllConnections();
    p?.server.close();
  }
  await w?.stop();
});

describe('enabling a provider for a location (Partner API)', () => {
  it('enables, lists, shows on the org location and disables, idempotently', async () => {
    expect((await partnerApi('GET', providersPath())).body).toEqual({
      event_providers: [],
      has_more: false,
      next_cursor: null,
    });
    const enabled = await enable(b);
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.event_provider).toEqual({
      provider_id: b.partner.partner_id,
      slug: b.partner.slug,
      name: expect.stringMatching(/^Fleet /),
      enabled: true,
      enabled_at: expect.any(String),
      disabled_at: null,
      delivery: {
        state: 'closed',
        failure_rate: 0,
        alerting: false,
        opened_at: null,
        retry_at: null,
        last_error: null,
      },
      last_undelivered: null,
    });
    const again = await enable(b);
    expect(again.body.event_provider.enabled_at).toBe(enabled.body.event_provider.enabled_at);

    const locations = await partnerApi(
      'GET',
      `/onboarding/org/${w.orgId}/locations?location_id=${w.locationId}`,
    );
    expect(locations.body.locations[0].event_providers).toEqual([enabled.body.event_provider]);

    const off = await disable(b);
    expect(off.status, off.text).toBe(200);
    expect(off.body.event_provider).toMatchObject({ enabled: false, disabled_at: expect.any(String) });
    expect((await partnerApi('GET', providersPath())).body.event_providers).toEqual([
      off.body.event_provider,
    ]);
    expect((await disable(b)).status).toBe(200);
  });

  it('answers 404 for a provider that is none, never enabled, and for another partner', async () => {
    const unknown = await partnerApi('PUT', providersPath('no-such-fleet'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('event_provider_not_found');
    // A POS is no event provider.
    expect((await partnerApi('PUT', providersPath(w.posPartner.slug))).body.error.code).toBe(
      'event_provider_not_found',
    );
    expect((await partnerApi('DELETE', providersPath(a.partner.slug))).body.error.code).toBe(
      'event_provider_not_found',
    );
    const stranger = await w.platform.partner();
    const { access_token } = await requestAccessToken(w.url, stranger);
    const other = await partnerApi('GET', providersPath(), access_token);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
    expect((await partnerApi('PUT', providersPath(a.partner.slug), access_token)).status).toBe(404);
  });

  it('is there for the operator too (the CLI commands)', async () => {
    const commands = directCommands(w.platform.app.ctx.database, w.platform.config.encryptionKey);
    const row = await commands.setEventProvider(w.locationId, b.partner.slug, true);
    expect(row).toMatchObject({ slug: b.partner.slug, enabled: true });
    expect((await commands.eventProviders(w.locationId)).map((p) => p.slug)).toEqual([b.partner.slug]);
    expect(await commands.setEventProvider(w.locationId, b.partner.slug, false)).toMatchObject({
      enabled: false,
    });
    await expect(commands.eventProviders('loc_missing')).rejects.toMatchObject({ code: 'not_found' });
    const circuits = await commands.eventCircuits();
    expect(circuits.find((c) => c.slug === a.partner.slug)).toEqual({
      provider_id: a.partner.partner_id,
      slug: a.partner.slug,
      name: expect.stringMatching(/^Fleet /),
      delivery: expect.objectContaining({ state: 'closed' }),
    });
  });
});

describe('order events out', () => {
  beforeAll(async () => {
    expect((await enable(a)).status).toBe(200);
  });

  it('order.confirmed when the POS accepts: the Order object, signed, to the enabled provider only', async () => {
    const { id, dspId } = await acceptedOrder('pos-confirmed', {
      special_instructions: 'Ring twice',
      driver_tip: 0,
    });
    const [event] = await eventsOf(a, id, 1);
    expect(event!.signature).toBe(hmac(a.partner.webhook_secret, event!.raw));
    const row = await orderRow(w, id);
    expect(event!.body).toEqual({
      type: 'order.confirmed',
      location_id: w.locationId,
      reference_id: id,
      order: {
        id,
        status: 'in_progress',
        source: 'example-dsp',
        dsp_order_id: dspId,
        dsp_order_number: expect.any(String),
        fulfillment_type: 'pickup',
        estimated_fulfillment_time: new Date(row!.estimated_ready_at as string).getTime(),
        customer: { name: 'Ada', phone: '+14155550123', email: 'ada@example.com' },
        instructions: 'Ring twice',
        currency: 'USD',
        items: [
          {
            id: 'var-1',
            name: 'Taco',
            quantity: 2,
            price: 450,
            modifiers: [{ id: 'mod-1', name: 'Salsa', quantity: 1, price: 50, modifiers: [] }],
          },
        ],
        subtotal: 950,
        tax: 85,
        driver_tip: 0,
        delivery_fee: 0,
        delivery_fee_tax: 0,
        total: 1035,
        unpaid: false,
      },
    });
    expect(b.of(id)).toEqual([]);
  });

  it('is delivered by any 2xx (204, 202): sent once, as JSON, signed, with the job as its Idempotency-Key', async () => {
    for (const status of [204, 202]) {
      a.status = status;
      try {
        const { id } = await acceptedOrder();
        const [event] = await eventsOf(a, id, 1);
        expect(event!.headers['content-type']).toMatch(/^application\/json/);
        expect(event!.signature).toBe(hmac(a.partner.webhook_secret, event!.raw));
        const job = await waitFor(async () => {
          const [row] = rowsOf<{ id: string; status: string; attempts: number }>(
            await w.platform.app.ctx.db.execute(
              sql`select id, status, attempts from jobs where kind = 'events.deliver' and partner_id = ${a.partner.partner_id} and payload->'event'->>'reference_id' = ${id}`,
            ),
          );
          return row?.status === 'running' || row?.status === 'pending' ? undefined : row;
        });
        expect([job.status, job.attempts]).toEqual(['succeeded', 1]);
        expect(event!.headers['idempotency-key']).toBe(job.id);
        expect(a.of(id)).toHaveLength(1);
      } finally {
        a.status = 200;
      }
    }
  });

  it('order.updated for ready_for_pickup and order.canceled (dsp_canceled) after it, in order', async () => {
    const { id, posId, dspId } = await acceptedOrder();
    expect(
      (
        await postPos(w, {
          type: 'order.status.updated',
          object: { provider_id: posId, location_id: w.posLocation, status: 'ready_for_pickup' },
        })
      ).status,
    ).toBe(204);
    expect((await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: dspId })).status).toBe(
      200,
    );
    const events = await eventsOf(a, id, 3);
    expect(events.map((e) => [e.body.type, e.body.order.status])).toEqual([
      ['order.confirmed', 'in_progress'],
      ['order.updated', 'ready_for_pickup'],
      ['order.canceled', 'dsp_canceled'],
    ]);
  });

  it('order.canceled with canceled when the restaurant cancels; nothing for completed', async () => {
    const { id, posId } = await acceptedOrder();
    const status = (s: string) =>
      postPos(w, {
        type: 'order.status.updated',
        object: { provider_id: posId, location_id: w.posLocation, status: s },
      });
    expect((await status('merchant_canceled')).status).toBe(204);
    const events = await eventsOf(a, id, 2);
    expect(events.map((e) => [e.body.type, e.body.order.status])).toEqual([
      ['order.confirmed', 'in_progress'],
      ['order.canceled', 'canceled'],
    ]);

    const done = await acceptedOrder();
    await postPos(w, {
      type: 'order.status.updated',
      object: { provider_id: done.posId, location_id: w.posLocation, status: 'completed' },
    });
    await waitForStatus(w, done.id, 'completed');
    await eventsOf(a, done.id, 1);
    // The completion is no event; a later order's event arriving shows nothing else was queued for it.
    const later = await acceptedOrder();
    await eventsOf(a, later.id, 1);
    expect(a.of(done.id).map((e) => e.body.type)).toEqual(['order.confirmed']);
  });

  it('a stream_managed_delivery order is a delivery to the provider, with its address', async () => {
    const address = {
      address_line_1: '1 Market St',
      city: 'San Francisco',
      state: 'CA',
      postal_code: '94105',
      country: 'US',
    };
    const { id } = await acceptedOrder(undefined, {
      fulfillment_type: 'stream_managed_delivery',
      delivery_address: { ...address, door_code: '1234' }, // not in the events contract: not sent
    });
    const [event] = await eventsOf(a, id, 1);
    expect(event!.body.order).toMatchObject({ fulfillment_type: 'delivery' });
    expect(event!.body.order.delivery_address).toEqual(address);
  });

  it("an order's total is what the customer pays, less discounts, and never below 0 (a discount larger than the rest)", async () => {
    const discounted = await acceptedOrder(undefined, { discounts: [{ id: 'promo', amount: 35 }] });
    const comped = await acceptedOrder(undefined, { discounts: [{ id: 'promo', amount: 5000 }] });
    const [one] = await eventsOf(a, discounted.id, 1);
    const [two] = await eventsOf(a, comped.id, 1);
    expect([one!.body.order.total, two!.body.order.total]).toEqual([1000, 0]); // 950 + 85 - 35; 1035 - 5000
  });

  it('dsp_order_number is the dsp_order_id when the marketplace sent a blank customer_facing_id', async () => {
    for (const customerFacingId of ['', '   ']) {
      const { id, dspId } = await acceptedOrder(undefined, { customer_facing_id: customerFacingId });
      const [event] = await eventsOf(a, id, 1);
      expect(event!.body.order).toMatchObject({ dsp_order_id: dspId, dsp_order_number: dspId });
    }
  });

  it('a provider enabled after an order was received hears nothing of that order, only of the next ones', async () => {
    const { id, posId } = await acceptedOrder();
    expect((await enable(b)).status).toBe(200);
    try {
      expect((await postPos(w, { type: 'order.status.updated', object: { provider_id: posId, location_id: w.posLocation, status: 'ready_for_pickup' } })).status).toBe(204);
      await eventsOf(a, id, 2);
      const next = await acceptedOrder();
      await eventsOf(b, next.id, 1);
      expect(b.of(id)).toEqual([]);
    } finally {
      await disable(b);
    }
  }); // prettier-ignore

  it('enabling covers the orders the location receives from then on, not one awaiting the POS; the Partner API says so', async () => {
    const posId = `pos-async-${Date.now()}`;
    w.pos.answer = () => ({ status: 200, body: { order: { provider_id: posId, async_acceptance: true } } });
    const res = await postDsp(w, newOrder(w));
    expect(res.status, res.text).toBe(202);
    const id = res.body.order_id as string;
    await waitForStatus(w, id, 'awaiting_confirmation');
    expect((await enable(b)).status).toBe(200);
    try {
      const confirm = await postPos(w, {
        type: 'order.status.updated',
        object: { status: 'accepted', provider_id: posId, location_id: w.posLocation },
      });
      expect(confirm.status, confirm.text).toBe(204);
      await eventsOf(a, id, 1);
      const next = await acceptedOrder();
      await eventsOf(b, next.id, 1);
      expect(b.of(id)).toEqual([]);
    } finally {
      await disable(b);
    }
    // The reference says the same: received from now on (not accepted), and what a disabled provider still hears.
    expect(enableLocationEventProvider.description).toContain('orders the location receives from now on');
    expect(disableLocationEventProvider.description).toContain('`order.canceled`');
  });

  it('a provider told of an order reads it and its timeline with its own token; another gets 404', async () => {
    const { id } = await acceptedOrder();
    await eventsOf(a, id, 1);
    const read = async (p: FakeProvider) => {
      const { access_token } = await requestAccessToken(w.url, p.partner);
      return Promise.all([
        partnerApi('GET', `/orders/${id}`, access_token),
        partnerApi('GET', `/orders/${id}/timeline`, access_token),
      ]);
    };
    const [order, timeline] = await read(a);
    expect(order.status, order.text).toBe(200);
    expect(order.body.order).toMatchObject({ _id: id, status: 'accepted' });
    expect(timeline.status, timeline.text).toBe(200);
    expect(timeline.body.entries).toContainEqual(
      expect.objectContaining({ kind: 'sent', type: 'order.confirmed', partner_id: a.partner.partner_id }),
    );
    // b was never told of the order (it is not enabled for the location).
    for (const hidden of await read(b)) {
      expect(hidden.status, hidden.text).toBe(404);
      expect(hidden.body.error.code).toBe('order_not_found');
    }
  });

  it("a provider's timeline is its part: state changes, its events and webhooks, not the POS's nor the DSP's", async () => {
    const { id } = await acceptedOrder();
    await eventsOf(a, id, 1);
    expect((await assign(a, id)).status).toBe(200);
    expect((await deliveryStatus(a, id, 'arrived_at_pickup')).status).toBe(200);
    expect((await deliveryStatus(a, id, 'enroute_to_pickup')).status).toBe(409);
    await waitFor(() => posCalls(w, id).length >= 3 || undefined); // order.created, two order.updated
    const { access_token } = await requestAccessToken(w.url, a.partner);
    const mine = await partnerApi('GET', `/orders/${id}/timeline`, access_token);
    expect(mine.status, mine.text).toBe(200);
    const me = a.partner.partner_id;
    const webhook = 'order.update.delivery.status';
    expect(mine.body.entries.map((e: Record<string, unknown>) => [e.kind, e.type, e.partner_id])).toEqual([
      ['status', 'received', null],
      ['status', 'accepted', null],
      ['sent', 'order.confirmed', me],
      ['received', 'order.assign.driver', me],
      ['received', webhook, me],
      ['received', webhook, me],
      ['refused', webhook, null],
    ]);
    expect(mine.body.entries[2].delivery.attempts).toEqual([expect.objectContaining({ status: 200 })]);
    // The merchant's partner still reads all of it: the DSP's order, the calls to the POS and the DSP.
    const all = await partnerApi('GET', `/orders/${id}/timeline`);
    const others = all.body.entries.filter(
      (e: { partner_id: string | null }) => e.partner_id && e.partner_id !== me,
    );
    expect(others.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['new_order', 'order.created', 'location.order.accept', 'order.updated']),
    );
  });

  it('a disabled provider hears nothing more', async () => {
    expect((await disable(a)).status).toBe(200);
    const { id } = await acceptedOrder();
    await enable(a);
    const next = await acceptedOrder();
    await eventsOf(a, next.id, 1);
    expect(a.of(id)).toEqual([]);
  });
});

describe('driver assignment and delivery status in', () => {
  it('assigns the driver, moves the delivery and tells the POS each time', async () => {
    const { id, posId } = await acceptedOrder();
    await eventsOf(a, id, 1);
    const before = posCalls(w, id).length;

    const assigned = await assign(a, id);
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.body).toEqual({
      event_id: expect.stringMatching(/^evt_/),
      order_id: id,
      delivery_status: 'driver_assigned',
      driver: { name: 'Dana Cruz', phone: { number: '+14155550199', code: '77' } },
    });
    for (const status of ['enroute_to_pickup', 'enroute_to_dropoff', 'completed']) {
      const res = await deliveryStatus(a, id, status);
      expect(res.status, res.text).toBe(200);
      expect(res.body.delivery_status).toBe(status);
    }
    const updates = await waitFor(() => {
      const calls = posCalls(w, id).slice(before);
      return calls.length >= 4 ? calls : undefined;
    });
    const driver = {
      source: a.partner.slug,
      name: 'Dana Cruz',
      phone: { number: '+14155550199', code: '77' },
    };
    expect(updates.map((c) => c.body)).toEqual([
      {
        type: 'order.updated',
        object: {
          location_id: w.posLocation,
          order_id: id,
          provider_id: posId,
          status: 'in_progress',
          driver_details: driver,
        },
      },
      {
        type: 'order.updated',
        object: {
          location_id: w.posLocation,
          order_id: id,
          provider_id: posId,
          status: 'in_progress',
          delivery_status: 'enroute_to_pickup',
          driver_details: driver,
        },
      },
      {
        type: 'order.updated',
        object: {
          location_id: w.posLocation,
          order_id: id,
          provider_id: posId,
          status: 'out_for_delivery',
          delivery_status: 'enroute_to_dropoff',
          driver_details: driver,
        },
      },
      {
        type: 'order.updated',
        object: {
          location_id: w.posLocation,
          order_id: id,
          provider_id: posId,
          status: 'completed',
          delivery_status: 'completed',
          driver_details: driver,
        },
      },
    ]);
    const row = await orderRow(w, id);
    expect(row).toMatchObject({
      delivery_provider_id: a.partner.partner_id,
      provider_delivery_status: 'completed',
      delivery_status: 'completed',
    });
    const timeline = rowsOf<{ kind: string; type: string; detail: string }>(
      await w.platform.app.ctx.db.execute(
        sql`select kind, type, detail from order_timeline where order_id = ${id} and partner_id = ${a.partner.partner_id} and kind = 'received' order by seq`,
      ),
    );
    expect(timeline).toEqual([
      { kind: 'received', type: 'order.assign.driver', detail: 'unassigned -> driver_assigned: Dana Cruz' },
      {
        kind: 'received',
        type: 'order.update.delivery.status',
        detail: 'driver_assigned -> enroute_to_pickup',
      },
      {
        kind: 'received',
        type: 'order.update.delivery.status',
        detail: 'enroute_to_pickup -> enroute_to_dropoff',
      },
      { kind: 'received', type: 'order.update.delivery.status', detail: 'enroute_to_dropoff -> completed' },
    ]);
  });

  it('a delivered order completes: the DSP is told, the order and its timeline show it', async () => {
    const { id, posId, dspId } = await acceptedOrder();
    await eventsOf(a, id, 1);
    const done = await deliveryStatus(a, id, 'completed');
    expect(done.status, done.text).toBe(200);
    const told = await dspEvent(w, dspId, 'location.order.notify_status_change');
    expect(told.body).toMatchObject({ order_id: dspId, order_status_update: 'completed' });
    const order = await partnerApi('GET', `/orders/${id}`);
    expect(order.body.order).toMatchObject({ status: 'completed', delivery_status: 'completed' });
    const timeline = await partnerApi('GET', `/orders/${id}/timeline`);
    expect(timeline.body.entries).toContainEqual(
      expect.objectContaining({
        kind: 'status',
        from: 'accepted',
        to: 'completed',
        detail: `${a.partner.slug}: delivered`,
      }),
    );
    // The POS confirming the completion afterwards changes nothing and is no error.
    const pos = await postPos(w, {
      type: 'order.status.updated',
      object: { provider_id: posId, location_id: w.posLocation, status: 'completed' },
    });
    expect(pos.status, pos.text).toBe(204);
  });

  it('delivered after the restaurant completed the order: 200, the POS hears the delivery, the DSP is not told twice', async () => {
    const { id, posId } = await acceptedOrder();
    await eventsOf(a, id, 1);
    expect((await deliveryStatus(a, id, 'enroute_to_dropoff')).status).toBe(200);
    const pos = await postPos(w, {
      type: 'order.status.updated',
      object: { provider_id: posId, location_id: w.posLocation, status: 'completed' },
    });
    expect(pos.status, pos.text).toBe(204);
    const late = await deliveryStatus(a, id, 'completed');
    expect(late.status, late.text).toBe(200);
    expect(late.body).toMatchObject({ order_id: id, delivery_status: 'completed' });
    const told = await waitFor(() =>
      posCalls(w, id).find((c) => JSON.stringify(c.body).includes('"delivery_status":"completed"')),
    );
    expect(told.body).toMatchObject({ type: 'order.updated', object: { status: 'completed' } });
    const { entries } = (await partnerApi('GET', `/orders/${id}/timeline`)).body as {
      entries: { kind: string; type: string; detail: string | null }[];
    };
    // One completion, the restaurant's, and one completed told to the DSP; the delivery recorded.
    expect(entries.filter((e) => e.kind === 'status' && e.type === 'completed')).toHaveLength(1);
    expect(
      entries.filter((e) => e.kind === 'sent' && e.type === 'location.order.notify_status_change'),
    ).toHaveLength(1);
    expect(entries).toContainEqual(
      expect.objectContaining({ kind: 'received', detail: 'enroute_to_dropoff -> completed' }),
    );
    expect(entries.filter((e) => e.kind === 'refused')).toEqual([]);
    expect(await orderRow(w, id)).toMatchObject({ status: 'completed', delivery_status: 'completed' });
  });

  it('relays a driver phone written with spaces, dashes, dots or parentheses to the POS as E.164; refuses another with 400', async () => {
    const { id, posId } = await acceptedOrder();
    await eventsOf(a, id, 1);
    const before = posCalls(w, id).length;
    const sent = (number: string) =>
      postProvider(a, {
        type: 'order.assign.driver',
        object: { order_id: id, location_id: w.locationId, driver: { name: 'Dana Cruz', phone: { number, code: null } } },
      });
    for (const number of ['4155550199', '+1 415 555 0199 x7', 'tel:+14155550199']) {
      const res = await sent(number);
      const problem = `must be an E.164 phone number such as +14155550123 (+ and the country code; spaces, dashes, dots and parentheses are ignored), not ${JSON.stringify(number)}.`;
      expect([res.status, res.body]).toEqual([
        400,
        {
          error: {
            code: 'validation_failed',
            message: `body.object.driver.phone.number: ${problem}`,
            request_id: expect.any(String),
            details: [{ path: 'body.object.driver.phone.number', message: problem }],
          },
        },
      ]);
    }
    const res = await sent('+1 (415) 555-0199');
    expect([res.status, res.body.delivery_status, res.body.driver]).toEqual([
      200,
      'driver_assigned',
      { name: 'Dana Cruz', phone: { number: '+14155550199' } },
    ]);
    const [update, ...more] = await waitFor(() => {
      const calls = posCalls(w, id).slice(before);
      return calls.length ? calls : undefined;
    });
    expect(more).toEqual([]); // the refused ones were not relayed
    expect(update!.raw).toBe(
      `{"type":"order.updated","object":{"location_id":"${w.posLocation}","order_id":"${id}","provider_id":"${posId}","status":"in_progress","driver_details":{"source":"${a.partner.slug}","name":"Dana Cruz","phone":{"number":"+14155550199"}}}}`,
    );
  }); // prettier-ignore

  it('a driver assignment overtaken by a status is recorded, the stage kept (before and after pickup)', async () => {
    const { id } = await acceptedOrder();
    expect((await deliveryStatus(a, id, 'enroute_to_pickup')).status).toBe(200);
    const late = await assign(a, id);
    expect(late.status, late.text).toBe(200);
    expect(late.body).toMatchObject({ delivery_status: 'enroute_to_pickup', driver: { name: 'Dana Cruz' } });
    const last = await waitFor(() =>
      posCalls(w, id).find((c) => JSON.stringify(c.body).includes('Dana Cruz')),
    );
    expect(last.body).toMatchObject({
      object: { delivery_status: 'enroute_to_pickup', driver_details: { name: 'Dana Cruz' } },
    });
    expect((await deliveryStatus(a, id, 'enroute_to_pickup')).status).toBe(200); // still where it was

    const picked = await acceptedOrder();
    expect((await deliveryStatus(a, picked.id, 'enroute_to_dropoff')).status).toBe(200);
    const after = await assign(a, picked.id);
    expect(after.status, after.text).toBe(200);
    expect(after.body).toMatchObject({
      delivery_status: 'enroute_to_dropoff',
      driver: { name: 'Dana Cruz' },
    });
    expect((await assign(a, picked.id)).status).toBe(200); // a repeat
    // Another driver after pickup is still no move.
    expect((await assign(a, picked.id, 'Sam Lee')).status).toBe(409);
  });

  it('refuses a move backwards (409, recorded), accepts a repeat without telling the POS again', async () => {
    const { id } = await acceptedOrder();
    await assign(a, id);
    expect((await deliveryStatus(a, id, 'arrived_at_pickup')).status).toBe(200);
    await waitFor(() => posCalls(w, id).length >= 3 || undefined);
    const calls = posCalls(w, id).length;

    const repeat = await deliveryStatus(a, id, 'arrived_at_pickup');
    expect(repeat.status, repeat.text).toBe(200);
    expect(repeat.body.delivery_status).toBe('arrived_at_pickup');
    const sameDriver = await assign(a, id);
    expect(sameDriver.body.delivery_status).toBe('arrived_at_pickup');

    const back = await deliveryStatus(a, id, 'enroute_to_pickup');
    expect(back.status).toBe(409);
    expect(back.body.error).toMatchObject({
      code: 'invalid_transition',
      message:
        'The delivery is arrived_at_pickup; it cannot become enroute_to_pickup, only driver_assigned, enroute_to_dropoff, completed.',
    });
    // Another driver until pickup: a move of its own.
    const other = await assign(a, id, 'Sam Lee');
    expect(other.body).toMatchObject({ delivery_status: 'driver_assigned', driver: { name: 'Sam Lee' } });
    await deliveryStatus(a, id, 'enroute_to_dropoff');
    expect((await assign(a, id, 'Too Late')).status).toBe(409);

    await waitFor(() => posCalls(w, id).length >= calls + 2 || undefined);
    expect(posCalls(w, id)).toHaveLength(calls + 2);
    const refused = rowsOf<{ detail: string }>(
      await w.platform.app.ctx.db.execute(
        sql`select detail from order_timeline where order_id = ${id} and kind = 'refused' order by seq`,
      ),
    );
    expect(refused.map((r) => r.detail)).toEqual([
      'The delivery is arrived_at_pickup; it cannot become enroute_to_pickup, only driver_assigned, enroute_to_dropoff, completed.',
      'The delivery is enroute_to_dropoff; it cannot become driver_assigned, only completed.',
    ]);
  });

  it('404 for an order not sent to the provider, 409 once another provider delivers it', async () => {
    const { id } = await acceptedOrder();
    const notFound = await assign(b, id);
    expect(notFound.status).toBe(404);
    expect(notFound.body.error.code).toBe('order_not_found');
    expect((await assign(a, 'ord_nope')).body.error.code).toBe('order_not_found');
    const elsewhere = await postProvider(a, {
      type: 'order.assign.driver',
      object: {
        order_id: id,
        location_id: 'loc_other',
        driver: { name: 'X', phone: { number: '+14155550100' } },
      },
    });
    expect(elsewhere.status).toBe(404);

    expect((await assign(a, id)).status).toBe(200);
    await enable(b);
    try {
      const shared = await acceptedOrder();
      await eventsOf(b, shared.id, 1);
      expect((await assign(a, shared.id)).status).toBe(200);
      const held = await assign(b, shared.id);
      expect(held.status).toBe(409);
      expect(held.body.error.code).toBe('delivery_held_by_another_provider');
    } finally {
      await disable(b);
    }
    // The provider that delivers it may go on even if the location stops sending it events.
    await disable(a);
    try {
      expect((await deliveryStatus(a, id, 'enroute_to_pickup')).status).toBe(200);
    } finally {
      await enable(a);
    }
  });

  it('404 for an order received before the location enabled the provider: it was never told of it', async () => {
    const { id } = await acceptedOrder();
    await eventsOf(a, id, 1);
    await enable(b);
    try {
      for (const res of [await assign(b, id), await deliveryStatus(b, id, 'enroute_to_pickup')]) {
        expect(res.status, res.text).toBe(404);
        expect(res.body.error.code).toBe('order_not_found');
      }
      expect(await orderRow(w, id)).toMatchObject({ delivery_provider_id: null, delivery_status: null });
      // The provider that was told of it still takes it.
      expect((await assign(a, id)).status).toBe(200);
    } finally {
      await disable(b);
    }
  });

  it('the provider delivering an order hears of its cancellation even after the location disabled it', async () => {
    const { id, dspId } = await acceptedOrder();
    await eventsOf(a, id, 1);
    expect((await assign(a, id)).status).toBe(200);
    expect((await disable(a)).status).toBe(200);
    try {
      expect((await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: dspId })).status).toBe(
        200,
      );
      const events = await eventsOf(a, id, 2);
      expect(events.map((e) => [e.body.type, e.body.order.status])).toEqual([
        ['order.confirmed', 'in_progress'],
        ['order.canceled', 'dsp_canceled'],
      ]);
    } finally {
      await enable(a);
    }
  });

  it('a provider told of an order, disabled before it assigned a driver, hears of its cancellation', async () => {
    const { id, dspId } = await acceptedOrder();
    await eventsOf(a, id, 1);
    expect((await disable(a)).status).toBe(200);
    try {
      expect((await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: dspId })).status).toBe(
        200,
      );
      const events = await eventsOf(a, id, 2);
      expect(events.map((e) => e.body.type)).toEqual(['order.confirmed', 'order.canceled']);
    } finally {
      await enable(a);
    }
  });

  it('an order the provider was told of stays its to deliver after the location disabled it', async () => {
    const { id } = await acceptedOrder();
    await eventsOf(a, id, 1);
    expect((await disable(a)).status).toBe(200);
    try {
      const res = await assign(a, id);
      expect(res.status, res.text).toBe(200);
      expect(res.body.delivery_status).toBe('driver_assigned');
    } finally {
      await enable(a);
    }
  });

  it('409 for an order the restaurant has not accepted or that was cancelled', async () => {
    const { id, dspId } = await acceptedOrder();
    await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: dspId });
    await waitForStatus(w, id, 'dsp_canceled');
    const res = await assign(a, id);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'invalid_transition',
      message: expect.stringContaining('dsp_canceled'),
    });
  });

  it('409 once the order is cancelled, also for the status or driver the delivery already had (not a harmless repeat)', async () => {
    const { id, dspId } = await acceptedOrder();
    expect((await assign(a, id)).status).toBe(200);
    expect((await deliveryStatus(a, id, 'enroute_to_pickup')).status).toBe(200);
    await postDsp(w, { type: 'cancel_order', location_id: w.store, order_id: dspId });
    await waitForStatus(w, id, 'dsp_canceled');
    for (const res of [await deliveryStatus(a, id, 'enroute_to_pickup'), await assign(a, id)]) {
      expect(res.status, res.text).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'invalid_transition',
        message: expect.stringContaining('dsp_canceled'),
      });
    }
    const refused = rowsOf<{ type: string }>(
      await w.platform.app.ctx.db.execute(
        sql`select type from order_timeline where order_id = ${id} and kind = 'refused' order by seq`,
      ),
    );
    expect(refused.map((r) => r.type)).toEqual(['order.update.delivery.status', 'order.assign.driver']);
  });

  it('accepts what the contract allows: null for an absent code, fields it does not name', async () => {
    const { id } = await acceptedOrder();
    const res = await postProvider(a, {
      type: 'order.assign.driver',
      sent_at: 1795561200000,
      object: {
        order_id: id,
        location_id: w.locationId,
        external_delivery_id: 'fleet-881',
        driver: {
          name: 'Dana Cruz',
          phone: { number: '+14155550199', code: null },
          vehicle: { make: 'Kia' },
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.driver).toEqual({ name: 'Dana Cruz', phone: { number: '+14155550199' } });
  });

  it('takes a masking code sent as a whole number, as a DSP may send it, and relays it as its digits', async () => {
    const { id } = await acceptedOrder();
    const res = await postProvider(a, {
      type: 'order.assign.driver',
      object: {
        order_id: id,
        location_id: w.locationId,
        driver: { name: 'Dana Cruz', phone: { number: '+14155550199', code: 1234 } },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.driver).toEqual({ name: 'Dana Cruz', phone: { number: '+14155550199', code: '1234' } });
    const update = await waitFor(
      () => posCalls(w, id).find((c) => (c.body as { type: string }).type === 'order.updated'),
      20_000,
      'the POS update',
    );
    expect((update.body as { object: Record<string, unknown> }).object.driver_details).toMatchObject({
      phone: { number: '+14155550199', code: '1234' },
    });
    const negative = await postProvider(a, {
      type: 'order.assign.driver',
      object: {
        order_id: id,
        location_id: w.locationId,
        driver: { name: 'Dana Cruz', phone: { number: '+14155550199', code: -1 } },
      },
    });
    expect([negative.status, negative.body.error?.details?.[0]?.path]).toEqual([
      400,
      'body.object.driver.phone.code',
    ]);
  });

  it('refuses bad input with a 4xx that says what to fix', async () => {
    const url = `${w.url}/event-provider/${a.partner.slug}/webhook`;
    const cases: [unknown, number, string][] = [
      [
        { type: 'order.assign.driver', object: { order_id: 'o', location_id: 'l' } },
        400,
        'validation_failed',
      ],
      [{ type: 'order.teleport', object: {} }, 400, 'validation_failed'],
      [
        {
          type: 'order.update.delivery.status',
          object: { order_id: 'o', location_id: 'l', status: 'returned' },
        },
        400,
        'validation_failed',
      ],
      ['{"type":', 400, 'invalid_json'],
    ];
    for (const [body, status, code] of cases) {
      const res = await postSigned(url, a.partner.webhook_secret, body);
      expect([res.status, res.body.error?.code], res.text).toEqual([status, code]);
    }
    const forged = await postSigned(url, 'whsec_not-the-secret', { type: 'order.assign.driver', object: {} });
    expect([forged.status, forged.body.error.code]).toEqual([401, 'signature_mismatch']);
    const unsigned = await call('POST', url, { body: { type: 'order.assign.driver' } });
    expect([unsigned.status, unsigned.body.error.code]).toEqual([401, 'signature_missing']);
    // A POS signing as itself is not an event provider.
    const pos = await postSigned(
      `${w.url}/event-provider/${w.posPartner.slug}/webhook`,
      w.posPartner.webhook_secret,
      {
        type: 'order.assign.driver',
        object: { order_id: 'o', location_id: 'l', driver: { name: 'X', phone: { number: '+14155550199' } } },
      },
    );
    expect([pos.status, pos.body.error.code]).toEqual([404, 'unknown_partner']);
  });
});

describe('a failing provider', () => {
  let c: FakeProvider;
  const circuit = { ...CIRCUIT };
  beforeAll(async () => {
    c = await fakeProvider();
    Object.assign(CIRCUIT, { minAttempts: 3, backoff: { baseMs: 300, maxMs: 600 } });
  });
  afterAll(() => {
    Object.assign(CIRCUIT, circuit);
    c.server.closeAllConnections();
    c.server.close();
  });
  beforeEach(async () => {
    await enable(c);
  });

  it('is retried, paused by its circuit, and gets every event in order once it answers again', async () => {
    c.status = 503;
    const first = await acceptedOrder();
    await postPos(w, {
      type: 'order.status.updated',
      object: { provider_id: first.posId, location_id: w.posLocation, status: 'ready_for_pickup' },
    });
    const second = await acceptedOrder();
    const opened = await waitFor(async () => {
      const [row] = (await partnerApi('GET', providersPath())).body.event_providers.filter(
        (p: { slug: string }) => p.slug === c.partner.slug,
      );
      return row.delivery.state !== 'closed' ? row.delivery : undefined;
    });
    expect(opened).toMatchObject({
      alerting: true,
      opened_at: expect.any(String),
      last_error: expect.stringContaining('503'),
    });
    // Paused: nothing more is tried until retry_at, and no job has given up (or been taken as
    // delivered). One may be running: the attempt in flight when the circuit opened, allowed below.
    const attempts = c.attempts;
    const failed = rowsOf<{ count: number }>(
      await w.platform.app.ctx.db.execute(
        sql`select count(*)::int as count from jobs where partner_id = ${c.partner.partner_id} and status in ('dead', 'succeeded')`,
      ),
    );
    expect(failed[0]!.count).toBe(0);
    expect(c.attempts - attempts).toBeLessThanOrEqual(1);

    c.status = 200;
    await eventsOf(c, second.id, 1);
    const firstEvents = await eventsOf(c, first.id, 2);
    expect(firstEvents.map((e) => e.body.type)).toEqual(['order.confirmed', 'order.updated']);
    const closed = await waitFor(async () => {
      const [row] = await directCommands(w.platform.app.ctx.database, w.platform.config.encryptionKey)
        .eventCircuits()
        .then((all) => all.filter((p) => p.slug === c.partner.slug));
      return row!.delivery.state === 'closed' ? row!.delivery : undefined;
    });
    expect(closed).toMatchObject({ opened_at: null, retry_at: null });
  });
});

describe('a provider down for good', () => {
  let d: FakeProvider;
  const policy = { ...EVENT_DELIVERY };
  beforeAll(async () => {
    d = await fakeProvider();
    d.status = 503;
    expect((await enable(d)).status).toBe(200);
  });
  afterAll(async () => {
    Object.assign(EVENT_DELIVERY, policy);
    await disable(d);
    d.server.closeAllConnections();
    d.server.close();
  });

  it('is given up after its retries: the order timeline and the location show which event it never got', async () => {
    // The deadline is read when the event is enqueued: the retries of this order's events end soon.
    Object.assign(EVENT_DELIVERY, { deadlineMs: 400 });
    const { id } = await acceptedOrder();
    Object.assign(EVENT_DELIVERY, policy);

    const entries = await waitFor(async () => {
      const res = await call('GET', `${w.url}/orders/${id}/timeline`, { token: w.token });
      const all = res.body.entries as { kind: string; type: string; partner_id: string; detail: string }[];
      return all.some((e) => e.kind === 'gave_up' && e.partner_id === d.partner.partner_id) ? all : undefined;
    });
    const mine = entries.filter((e) => e.partner_id === d.partner.partner_id);
    expect(mine).toEqual([
      expect.objectContaining({
        kind: 'sent',
        type: 'order.confirmed',
        delivery: expect.objectContaining({ state: 'dead' }),
      }),
      expect.objectContaining({
        kind: 'gave_up',
        type: 'order.confirmed',
        detail: expect.stringMatching(/^The event provider was never delivered order.confirmed; .*503/),
      }),
    ]);
    // The provider, back up, reads the same two entries in its part of the timeline.
    const { access_token } = await requestAccessToken(w.url, d.partner);
    const own = await call('GET', `${w.url}/orders/${id}/timeline`, { token: access_token });
    expect(own.body.entries.filter((e: { kind: string }) => e.kind !== 'status')).toEqual(mine);

    const [row] = (await partnerApi('GET', providersPath())).body.event_providers.filter(
      (p: { slug: string }) => p.slug === d.partner.slug,
    );
    expect(row.last_undelivered).toEqual({
      order_id: id,
      type: 'order.confirmed',
      at: expect.any(String),
      error: expect.stringContaining('503'),
    });
  });
});
