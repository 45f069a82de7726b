/**
 * Test aids for order routing: a platform with a POS and a DSP written from the contract (plain
 * node:http, not the sandbox), onboarded and bound, and helpers to post signed webhooks. Not used
 * by the platform.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { call, type TestResponse } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { waitFor } from '../../test/wait.ts';
import { requestAccessToken } from '../auth/testing.ts';
import { rowsOf } from '../db/sql.ts';
import { CONNECTION_BACKOFF } from '../onboarding/connection-jobs.ts';
import type { PartnerCredentials } from '../partners/service.ts';
import { ORDER_DELIVERY, POS_UPDATE_DELIVERY } from './calls.ts';

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The body's bytes as they came (UTF-8). */
  raw: string;
  at: number;
}

/**
 * What the fake partner answers a call with: a status and JSON body, no answer at all (`hang`), or
 * the connection closed once the request is read (`drop`: it may have acted on it, nobody knows).
 */
export type Answer =
  | {
      status: number;
      body?: unknown;
      headers?: Record<string, string>;
      /** answer this late */ delayMs?: number;
    }
  | 'hang'
  | 'drop';

export interface FakePartner {
  url: string;
  received: Received[];
  /** Answers `POST /stream-pos/v1/orders` (POS) or `/stream-dsp/v1/event` (DSP); default 200. */
  answer: (body: Record<string, unknown>, n: number) => Answer;
  /** The provider ids of the locations it lists (`loc-1`, `loc-2` or `store-1`, `store-2` at first). */
  locations: string[];
  /** The `prep_time_minutes` each listed location has (default 15). */
  prepTimeMinutes: number;
  /** A listed location's name when not its id. */
  names: Record<string, string>;
  /** Answers the location connection calls (default 204). */
  connection: (body: Record<string, unknown>) => Answer;
  /** POS: answers `POST /stream-pos/v1/events`, the menu outcomes (default 204). */
  events: (body: Record<string, unknown>) => Answer;
  /** POS: what `GET /stream-pos/v1/catalog` answers (default: an empty catalog), in a 200 unless `catalogAnswer`. */
  catalog: unknown;
  catalogAnswer?: Answer;
  server: Server;
  ofPath(path: string): Received[];
}

/** A POS or DSP as a partner might build it: OAuth, locations, connection, orders or events. */
async function fakePartner(type: 'pos' | 'dsp'): Promise<FakePartner> {
  const p: FakePartner = {
    url: '',
    received: [],
    answer: () => ({ status: 200, body: {} }),
    locations: type === 'pos' ? ['loc-1', 'loc-2'] : ['store-1', 'store-2'],
    prepTimeMinutes: 15,
    names: {},
    connection: () => ({ status: 204 }),
    events: () => ({ status: 204 }),
    catalog: {},
    server: null!,
    ofPath: (path) => p.received.filter((r) => r.path === path),
  };
  let calls = 0;
  p.server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      p.received.push({ path, headers: req.headers, body, raw, at: Date.now() });
      const send = (a: Answer): void => {
        if (a === 'hang') return; // the platform's timeout ends it
        if (a === 'drop') return void req.socket.destroy();
        if (a.delayMs) return void setTimeout(() => send({ ...a, delayMs: 0 }), a.delayMs);
        if (a.body === undefined) {
          res.writeHead(a.status, a.headers);
          res.end();
          return;
        }
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
        res.end(JSON.stringify(a.body));
      };
      if (path === `/stream-${type}/v1/token`) {
        return send({
          status: 200,
          body: {
            access_token: `at_${type}`,
            refresh_token: `rt_${type}`,
            expire_time: Date.now() + 3_600_000,
            id: `merchant-${type}`,
          },
        });
      }
      if (path === `/stream-${type}/v1/locations`) {
        return send({
          status: 200,
          body: {
            locations: p.locations.map((id) => ({
              provider_id: id,
              name: p.names[id] ?? id,
              prep_time_minutes: p.prepTimeMinutes,
            })),
          },
        });
      }
      if (path.endsWith('/connection')) return send(p.connection(body));
      if (path === '/stream-pos/v1/catalog') return send(p.catalogAnswer ?? { status: 200, body: p.catalog });
      if (path === '/stream-pos/v1/events') return send(p.events(body));
      if (path === '/stream-pos/v1/orders' || path === '/stream-dsp/v1/event')
        return send(p.answer(body, ++calls));
      send({ status: 404, body: {} });
    });
  });
  await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
  p.url = `http://127.0.0.1:${(p.server.address() as AddressInfo).port}`;
  return p;
}

