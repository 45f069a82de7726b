import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { dspReceiveEvent } from '@stream/contracts/apis/become-a-dsp/index';
import {
  LocationStatusUpdatedWebhook,
  OrderStatusUpdatedWebhook,
  posReceiveOrder,
  type PosOrder,
  type PosValidationError,
} from '@stream/contracts/apis/become-a-pos/index';
import { SandboxError, check, parse, route } from './http.ts';
import { WEBHOOK_PATHS, sendDspWebhook, sendSigned, type PlatformAnswer } from './send.ts';
import { DEMO_CATALOG } from './catalog.ts';
import { menuState, recalledMenus, receivePublish } from './menus.ts';
import { withMenuItems as fillFromMenu } from './menu-order.ts';
import type { Sim } from './sim.ts';
import type { HeldOrder, OrderBehavior } from './state.ts';

/**
 * Orders in the simulators: the POS's `POST /stream-pos/v1/orders` (answered as the
 * `order_behavior` switch says), the DSP's `POST /stream-dsp/v1/event` (recorded), and control
 * routes that send the platform what a POS or DSP would: signed webhooks.
 */

/** How long `timeout` holds an answer: longer than the platform waits for a POS. */
export const TIMEOUT_HOLD_MS = 20_000;

const REFUSALS: Partial<Record<OrderBehavior, (o: PosOrder) => PosValidationError['posValidation']>> = {
  reject_stock: (o) => ({
    stockValidation: [{ type: 'item', provider_id: o.line_items[0]?.provider_id ?? '', quantity: 0 }],
  }),
  reject_totals: (o) => ({
    orderTotalsValidation: [{ posTotal: o.subtotal + o.tax + 100, streamTotal: o.subtotal + o.tax }],
  }),
  reject_invalid_cart: () => ({
    orderValidation: [{ order_error: 'invalid_cart', order_error_reason: 'Sandbox: invalid cart.' }],
  }),
  reject_store_unavailable: () => ({ orderValidation: [{ order_error: 'store_unavailable' }] }),
  reject_pos_offline: () => ({ orderValidation: [{ order_error: 'pos_offline' }] }),
  reject_other: () => ({
    orderValidation: [{ order_error: 'other', order_error_reason: 'Sandbox: kitchen printer is jammed.' }],
  }),
};

/**
 * The lines of `order` the catalog the POS serves does not sell, as the stock refusal a POS answers for
 * them (none left): an item or a family (a family sold without items is its own variation) unknown by
 * `provider_id`, or a modifier, at any depth. The catalog may be any JSON (`PUT /_sandbox/catalog`).
 */
export function unknownLines(catalog: unknown, order: PosOrder): NonNullable<StockRefusal> {
  const idsOf = (kind: string) => {
    const list = (catalog as Record<string, unknown> | null)?.[kind];
    return new Set(
      (Array.isArray(list) ? list : []).map((o) => (o as { provider_id?: unknown } | null)?.provider_id),
    );
  };
  const items = new Set([...idsOf('item'), ...idsOf('item_family')]);
  const modifiers = idsOf('modifier');
  const out: NonNullable<StockRefusal> = [];
  const seen = new Set<string>();
  const add = (type: 'item' | 'modifier', provider_id: string) => {
    if (seen.has(`${type}:${provider_id}`)) return;
    seen.add(`${type}:${provider_id}`);
    out.push({ type, provider_id, quantity: 0 });
  };
  const walk = (list: PosOrder['line_items'][number]['modifiers']) => {
    for (const m of list ?? []) {
      if (!modifiers.has(m.provider_id)) add('modifier', m.provider_id);
      walk(m.modifiers);
    }
  };
  for (const line of order.line_items) {
    if (!items.has(line.provider_id)) add('item', line.provider_id);
    walk(line.modifiers);
  }
  return out;
}
type StockRefusal = PosValidationError['posValidation']['stockValidation'];

/** The POS's webhook `raw`, byte for byte, signed, to `POST /pos/{partnerRef}/webhook`. */
async function posWebhook(sim: Sim, raw: string | Buffer): Promise<PlatformAnswer> {
  const { url, secret, ref } = sim.platform();
  return sendSigned(url, WEBHOOK_PATHS.pos(ref), secret, raw);
}
const posJson = (sim: Sim, body: unknown) => posWebhook(sim, JSON.stringify(body));

/** What `PUT` and `DELETE /_sandbox/catalog` answer: the catalog now served, and what the platform was told. */
export interface CatalogChange {
  catalog: unknown;
  /** One `location.catalog.updated` per merchant: the platform's answer, or why there was none. */
  catalog_updated: ({ merchant_id: string } & (PlatformAnswer | { error: string }))[];
}

