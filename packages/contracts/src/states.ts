import type { StateMachine } from './states/machine.ts';
import { BINDING_STATES, INTEGRATION_STATES, ORG_LOCATION_STATES } from './states/onboarding.ts';
import { ORDER_STATES } from './states/orders.ts';
import { DELIVERY_STATES } from './states/delivery.ts';
import { HOSTED_ORDER_MACHINE } from './states/hosted-orders.ts';

export * from './states/machine.ts';
export * from './states/onboarding.ts';
export * from './states/orders.ts';
export * from './states/delivery.ts';
export * from './states/hosted-orders.ts';

/**
 * Every state machine of the contracts. A new machine (orders, menu publication) is one more
 * `defineStateMachine` declaration added here; the docs site draws each one.
 */
export const STATE_MACHINES: readonly StateMachine<string>[] = [
  INTEGRATION_STATES,
  BINDING_STATES,
  ORG_LOCATION_STATES,
  ORDER_STATES,
  DELIVERY_STATES,
  HOSTED_ORDER_MACHINE,
];