export interface OrderWorld {
  platform: TestPlatform;
  url: string;
  pos: FakePartner;
  dsp: FakePartner;
  posPartner: PartnerCredentials;
  dspPartner: PartnerCredentials;
  /** The white-label partner's token, its org, and the bound pair. */
  token: string;
  orgId: string;
  locationId: string;
  posLocation: string;
  store: string;
  /** The onboarding ids of the POS and DSP integrations (to ingest and bind more locations). */
  onboardings: { pos: string; dsp: string };
  stop(): Promise<void>;
}

let worlds = 0;

/** A platform with a fake POS location `loc-1` bound to the fake DSP's `store-1`, APPROVED. */
export async function startOrderWorld(
  overrides: Parameters<typeof startTestPlatform>[0] = {},
): Promise<OrderWorld> {
  Object.assign(CONNECTION_BACKOFF, { baseMs: 10, maxMs: 40 });
  Object.assign(ORDER_DELIVERY, { deadlineMs: 120_000, backoff: { baseMs: 50, maxMs: 200 } });
  Object.assign(POS_UPDATE_DELIVERY.backoff, { baseMs: 50, maxMs: 200 });
  const platform = await startTestPlatform(overrides);
  const [pos, dsp] = [await fakePartner('pos'), await fakePartner('dsp')];
  const n = ++worlds;
  const register = (type: 'pos' | 'dsp', p: FakePartner) =>
    platform.partner({
      kind: type,
      slug: `fake-${type}-${n}-${Date.now()}`,
      name: `Fake ${type}`,
      baseUrl: p.url,
      oauthClientId: `platform-${type}`,
      oauthClientSecret: `secret-${type}`,
    });
  const posPartner = await register('pos', pos);
  const dspPartner = await register('dsp', dsp);
  const wl = await platform.partner();
  const { access_token: token } = await requestAccessToken(platform.url, wl);
  const api = (method: string, path: string, body?: unknown) =>
    call(method, `${platform.url}${path}`, { token, body });
  const org = await api('POST', '/onboarding/org', {
    name: 'Tacos',
    provider_id: `org-${n}`,
    user: { email: 'o@example.com', first_name: 'O', last_name: 'W' },
  });
  expect(org.status, org.text).toBe(201);
  const orgId = org.body.org_id as string;
  const integration = async (type: 'pos' | 'dsp', slug: string) => {
    const created = await api('POST', '/onboarding/integrations', {
      org_id: orgId,
      source: slug,
      type,
      return_url: 'https://partner.example/done',
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.onboarding._id as string;
    const put = await api('PUT', `/onboarding/integrations/${id}`, { code: 'code' });
    expect(put.status, put.text).toBe(200);
    return id;
  };
  const posInt = await integration('pos', posPartner.slug);
  const dspInt = await integration('dsp', dspPartner.slug);
  const ingested = await api('POST', '/onboarding/locations/ingest', {
    onboarding_id: posInt,
    locations: [{ provider_id: 'loc-1' }],
  });
  expect(ingested.status, ingested.text).toBe(200);
  const locationId = ingested.body.locations[0]._id as string;
  const bound = await api('POST', '/onboarding/locations/bind', {
    onboarding_id: dspInt,
    locations: [{ pos_location_id: locationId, dsp_provider_id: 'store-1', dsp_store_name: 'Store 1' }],
  });
  expect(bound.status, bound.text).toBe(200);
  await waitFor(
    async () => {
      const res = await api('GET', `/onboarding/org/${orgId}/locations?location_id=${locationId}`);
      return res.body.locations?.[0]?.dsps?.[0]?.status === 'APPROVED' || undefined;
    },
    20_000,
    'binding APPROVED',
  );
  return {
    platform,
    url: platform.url,
    pos,
    dsp,
    posPartner,
    dspPartner,
    token,
    orgId,
    locationId,
    posLocation: 'loc-1',
    store: 'store-1',
    onboardings: { pos: posInt, dsp: dspInt },
    stop: async () => {
      await platform.stop();
      for (const p of [pos, dsp]) {
        p.server.closeAllConnections();
        await new Promise((r) => p.server.close(r));
      }
    },
  };
}

export const sign = (secret: string, raw: string) => createHmac('sha256', secret).update(raw).digest('hex');

/** Posts a webhook as the partner: the exact bytes, signed. */
export function postSigned(url: string, secret: string, body: unknown): Promise<TestResponse> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return call('POST', url, { body: raw, headers: { 'stream-webhook-signature': sign(secret, raw) } });
}

export const postDsp = (w: OrderWorld, body: unknown) =>
  postSigned(`${w.url}/order/${w.dspPartner.partner_id}`, w.dspPartner.webhook_secret, body);
export const postPos = (w: OrderWorld, body: unknown) =>
  postSigned(`${w.url}/pos/${w.posPartner.slug}/webhook`, w.posPartner.webhook_secret, body);

let orderNo = 0;

/** A valid pickup order for the world's store; `overrides` replace top-level order fields. */
export function newOrder(w: OrderWorld, overrides: Record<string, unknown> = {}) {
  return {
    type: 'new_order',
    location_id: w.store,
    order: {
      id: `dsp-${Date.now()}-${++orderNo}`,
      customer_facing_id: String(orderNo),
      customers: [{ id: 'c1', name: 'Ada', email: 'ada@example.com', phone: '+14155550123' }],
      items: [
        {
          id: 'var-1',
          item_id: 'item-1',
          name: 'Taco',
          quantity: 2,
          price: 450,
          currency: 'usd',
          modifiers: [{ id: 'mod-1', name: 'Salsa', quantity: 1, price: 50, currency: 'usd' }],
        },
      ],
      subtotal: 950,
      tax: 85,
      fulfillment_type: 'pickup',
      ...overrides,
    },
  };
}

/** The events the fake DSP received about one of its orders, by type. */
export const dspEvents = (w: OrderWorld, dspOrderId: string) =>
  w.dsp
    .ofPath('/stream-dsp/v1/event')
    .filter((r) => (r.body as { order_id?: string }).order_id === dspOrderId);

export const posCalls = (w: OrderWorld, orderId: string) =>
  w.pos.ofPath('/stream-pos/v1/orders').filter((r) => {
    const o = (r.body as { object?: { idempotency_key?: string; order_id?: string } }).object;
    return o?.idempotency_key === orderId || o?.order_id === orderId;
  });

/** Waits for the DSP to have received an event of `type` about the order. */
export function dspEvent(w: OrderWorld, dspOrderId: string, type: string, ms = 20_000) {
  return waitFor(
    () => dspEvents(w, dspOrderId).find((r) => (r.body as { type: string }).type === type),
    ms,
    `${type} for ${dspOrderId}`,
  );
}

export async function orderRow(w: OrderWorld, orderId: string) {
  const rows = rowsOf<Record<string, unknown>>(
    await w.platform.app.ctx.db.execute(sql`select * from orders where id = ${orderId}`),
  );
  return rows[0];
}

export function waitForStatus(w: OrderWorld, orderId: string, status: string, ms = 20_000) {
  return waitFor(
    async () => {
      const row = await orderRow(w, orderId);
      return row?.status === status ? row : undefined;
    },
    ms,
    `order ${orderId} ${status}`,
  );
}

/**
 * Moves the outbox's clock: every pending job due within `ms` becomes due now. A job still running
 * (a partner's 503 answered, its retry not yet scheduled) is waited for first, or its retry would be
 * scheduled after the move; on a busy machine that window is wide.
 */
export async function moveClock(w: OrderWorld, ms: number): Promise<void> {
  const running = async () =>
    rowsOf<{ n: number }>(
      await w.platform.app.ctx.db.execute(sql`select count(*)::int as n from jobs where status = 'running'`),
    )[0]!.n;
  await waitFor(
    async () => (await running()) === 0,
    20_000,
    'the running jobs to finish before moving the clock',
  );
  await w.platform.app.ctx.db.execute(
    sql`update jobs set run_at = run_at - ${ms} * interval '1 millisecond', deadline_at = deadline_at - ${ms} * interval '1 millisecond' where status = 'pending'`,
  );
  await w.platform.app.ctx.db.execute(sql`notify jobs_due`);
}
