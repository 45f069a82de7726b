import type { StateMachine } from './states/machine.ts';
import { BINDING_STATES, INTEGRATION_STATES, ORG_LOCATION_STATES } from './states/onboarding.ts';

export * from './states/machine.ts';
export * from './states/onboarding.ts';

/**
 * Every state machine of the contracts. A new machine (orders, menu publication) is one more
 * `defineStateMachine` declaration added here; the docs site draws each one.
 */
export const STATE_MACHINES: readonly StateMachine<string>[] = [
  INTEGRATION_STATES,
  BINDING_STATES,
  ORG_LOCATION_STATES,
];
