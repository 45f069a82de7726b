import { randomUUID } from 'node:crypto';
import {
  CancelOrderWebhook,
  DeliveryStatusUpdateWebhook,
  DspLocationList,
  NewOrderWebhook,
  StoreStatusUpdateWebhook,
  dspConnectLocation,
  dspGetLocationConnection,
  dspListLocations,
  dspReceiveEvent,
  type DspOrder,
} from '@stream/contracts/apis/become-a-dsp/index';
import { EXAMPLE_CATALOG, LocationConnection } from '@stream/contracts/apis/become-a-pos/index';
import { normalizeCatalog } from '../menus/catalog.ts';
import { resolve, toV1, toV2 } from '../menus/build.ts';
import { problemsMessage, validateDspOrder } from '../orders/validate.ts';
import type { Check, CheckRun } from './check.ts';
import { askForWebhook, oauthChecks, webhookCheck, type WebhookAsk } from './shared-checks.ts';
import { asClause } from '@stream/contracts/issue-sentences';

/** What a DSP must pass: the calls the platform makes to it, the menu files, and its webhooks. */

const STEPS = '/docs/become-a-stream-integration/integrate-with-stream-as-a-dsp/integration-steps';
const GUIDE = {
  oauth: `${STEPS}/merchant-onboarding`,
  locations: `${STEPS}/location-management`,
  orders: `${STEPS}/order-management`,
  fulfillment: `${STEPS}/order-management/order-fulfillment`,
  menus: `${STEPS}/menu-ingestion`,
};

const tokenOf = (t: CheckRun) => t.need('accessToken', 'dsp.oauth.token');
const storeOf = (t: CheckRun) => t.need('locationId', 'dsp.locations');
/**
 * The DSP's order of the run: the one its new_order named. Without one the check is skipped, naming
 * dsp.webhooks.new-order: production never sends an event about an order it does not have, and a DSP
 * may refuse one (404), which is no fault of its event endpoint.
 */
const orderOf = (t: CheckRun) => t.need('orderId', 'dsp.webhooks.new-order');
const STORE = { field: 'location_id', is: 'the first store of GET /stream-dsp/v1/locations' };
const ORDER = { field: 'order_id', is: 'the order.id of your new_order' };

/**
 * An event at `POST /stream-dsp/v1/event`, as production sends it (from a job): with an
 * `Idempotency-Key` header of its own, which the contract tells the DSP to drop repeats by.
 */
const postEvent = (t: CheckRun, body: unknown) =>
  t.call({
    method: 'POST',
    path: dspReceiveEvent.path,
    body,
    token: tokenOf(t),
    headers: { 'idempotency-key': `job_cert${randomUUID().replaceAll('-', '')}` },
  });

const connection = (t: CheckRun, method: 'POST' | 'DELETE') =>
  t.call({ method, path: dspConnectLocation.path, body: { location_id: storeOf(t) }, token: tokenOf(t) });

/** The menu file the platform would send for the catalog the docs show, in either form. */
function exampleMenuFile(form: 'v1' | 'v2') {
  const { catalog } = normalizeCatalog(EXAMPLE_CATALOG);
  const resolved = resolve(catalog, {
    locationId: 'loc_certification',
    posLocationId: 'loc-mission',
    platform: null,
    prepTimeMinutes: 20,
    maxModifierDepth: 3,
  });
  return form === 'v1' ? toV1(resolved) : toV2(resolved);
}

/** The events that end an order: each is sent about an order of its own (`freshOrder`). */
const ENDS_ORDER = new Set<string>([
  'fail',
  'cancel',
] satisfies (keyof typeof dspReceiveEvent.request.examples)[]);

const NEW_ORDER: Omit<WebhookAsk, 'why'> = {
  type: 'new_order',
  schema: NewOrderWebhook,
  names: { location_id: STORE },
};

