import type { FastifyInstance } from 'fastify';
import { CERTIFICATION_TRIGGER_PATH, CertificationTrigger } from '@stream/contracts/certification';
import { SandboxError, check } from './http.ts';
import { DEMO_DRIVER, verifySignature } from './events.ts';
import { withMenuItems } from './orders.ts';
import { dspWebhookFrom, sendWebhook } from './send.ts';
import type { Sim } from './sim.ts';

/**
 * The certification trigger (`POST /stream-certification/v1/webhooks`), as a partner's test build
 * would serve it: the simulator sends its signed webhook of `type` to `webhook_url` and answers 202
 * with what that URL answered. So the simulators pass their own certification unattended.
 */

type Build = (
  sim: Sim,
  t: CertificationTrigger,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

const need = (value: string | undefined, field: string, type: string): string => {
  if (value) return value;
  throw new SandboxError('validation_failed', `A ${type} webhook needs ${field} in the body.`);
};
const location = (t: CertificationTrigger) => need(t.location_id, 'location_id', t.type);
const order = (t: CertificationTrigger) => need(t.order_id, 'order_id', t.type);

const BUILDERS: Record<Sim['kind'], Record<string, Build>> = {
  pos: {
    // The status the kit asks for (`accepted` confirms an order taken with async_acceptance).
    'order.status.updated': (_sim, t) => ({
      type: t.type,
      object: { status: t.status ?? 'ready_for_pickup', provider_id: order(t), location_id: location(t) },
    }),
    'location.status.updated': (_sim, t) => ({
      type: t.type,
      object: { status: 'inactive', location_id: location(t), paused_until: Date.now() + 15 * 60_000 },
    }),
    'location.catalog.updated': (_sim, t) => ({ type: t.type, object: { location_id: location(t) } }),
    'location.catalog.object.updated': (_sim, t) => ({
      type: t.type,
      object: {
        location_id: location(t),
        object_id: 'taco-carnitas',
        object_type: 'item',
        object_update: { is_active: false },
      },
    }),
    'location.connection.offline': (_sim, t) => ({ type: t.type, object: { location_id: location(t) } }),
    'order.created': (_sim, t) => ({
      type: t.type,
      object: {
        location_id: location(t),
        provider_id: `sbx-instore-${Date.now()}`,
        line_items: [
          {
            provider_id: 'taco-carnitas',
            name: 'Carnitas taco',
            quantity: 1,
            price_amount: 450,
            price_currency: 'USD',
            modifiers: [],
          },
        ],
        subtotal: 450,
        tax: 39,
        placed_at: Date.now(),
      },
    }),
  },
  dsp: {
    new_order: async (sim, t) =>
      dspWebhookFrom(await withMenuItems(sim, { type: t.type, location_id: location(t) })),
    cancel_order: (_sim, t) => ({
      type: t.type,
      location_id: location(t),
      order_id: order(t),
      cancel_reason: 'customer_requested',
      cancel_source: 'customer',
    }),
    store_status_update: (_sim, t) => ({
      type: t.type,
      location_id: location(t),
      status_update: { status: 'paused', end_time: Date.now() + 15 * 60_000 },
    }),
    delivery_status_update: (_sim, t) => ({
      type: t.type,
      location_id: location(t),
      order_id: order(t),
      delivery_status: 'enroute_to_pickup',
    }),
  },
  events: {
    'order.assign.driver': (_sim, t) => ({
      type: t.type,
      object: { order_id: order(t), location_id: location(t), driver: DEMO_DRIVER },
    }),
    'order.update.delivery.status': (_sim, t) => ({
      type: t.type,
      object: { order_id: order(t), location_id: location(t), status: 'enroute_to_pickup' },
    }),
  },
};

export function registerCertificationTrigger(app: FastifyInstance, sim: Sim): void {
  app.post(CERTIFICATION_TRIGGER_PATH, async (req, reply) => {
    verifySignature(sim, req);
    const trigger = check(CertificationTrigger, req.body, 'body') as CertificationTrigger;
    const builders = BUILDERS[sim.kind];
    const build = Object.hasOwn(builders, trigger.type) ? builders[trigger.type] : undefined;
    if (!build) {
      throw new SandboxError(
        'validation_failed',
        `The sandbox ${sim.kind} sends no ${trigger.type} webhook; it sends ${Object.keys(builders).join(', ')}.`,
      );
    }
    const secret = sim.opts.webhookSecret;
    if (!secret) throw new SandboxError('conflict', 'This sandbox has no webhook secret to sign with.');
    const answer = await sendWebhook(trigger.webhook_url, '', secret, await build(sim, trigger));
    return reply.status(202).send({ sent: trigger.type, answer });
  });
}
