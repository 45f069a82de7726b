import { defineStateMachine, type StateOf } from './machine.ts';

/**
 * The onboarding state machines (platform.md sections 3 and 7). The platform refuses any move not
 * listed here with 409 `invalid_transition`; the docs draw these declarations.
 */

/** An onboarding integration: one merchant's OAuth grant to one POS or DSP. */
export const INTEGRATION_STATES = defineStateMachine({
  name: 'integration',
  schemaId: 'IntegrationStatus',
  summary: [
    '`pending` (created) → `waiting_for_oauth` (the merchant opened `entry_url`) → `active` (code exchanged).',
    '`active` → `needs_reconnection` when the partner rejects a token refresh; reconnect through `entry_url`',
    'or `PUT` a new code. `DELETE` → `deprovisioned` (final). Any other move answers 409 `invalid_transition`.',
  ],
  initial: 'pending',
  states: {
    pending: 'Created; nobody opened `entry_url` yet.',
    waiting_for_oauth: "The merchant is at the partner's login; opening `entry_url` again starts over.",
    active: 'Stream holds working merchant tokens, and refreshes them by itself.',
    needs_reconnection:
      'The partner no longer accepts the grant; `status_reason` says why. The merchant must log in again.',
    deprovisioned: 'Deleted. Final.',
  },
  transitions: [
    { from: 'pending', to: 'waiting_for_oauth', cause: 'merchant opens entry_url' },
    { from: 'pending', to: 'active', cause: 'PUT {code} (headless)' },
    { from: 'pending', to: 'deprovisioned', cause: 'DELETE' },
    { from: 'waiting_for_oauth', to: 'waiting_for_oauth', cause: 'entry_url opened again' },
    { from: 'waiting_for_oauth', to: 'active', cause: 'OAuth callback or PUT {code}' },
    { from: 'waiting_for_oauth', to: 'deprovisioned', cause: 'DELETE' },
    { from: 'active', to: 'needs_reconnection', cause: 'token refresh rejected' },
    { from: 'active', to: 'deprovisioned', cause: 'DELETE' },
    { from: 'needs_reconnection', to: 'waiting_for_oauth', cause: 'merchant opens entry_url' },
    { from: 'needs_reconnection', to: 'active', cause: 'PUT {code}' },
    { from: 'needs_reconnection', to: 'deprovisioned', cause: 'DELETE' },
  ],
});
export type IntegrationStatus = StateOf<typeof INTEGRATION_STATES>;

/** A bound location: one POS org location bound to one DSP store (an entry of its `dsps[]`). */
export const BINDING_STATES = defineStateMachine({
  name: 'bound location',
  schemaId: 'BindingStatus',
  summary: [
    '`pending` until the POS and the DSP both accepted the connection, then `APPROVED`. A connection that',
    'keeps failing, or a merchant grant the partner no longer accepts, gives `needs_reconnection` (see `reason`).',
    'Deleting either integration: `waiting_for_deprovision` while the connection is deleted, then `deprovisioned`.',
  ],
  initial: 'pending',
  states: {
    pending: 'Stream is connecting the location at the POS and the store at the DSP.',
    APPROVED: "Live: both partners accepted the connection, and the store's orders go to the location.",
    needs_reconnection:
      "Not live: a connection call gave up or a partner refused the merchant's grant; `reason` says which.",
    waiting_for_deprovision: 'The POS or DSP integration was deleted; Stream is deleting the connection.',
    deprovisioned: 'Gone. Final: binding the pair again makes a new binding.',
  },
  transitions: [
    { from: 'pending', to: 'APPROVED', cause: 'POS and DSP both connected' },
    { from: 'pending', to: 'needs_reconnection', cause: 'connection gave up or refresh rejected' },
    { from: 'pending', to: 'waiting_for_deprovision', cause: 'an integration deleted' },
    { from: 'APPROVED', to: 'needs_reconnection', cause: 'token refresh rejected' },
    { from: 'APPROVED', to: 'waiting_for_deprovision', cause: 'an integration deleted' },
    { from: 'needs_reconnection', to: 'pending', cause: 'bound again or integration reconnected' },
    { from: 'needs_reconnection', to: 'waiting_for_deprovision', cause: 'an integration deleted' },
    { from: 'waiting_for_deprovision', to: 'deprovisioned', cause: 'connection deleted (or gave up)' },
  ],
});
export type BindingStatus = StateOf<typeof BINDING_STATES>;

/** An org location: a POS location ingested into an organisation. */
export const ORG_LOCATION_STATES = defineStateMachine({
  name: 'location',
  schemaId: 'OrgLocationStatus',
  summary: [
    '`active` while at least one DSP binding is `APPROVED`, else `pending`.',
    'Deleting the POS integration: `waiting_for_deprovision`, then `deprovisioned`.',
  ],
  initial: 'pending',
  states: {
    pending: 'Ingested; no `APPROVED` binding (yet, or any more).',
    active: 'At least one `APPROVED` binding: orders for it can arrive.',
    waiting_for_deprovision: 'Its POS integration was deleted; Stream is disconnecting it at the POS.',
    deprovisioned: 'Disconnected. Ingesting it again brings it back `pending`.',
  },
  transitions: [
    { from: 'pending', to: 'active', cause: 'a binding APPROVED' },
    { from: 'pending', to: 'waiting_for_deprovision', cause: 'POS integration deleted' },
    { from: 'active', to: 'pending', cause: 'no APPROVED binding left' },
    { from: 'active', to: 'waiting_for_deprovision', cause: 'POS integration deleted' },
    { from: 'waiting_for_deprovision', to: 'deprovisioned', cause: 'POS connection deleted (or gave up)' },
    { from: 'deprovisioned', to: 'pending', cause: 'ingested again' },
  ],
});
export type OrgLocationStatus = StateOf<typeof ORG_LOCATION_STATES>;