/**
 * Another order of the DSP's, for an event that ends it: production never sends an event about an
 * order that has ended (failed, cancelled), and a DSP may refuse one (409), so each ending is tested on
 * an order nothing has ended yet. It must be new: an id the DSP sent before may be an ended order.
 */
async function freshOrder(t: CheckRun, ending: string): Promise<string> {
  const sent = t.need('orderIds', 'dsp.webhooks.new-order');
  const why = `The kit ${ending} that order: each event that ends an order is sent about an order of its own.`;
  const body = (await askForWebhook(t, { ...NEW_ORDER, why }, { location_id: storeOf(t) })) as {
    order: DspOrder;
  };
  const { id } = body.order;
  if (sent.includes(id)) {
    t.fail(
      `The new_order names order.id ${JSON.stringify(id)}, an order you sent before, which may have ended: ` +
        'send a new order, with an id of its own, each time the kit asks for one.',
    );
  }
  t.state.orderIds = [...sent, id];
  return id;
}

/** One check per event example of the contract: those that end an order, or the others (about the run's order). */
const eventChecks = (ending: boolean): Check[] =>
  Object.entries(dspReceiveEvent.request.examples)
    .filter(([name]) => ENDS_ORDER.has(name) === ending)
    .map(([name, example]) => ({
      id: `dsp.events.${name}`,
      title: `${example.value.type} is acknowledged`,
      guide: example.value.type.startsWith('location.order') ? GUIDE.fulfillment : GUIDE.locations,
      async run(t) {
        const order = ending ? await freshOrder(t, `sends ${example.value.type} about`) : orderOf(t);
        const body = {
          ...example.value,
          location_id: storeOf(t),
          ...('order_id' in example.value ? { order_id: order } : {}),
        };
        const answer = await postEvent(t, body);
        t.expect2xx(answer, `POST ${dspReceiveEvent.path} (${body.type})`);
      },
    }));

const menuCheck = (form: 'v1' | 'v2'): Check => ({
  id: `dsp.menu.${form}`,
  title: `A ${form} menu file is downloaded and accepted`,
  guide: GUIDE.menus,
  async run(t) {
    const menu = exampleMenuFile(form);
    const file = await t.ctx.inbox.serveFile(menu);
    const body = { type: 'location.publish', location_id: storeOf(t), download_url: file.url };
    const answer = await postEvent(t, body);
    t.expect2xx(answer, `POST ${dspReceiveEvent.path} (location.publish, ${form})`);
    const deadline = Date.now() + t.ctx.webhookWaitMs;
    while ((await file.downloads()) === 0) {
      if (Date.now() > deadline) {
        t.fail(`The menu file at ${file.url} was never downloaded: GET download_url after location.publish.`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    t.state.menuIds = [...(t.state.menuIds ?? []), ...streamIdsOf(menu)];
  },
});

/** Every `stream_id` in a menu file, of any kind. */
function streamIdsOf(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) streamIdsOf(v, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'stream_id' && typeof v === 'string') into.push(v);
      else streamIdsOf(v, into);
    }
  }
  return into;
}

type Named = { id: string; item_id?: string; modifier_group_id?: string; modifiers?: Named[] };

/** The ids an order names that the published menu does not have (production: pos_missing_items). */
function unknownIds(items: Named[], known: Set<string>): string[] {
  const out: string[] = [];
  const walk = (n: Named) => {
    for (const id of [n.id, n.item_id, n.modifier_group_id])
      if (id !== undefined && !known.has(id)) out.push(id);
    for (const m of n.modifiers ?? []) walk(m);
  };
  for (const item of items) walk(item);
  return out;
}

