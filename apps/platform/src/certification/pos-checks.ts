import { randomUUID } from 'node:crypto';
import {
  PosLocationList,
  PosOrderAnswer,
  PosValidationError,
  posConnectLocation,
  posGetCatalog,
  posListLocations,
  posReceiveEvent,
  posReceiveOrder,
  type PosOrder,
} from '@stream/contracts/apis/become-a-pos/index';
import {
  CatalogObjectUpdatedWebhook,
  InStoreOrderCreatedWebhook,
  LocationCatalogUpdatedWebhook,
  LocationConnectionOfflineWebhook,
  LocationStatusUpdatedWebhook,
  OrderStatusUpdatedWebhook,
} from '@stream/contracts/apis/become-a-pos/webhooks';
import { MENU_LIMITS, resolve } from '../menus/build.ts';
import { normalizeCatalog } from '../menus/catalog.ts';
import { orderableItem } from './catalog-item.ts';
import type { Check, CheckRun } from './check.ts';
import { askForWebhook, oauthChecks, webhookCheck } from './shared-checks.ts';
import { asClause } from '@stream/contracts/issue-sentences';

/** What a POS must pass: the calls the platform makes to it, then the webhooks it sends back. */

const STEPS = '/docs/become-a-stream-integration/integrate-with-stream-as-a-pos/integration-steps';
const GUIDE = {
  oauth: `${STEPS}/merchant-onboarding`,
  locations: `${STEPS}/location-management`,
  catalog: `${STEPS}/catalog-management`,
  orders: `${STEPS}/order-management#answering`,
  updates: `${STEPS}/order-management#updates-and-cancellations`,
  webhooks: `${STEPS}/order-management/webhook-events`,
  inStore: `${STEPS}/order-management/in-store-orders`,
  menus: `${STEPS}/catalog-management`,
};

const examples = posReceiveOrder.request.examples;
const tokenOf = (t: CheckRun) => t.need('accessToken', 'pos.oauth.token');
const locationOf = (t: CheckRun) => t.need('locationId', 'pos.locations');
const AT_LOCATION = { field: 'object.location_id', is: 'the first location of GET /stream-pos/v1/locations' };

/** An order for the location, of the catalog item the run found, priced from the catalog. */
function orderFor(t: CheckRun, idempotencyKey: string, item = t.need('item', 'pos.catalog')): PosOrder {
  const example = examples.created.value.object as PosOrder;
  const subtotal = item.price * 2;
  return {
    ...example,
    location_id: locationOf(t),
    idempotency_key: idempotencyKey,
    source_order_id: `cert-${idempotencyKey.slice(-12)}`,
    line_items: [
      {
        provider_id: item.provider_id,
        ...(item.family_id !== undefined ? { item_family_provider_id: item.family_id } : {}),
        name: item.name,
        quantity: 2,
        price_amount: item.price,
        price_currency: item.currency,
        modifiers: [],
      },
    ],
    subtotal,
    tax: Math.round(subtotal * 0.08625),
    placed_at: Date.now(),
    requested_for: Date.now() + 30 * 60_000,
  };
}

/** As production: an `Idempotency-Key` header per order job, the same on every attempt of it. */
const sendOrder = (
  t: CheckRun,
  body: unknown,
  idempotencyKey = `job_cert${randomUUID().replaceAll('-', '')}`,
) =>
  t.call({
    method: 'POST',
    path: posReceiveOrder.path,
    body,
    token: tokenOf(t),
    headers: { 'idempotency-key': idempotencyKey },
  });

/** The POS's answer to `order.created`: its id of the order, and whether it confirms later. */
async function accepted(
  t: CheckRun,
  answer: Awaited<ReturnType<typeof sendOrder>>,
): Promise<{ provider_id: string; async: boolean }> {
  t.expect2xx(answer, `POST ${posReceiveOrder.path} (order.created)`);
  const { order } = t.expectShape(PosOrderAnswer, answer.json, 'The answer to order.created');
  if (!order) t.fail('Answer order.created with {order: {provider_id}} (or async_acceptance: true).');
  return { provider_id: order.provider_id, async: order.async_acceptance === true };
}

const ORDER_STATUS = {
  type: 'order.status.updated',
  schema: OrderStatusUpdatedWebhook,
  names: {
    order_id: { field: 'object.provider_id', is: 'the provider_id you answered to order.created' },
    location_id: AT_LOCATION,
  },
};

/** An order taken with async_acceptance fails in production unless `accepted` comes within 60 s. */
async function confirmed(t: CheckRun, provider_id: string): Promise<void> {
  const why =
    'You answered order.created with async_acceptance: true: production fails the order (confirmation_timeout) ' +
    'unless order.status.updated accepted comes within 60 s.';
  const body = (await askForWebhook(
    t,
    { ...ORDER_STATUS, why },
    { location_id: locationOf(t), order_id: provider_id, status: 'accepted' },
  )) as { object: { status: string } };
  if (body.object.status !== 'accepted') {
    t.fail(
      `The order.status.updated confirming order ${provider_id} carried status ${body.object.status}; it must carry accepted. ${why}`,
    );
  }
}

