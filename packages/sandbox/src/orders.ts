import { createHmac } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DspWebhook, dspReceiveEvent } from '@stream/contracts/apis/become-a-dsp/index';
import {
  posReceiveOrder,
  type PosOrder,
  type PosValidationError,
} from '@stream/contracts/apis/become-a-pos/index';
import { SandboxError, check, parse, route } from './http.ts';
import type { Sim } from './sim.ts';
import type { OrderBehavior } from './state.ts';

/**
 * Orders in the simulators: the POS's `POST /stream-pos/v1/orders` (answered as the
 * `order_behavior` switch says), the DSP's `POST /stream-dsp/v1/event` (recorded), and control
 * routes that send the platform what a POS or DSP would: signed webhooks.
 */

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

/** Signs the exact bytes with the partner's webhook secret and posts them to the platform. */
export async function sendWebhook(
  platformUrl: string,
  path: string,
  secret: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const raw = JSON.stringify(body);
  const res = await fetch(`${platformUrl.replace(/\/$/, '')}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'stream-webhook-signature': createHmac('sha256', secret).update(raw).digest('hex'),
    },
    body: raw,
  });
  const text = await res.text();
  let parsed: unknown = text || null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: answer the text
  }
  return { status: res.status, body: parsed };
}

/** The simulator's own webhook to the platform, or 409 when it does not know where the platform is. */
function toPlatform(sim: Sim, path: (ref: string) => string, body: unknown) {
  const url = sim.opts.platformUrl();
  const secret = sim.opts.webhookSecret;
  const ref = sim.opts.partnerRef;
  if (!url || !secret || !ref) {
    throw new SandboxError(
      'conflict',
      'This sandbox does not know the platform (platformUrl, webhookSecret and partnerRef are needed to send webhooks).',
    );
  }
  return sendWebhook(url, path(ref), secret, body);
}

const posWebhook = (sim: Sim, body: unknown) => toPlatform(sim, (ref) => `/pos/${ref}/webhook`, body);

export function registerPosOrders(app: FastifyInstance, sim: Sim): void {
  const { state } = sim;
  let n = 0;
  route(app, posReceiveOrder, async (req, reply) => {
    const account = sim.authenticate(req);
    const { body } = parse(posReceiveOrder, req);
    if (body.type !== 'order.created') {
      const held = state.orders.get(body.object.order_id);
      if (held) {
        if (body.type === 'order.canceled') held.canceled = true;
        else held.last_update = body.object;
        held.status = body.type === 'order.canceled' ? 'canceled' : body.object.status;
      }
      return {};
    }
    const order = body.object;
    const refuse = (posValidation: PosValidationError['posValidation']) =>
      reply.status(400).send({ posValidation });
    if (!account.locations.some((l) => l.provider_id === order.location_id)) {
      return refuse({
        orderValidation: [
          { order_error: 'store_unavailable', order_error_reason: `Unknown location ${order.location_id}.` },
        ],
      });
    }
    const behavior = state.switches.order_behavior;
    const location = account.locations.find((l) => l.provider_id === order.location_id)!;
    const known = state.orders.get(order.idempotency_key);
    if (known)
      return { order: { provider_id: known.provider_id, prep_time_minutes: location.prep_time_minutes } };
    if (behavior === 'timeout') {
      await delay(20_000, undefined, { signal: AbortSignal.timeout(25_000) }).catch(() => undefined);
      throw new SandboxError('internal_error', 'Simulated timeout (order_behavior timeout).', undefined, 504);
    }
    if (behavior === 'error_503' || (behavior === 'fail_30' && Math.random() < 0.3)) {
      throw new SandboxError(
        'internal_error',
        `Simulated outage (order_behavior ${behavior}).`,
        undefined,
        503,
      );
    }
    const refusal = REFUSALS[behavior];
    if (refusal) return refuse(refusal(order));
    const provider_id = `sbx-ord-${++n}-${Date.now().toString(36)}`;
    state.orders.set(order.idempotency_key, {
      provider_id,
      idempotency_key: order.idempotency_key,
      location_id: order.location_id,
      status: behavior === 'accept_async' ? 'awaiting_confirmation' : 'accepted',
      received_at: new Date().toISOString(),
      canceled: false,
    });
    if (behavior === 'accept_async') {
      // Confirm after answering, as a real POS would once the kitchen takes it.
      setTimeout(() => {
        const held = state.orders.get(order.idempotency_key);
        if (held) held.status = 'accepted';
        posWebhook(sim, {
          type: 'order.status.updated',
          object: { status: 'accepted', provider_id, location_id: order.location_id },
        }).catch(() => undefined);
      }, state.switches.order_confirm_ms).unref();
      return { order: { provider_id, async_acceptance: true } };
    }
    return { order: { provider_id, prep_time_minutes: location.prep_time_minutes } };
  });
}

export function registerDspEvents(app: FastifyInstance, sim: Sim): void {
  route(app, dspReceiveEvent, async (req) => {
    sim.authenticate(req);
    parse(dspReceiveEvent, req);
    if (sim.state.consume('dsp_event_failures')) {
      sim.note(req, 'failed_by_switch', true);
      throw new SandboxError('internal_error', 'Simulated outage (dsp_event_failures).', undefined, 503);
    }
    return {};
  });
}

const StatusBody = z.object({ status: z.string() });
const LocationStatusBody = z.object({
  status: z.enum(['active', 'inactive']),
  paused_until: z.number().int().optional(),
});
const Params = z.object({ id: z.string().min(1) });

let demoOrders = 0;

/** A valid DSP order for the store, with `overrides` on top (a fresh id unless one is given). */
export function demoDspOrder(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `sbx-dsp-${Date.now().toString(36)}-${++demoOrders}`,
    customer_facing_id: String(1000 + demoOrders),
    customers: [{ id: 'sbx-customer', name: 'Sandy Box', email: 'sandy@example.com', phone: '+14155550123' }],
    items: [
      {
        id: 'sbx-taco',
        name: 'Carnitas taco',
        quantity: 2,
        price: 450,
        currency: 'usd',
        modifiers: [{ id: 'sbx-salsa', name: 'Extra salsa', quantity: 1, price: 50, currency: 'usd' }],
      },
    ],
    subtotal: 950,
    tax: 85,
    fulfillment_type: 'pickup',
    ...overrides,
  };
}

/** Control routes that make the simulator send the platform a webhook (registered under the control auth). */
export function registerOrderControl(control: FastifyInstance, sim: Sim, prefix: string): void {
  const { state } = sim;
  if (sim.kind === 'pos') {
    control.get(`${prefix}/orders`, async () => ({ orders: [...state.orders.values()] }));
    control.delete(`${prefix}/orders`, async (_req, reply) => {
      state.orders.clear();
      return reply.status(204).send();
    });
    control.post(`${prefix}/orders/:id/status`, async (req) => {
      const { id } = check(Params, req.params, 'params') as z.infer<typeof Params>;
      const { status } = check(StatusBody, req.body ?? {}, 'body') as z.infer<typeof StatusBody>;
      const held = [...state.orders.values()].find((o) => o.provider_id === id);
      if (!held) throw new SandboxError('not_found', `The sandbox POS holds no order ${id}.`);
      return posWebhook(sim, {
        type: 'order.status.updated',
        object: { status, provider_id: id, location_id: held.location_id },
      });
    });
    control.post(`${prefix}/locations/:id/status`, async (req) => {
      const { id } = check(Params, req.params, 'params') as z.infer<typeof Params>;
      const body = check(LocationStatusBody, req.body ?? {}, 'body') as z.infer<typeof LocationStatusBody>;
      return posWebhook(sim, { type: 'location.status.updated', object: { location_id: id, ...body } });
    });
    control.post(`${prefix}/locations/:id/offline`, async (req) => {
      const { id } = check(Params, req.params, 'params') as z.infer<typeof Params>;
      return posWebhook(sim, { type: 'location.connection.offline', object: { location_id: id } });
    });
    control.post(`${prefix}/webhook`, async (req) => posWebhook(sim, req.body));
  }
  if (sim.kind === 'dsp') {
    control.get(`${prefix}/events`, async (req) => {
      const { order_id, type } = req.query as { order_id?: string; type?: string };
      const events = state
        .listReceived({ method: 'POST', path: '/stream-dsp/v1/event' })
        .filter((r) => r.status < 300)
        .map((r) => ({ time: r.time, body: r.body as Record<string, unknown> }))
        .filter((e) => (!order_id || e.body.order_id === order_id) && (!type || e.body.type === type));
      return { events };
    });
    control.post(`${prefix}/send`, async (req) => {
      const given = (req.body ?? {}) as { type?: string; order?: Record<string, unknown> };
      // Shorthand: a new_order with a partial order is filled into a valid demo order.
      const body = given.type === 'new_order' ? { ...given, order: demoDspOrder(given.order) } : given;
      const webhook = check(DspWebhook, body, 'body');
      return toPlatform(sim, (ref) => `/order/${ref}`, webhook);
    });
  }
}
