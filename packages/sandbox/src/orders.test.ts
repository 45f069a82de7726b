import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DspWebhook, type DspOrder } from '@stream/contracts/apis/become-a-dsp/index';
import { EXAMPLE_MENU_FILE } from '@stream/contracts/apis/become-a-dsp/menu-file';
import { PosOrderAnswer, PosValidationError, type PosOrder } from '@stream/contracts/apis/become-a-pos/index';
import { call } from '../../../apps/platform/test/http.ts';
import { waitFor } from '../../../apps/platform/test/wait.ts';
import { validateDspOrder } from '../../../apps/platform/src/orders/validate.ts';
import {
  createSandboxServer,
  demoDspOrder,
  sandboxControl,
  type SandboxKind,
  type SandboxOptions,
} from './index.ts';
import { DEMO_CATALOG } from './catalog.ts';
import { TokenSigner } from './tokens.ts';

/**
 * The order simulators on their own, over real HTTP: the sandbox POS and DSP, and a tiny in-test
 * platform that receives their webhooks and checks `Stream-Webhook-Signature` as the platform does.
 */

const client = { client_id: 'platform', client_secret: 'sbxsec_test' };
const SECRET = 'whsec_orders';
const TOKEN_SECRET = 'token-secret-for-order-tests';
const basic = {
  authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
};

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The header is the lower-case hex HMAC-SHA256 of the raw bytes with the webhook secret. */
  signed: boolean;
}

/** The platform's side of the webhooks: records each, answers as `answer` says (default 204, or 202 for orders). */
interface PlatformStub {
  url: string;
  hits: Hit[];
  answer: (hit: Hit) => { status: number; body?: unknown };
}
const defaultAnswer = (hit: Hit) =>
  hit.path.startsWith('/order/')
    ? { status: 202, body: { event_id: 'evt_1', order_id: 'ord_1', status: 'received' } }
    : { status: 204 };

const closers: (() => Promise<unknown>)[] = [];
afterAll(() => Promise.all(closers.map((c) => c())));

async function startPlatform(): Promise<PlatformStub> {
  const stub: PlatformStub = { url: '', hits: [], answer: defaultAnswer };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const expected = createHmac('sha256', SECRET).update(raw).digest('hex');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const hit = {
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body,
        signed: req.headers['stream-webhook-signature'] === expected,
      };
      stub.hits.push(hit);
      const { status, body: answer } = stub.answer(hit);
      res.writeHead(status, answer === undefined ? {} : { 'content-type': 'application/json' });
      res.end(answer === undefined ? undefined : JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}

async function startSim(kind: SandboxKind, opts: Partial<SandboxOptions> = {}) {
  const app: FastifyInstance = createSandboxServer(kind, {
    clients: [client],
    tokenSecret: TOKEN_SECRET,
    webhookSecret: SECRET,
    ...opts,
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  return { app, url, control: sandboxControl(url, client) };
}

/** A merchant access token of the demo merchant, as the platform holds after OAuth. */
const merchantToken = (kind: SandboxKind) =>
  new TokenSigner(TOKEN_SECRET, kind).issue('access', {
    account: 'demo-merchant',
    client: client.client_id,
    ttlMs: 60_000,
  }).token;

/** Publishes EXAMPLE_MENU_FILE to `store` of the sandbox DSP at `dspUrl`, as the platform does. */
async function publishMenu(dspUrl: string, store: string): Promise<void> {
  const files = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(EXAMPLE_MENU_FILE));
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => files.close(resolve)));
  const published = await call('POST', `${dspUrl}/stream-dsp/v1/event`, {
    token: merchantToken('dsp'),
    body: {
      type: 'location.publish',
      location_id: store,
      download_url: `http://127.0.0.1:${(files.address() as AddressInfo).port}/menu.json`,
    },
  });
  expect(published.status).toBe(200);
}

let orderSeq = 0;
/** An `order.created` object as the platform sends it; a fresh idempotency key unless given. */
function posOrder(overrides: Partial<PosOrder> = {}): PosOrder {
  return {
    location_id: 'loc-mission',
    idempotency_key: `ord_test_${++orderSeq}_${Date.now()}`,
    source_order_id: 'dsp-1',
    source: 'example-dsp',
    brand: 'example-dsp',
    fulfillment_type: 'pickup',
    customers: [{ name: 'Ada L.', phone: '+14155550123' }],
    customer_name: 'Ada L.',
    customer_phone: '+14155550123',
    customer_phone_code: '',
    line_items: [
      {
        // An item of the demo catalog the sandbox POS serves.
        provider_id: 'itm-carnitas-1',
        name: 'Carnitas taco',
        quantity: 2,
        price_amount: 450,
        price_currency: 'USD',
        modifiers: [],
      },
    ],
    should_include_utensils: true,
    is_future_order: false,
    placed_at: Date.now(),
    subtotal: 900,
    tax: 80,
    tax_withheld_by_dsp: false,
    discounts: [],
    ...overrides,
  };
}

