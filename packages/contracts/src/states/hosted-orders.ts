import { defineStateMachine, type StateOf } from './machine.ts';

/**
 * An order placed through the hosted Order API (restaurant-apis.md section 4). The spec lists the
 * statuses and not the moves; these are the platform's. A move that does not fit is 422
 * `order_status_unprocessable` (the Order API keeps 409 for what already exists), never applied.
 */
export const HOSTED_ORDER_MACHINE = defineStateMachine({
  name: 'hosted order',
  schemaId: 'HostedOrderStatus',
  summary: [
    'A placed order is `accepted` when its order type is open when it is due (`deferDue`, or now when that is past) and every item is in stock, else',
    '`rejected` with a `rejectReason`. The store moves it through `ready` and the delivery statuses to',
    '`completed`; the partner may cancel it until it is ready.',
  ],
  initial: 'created',
  states: {
    created:
      'Priced and stored; about to be accepted or rejected (never seen outside the transaction that places it).',
    accepted: 'The store takes the order; `estimatedTime` says when it should be ready.',
    rejected: 'The store does not take it; `rejectReason` says why. Final.',
    cancelled: 'Cancelled by the partner (or the store). Final.',
    ready: 'Ready for pickup or for the driver.',
    deliveryStarted: 'A driver left with it.',
    deliveryArriving: 'The driver is close.',
    deliveryDelivered: 'Handed to the customer at the door.',
    completed: 'Done. Final.',
    unknown: 'The store lost track of it (set by the operator); it may still move on.',
  },
  transitions: [
    { from: 'created', to: 'accepted', cause: 'placed, open and in stock' },
    { from: 'created', to: 'rejected', cause: 'closed, out of stock, or under the minimum' },
    { from: 'accepted', to: 'cancelled', cause: 'Cancel' },
    { from: 'accepted', to: 'ready', cause: 'the store' },
    { from: 'accepted', to: 'unknown', cause: 'the store' },
    { from: 'unknown', to: 'cancelled', cause: 'Cancel' },
    { from: 'unknown', to: 'ready', cause: 'the store' },
    { from: 'unknown', to: 'completed', cause: 'the store' },
    { from: 'ready', to: 'deliveryStarted', cause: 'the driver leaves' },
    { from: 'ready', to: 'completed', cause: 'picked up' },
    { from: 'deliveryStarted', to: 'deliveryArriving', cause: 'the driver is close' },
    { from: 'deliveryStarted', to: 'deliveryDelivered', cause: 'handed over' },
    { from: 'deliveryArriving', to: 'deliveryDelivered', cause: 'handed over' },
    { from: 'deliveryDelivered', to: 'completed', cause: 'the store closes it' },
  ],
});
export type HostedOrderStatus = StateOf<typeof HOSTED_ORDER_MACHINE>;
