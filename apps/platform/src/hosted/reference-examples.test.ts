/**
 * The API references of the hosted APIs (/api/hr/menu, /api/hr/orders, /api/hr/stores) are generated
 * from the contracts' examples, and `npm start` seeds the demo company so that they work against it.
 * This replays every operation's request example against a platform seeded as `npm start` seeds it,
 * with a token got as README's "A first call" gets it, and checks that the answer is the documented
 * success status and the documented response example, field for field, but for the fields the
 * platform generates (GENERATED below).
 *
 * State an example needs and the demo lacks, made by another example first (never skipped):
 * getSystemConfiguration's message (patchSystemConfiguration's), getStoreEmail's id and its sent status
 * (sendStoreEmail's, written by the outbox as `npm start` does without SMTP_URL), the order of
 * getHostedOrder, getHostedOrderStatus, listHostedOrders, applyCreditCardPayment and cancelHostedOrder
 * (createOrder's; 4711 in the examples), cancelHostedOrderByReference's order placed with DoorDash
 * (createOrder's, again), and the out-of-stock garlic knots (patchMenu's). No example needs state that
 * no example makes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Operation } from '@stream/contracts/operation';
import { DEMO_COMPANY_ID, DEMO_STORE_ID } from '@stream/contracts/apis/hr-menu/demo';
import * as menuApi from '@stream/contracts/apis/hr-menu/index';
import * as orderApi from '@stream/contracts/apis/hr-orders/index';
import * as storeApi from '@stream/contracts/apis/hr-stores/index';
import { call, type TestResponse } from '../../test/http.ts';
import { startTestPlatform, type TestPlatform } from '../../test/platform.ts';
import { waitFor } from '../../test/wait.ts';
import { requestAccessToken } from '../auth/testing.ts';
import { grantCompany } from './companies.ts';

/**
 * The moment the examples are written at: the example order's `startTime` (a Tuesday, 17:41 in New
 * York), 49 minutes before its `deferDue`. Only `Date` is set to it (and runs on from there): an
 * order's `estimatedTime` is the later of `deferDue` and now plus the store's minutes, so on another
 * day the example's would not be the answer.
 */
const EXAMPLES_WRITTEN_AT = new Date('2026-12-01T22:41:07.000Z');

/**
 * Fields the platform generates (ids and the times it records), by their path in `data` (`*`: any
 * index or key): where the example shows a value (not null), the answer's is taken instead, also where
 * the example's message names it ("Order 4711 accepted"). Everything else must equal the example.
 */
const ORDER = [
  'id',
  'orderNumber',
  'startTime',
  'stages.*.startTime',
  'stages.*.endTime',
  'payments.*.paymentTime',
];
const GENERATED: Record<string, string[]> = {
  createMenu: ['id'],
  createOrder: ORDER,
  getHostedOrder: ORDER,
  applyCreditCardPayment: ORDER,
  listHostedOrders: ORDER.map((p) => `*.${p}`),
  getHostedOrderStatus: ['id'],
  cancelHostedOrder: ['id'],
  cancelHostedOrderByReference: ['id'],
  sendStoreEmail: ['*.id'],
  postStoreEmail: ['*.id'],
  getStoreEmail: ['id', 'messageId', 'sentAt'],
};

const OPERATIONS: Operation[] = [
  ...menuApi.HR_MENU_OPERATIONS,
  ...orderApi.HR_ORDER_OPERATIONS,
  ...storeApi.HR_STORE_OPERATIONS,
];

/**
 * What the references do not show: the headers and path parameters of an operation with a body (its
 * example is the body alone), and ids the platform generated (the example's 4711 is the order placed).
 */
interface Given {
  params?: Record<string, string | number>;
  headers?: Record<string, string>;
  /** The documented answer other than the success to check, with the body that makes it. */
  status?: number;
  body?: unknown;
}

