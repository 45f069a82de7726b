import { defineStateMachine } from './state-machine.ts';

/**
 * A binding of one POS org location to one DSP store (the `dsps[]` entries of an org location):
 *
 *   pending ──POS and DSP connection calls both succeeded──▶ APPROVED
 *   pending ──a connection call gave up──▶ needs_reconnection (reason recorded)
 *   APPROVED ──merchant token refresh rejected──▶ needs_reconnection
 *   needs_reconnection ──bound again / integration reconnected──▶ pending
 *   pending | APPROVED | needs_reconnection ──integration deleted──▶ waiting_for_deprovision
 *   waiting_for_deprovision ──connection deleted at the partner (or gave up)──▶ deprovisioned
 */
export const BINDING_STATES = defineStateMachine({
  name: 'bound location',
  states: ['pending', 'APPROVED', 'needs_reconnection', 'waiting_for_deprovision', 'deprovisioned'],
  transitions: {
    pending: ['APPROVED', 'needs_reconnection', 'waiting_for_deprovision'],
    APPROVED: ['needs_reconnection', 'waiting_for_deprovision'],
    needs_reconnection: ['pending', 'waiting_for_deprovision'],
    waiting_for_deprovision: ['deprovisioned'],
    deprovisioned: [],
  },
});
export type BindingStatus = (typeof BINDING_STATES.states)[number];

/** Bindings that still hold their DSP store (a second bind of the same store is a 409). */
export const LIVE_BINDING_STATES: readonly BindingStatus[] = ['pending', 'APPROVED', 'needs_reconnection'];

/**
 * A POS location ingested into an org:
 *
 *   pending ──first binding APPROVED──▶ active ──no APPROVED binding any more──▶ pending
 *   pending | active ──POS integration deleted──▶ waiting_for_deprovision ──POS disconnected──▶ deprovisioned
 *   deprovisioned ──ingested again──▶ pending
 */
export const ORG_LOCATION_STATES = defineStateMachine({
  name: 'location',
  states: ['pending', 'active', 'waiting_for_deprovision', 'deprovisioned'],
  transitions: {
    pending: ['active', 'waiting_for_deprovision'],
    active: ['pending', 'waiting_for_deprovision'],
    waiting_for_deprovision: ['deprovisioned'],
    deprovisioned: ['pending'],
  },
});
export type OrgLocationStatus = (typeof ORG_LOCATION_STATES.states)[number];

/**
 * What an org location's status should be given its bindings: active while any binding is
 * APPROVED, else pending. Deprovisioning is driven by the POS integration, not by bindings, so a
 * location on its way out keeps its status.
 */
export function locationStatusFromBindings(
  current: OrgLocationStatus,
  bindings: readonly BindingStatus[],
): OrgLocationStatus {
  if (current === 'waiting_for_deprovision' || current === 'deprovisioned') return current;
  return bindings.includes('APPROVED') ? 'active' : 'pending';
}