/**
 * `location.catalog.updated` for each merchant (`merchant_id`: the catalog is every location's), signed,
 * so the platform pulls the catalog and publishes the menus of the locations it has. A platform this
 * sandbox does not know or cannot reach is reported, not thrown: the catalog changed all the same.
 */
async function announceCatalog(sim: Sim): Promise<CatalogChange['catalog_updated']> {
  return Promise.all(
    sim.opts.accounts.map(async ({ id: merchant_id }) => {
      const body = { type: 'location.catalog.updated', object: { merchant_id } };
      try {
        return { merchant_id, ...(await posJson(sim, body)) };
      } catch (err) {
        return { merchant_id, error: (err as Error).message };
      }
    }),
  );
}

/** Waits `ms`, or less when the caller hangs up or the server closes; never rejects. */
async function hold(ms: number, reply: FastifyReply, closing: AbortSignal): Promise<void> {
  const gone = new AbortController();
  reply.raw.once('close', () => gone.abort());
  await delay(ms, undefined, { signal: AbortSignal.any([gone.signal, closing]) }).catch(() => undefined);
}

export function registerPosOrders(app: FastifyInstance, sim: Sim): void {
  const { state } = sim;
  let n = 0;
  // Held `timeout` answers end when the server closes, so closing never waits 20 s.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  /** Confirms an `accept_async` order as a POS would once the kitchen takes it. */
  const confirmLater = (held: HeldOrder) => {
    setTimeout(() => {
      if (held.canceled) return; // cancelled before the kitchen took it: nothing to confirm
      held.status = 'accepted';
      const body = { status: 'accepted', provider_id: held.provider_id, location_id: held.location_id };
      posJson(sim, { type: 'order.status.updated', object: body }).then(
        (answer) => (held.confirmation = answer),
        (err: Error) => (held.confirmation = { error: err.message }),
      );
    }, state.switches.order_confirm_ms).unref();
  };

  route(app, posReceiveOrder, async (req, reply) => {
    const account = sim.authenticate(req);
    const { body } = parse(posReceiveOrder, req);
    if (body.type !== 'order.created') {
      // Updates and cancellations are acknowledged whatever they name, as the contract asks.
      const held = state.findOrder(body.object.order_id);
      if (held && body.type === 'order.canceled') {
        held.canceled = true;
        held.status = 'canceled';
      } else if (held && body.type === 'order.updated') {
        held.status = body.object.status;
        if (body.object.delivery_status) held.delivery_status = body.object.delivery_status;
        held.last_update = body.object;
      }
      return {};
    }
    const order = body.object;
    const refuse = (posValidation: PosValidationError['posValidation']) =>
      reply.status(400).send({ posValidation });
    const location = account.locations.find((l) => l.provider_id === order.location_id);
    if (!location) {
      return refuse({
        orderValidation: [
          { order_error: 'store_unavailable', order_error_reason: `Unknown location ${order.location_id}.` },
        ],
      });
    }
    const known = state.findOrder(order.idempotency_key);
    if (known) {
      // A retry: the order it already made, answered as the first time.
      return known.status === 'awaiting_confirmation'
        ? { order: { provider_id: known.provider_id, async_acceptance: true } }
        : { order: { provider_id: known.provider_id, prep_time_minutes: location.prep_time_minutes } };
    }
    const behavior = state.switches.order_behavior;
    if (behavior === 'timeout') {
      await hold(TIMEOUT_HOLD_MS, reply, closing.signal);
      throw new SandboxError('internal_error', 'Simulated timeout (order_behavior timeout).', undefined, 504);
    }
    const failureRate = behavior === 'fail_30' ? 0.3 : state.switches.order_failure_rate;
    if (
      behavior === 'error_503' ||
      ((behavior === 'fail_rate' || behavior === 'fail_30') && Math.random() < failureRate)
    ) {
      throw new SandboxError(
        'internal_error',
        `Simulated outage (order_behavior ${behavior}).`,
        undefined,
        503,
      );
    }
    // A POS refuses what it does not sell, whatever the switch says: the DSP hears items_unavailable.
    const unknown = unknownLines(menuState(sim).catalog, order);
    if (unknown.length) return refuse({ stockValidation: unknown });
    const refusal = REFUSALS[behavior];
    if (refusal) return refuse(refusal(order));
    const held: HeldOrder = {
      provider_id: `sbx-ord-${++n}-${Date.now().toString(36)}`,
      idempotency_key: order.idempotency_key,
      location_id: order.location_id,
      status: behavior === 'accept_async' ? 'awaiting_confirmation' : 'accepted',
      received_at: new Date().toISOString(),
      canceled: false,
    };
    state.holdOrder(held);
    if (behavior === 'accept_async') {
      confirmLater(held);
      return { order: { provider_id: held.provider_id, async_acceptance: true } };
    }
    return { order: { provider_id: held.provider_id, prep_time_minutes: location.prep_time_minutes } };
  });
}