describe('sandbox POS orders', () => {
  let platform: PlatformStub;
  let pos: Awaited<ReturnType<typeof startSim>>;
  const token = merchantToken('pos');
  const postOrder = (body: unknown, opts: { token?: string } = {}) =>
    call('POST', `${pos.url}/stream-pos/v1/orders`, { body, token: opts.token ?? token });
  const create = (order: PosOrder = posOrder()) => postOrder({ type: 'order.created', object: order });

  beforeAll(async () => {
    platform = await startPlatform();
    pos = await startSim('pos', { platformUrl: platform.url, partnerRef: 'sandbox-pos' });
  });
  beforeEach(async () => {
    await pos.control.resetSwitches();
    await pos.control.clearOrders();
    platform.hits.length = 0;
    platform.answer = defaultAnswer;
  });

  it("accepts by default with the location's prep time; a repeated idempotency_key answers the same order", async () => {
    const order = posOrder();
    const first = await create(order);
    expect(first.status).toBe(200);
    const { order: answer } = PosOrderAnswer.parse(first.body);
    expect(answer).toEqual({ provider_id: expect.stringMatching(/^sbx-ord-\d+/), prep_time_minutes: 20 });
    const again = await create(order);
    expect(again.body).toEqual(first.body);
    const other = await create(posOrder({ location_id: 'loc-williamsburg' }));
    expect(other.body.order.prep_time_minutes).toBe(15);
    expect(other.body.order.provider_id).not.toBe(answer!.provider_id);
    const held = await pos.control.orders();
    expect(held).toHaveLength(2);
    expect(held[0]).toMatchObject({
      provider_id: answer!.provider_id,
      idempotency_key: order.idempotency_key,
      location_id: 'loc-mission',
      status: 'accepted',
      canceled: false,
    });
  });

  it.each([
    ['reject_stock', { stockValidation: [{ type: 'item', provider_id: 'itm-carnitas-1', quantity: 0 }] }],
    ['reject_totals', { orderTotalsValidation: [{ posTotal: 1080, streamTotal: 980 }] }],
    [
      'reject_invalid_cart',
      { orderValidation: [{ order_error: 'invalid_cart', order_error_reason: expect.any(String) }] },
    ],
    ['reject_store_unavailable', { orderValidation: [{ order_error: 'store_unavailable' }] }],
    ['reject_pos_offline', { orderValidation: [{ order_error: 'pos_offline' }] }],
    [
      'reject_other',
      { orderValidation: [{ order_error: 'other', order_error_reason: expect.stringMatching(/\w+/) }] },
    ],
  ] as const)('%s: 400 posValidation, nothing held', async (behavior, posValidation) => {
    await pos.control.switches({ order_behavior: behavior });
    const res = await create();
    expect(res.status).toBe(400);
    expect(PosValidationError.parse(res.body)).toEqual({ posValidation });
    expect(await pos.control.orders()).toEqual([]);
  });

  it('refuses items and modifiers its catalog does not sell as out of stock, whatever the behaviour', async () => {
    const line = posOrder().line_items[0]!;
    const salsa = {
      provider_id: 'mod-verde',
      name: 'Salsa verde',
      quantity: 1,
      price_amount: 0,
      price_currency: 'USD',
    };
    const known = posOrder({
      line_items: [
        { ...line, modifiers: [{ ...salsa, modifiers: [] }] },
        // A family sold without items is its own variation.
        { ...line, provider_id: 'fam-veggie', modifiers: [] },
      ],
    });
    expect((await create(known)).status).toBe(200);
    const unknown = posOrder({
      line_items: [
        line,
        { ...line, provider_id: 'cert-unknown-item', modifiers: [] },
        {
          ...line,
          modifiers: [{ ...salsa, modifiers: [{ ...salsa, provider_id: 'mod-ghost', modifiers: [] }] }],
        },
      ],
    });
    for (const behavior of ['accept', 'accept_async', 'reject_totals'] as const) {
      await pos.control.switches({ order_behavior: behavior });
      const res = await create(unknown);
      expect(res.status).toBe(400);
      expect(PosValidationError.parse(res.body)).toEqual({
        posValidation: {
          stockValidation: [
            { type: 'item', provider_id: 'cert-unknown-item', quantity: 0 },
            { type: 'modifier', provider_id: 'mod-ghost', quantity: 0 },
          ],
        },
      });
    }
    // What it sells is what its catalog says: a replaced catalog without the item refuses it too.
    await pos.control.switches({ order_behavior: 'accept' });
    await pos.control.setCatalog({ item: [{ provider_id: 'itm-other', name: 'Other', price_amount: 1 }] });
    try {
      expect((await create(posOrder())).body.posValidation.stockValidation).toEqual([
        { type: 'item', provider_id: 'itm-carnitas-1', quantity: 0 },
      ]);
    } finally {
      await pos.control.setCatalog(undefined);
    }
    expect(await pos.control.orders()).toHaveLength(1);
  });

  it('refuses a location it does not know as store_unavailable, whatever the behaviour', async () => {
    await pos.control.switches({ order_behavior: 'accept_async' });
    const res = await create(posOrder({ location_id: 'loc-nowhere' }));
    expect(res.status).toBe(400);
    expect(res.body.posValidation.orderValidation).toEqual([
      { order_error: 'store_unavailable', order_error_reason: 'Unknown location loc-nowhere.' },
    ]);
  });

  it('answers 503 on error_503; the order made after the outage is made once', async () => {
    await pos.control.switches({ order_behavior: 'error_503' });
    const order = posOrder();
    expect((await create(order)).status).toBe(503);
    expect(await pos.control.orders()).toEqual([]);
    await pos.control.switches({ order_behavior: 'accept' });
    const [a, b] = [await create(order), await create(order)];
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(await pos.control.orders()).toHaveLength(1);
  });

  it('fail_rate answers 503 to the order_failure_rate share of new orders', async () => {
    const statuses = async (rate: number, n: number) => {
      await pos.control.switches({ order_behavior: 'fail_rate', order_failure_rate: rate });
      return Promise.all(Array.from({ length: n }, async () => (await create()).status));
    };
    expect(new Set(await statuses(1, 10))).toEqual(new Set([503]));
    expect(new Set(await statuses(0, 10))).toEqual(new Set([200]));
    const mixed = await statuses(0.5, 60); // all alike by chance: 2 in 10^18
    expect(new Set(mixed)).toEqual(new Set([200, 503]));
    expect(await pos.control.orders()).toHaveLength(10 + mixed.filter((s) => s === 200).length);
    await expect(pos.control.switches({ order_failure_rate: 1.5 })).rejects.toThrow(/400/);
  });

  it('accept_async answers async_acceptance, then confirms by signed webhook order_confirm_ms later', async () => {
    await pos.control.switches({ order_behavior: 'accept_async', order_confirm_ms: 300 });
    const order = posOrder();
    const started = Date.now();
    const res = await create(order);
    expect(res.body).toEqual({
      order: { provider_id: expect.stringMatching(/^sbx-ord-/), async_acceptance: true },
    });
    const { provider_id } = res.body.order;
    // A retry before the confirmation gets the same answer.
    expect((await create(order)).body).toEqual(res.body);
    expect((await pos.control.orders())[0]!.status).toBe('awaiting_confirmation');
    const hit = await waitFor(() => platform.hits[0], 5_000, 'the confirmation');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(hit).toMatchObject({
      path: '/pos/sandbox-pos/webhook',
      signed: true,
      body: {
        type: 'order.status.updated',
        object: { status: 'accepted', provider_id, location_id: 'loc-mission' },
      },
    });
    expect(hit.headers['content-type']).toBe('application/json');
    const [held] = await waitFor(async () => {
      const orders = await pos.control.orders();
      return orders[0]?.confirmation ? orders : undefined;
    });
    expect(held).toMatchObject({ status: 'accepted', confirmation: { status: 204 } });
  });

  it('accept_async does not confirm an order cancelled before the confirmation', async () => {
    await pos.control.switches({ order_behavior: 'accept_async', order_confirm_ms: 200 });
    const order = posOrder();
    const { provider_id } = (await create(order)).body.order;
    const cancel = await postOrder({
      type: 'order.canceled',
      object: { location_id: 'loc-mission', order_id: order.idempotency_key, provider_id },
    });
    expect(cancel.status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(platform.hits).toEqual([]);
    expect((await pos.control.orders())[0]).toMatchObject({ status: 'canceled', canceled: true });
  });

  it('timeout holds the answer until the client hangs up', async () => {
    await pos.control.switches({ order_behavior: 'timeout' });
    await pos.control.clearReceived();
    const started = Date.now();
    const sent = fetch(`${pos.url}/stream-pos/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'order.created', object: posOrder() }),
      signal: AbortSignal.timeout(500),
    });
    await expect(sent).rejects.toThrow(/timeout|abort/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    // The hold ends with the client, far sooner than the 20 s it would wait for a patient one.
    const [entry] = await waitFor(
      () => pos.control.received({ path: '/stream-pos/v1/orders' }).then((r) => (r.length ? r : undefined)),
      5_000,
      'the held request to end',
    );
    expect(entry!.status).toBe(504);
    expect(await pos.control.orders()).toEqual([]);
  });

  it('closing the server ends a held answer at once', async () => {
    const own = await startSim('pos');
    await own.control.switches({ order_behavior: 'timeout' });
    const sent = call('POST', `${own.url}/stream-pos/v1/orders`, {
      token,
      body: { type: 'order.created', object: posOrder() },
    }).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await own.app.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    const res = await sent;
    expect([504, 'network error']).toContain(res instanceof Error ? 'network error' : res.status);
  });

  it('acknowledges order.updated and order.canceled with 200 {} and keeps them on the held order', async () => {
    const order = posOrder();
    const { provider_id } = (await create(order)).body.order;
    const update = {
      location_id: 'loc-mission',
      order_id: order.idempotency_key,
      provider_id,
      status: 'in_progress',
      delivery_status: 'enroute_to_pickup',
      driver_details: { name: 'Sam', phone: { number: '+14155550199' } },
    };
    const updated = await postOrder({ type: 'order.updated', object: update });
    expect([updated.status, updated.body]).toEqual([200, {}]);
    expect((await pos.control.orders())[0]).toMatchObject({
      status: 'in_progress',
      delivery_status: 'enroute_to_pickup',
      last_update: update,
      canceled: false,
    });
    const canceled = await postOrder({
      type: 'order.canceled',
      object: { location_id: 'loc-mission', order_id: order.idempotency_key },
    });
    expect([canceled.status, canceled.body]).toEqual([200, {}]);
    expect((await pos.control.orders())[0]).toMatchObject({ status: 'canceled', canceled: true });
    // An order it does not hold is acknowledged too (the contract asks for any 2xx).
    const unknown = await postOrder({
      type: 'order.canceled',
      object: { location_id: 'loc-mission', order_id: 'ord_unknown' },
    });
    expect(unknown.status).toBe(200);
  });

  it('needs a merchant token it issued and a body of the contract', async () => {
    const bare = await call('POST', `${pos.url}/stream-pos/v1/orders`, {
      body: { type: 'order.created', object: posOrder() },
    });
    expect([bare.status, bare.body.error.code]).toEqual([401, 'missing_token']);
    const dspToken = await postOrder(
      { type: 'order.created', object: posOrder() },
      { token: merchantToken('dsp') },
    );
    expect([dspToken.status, dspToken.body.error.code]).toEqual([401, 'invalid_token']);
    const bad = await postOrder({ type: 'order.created', object: { ...posOrder(), subtotal: 'ten' } });
    expect([bad.status, bad.body.error.code, bad.body.error.details[0].path]).toEqual([
      400,
      'validation_failed',
      'body.object.subtotal',
    ]);
    expect(await pos.control.orders()).toEqual([]);
  });

  it('sends order.status.updated for a held order on command and answers what the platform answered', async () => {
    const { provider_id } = (await create()).body.order;
    const ready = await pos.control.sendOrderStatus(provider_id, 'ready_for_pickup');
    expect(ready).toEqual({ status: 204, body: null });
    expect(platform.hits[0]).toMatchObject({
      path: '/pos/sandbox-pos/webhook',
      signed: true,
      body: {
        type: 'order.status.updated',
        object: { status: 'ready_for_pickup', provider_id, location_id: 'loc-mission' },
      },
    });
    expect((await pos.control.orders())[0]!.status).toBe('ready_for_pickup');

    const refusal = { error: { code: 'invalid_transition', message: 'no' } };
    platform.answer = () => ({ status: 409, body: refusal });
    expect(await pos.control.sendOrderStatus(provider_id, 'accepted')).toEqual({
      status: 409,
      body: refusal,
    });
    expect((await pos.control.orders())[0]!.status).toBe('ready_for_pickup');

    const unknown = await call('POST', `${pos.url}/_sandbox/orders/sbx-ord-none/status`, {
      headers: basic,
      body: { status: 'completed' },
    });
    expect(unknown.status).toBe(404);
    const badStatus = await call('POST', `${pos.url}/_sandbox/orders/${provider_id}/status`, {
      headers: basic,
      body: { status: 'cooking' },
    });
    expect([badStatus.status, badStatus.body.error.details[0].path]).toEqual([400, 'body.status']);
    expect(platform.hits).toHaveLength(2);
  });

  it('sends location status, offline and any raw webhook, signed, to the platform', async () => {
    const until = Date.now() + 3_600_000;
    expect((await pos.control.sendLocationStatus('loc-mission', 'inactive', until)).status).toBe(204);
    expect((await pos.control.sendLocationStatus('loc-mission', 'active')).status).toBe(204);
    expect((await pos.control.sendOffline('loc-williamsburg')).status).toBe(204);
    // Byte for byte: the spacing and key order of the control request are what the platform gets.
    const raw = '{"type":"location.catalog.updated",  "object": {"location_id":"loc-mission"}}';
    const sent = await call('POST', `${pos.url}/_sandbox/webhook`, { headers: basic, body: raw });
    expect(sent.body).toEqual({ status: 204, body: null });
    expect(platform.hits.map((h) => [h.path, h.signed, h.body])).toEqual([
      [
        '/pos/sandbox-pos/webhook',
        true,
        {
          type: 'location.status.updated',
          object: { location_id: 'loc-mission', status: 'inactive', paused_until: until },
        },
      ],
      [
        '/pos/sandbox-pos/webhook',
        true,
        { type: 'location.status.updated', object: { location_id: 'loc-mission', status: 'active' } },
      ],
      [
        '/pos/sandbox-pos/webhook',
        true,
        { type: 'location.connection.offline', object: { location_id: 'loc-williamsburg' } },
      ],
      ['/pos/sandbox-pos/webhook', true, JSON.parse(raw)],
    ]);
    expect(platform.hits[3]!.raw).toBe(raw);
    const bad = await call('POST', `${pos.url}/_sandbox/locations/loc-mission/status`, {
      headers: basic,
      body: { status: 'closed' },
    });
    expect(bad.status).toBe(400);
    expect(platform.hits).toHaveLength(4);
  });

  it('tells the platform its catalog changed (PUT or DELETE /_sandbox/catalog): one signed location.catalog.updated per merchant', async () => {
    const changed = await pos.control.setCatalog({ item: [] });
    const restored = await pos.control.setCatalog(undefined);
    const told = [
      { merchant_id: 'demo-merchant', status: 204, body: null },
      { merchant_id: 'second-merchant', status: 204, body: null },
    ];
    expect(changed).toEqual({ catalog: { item: [] }, catalog_updated: told });
    expect(restored).toEqual({ catalog: DEMO_CATALOG, catalog_updated: told });
    const hook = (merchant_id: string) => [
      '/pos/sandbox-pos/webhook',
      true,
      { type: 'location.catalog.updated', object: { merchant_id } },
    ];
    const sorted = platform.hits
      .map((h) => [h.path, h.signed, h.body])
      .sort((a, b) => String(a[2]!.object.merchant_id).localeCompare(b[2]!.object.merchant_id));
    expect(sorted).toEqual([
      hook('demo-merchant'),
      hook('demo-merchant'),
      hook('second-merchant'),
      hook('second-merchant'),
    ]);
    // Without a platform to tell, the catalog still changes, and the answer says why nobody was told.
    const own = await startSim('pos');
    const alone = await own.control.setCatalog({ item: [] });
    expect(alone.catalog).toEqual({ item: [] });
    expect(alone.catalog_updated).toEqual([
      { merchant_id: 'demo-merchant', error: expect.stringMatching(/does not know its platform/) },
      { merchant_id: 'second-merchant', error: expect.stringMatching(/does not know its platform/) },
    ]);
  });

  it('needs to know its platform to send webhooks: 409 without a partner, the current one when given as a function', async () => {
    const lost = await startSim('pos', { platformUrl: platform.url });
    const res = await call('POST', `${lost.url}/_sandbox/locations/loc-mission/offline`, { headers: basic });
    expect([res.status, res.body.error.code]).toEqual([409, 'conflict']);
    expect(res.body.error.message).toMatch(/does not know its platform.*partnerRef/);
    expect((await lost.control.info()).partner_ref).toBeNull();

    let ref = 'pos-first';
    const moving = await startSim('pos', { platformUrl: platform.url, partnerRef: () => ref });
    await moving.control.sendOffline('loc-mission');
    ref = 'pos-second';
    await moving.control.sendOffline('loc-mission');
    expect(platform.hits.map((h) => h.path)).toEqual(['/pos/pos-first/webhook', '/pos/pos-second/webhook']);
  });

  it('names a platform it cannot reach (502), and records why an async confirmation failed', async () => {
    const gone = await startSim('pos', { platformUrl: 'http://127.0.0.1:9', partnerRef: 'p' });
    const res = await call('POST', `${gone.url}/_sandbox/locations/loc-mission/offline`, { headers: basic });
    expect(res.status).toBe(502);
    expect(res.body.error.message).toMatch(/http:\/\/127\.0\.0\.1:9\/pos\/p\/webhook did not answer/);
    await gone.control.switches({ order_behavior: 'accept_async', order_confirm_ms: 0 });
    await call('POST', `${gone.url}/stream-pos/v1/orders`, {
      token,
      body: { type: 'order.created', object: posOrder() },
    });
    const [held] = await waitFor(async () => {
      const orders = await gone.control.orders();
      return orders[0]?.confirmation ? orders : undefined;
    });
    expect(held!.confirmation).toEqual({ error: expect.stringMatching(/did not answer/) });
  });
});

describe('sandbox DSP orders', () => {
  let platform: PlatformStub;
  let dsp: Awaited<ReturnType<typeof startSim>>;
  const token = merchantToken('dsp');
  const postEvent = (body: unknown, headers: Record<string, string> = {}) =>
    call('POST', `${dsp.url}/stream-dsp/v1/event`, { body, token, headers });
  const accept = (order_id: string) => ({
    type: 'location.order.accept',
    location_id: 'store-1001',
    order_id,
    estimated_ready_at_ms: 1_763_901_800_000,
  });

  beforeAll(async () => {
    platform = await startPlatform();
    dsp = await startSim('dsp', { platformUrl: platform.url, partnerRef: 'prt_dsp' });
  });
  beforeEach(async () => {
    await dsp.control.resetSwitches();
    await dsp.control.clearEvents();
    platform.hits.length = 0;
    platform.answer = defaultAnswer;
  });

  it('acknowledges events of the contract with 200 {} and lists them in order, filtered', async () => {
    const first = await postEvent(accept('dsp-1'), { 'idempotency-key': 'evt_a' });
    expect([first.status, first.body]).toEqual([200, {}]);
    await postEvent({ type: 'location.pause', location_id: 'store-1001', until_ms: Date.now() + 60_000 });
    await postEvent({
      type: 'location.order.notify_status_change',
      location_id: 'store-1001',
      order_id: 'dsp-1',
      order_status_update: 'ready_for_pickup',
    });
    await postEvent(accept('dsp-2'));
    const all = await dsp.control.events();
    expect(all.map((e) => [e.body.type, e.body.order_id])).toEqual([
      ['location.order.accept', 'dsp-1'],
      ['location.pause', undefined],
      ['location.order.notify_status_change', 'dsp-1'],
      ['location.order.accept', 'dsp-2'],
    ]);
    expect(all[0]).toEqual({ time: expect.any(String), idempotency_key: 'evt_a', body: accept('dsp-1') });
    expect((await dsp.control.events({ order_id: 'dsp-1' })).map((e) => e.body.type)).toEqual([
      'location.order.accept',
      'location.order.notify_status_change',
    ]);
    expect(
      (await dsp.control.events({ order_id: 'dsp-1', type: 'location.order.accept' })).map((e) => e.body),
    ).toEqual([accept('dsp-1')]);
    await dsp.control.clearEvents();
    expect(await dsp.control.events()).toEqual([]);
  });

  it('refuses events outside the contract or without its token, and records none of them', async () => {
    const bad = await postEvent({ type: 'location.order.accept', location_id: 'store-1001', order_id: 'x' });
    expect([bad.status, bad.body.error.code, bad.body.error.details[0].path]).toEqual([
      400,
      'validation_failed',
      'body.estimated_ready_at_ms',
    ]);
    const unknownType = await postEvent({ type: 'location.explode', location_id: 'store-1001' });
    expect(unknownType.status).toBe(400);
    const bare = await call('POST', `${dsp.url}/stream-dsp/v1/event`, { body: accept('dsp-3') });
    expect(bare.status).toBe(401);
    const posToken = await call('POST', `${dsp.url}/stream-dsp/v1/event`, {
      body: accept('dsp-3'),
      token: merchantToken('pos'),
    });
    expect(posToken.status).toBe(401);
    expect(await dsp.control.events()).toEqual([]);
  });

  it('dsp_event_failures makes the next n events answer 503, unrecorded', async () => {
    await dsp.control.switches({ dsp_event_failures: 2 });
    expect((await postEvent(accept('dsp-4'))).status).toBe(503);
    expect((await postEvent(accept('dsp-4'))).status).toBe(503);
    expect((await postEvent(accept('dsp-4'))).status).toBe(200);
    expect(await dsp.control.events()).toHaveLength(1);
    expect((await dsp.control.info()).switches.dsp_event_failures).toBe(0);
  });

  it('sends a shorthand new_order filled into a valid demo order, signed, and answers the platform', async () => {
    const answer = await dsp.control.send({ type: 'new_order', location_id: 'store-1001' });
    expect(answer).toEqual({
      status: 202,
      body: { event_id: 'evt_1', order_id: 'ord_1', status: 'received' },
      // What it sent, byte for byte: the order's own id is the order_id of the DSP events about it.
      sent: JSON.parse(platform.hits[0]!.raw),
    });
    await dsp.control.send({
      type: 'new_order',
      location_id: 'store-1002',
      order: { id: 'my-order', special_instructions: 'No onions' },
    });
    const [first, second] = platform.hits;
    expect(first).toMatchObject({ path: '/order/prt_dsp', signed: true });
    const one = DspWebhook.parse(first!.body);
    const two = DspWebhook.parse(second!.body);
    if (one.type !== 'new_order' || two.type !== 'new_order') throw new Error('not new orders');
    expect(one.location_id).toBe('store-1001');
    expect(two.order).toMatchObject({
      id: 'my-order',
      special_instructions: 'No onions',
      items: one.order.items,
    });
    expect((await dsp.control.send({ type: 'new_order', location_id: 'store-1001' })).status).toBe(202);
    expect(platform.hits[2]!.body.order.id).not.toBe(one.order.id);
  });

  it('fills a partial order naming its id and fulfillment type into a whole one, from the published menu', async () => {
    await publishMenu(dsp.url, 'store-1001');
    const ctx = { receivedAtMs: Date.now(), defaultSource: 'example-dsp' };
    for (const fulfillment_type of ['dine_in', 'stream_managed_delivery'] as const) {
      const { sent } = await dsp.control.send({
        type: 'new_order',
        location_id: 'store-1001',
        order: { id: `mine-${fulfillment_type}`, fulfillment_type },
      });
      const { order } = platform.hits.at(-1)!.body;
      expect(sent).toEqual(platform.hits.at(-1)!.body);
      expect(order).toMatchObject({ id: `mine-${fulfillment_type}`, fulfillment_type, subtotal: 450 });
      expect(order.items[0].id).toBe(
        EXAMPLE_MENU_FILE.menus[0]!.categories[0]!.items[0]!.variations[0]!.stream_id,
      );
      // Before, the menu's items made it "complete": sent without a customer (or an address), refused.
      expect(validateDspOrder(order, ctx)).toMatchObject({ ok: true });
    }
  });

  it('sends a whole webhook as given, and refuses one outside the contract without sending it', async () => {
    const cancel = {
      type: 'cancel_order',
      location_id: 'store-1001',
      order_id: 'dsp-9',
      cancel_reason: 'customer_requested',
      extra: 'kept',
    };
    await dsp.control.send(cancel);
    // Complete without the demo's customer_facing_id: sent without one, not filled in.
    const { customer_facing_id: _, ...order }: DspOrder = demoDspOrder({ id: 'whole-1' });
    await dsp.control.send({ type: 'new_order', location_id: 'store-1001', order });
    expect(platform.hits.map((h) => h.body)).toEqual([
      cancel,
      { type: 'new_order', location_id: 'store-1001', order },
    ]);
    const bad = await call('POST', `${dsp.url}/_sandbox/send`, {
      headers: basic,
      body: { type: 'refund_order', location_id: 'store-1001' },
    });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
    const noOrderId = await call('POST', `${dsp.url}/_sandbox/send`, {
      headers: basic,
      body: { type: 'cancel_order', location_id: 'store-1001' },
    });
    expect(noOrderId.body.error.details[0].path).toBe('body.order_id');
    expect(platform.hits).toHaveLength(2);
  });

  it('demoDspOrder keeps every business rule of the platform, with any id', () => {
    const ctx = { receivedAtMs: Date.now(), defaultSource: 'example-dsp' };
    const order = demoDspOrder();
    expect(validateDspOrder(order, ctx)).toMatchObject({ ok: true });
    expect(order.items.every((i) => Number.isInteger(i.price) && i.currency === 'usd')).toBe(true);
    expect(order.customers![0]!.phone).toMatch(/^\+[1-9]\d{7,14}$/);
    expect(demoDspOrder().id).not.toBe(order.id);
    expect(demoDspOrder({ id: 'x', fulfillment_type: 'dine_in' })).toMatchObject({
      id: 'x',
      fulfillment_type: 'dine_in',
    });
  });
});

// Each run starts node and tsx: a generous ceiling for a busy machine (no timing is asserted).
describe('stream-sandbox dsp send-order', { timeout: 120_000 }, () => {
  const bin = fileURLToPath(new URL('../bin/stream-sandbox.js', import.meta.url));
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, [bin, 'dsp', 'send-order', ...args]).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
  let platform: PlatformStub;
  let base: string[];
  /** A sandbox DSP that downloaded EXAMPLE_MENU_FILE for store-1001, and its control credentials as flags. */
  let menu: string[];
  beforeAll(async () => {
    platform = await startPlatform();
    base = ['--platform', platform.url, '--partner', 'prt_cli', '--secret', SECRET];
    const dsp = await startSim('dsp');
    await publishMenu(dsp.url, 'store-1001');
    menu = ['--dsp', dsp.url, '--client-id', client.client_id, '--client-secret', client.client_secret];
  });
  beforeEach(() => {
    platform.hits.length = 0;
    platform.answer = defaultAnswer;
  });

  it("orders from the store's published menu, as the DSP's /_sandbox/send does, and prints the answer as JSON", async () => {
    const res = await run([...base, ...menu, '--location', 'store-1001']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      status: 202,
      body: defaultAnswer({ path: '/order/' } as Hit).body,
      sent: JSON.parse(platform.hits[0]!.raw),
    });
    const file = join(mkdtempSync(join(tmpdir(), 'send-order-')), 'order.json');
    writeFileSync(file, JSON.stringify({ special_instructions: 'From the CLI' }));
    await run([...base, ...menu, '--location', 'store-1001', '--file', file, '--order-id', 'cli-1']);
    expect(platform.hits.map((h) => [h.path, h.signed])).toEqual([
      ['/order/prt_cli', true],
      ['/order/prt_cli', true],
    ]);
    // The ids a POS knows: the menu's stream_ids (first variation, first choice), never demo ids.
    const variation = EXAMPLE_MENU_FILE.menus[0]!.categories[0]!.items[0]!;
    const items = [
      {
        id: variation.variations[0]!.stream_id,
        item_id: variation.stream_id,
        price: 450,
        modifiers: [
          {
            id: variation.modifier_groups[0]!.modifiers[0]!.stream_id,
            modifier_group_id: variation.modifier_groups[0]!.stream_id,
          },
        ],
      },
    ];
    for (const hit of platform.hits) {
      expect(DspWebhook.parse(hit.body)).toMatchObject({
        type: 'new_order',
        order: { items, subtotal: 450 },
      });
    }
    expect(platform.hits[1]!.body.order).toMatchObject({ id: 'cli-1', special_instructions: 'From the CLI' });
    // Items given in --file are sent as given.
    writeFileSync(file, JSON.stringify({ id: 'cli-2', items: demoDspOrder().items }));
    expect((await run([...base, '--location', 'store-1002', '--file', file])).code).toBe(0);
    expect(platform.hits[2]!.body.order).toMatchObject({ id: 'cli-2', items: demoDspOrder().items });
  });

  it('sends no order without items it cannot fill from a published menu, saying why', async () => {
    const noCredentials = await run([...base, '--location', 'store-1001']);
    expect([noCredentials.code, noCredentials.stderr]).toEqual([
      2,
      expect.stringContaining('--client-id and --client-secret are required for an order without items'),
    ]);
    const noMenu = await run([...base, ...menu, '--location', 'store-1003']);
    expect([noMenu.code, noMenu.stderr]).toEqual([
      1,
      expect.stringMatching(/^stream-sandbox: The sandbox DSP at \S+ holds no menu .* for store store-1003/),
    ]);
    const wrongCredentials = await run([
      ...base,
      ...menu.slice(0, 4),
      '--client-secret',
      'wrong',
      '--location',
      'store-1001',
    ]);
    expect([wrongCredentials.code, wrongCredentials.stderr]).toEqual([
      1,
      expect.stringMatching(/^stream-sandbox: Could not read the menus of the sandbox DSP at .*401/),
    ]);
    expect(platform.hits).toEqual([]);
  });

  it('sends the other types from flags, a whole webhook from --file, and exits 1 on a refusal', async () => {
    await run([...base, '--location', 'store-1001', '--type', 'cancel_order', '--order-id', 'cli-1']);
    const file = join(mkdtempSync(join(tmpdir(), 'send-order-')), 'hook.json');
    const hook = {
      type: 'store_status_update',
      location_id: 'store-1003',
      status_update: { status: 'paused' },
    };
    writeFileSync(file, JSON.stringify(hook));
    platform.answer = () => ({ status: 401, body: { error: { code: 'signature_mismatch', message: 'no' } } });
    const refused = await run([...base, '--file', file]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      status: 401,
      body: { error: { code: 'signature_mismatch' } },
    });
    expect(platform.hits.map((h) => h.body)).toEqual([
      { type: 'cancel_order', location_id: 'store-1001', order_id: 'cli-1' },
      hook,
    ]);
  });

  it('says what is wrong in one line, without a stack: exit 2 for bad arguments, 1 for a port in use', async () => {
    const raw = (args: string[]) =>
      promisify(execFile)(process.execPath, [bin, ...args]).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => busy.close(resolve)));
    const cases: [string[], number, RegExp][] = [
      [
        [],
        2,
        /^stream-sandbox: No simulator: name one simulator: pos, dsp or events\. Run stream-sandbox --help/,
      ],
      [['till'], 2, /^stream-sandbox: Unknown simulator "till"/],
      [['dsp', 'send-order', '--bogus'], 2, /^stream-sandbox: Unknown option '--bogus'/],
      [
        ['pos', '--platform-url', 'localhost:8080'],
        2,
        /^stream-sandbox: --platform-url must be an http\(s\) URL/,
      ],
      [
        ['dsp', 'send-order', '--platform', 'nowhere', '--partner', 'p', '--secret', 's'],
        2,
        /--platform must be an http\(s\) URL/,
      ],
      [
        ['pos', '--port', String((busy.address() as AddressInfo).port)],
        1,
        /^stream-sandbox: listen EADDRINUSE/,
      ],
    ];
    for (const [args, code, line] of cases) {
      const res = await raw(args);
      expect([res.code, res.stderr.trimEnd().split('\n')]).toEqual([code, [expect.stringMatching(line)]]);
    }
  });

  it('exits 2 naming the flag or field on bad arguments, 1 naming an unreachable platform, sending nothing', async () => {
    const noLocation = await run(base);
    expect([noLocation.code, noLocation.stderr]).toEqual([
      2,
      expect.stringContaining('--location is required'),
    ]);
    const noOrder = await run([...base, '--location', 's', '--type', 'cancel_order']);
    expect(noOrder.stderr).toContain('--order-id is required for cancel_order');
    const badStatus = await run([
      ...base,
      ...[
        '--location',
        's',
        '--type',
        'delivery_status_update',
        '--order-id',
        'o',
        '--delivery-status',
        'lost',
      ],
    ]);
    expect([badStatus.code, badStatus.stderr]).toEqual([2, expect.stringContaining('body.delivery_status')]);
    expect(platform.hits).toEqual([]);
    const gone = await run([
      '--platform',
      'http://127.0.0.1:9',
      '--partner',
      'p',
      '--secret',
      's',
      '--location',
      's',
      '--type',
      'cancel_order',
      '--order-id',
      'o',
    ]);
    expect(gone.code).toBe(1);
    expect(gone.stderr.trim()).toMatch(
      /^stream-sandbox: The platform at http:\/\/127\.0\.0\.1:9\/order\/p did not answer/,
    );
  });
});
