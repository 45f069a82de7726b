import { defineStateMachine, type StateOf } from './machine.ts';

/**
 * An order routed from a DSP to a POS (platform.md sections 4 and 7). The spec does not show the
 * allowed moves; these are the platform's. An event that does not fit is recorded on the order's
 * timeline and answered 409 `invalid_transition`, never applied.
 */
export const ORDER_STATES = defineStateMachine({
  name: 'order',
  schemaId: 'OrderStatus',
  summary: [
    'A new order is `received` (on its way to the POS) or `scheduled` (held until its release time).',
    'The POS accepts it (`accepted`, or `awaiting_confirmation` first when it accepts asynchronously) or it',
    '`failed`; then `ready_for_pickup` and `completed`, unless the DSP (`dsp_canceled`) or the restaurant',
    '(`merchant_canceled`) cancels it.',
  ],
  initial: 'received',
  entries: ['scheduled'],
  states: {
    scheduled:
      'A future order, stored and acknowledged; released to the POS at its requested time minus the prep time.',
    received: 'Validated and on its way to the POS (retried until the delivery deadline).',
    awaiting_confirmation: 'The POS took the order asynchronously; it must confirm within 60 s.',
    accepted: 'The POS accepted the order; the DSP was sent `location.order.accept`.',
    ready_for_pickup: 'The restaurant says the order is ready.',
    completed: 'Handed over. Final.',
    failed: 'Not accepted; the DSP was sent `location.order.fail` with the reason. Final.',
    dsp_canceled: 'Cancelled by the DSP; the POS was told if it had the order. Final.',
    merchant_canceled: 'Cancelled by the restaurant; the DSP was sent `location.order.cancel`. Final.',
  },
  transitions: [
    { from: 'received', to: 'accepted', cause: 'POS accepts' },
    { from: 'received', to: 'awaiting_confirmation', cause: 'POS answers async_acceptance' },
    { from: 'received', to: 'failed', cause: 'rejected, or not deliverable in time' },
    { from: 'scheduled', to: 'received', cause: 'release time reached' },
    { from: 'scheduled', to: 'failed', cause: 'location closed at release' },
    { from: 'scheduled', to: 'dsp_canceled', cause: 'DSP cancel_order before release' },
    { from: 'awaiting_confirmation', to: 'accepted', cause: 'POS confirms' },
    { from: 'awaiting_confirmation', to: 'failed', cause: 'POS declines, or 60 s pass' },
    { from: 'awaiting_confirmation', to: 'dsp_canceled', cause: 'DSP cancel_order' },
    { from: 'accepted', to: 'ready_for_pickup', cause: 'POS ready_for_pickup' },
    { from: 'accepted', to: 'completed', cause: 'POS completed' },
    { from: 'accepted', to: 'dsp_canceled', cause: 'DSP cancel_order' },
    { from: 'accepted', to: 'merchant_canceled', cause: 'POS merchant_canceled' },
    { from: 'ready_for_pickup', to: 'completed', cause: 'POS completed' },
    { from: 'ready_for_pickup', to: 'dsp_canceled', cause: 'DSP cancel_order' },
    { from: 'ready_for_pickup', to: 'merchant_canceled', cause: 'POS merchant_canceled' },
  ],
});
export type OrderStatus = StateOf<typeof ORDER_STATES>;