let platform: TestPlatform;
let token: string;
const replayed = new Set<string>();

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(EXAMPLES_WRITTEN_AT);
  // The sandbox on, as `npm start` runs: the platform seeds the demo company itself.
  platform = await startTestPlatform({ sandbox: true });
  // README "A first call": a white-label partner, granted the demo company, asks for a token.
  const partner = await platform.partner({ kind: 'white_label', slug: 'acme', name: 'Acme Ordering' });
  await grantCompany(platform.app.ctx.db, DEMO_COMPANY_ID, partner.partner_id);
  token = (await requestAccessToken(platform.url, partner)).access_token;
});
afterAll(async () => {
  await platform?.stop();
  vi.useRealTimers();
});

const keysOf = (schema: unknown): string[] =>
  schema && typeof schema === 'object' && 'shape' in schema ? Object.keys(schema.shape as object) : [];

/** Sends the operation's request example, with what the reference leaves to the reader. */
async function send(op: Operation, given: Given = {}): Promise<TestResponse> {
  const request = op.request ?? {};
  const hasBody = request.body !== undefined;
  // With no body, the example holds the parameters (path, query, headers) by name.
  const named = (hasBody ? {} : (request.example ?? {})) as Record<string, string | number>;
  const pick = (names: string[]) =>
    Object.fromEntries(names.filter((n) => named[n] !== undefined).map((n) => [n, String(named[n])]));
  const params = { ...pick(keysOf(request.params)), ...given.params };
  const query = pick(keysOf(request.query));
  const headers = { ...pick(keysOf(request.headers)), ...given.headers };
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new Error(`${op.operationId}: no value for {${name}}`);
    return encodeURIComponent(String(params[name]));
  });
  const search = new URLSearchParams(query).toString();
  const res = await call(op.method, `${platform.url}${path}${search ? `?${search}` : ''}`, {
    token,
    headers,
    ...(hasBody ? { body: given.body ?? request.example } : {}),
  });
  replayed.add(op.operationId);
  return res;
}

/** The example's fields at `pattern` (`a.*.b`), with their parents, in `example` and `answer`. */
function* pairs(example: unknown, answer: unknown, pattern: string[]): Generator<[unknown, unknown]> {
  if (!pattern.length) return yield [example, answer];
  const [head, ...rest] = pattern;
  if (!example || typeof example !== 'object' || !answer || typeof answer !== 'object') return;
  const keys = head === '*' ? Object.keys(example) : [head!];
  for (const key of keys) {
    yield* pairs((example as never)[key], (answer as never)[key], rest);
  }
}

/** The documented answer, with the generated fields the platform answered. */
function expected(op: Operation, status: number, answer: { data?: unknown }): unknown {
  const doc = structuredClone(JSON.parse(JSON.stringify(op.responses[status]!.example))) as {
    data: unknown;
    message: string;
    messagesDetails: { message: string }[];
  };
  for (const path of GENERATED[op.operationId] ?? []) {
    const parts = path.split('.');
    const last = parts.pop()!;
    for (const [exampleParent, answerParent] of pairs(doc.data, answer.data, parts)) {
      if (!exampleParent || typeof exampleParent !== 'object' || !answerParent) continue;
      const was = (exampleParent as Record<string, unknown>)[last];
      const is = (answerParent as Record<string, unknown>)[last];
      if (was === undefined || was === null) continue; // a null (no end yet) must be null
      (exampleParent as Record<string, unknown>)[last] = is;
      if ((typeof was === 'string' || typeof was === 'number') && is !== undefined) {
        for (const said of [doc, ...doc.messagesDetails]) {
          said.message = said.message.replaceAll(String(was), String(is));
        }
      }
    }
  }
  return doc;
}

function successStatus(op: Operation): number {
  const statuses = Object.keys(op.responses)
    .map(Number)
    .filter((s) => s < 300);
  expect(statuses, `${op.operationId} documents one success`).toHaveLength(1);
  return statuses[0]!;
}

/** Replays the example and checks the answer against the documented one; answers the answer's data. */
async function replay(op: Operation, given: Given = {}) {
  const res = await send(op, given);
  const status = given.status ?? successStatus(op);
  expect(res.status, `${op.operationId}: ${res.text.slice(0, 500)}`).toBe(status);
  // Soft: one run shows every field that differs, in every operation of the sequence.
  expect.soft(res.body, op.operationId).toEqual(expected(op, status, res.body));
  return res.body.data;
}

