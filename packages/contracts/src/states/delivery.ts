import { defineStateMachine, type StateOf } from './machine.ts';

const STAGES = ['enroute_to_pickup', 'arrived_at_pickup', 'enroute_to_dropoff', 'completed'] as const;
const BEFORE_PICKUP = ['driver_assigned', 'enroute_to_pickup', 'arrived_at_pickup'] as const;

/**
 * A delivery an event provider makes (platform.md sections 3 and 4: driver assignment and the four
 * event-provider delivery statuses). The spec shows no moves; these are the platform's: a delivery
 * only moves forward, may skip a stage (a provider's webhook can be lost), and may get another
 * driver until the order is picked up. Anything else is refused with 409 `invalid_transition`; the
 * status the delivery already has is accepted again and changes nothing.
 */
export const DELIVERY_STATES = defineStateMachine({
  name: 'delivery',
  schemaId: 'ProviderDeliveryStatus',
  summary: [
    'Where an event provider is with the delivery of an order: `unassigned` until it assigns a driver',
    '(`driver_assigned`; another driver may take over until pickup), then `enroute_to_pickup`,',
    '`arrived_at_pickup`, `enroute_to_dropoff` and `completed`, forward only, stages may be skipped.',
  ],
  initial: 'unassigned',
  states: {
    unassigned: 'No driver yet: the provider has been told about the order.',
    driver_assigned: 'The provider assigned a driver (`order.assign.driver`).',
    enroute_to_pickup: 'The driver is on the way to the restaurant.',
    arrived_at_pickup: 'The driver is at the restaurant.',
    enroute_to_dropoff: 'The driver picked the order up and is on the way to the customer.',
    completed: 'Delivered. Final.',
  },
  transitions: [
    { from: 'unassigned', to: 'driver_assigned', cause: 'order.assign.driver' },
    ...BEFORE_PICKUP.map((from) => ({
      from,
      to: 'driver_assigned' as const,
      cause: from === 'driver_assigned' ? 'another driver' : 'driver replaced',
    })),
    // Forward to every later stage, skipped ones or not (before the first stage, every stage is later).
    ...(['unassigned', ...BEFORE_PICKUP, 'enroute_to_dropoff'] as const).flatMap((from) =>
      STAGES.slice((STAGES as readonly string[]).indexOf(from) + 1).map((to) => ({ from, to, cause: to })),
    ),
  ],
});
export type ProviderDeliveryStatus = StateOf<typeof DELIVERY_STATES>;