/** `order.updated` or `order.canceled` for the order of pos.orders.accept: any 2xx. */
const orderEvent = (kind: 'updated' | 'canceled'): Check => ({
  id: `pos.orders.${kind}`,
  title: `order.${kind} is acknowledged`,
  guide: GUIDE.updates,
  async run(t) {
    const provider_id = t.need('orderId', 'pos.orders.accept');
    const example = examples[kind].value;
    const object = {
      ...example.object,
      location_id: locationOf(t),
      order_id: t.need('referenceId', 'pos.orders.accept'),
      provider_id,
    };
    t.expect2xx(await sendOrder(t, { ...example, object }), `POST ${posReceiveOrder.path} (order.${kind})`);
  },
});

/** Connecting (PUT) or disconnecting (DELETE) the run's location: any 2xx. */
const connectionCheck = (method: 'PUT' | 'DELETE', id: string, title: string, section: string): Check => ({
  id,
  title,
  guide: `${GUIDE.locations}${section}`,
  async run(t) {
    const body = { location_id: locationOf(t) };
    const answer = await t.call({ method, path: posConnectLocation.path, body, token: tokenOf(t) });
    t.expect2xx(answer, `${method} ${posConnectLocation.path}`);
  },
});

export function posChecks(): Check[] {
  return [
    ...oauthChecks('pos', GUIDE.oauth, posListLocations.path),
    {
      id: 'pos.locations',
      title: "The merchant's locations are listed",
      guide: GUIDE.locations,
      async run(t) {
        const answer = await t.call({ method: 'GET', path: posListLocations.path, token: tokenOf(t) });
        t.expect2xx(answer, `GET ${posListLocations.path}`);
        const { locations } = t.expectShape(PosLocationList, answer.json, 'The location list');
        const first = locations[0];
        if (!first) return t.fail('The test merchant must have at least one location.');
        t.state.locationId = first.provider_id;
        t.state.prepTimeMinutes = first.prep_time_minutes ?? undefined;
        for (const l of locations) {
          if (!l.timezone) t.note(`Location ${l.provider_id} has no timezone: menus are scheduled in UTC.`);
        }
      },
    },
    {
      id: 'pos.catalog',
      title: 'The catalog follows the catalog rules',
      guide: GUIDE.catalog,
      async run(t) {
        const location = locationOf(t);
        const answer = await t.call({
          method: 'GET',
          path: posGetCatalog.path,
          token: tokenOf(t),
          // As production (menus/catalogs.ts): the account from the token answer, and the location.
          headers: {
            ...(t.state.merchantId ? { 'x-provider-merchant-id': t.state.merchantId } : {}),
            'x-provider-location-id': location,
          },
        });
        t.expect2xx(answer, `GET ${posGetCatalog.path}`);
        // Read as production reads it (menus/catalogs.ts): object by object, a null field absent, an
        // object it cannot read an error naming it, never the whole answer refused for one of them.
        const { catalog, problems } = normalizeCatalog(answer.json);
        const where = (p: (typeof problems)[number]) =>
          `${p.kind}${p.id ? ` ${p.id}` : ''}${p.field ? ` (${p.field})` : ''}: ${asClause(p.message)}`;
        for (const p of problems.filter((p) => p.severity === 'warning')) t.note(where(p));
        const errors = problems.filter((p) => p.severity === 'error');
        if (errors.length > 0) {
          t.fail(
            `The catalog has ${errors.length} error(s), each left out of menus: ${errors.slice(0, 5).map(where).join('; ')}.`,
          );
        }
        // A catalog that passes the rules can still be refused before any marketplace sees it (a menu
        // with no opening hours, none for this location): every publication of it would fail, so it fails here.
        const { rejections } = resolve(
          catalog,
          {
            locationId: 'loc_certification',
            posLocationId: location,
            platform: null,
            prepTimeMinutes: t.state.prepTimeMinutes ?? 0,
            maxModifierDepth: MENU_LIMITS.maxModifierDepth,
          },
          problems,
        );
        if (rejections.length > 0) {
          t.fail(
            `Every menu publication of this catalog would fail, before any marketplace sees it: ${rejections
              .map((r) => `${r.code}: ${r.reason}`)
              .join('; ')}`,
          );
        }
        t.state.item = orderableItem(catalog);
        if (!t.state.item) {
          t.fail(
            'The catalog must hold at least one active item with a price (or a priced item_family without items), for the order checks.',
          );
        }
      },
    },
    connectionCheck('PUT', 'pos.connection.connect', 'A location is connected', '#connecting-a-location'),
    {
      id: 'pos.orders.accept',
      title: 'A new order is accepted with your id of it',
      guide: GUIDE.orders,
      async run(t) {
        const key = `ord_cert_${randomUUID().replaceAll('-', '')}`;
        const order = orderFor(t, key);
        const job = `job_cert${randomUUID().replaceAll('-', '')}`;
        const answer = await sendOrder(t, { type: 'order.created', object: order }, job);
        const first = await accepted(t, answer);
        t.state.orderId = first.provider_id;
        t.state.referenceId = key;
        if (first.async) await confirmed(t, first.provider_id);
        // The same idempotency key again (a retry after a lost answer) must be the same order.
        const again = await sendOrder(t, { type: 'order.created', object: order }, job);
        const second = (await accepted(t, again)).provider_id;
        if (second !== t.state.orderId) {
          t.fail(
            `A retry with the same idempotency_key and Idempotency-Key header made a second order (${second}, first ${t.state.orderId}): ` +
              'answer a repeated key with the order you already made.',
          );
        }
      },
    },
    {
      id: 'pos.orders.reject',
      title: 'An order naming an unknown item is refused with posValidation',
      guide: GUIDE.orders,
      required: false,
      async run(t) {
        const item = {
          ...t.need('item', 'pos.catalog'),
          provider_id: 'cert-unknown-item',
          name: 'Unknown item',
        };
        const answer = await sendOrder(t, {
          type: 'order.created',
          object: orderFor(t, `ord_cert_${randomUUID()}`, item),
        });
        if (answer.status !== 400) {
          t.fail(
            `An order for item cert-unknown-item must be refused with 400 and a posValidation body; it answered ${answer.status}.`,
          );
        }
        t.expectShape(PosValidationError, answer.json, 'The refusal');
      },
    },
    orderEvent('updated'),
    {
      id: 'pos.events.publish',
      title: 'Menu publication outcomes are acknowledged',
      guide: GUIDE.menus,
      async run(t) {
        const data = {
          source: 'doordash',
          dsp_provider_location_id: 'cert-store',
          menu_id: `mpub_cert${Date.now()}`,
          location_id: locationOf(t),
        };
        const bodies = [
          { type: 'menu.publish_success', data: { ...data, status: 'success' }, created_at: Date.now() },
          {
            ...posReceiveEvent.request.example,
            data: { ...posReceiveEvent.request.example.data, ...data },
            created_at: Date.now(),
          },
        ];
        for (const body of bodies) {
          const answer = await t.call({
            method: 'POST',
            path: posReceiveEvent.path,
            body,
            token: tokenOf(t),
          });
          t.expect2xx(answer, `POST ${posReceiveEvent.path} (${body.type})`);
        }
      },
    },
    webhookCheck({
      id: 'pos.webhooks.order-status',
      title: 'order.status.updated is sent, signed',
      guide: GUIDE.webhooks,
      ...ORDER_STATUS,
      about: (t) => ({ location_id: locationOf(t), order_id: t.need('orderId', 'pos.orders.accept') }),
    }),
    // Cancelled only now: production refuses a status for a cancelled order (409 invalid_transition).
    orderEvent('canceled'),
    webhookCheck({
      id: 'pos.webhooks.location-status',
      title: 'location.status.updated is sent, signed',
      guide: GUIDE.webhooks,
      type: 'location.status.updated',
      schema: LocationStatusUpdatedWebhook,
      names: { location_id: AT_LOCATION },
      about: (t) => ({ location_id: locationOf(t) }),
    }),
    webhookCheck({
      id: 'pos.webhooks.catalog-updated',
      title: 'location.catalog.updated is sent, signed',
      guide: GUIDE.webhooks,
      type: 'location.catalog.updated',
      schema: LocationCatalogUpdatedWebhook,
      names: { location_id: AT_LOCATION },
      about: (t) => ({ location_id: locationOf(t) }),
    }),
    webhookCheck({
      id: 'pos.webhooks.catalog-object',
      title: 'location.catalog.object.updated is sent, signed',
      guide: GUIDE.webhooks,
      type: 'location.catalog.object.updated',
      schema: CatalogObjectUpdatedWebhook,
      names: { location_id: AT_LOCATION },
      required: false,
      about: (t) => ({ location_id: locationOf(t) }),
    }),
    webhookCheck({
      id: 'pos.webhooks.offline',
      title: 'location.connection.offline is sent, signed',
      guide: GUIDE.webhooks,
      type: 'location.connection.offline',
      schema: LocationConnectionOfflineWebhook,
      names: { location_id: AT_LOCATION },
      required: false,
      about: (t) => ({ location_id: locationOf(t) }),
    }),
    webhookCheck({
      id: 'pos.webhooks.in-store-order',
      title: 'An in-store order is sent, signed',
      guide: GUIDE.inStore,
      type: 'order.created',
      schema: InStoreOrderCreatedWebhook,
      names: { location_id: AT_LOCATION },
      required: false,
      about: (t) => ({ location_id: locationOf(t) }),
    }),
    connectionCheck(
      'DELETE',
      'pos.connection.disconnect',
      'A location is disconnected',
      '#disconnecting-a-location',
    ),
  ];
}