const STORE = { 'x-store': String(DEMO_STORE_ID) };
/** The channel the order examples come through (cancelHostedOrderByReference's example names it). */
const ORDER_HEADERS = { ...STORE, 'x-service-type': 'DoorDash' };

describe('the Store API reference, replayed against the demo', () => {
  it('finds the demo stores and reads the store', async () => {
    await replay(storeApi.searchStores);
    await replay(storeApi.getStore);
    await replay(storeApi.getStoreServiceTypes);
    await replay(storeApi.listGeoFences);
    await replay(storeApi.getGatewayCredentials);
    await replay(storeApi.getDeliveryMetrics);
  });

  it("sets the system message, then reads it (the demo has none: the example's is the one set)", async () => {
    await replay(storeApi.patchSystemConfiguration, { params: { id: DEMO_STORE_ID } });
    await replay(storeApi.getSystemConfiguration);
  });

  it("reads the order types and an estimate, then changes Pickup's estimated time", async () => {
    await replay(storeApi.listStoreOrderTypes);
    await replay(storeApi.getStoreOrderType);
    await replay(storeApi.getEstimatedTime);
    await replay(storeApi.patchStoreOrderType, { params: { id: DEMO_STORE_ID, orderType: 'Pickup' } });
  });

  it("sends e-mail, and reads a message's outcome (the id is the one the send answered)", async () => {
    const [queued] = await replay(storeApi.sendStoreEmail, { params: { id: DEMO_STORE_ID } });
    await replay(storeApi.postStoreEmail, { params: { id: DEMO_STORE_ID } });
    // The example shows a sent message: without SMTP_URL (as `npm start`) the outbox writes it to a file.
    const outcome = () => send(storeApi.getStoreEmail, { params: { emailId: queued.id } });
    await waitFor(async () => (await outcome()).body.data?.status === 'sent', 20_000, 'the e-mail sent');
    await replay(storeApi.getStoreEmail, { params: { emailId: queued.id } });
  });
});

describe('the Order API reference, replayed against the demo', () => {
  it('prices, places, reads, lists, pays and cancels the example order', async () => {
    await replay(orderApi.priceOrder, { headers: ORDER_HEADERS });
    const placed = await replay(orderApi.createOrder, { headers: ORDER_HEADERS });
    const id = { params: { id: placed.id } };
    await replay(orderApi.getHostedOrder, id);
    await replay(orderApi.getHostedOrderStatus, id);
    await replay(orderApi.listHostedOrders);
    await replay(orderApi.applyCreditCardPayment, { ...id, headers: STORE });
    await replay(orderApi.cancelHostedOrder, id);
  });

  it('places the example order for 23:30, after Pickup closes: the documented 422 rejection', async () => {
    const body = orderApi.createOrder.request.example;
    await replay(orderApi.createOrder, {
      headers: ORDER_HEADERS,
      status: 422,
      body: { ...body, data: { ...body.data, deferDue: '2026-12-01T23:30:00-05:00' } },
    });
  });

  it('cancels the example order by its reference (placed again, as the newest with it)', async () => {
    await replay(orderApi.createOrder, { headers: ORDER_HEADERS });
    await replay(orderApi.cancelHostedOrderByReference);
  });
});

describe('the Menu API reference, replayed against the demo', () => {
  it('reads the menu, its discounts and what is out of stock', async () => {
    await replay(menuApi.getMenu);
    await replay(menuApi.listMenus);
    await replay(menuApi.listMenuDiscounts);
  });

  it('marks garlic knots out of stock, then lists what is out of stock', async () => {
    await replay(menuApi.patchMenu, { params: { menuName: 'Main' }, headers: STORE });
    await replay(menuApi.getMenuOutOfStock);
    await replay(menuApi.listOutOfStock);
  });

  it('creates a menu', async () => {
    await replay(menuApi.createMenu, { headers: STORE });
  });
});

it('replays every operation of the three hosted references', () => {
  expect([...replayed].sort()).toEqual(OPERATIONS.map((op) => op.operationId).sort());
});
