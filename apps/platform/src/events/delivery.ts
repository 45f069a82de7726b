import { z } from 'zod';
import { eventsReceiveEvent, OrderEvent } from '@stream/contracts/apis/integrate-with-events/index';
import type { OrderStatus } from '@stream/contracts/states';
import { callOperation } from '../connectors/call.ts';
import { recordOutcome } from '../jobs/circuit.ts';
import { defineDeadlineJobKind, PermanentJobError } from '../jobs/kinds.ts';
import type { OrderCall } from '../orders/calls.ts';
import { addGaveUp, type Order } from '../orders/records.ts';
import { findPartner, webhookSecretOf } from '../partners/service.ts';
import { eventOf, orderEventOf } from './order-event.ts';
import { recordUndelivered } from './subscriptions.ts';

/**
 * Order events out: one job per event and provider, to `POST {provider}/event` signed with
 * `X-Stream-Signature`. The events of one order to one provider share an ordering key, so a
 * provider never hears `order.updated` before the same order's `order.confirmed`, retries or not.
 * Any 2xx delivers; anything else is retried (1 s doubling to 5 min) for three days, and counts
 * against the provider's circuit (`jobs/circuit.ts`), which pauses its deliveries while it fails.
 * Given up, it is a `gave_up` entry on the order's timeline and the subscription's `last_undelivered`.
 */

export const EVENT_DELIVERY = {
  deadlineMs: 3 * 24 * 60 * 60_000,
  backoff: { baseMs: 1_000, maxMs: 5 * 60_000 },
};

const Payload = z.object({ provider_id: z.string(), event: OrderEvent });

export const eventDelivery = defineDeadlineJobKind<z.infer<typeof Payload>, void>(EVENT_DELIVERY, {
  kind: 'events.deliver',
  payload: Payload,
  async handle(job, ctx) {
    const provider = await findPartner(ctx.db, job.payload.provider_id);
    if (provider?.kind !== 'events') throw new PermanentJobError('The event provider no longer exists.');
    try {
      await callOperation(ctx, { partner: provider }, eventsReceiveEvent, {
        body: job.payload.event,
        job,
        sign: { secret: webhookSecretOf(ctx.config.encryptionKey, provider), header: 'X-Stream-Signature' },
      });
    } catch (err) {
      await recordOutcome(ctx.db, job, provider.id, err instanceof Error ? err.message : String(err));
      throw err;
    }
    await recordOutcome(ctx.db, job, provider.id, null);
  },
  // The provider is down, so it cannot be told: the order's timeline and the location's
  // subscription (which its merchant's partner reads) say which event it never got.
  async onDead(tx, job) {
    const { provider_id, event } = job.payload;
    const error = job.error.slice(0, 1000);
    await addGaveUp(tx, event.reference_id, {
      type: event.type,
      partnerId: provider_id,
      who: 'The event provider',
      error,
    });
    await recordUndelivered(tx, event.location_id, provider_id, {
      order_id: event.reference_id,
      type: event.type,
      error,
    });
  },
});

/**
 * The calls a move of `order` from `from` makes to `enabled` (see `moveOrder`: for a cancellation,
 * also the providers told of the order since disabled), and to the one delivering it even if the
 * location disabled it since: its driver must hear of a cancellation.
 */
export function eventCallsOf(
  order: Order,
  from: OrderStatus | null,
  enabled: readonly string[],
): OrderCall[] {
  const delivering = order.deliveryProviderId;
  const providers = delivering && !enabled.includes(delivering) ? [...enabled, delivering] : enabled;
  const kind = providers.length > 0 ? eventOf(order.status, from) : undefined;
  if (!kind) return [];
  const event = orderEventOf(order, kind);
  return providers.map((provider) => ({
    job: {
      kind: eventDelivery,
      payload: { provider_id: provider, event },
      partnerId: provider,
      orderingKey: `order:${order.id}:events:${provider}`,
    },
    sent: { type: kind.type, partnerId: provider, body: event },
  }));
}