export function registerDspEvents(app: FastifyInstance, sim: Sim): void {
  route(app, dspReceiveEvent, async (req, reply) => {
    sim.authenticate(req);
    const { body } = parse(dspReceiveEvent, req);
    if (sim.state.consume('dsp_event_failures')) {
      sim.note(req, 'failed_by_switch', true);
      throw new SandboxError('internal_error', 'Simulated outage (dsp_event_failures).', undefined, 503);
    }
    if (body.type === 'location.publish') await receivePublish(sim, body, reply);
    const key = req.headers['idempotency-key'];
    sim.state.recordEvent({
      time: new Date().toISOString(),
      ...(typeof key === 'string' ? { idempotency_key: key } : {}),
      body: body as Record<string, unknown>,
    });
    return {};
  });
}

const OrderStatusBody = OrderStatusUpdatedWebhook.shape.object.pick({ status: true });
const LocationStatusBody = LocationStatusUpdatedWebhook.shape.object.omit({ location_id: true });
const Params = z.object({ id: z.string().min(1) });
const EventsQuery = z.object({ order_id: z.string().optional(), type: z.string().optional() });

/** Control routes that make the simulator send the platform a webhook (registered under the control auth). */
export function registerOrderControl(control: FastifyInstance, sim: Sim, prefix: string): void {
  const { state } = sim;
  const idOf = (params: unknown) => (check(Params, params, 'params') as z.infer<typeof Params>).id;
  if (sim.kind === 'pos') {
    control.get(`${prefix}/orders`, async () => ({ orders: state.listOrders() }));
    control.delete(`${prefix}/orders`, async (_req, reply) => {
      state.clearOrders();
      return reply.status(204).send();
    });
    control.post(`${prefix}/orders/:id/status`, async (req): Promise<PlatformAnswer> => {
      const id = idOf(req.params);
      const { status } = check(OrderStatusBody, req.body ?? {}, 'body') as z.infer<typeof OrderStatusBody>;
      const held = state.findOrder(id);
      if (!held) throw new SandboxError('not_found', `The sandbox POS holds no order ${id}.`);
      const object = { status, provider_id: held.provider_id, location_id: held.location_id };
      const answer = await posJson(sim, { type: 'order.status.updated', object });
      if (answer.status < 300) held.status = status;
      return answer;
    });
    control.post(`${prefix}/locations/:id/status`, async (req) => {
      const location_id = idOf(req.params);
      const body = check(LocationStatusBody, req.body ?? {}, 'body') as z.infer<typeof LocationStatusBody>;
      return posJson(sim, { type: 'location.status.updated', object: { location_id, ...body } });
    });
    control.post(`${prefix}/locations/:id/offline`, async (req) =>
      posJson(sim, { type: 'location.connection.offline', object: { location_id: idOf(req.params) } }),
    );
    // Any body, byte for byte: catalog webhooks, in-store orders, or something the platform should refuse.
    control.post(`${prefix}/webhook`, async (req) =>
      posWebhook(sim, req.rawBody ?? JSON.stringify(req.body ?? null)),
    );
  }
  {
    // What each simulator was told: DSP events, order events, menu outcomes (POS).
    control.get(`${prefix}/events`, async (req) => ({
      events: state.listEvents(check(EventsQuery, req.query, 'query') as z.infer<typeof EventsQuery>),
    }));
    control.delete(`${prefix}/events`, async (_req, reply) => {
      state.clearEvents();
      return reply.status(204).send();
    });
  }
  if (sim.kind === 'pos') {
    // The catalog the POS serves: replaced whole (any JSON: a broken one too), or back to the demo one;
    // either way the platform is told, as a real POS tells it, so the change reaches the menus.
    const changeCatalog = async (catalog: unknown): Promise<CatalogChange> => {
      menuState(sim).catalog = catalog;
      return { catalog, catalog_updated: await announceCatalog(sim) };
    };
    control.put(`${prefix}/catalog`, async (req) => changeCatalog(req.body ?? null));
    control.delete(`${prefix}/catalog`, async () => changeCatalog(structuredClone(DEMO_CATALOG)));
  }
  if (sim.kind === 'dsp') {
    control.get(`${prefix}/menus`, async () => ({ menus: [...(await recalledMenus(sim)).values()] }));
    control.post(`${prefix}/send`, async (req) => {
      const { url, secret, ref } = sim.platform();
      return sendDspWebhook(url, ref, secret, await withMenuItems(sim, req.body));
    });
  }
}

/** {@link fillFromMenu} with the menus this DSP simulator serves ({@link recalledMenus}). */
export const withMenuItems = async (sim: Sim, input: unknown): Promise<unknown> => {
  const menus = await recalledMenus(sim);
  return fillFromMenu(input, (storeId) => menus.get(storeId)?.menu_file);
};
