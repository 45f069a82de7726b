import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  eventsReceiveEvent,
  PROVIDER_DELIVERY_STAGES,
  ProviderDriver,
  type EventProviderWebhook,
} from '@stream/contracts/apis/integrate-with-events/index';
import { verifySignature as check } from '@stream/contracts/server/signature';
import { SandboxError, check as checkInput, parse, route } from './http.ts';
import { WEBHOOK_PATHS, sendWebhook, type PlatformAnswer } from './send.ts';
import type { Sim } from './sim.ts';

/**
 * The simulated event provider: records each event it accepts with its signature verdict (a bad
 * signature is refused 401, as a real provider would, and shows in `/_sandbox/received`), and on
 * command sends the platform a driver assignment or a delivery status for an order it heard of.
 */
export function registerEvents(app: FastifyInstance, sim: Sim): void {
  route(app, eventsReceiveEvent, async (req, reply) => {
    const signature = verifySignature(sim, req);
    const { body } = parse(eventsReceiveEvent, req);
    if (sim.state.consume('event_failures')) {
      sim.note(req, 'failed_by_switch', true);
      throw new SandboxError(
        'internal_error',
        'Simulated outage (the sandbox event_failures switch).',
        undefined,
        503,
      );
    }
    sim.state.recordEvent({
      time: new Date().toISOString(),
      signature,
      body: body as Record<string, unknown>,
    });
    return reply.status(204).send();
  });
}

const PROBLEMS = {
  signature_missing: ['missing', 'The `X-Stream-Signature` header is absent.'],
  signature_malformed: ['malformed', 'The signature is not 64 hex characters.'],
  signature_mismatch: ['mismatch', 'The signature does not match an HMAC-SHA256 of the raw body.'],
} as const;

/**
 * `X-Stream-Signature`: hex HMAC-SHA256 of the raw body with the webhook secret, checked by the same
 * code as the platform's inbound webhook signatures. The outcome is noted on the received entry
 * (`valid`, `missing`, `malformed`, `mismatch`, or `unchecked` when the sandbox was given no secret);
 * a bad one answers 401 as a real provider would.
 */
export function verifySignature(sim: Sim, req: FastifyRequest): 'valid' | 'unchecked' {
  const secret = sim.opts.webhookSecret;
  if (!secret) {
    sim.note(req, 'signature', 'unchecked');
    return 'unchecked';
  }
  const problem = check(secret, req.rawBody ?? Buffer.alloc(0), req.headers['x-stream-signature']);
  if (problem) {
    const [note, message] = PROBLEMS[problem];
    sim.note(req, 'signature', note);
    throw new SandboxError(problem, message);
  }
  sim.note(req, 'signature', 'valid');
  return 'valid';
}

/** A driver for commands that name none. */
export const DEMO_DRIVER: ProviderDriver = { name: 'Sandy Driver', phone: { number: '+14155550188' } };

const Params = z.object({ id: z.string().min(1).max(200) });
const location_id = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .meta({ description: "Default: the location of the order's last event received." });
const DriverBody = z.object({ location_id, driver: ProviderDriver.optional() });
const StatusBody = z.object({ location_id, status: z.enum(PROVIDER_DELIVERY_STAGES) });

/**
 * `POST /_sandbox/orders/{id}/driver` and `/_sandbox/orders/{id}/delivery-status`: the provider's
 * webhooks for the order `id` (the `reference_id` of its events), signed, to the platform; each
 * answers what the platform answered.
 */
export function registerEventsControl(control: FastifyInstance, sim: Sim, prefix: string): void {
  const idOf = (params: unknown) => (checkInput(Params, params, 'params') as z.infer<typeof Params>).id;
  control.post(`${prefix}/orders/:id/driver`, async (req) => {
    const body = checkInput(DriverBody, req.body ?? {}, 'body') as z.infer<typeof DriverBody>;
    return sendProviderWebhook(sim, idOf(req.params), body.location_id, (ref) => ({
      type: 'order.assign.driver',
      object: { ...ref, driver: body.driver ?? DEMO_DRIVER },
    }));
  });
  control.post(`${prefix}/orders/:id/delivery-status`, async (req) => {
    const body = checkInput(StatusBody, req.body ?? {}, 'body') as z.infer<typeof StatusBody>;
    return sendProviderWebhook(sim, idOf(req.params), body.location_id, (ref) => ({
      type: 'order.update.delivery.status',
      object: { ...ref, status: body.status },
    }));
  });
}

/** Signs and sends the webhook `build` makes for the order, at its given or last heard location. */
async function sendProviderWebhook(
  sim: Sim,
  orderId: string,
  given: string | undefined,
  build: (ref: { order_id: string; location_id: string }) => EventProviderWebhook,
): Promise<PlatformAnswer> {
  const { url, secret, ref } = sim.platform();
  const heard = sim.state.listEvents({ order_id: orderId }).at(-1)?.body.location_id;
  const locationId = given ?? (typeof heard === 'string' ? heard : undefined);
  if (!locationId) {
    throw new SandboxError(
      'validation_failed',
      `The sandbox event provider heard of no order ${orderId}; name its location_id in the body.`,
    );
  }
  return sendWebhook(
    url,
    WEBHOOK_PATHS.events(ref),
    secret,
    build({ order_id: orderId, location_id: locationId }),
  );
}