export function dspChecks(opts: { menuV2?: boolean } = {}): Check[] {
  const about = (t: CheckRun) => ({ location_id: storeOf(t), order_id: orderOf(t) });
  return [
    ...oauthChecks('dsp', GUIDE.oauth, dspListLocations.path),
    {
      id: 'dsp.locations',
      title: "The merchant's stores are listed",
      guide: GUIDE.locations,
      async run(t) {
        const answer = await t.call({ method: 'GET', path: dspListLocations.path, token: tokenOf(t) });
        t.expect2xx(answer, `GET ${dspListLocations.path}`);
        const { locations } = t.expectShape(DspLocationList, answer.json, 'The store list');
        const first = locations[0];
        if (!first) return t.fail('The test merchant must have at least one store.');
        t.state.locationId = first.provider_id;
      },
    },
    {
      id: 'dsp.connection.connect',
      title: 'A store is connected, and says so',
      guide: GUIDE.locations,
      async run(t) {
        t.expect2xx(await connection(t, 'POST'), `POST ${dspConnectLocation.path}`);
        const answer = await t.call({
          method: 'GET',
          path: dspGetLocationConnection.path,
          query: { location_id: storeOf(t) },
          token: tokenOf(t),
        });
        t.expect2xx(answer, `GET ${dspGetLocationConnection.path}`);
        const state = t.expectShape(LocationConnection, answer.json, 'The connection');
        if (!state.connected) t.fail('After POST, GET of the connection must answer connected: true.');
      },
    },
    // The menu first: the order must name its ids, as production maps them to the POS's.
    menuCheck('v1'),
    ...(opts.menuV2 ? [menuCheck('v2')] : []),
    webhookCheck({
      id: 'dsp.webhooks.new-order',
      title: 'new_order is sent, signed, and passes the order rules',
      guide: GUIDE.orders,
      ...NEW_ORDER,
      about: (t) => ({ location_id: storeOf(t) }),
      verify(t, body) {
        const { order } = body as { order: DspOrder };
        const checked = validateDspOrder(order, { receivedAtMs: Date.now(), defaultSource: 'example-dsp' });
        if (!checked.ok)
          t.fail(`The order breaks the order rules: ${asClause(problemsMessage(checked.problems))}.`);
        t.state.orderId = order.id;
        t.state.orderIds = [order.id];
        const menuIds = t.state.menuIds;
        if (!menuIds)
          return t.note('Its item ids were not checked: no menu file was downloaded (dsp.menu.v1).');
        const unknown = unknownIds(order.items as Named[], new Set(menuIds));
        if (unknown.length > 0) {
          t.fail(
            `The order names ${unknown.slice(0, 5).join(', ')}, which the menu file you downloaded does not have: ` +
              "name an item by its variation's stream_id (item_id: the item's, modifiers theirs). " +
              'Production fails such an order (pos_missing_items).',
          );
        }
      },
    }),
    ...eventChecks(false),
    // The run's order stays open until the DSP cancels it: production refuses a delivery status for
    // an ended order (409 invalid_transition), and a DSP may refuse a cancel_order for one.
    webhookCheck({
      id: 'dsp.webhooks.delivery-status',
      title: 'delivery_status_update is sent, signed',
      guide: GUIDE.fulfillment,
      type: 'delivery_status_update',
      schema: DeliveryStatusUpdateWebhook,
      names: { location_id: STORE, order_id: ORDER },
      about,
    }),
    webhookCheck({
      id: 'dsp.webhooks.cancel-order',
      title: 'cancel_order is sent, signed',
      guide: GUIDE.orders,
      type: 'cancel_order',
      schema: CancelOrderWebhook,
      names: { location_id: STORE, order_id: ORDER },
      about,
    }),
    // The kit's own endings, each about a new order of the DSP's.
    ...eventChecks(true),
    webhookCheck({
      id: 'dsp.webhooks.store-status',
      title: 'store_status_update is sent, signed',
      guide: GUIDE.locations,
      type: 'store_status_update',
      schema: StoreStatusUpdateWebhook,
      names: { location_id: STORE },
      about: (t) => ({ location_id: storeOf(t) }),
    }),
    {
      id: 'dsp.connection.disconnect',
      title: 'A store is disconnected',
      guide: GUIDE.locations,
      async run(t) {
        t.expect2xx(await connection(t, 'DELETE'), `DELETE ${dspConnectLocation.path}`);
      },
    },
  ];
}
