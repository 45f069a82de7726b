import { defineStateMachine } from './state-machine.ts';

/**
 * An onboarding integration (one merchant's OAuth grant to one POS or DSP):
 *
 *   pending ──entry opened──▶ waiting_for_oauth ──callback / PUT {code}──▶ active
 *      └──────────────PUT {code} (headless)──────────────────────────────▶ active
 *   active ──refresh rejected──▶ needs_reconnection ──entry / PUT {code}──▶ active
 *   any but deprovisioned ──DELETE──▶ deprovisioned (final)
 *
 * Re-opening the entry URL while waiting is allowed (the merchant closed the tab); exchanging a
 * code for an integration that is already active is not (409 `invalid_transition`).
 */
export const INTEGRATION_STATES = defineStateMachine({
  name: 'integration',
  states: ['pending', 'waiting_for_oauth', 'active', 'needs_reconnection', 'deprovisioned'],
  transitions: {
    pending: ['waiting_for_oauth', 'active', 'deprovisioned'],
    waiting_for_oauth: ['waiting_for_oauth', 'active', 'deprovisioned'],
    active: ['needs_reconnection', 'deprovisioned'],
    needs_reconnection: ['waiting_for_oauth', 'active', 'deprovisioned'],
    deprovisioned: [],
  },
});

export type IntegrationStatus = (typeof INTEGRATION_STATES.states)[number];
