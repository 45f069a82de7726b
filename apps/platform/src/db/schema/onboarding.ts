import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { BINDING_STATES, INTEGRATION_STATES, ORG_LOCATION_STATES } from '@stream/contracts/states';
import type { OnboardingAddress, UndeliveredCall } from '@stream/contracts/apis/partner/onboarding-locations';
import { createdAt, id, ref, timestamptz, updatedAt } from './columns.ts';

/** A DSP `store_status_update`, as recorded on the binding (times in epoch ms). */
export interface StoreStatus {
  status: 'online' | 'paused';
  start_time: number | null;
  end_time: number | null;
  updated_at: string;
}
import { orgs, partners } from './partners.ts';

/**
 * One merchant's OAuth grant to one POS or DSP, made on behalf of a white-label partner's org
 * (the Partner API's "onboarding"). Statuses and moves: `INTEGRATION_STATES`
 * (packages/contracts/src/states/onboarding.ts).
 */
export const integrations = pgTable(
  'integrations',
  {
    id: id(),
    /** The white-label partner that created it (the only one that can see it). */
    partnerId: ref('partner_id', () => partners.id),
    orgId: ref('org_id', () => orgs.id),
    type: text('type', { enum: ['pos', 'dsp'] }).notNull(),
    /** The POS or DSP partner the merchant connects (its slug is the integration's `source`). */
    sourcePartnerId: ref('source_partner_id', () => partners.id),
    status: text('status', { enum: INTEGRATION_STATES.states }).notNull(),
    statusReason: text('status_reason'),
    returnUrl: text('return_url').notNull(),
    /** Nonce of the one OAuth round trip in flight (in the signed `state`); cleared when used. */
    oauthNonce: text('oauth_nonce'),
    /** The partner's account id from the token answer (`merchant_id`). */
    merchantId: text('merchant_id'),
    /** Merchant tokens, AES-GCM encrypted with the platform key. */
    accessTokenEnc: text('access_token_enc'),
    refreshTokenEnc: text('refresh_token_enc'),
    expiresAt: timestamptz('expires_at'),
    refreshExpiresAt: timestamptz('refresh_expires_at'),
    ssoDetails: jsonb('sso_details').$type<Record<string, unknown>>(),
    activatedAt: timestamptz('activated_at'),
    deprovisionedAt: timestamptz('deprovisioned_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('integrations_partner_org').on(t.partnerId, t.orgId)],
);

/** A POS location ingested into an org. Statuses and moves: `ORG_LOCATION_STATES` (contracts). */
export const orgLocations = pgTable(
  'org_locations',
  {
    id: id(),
    partnerId: ref('partner_id', () => partners.id),
    orgId: ref('org_id', () => orgs.id),
    /** The POS integration it was ingested through (whose token connects it). */
    integrationId: ref('integration_id', () => integrations.id),
    sourcePartnerId: ref('source_partner_id', () => partners.id),
    /** The POS's id of the location. */
    providerId: text('provider_id').notNull(),
    name: text('name').notNull(),
    /** The normalised onboarding address (ISO country and region, formatted line). */
    address: jsonb('address').$type<OnboardingAddress>().notNull(),
    timezone: text('timezone'),
    prepTimeMinutes: integer('prep_time_minutes'),
    status: text('status', { enum: ORG_LOCATION_STATES.states }).notNull(),
    statusReason: text('status_reason'),
    changeTime: timestamptz('change_time').notNull().defaultNow(),
    /** What the POS says of the location (`location.status.updated`): inactive refuses orders. */
    posStatus: text('pos_status', { enum: ['active', 'inactive'] })
      .notNull()
      .default('active'),
    /** An inactive location becomes active by itself at this time (null: until the POS says). */
    pausedUntil: timestamptz('paused_until'),
    /** Set by `location.connection.offline`, cleared by `location.status.updated` active. */
    offlineSince: timestamptz('offline_since'),
    /** The last order update or cancellation the platform gave up delivering to the POS (`orders.pos-update` dead). */
    lastUndelivered: jsonb('last_undelivered').$type<UndeliveredCall>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A POS location lives once per org; ingesting it again answers the same row.
    uniqueIndex('org_locations_source_provider').on(t.orgId, t.sourcePartnerId, t.providerId),
    index('org_locations_integration').on(t.integrationId),
  ],
);

/**
 * One POS org location bound to one DSP store (an entry of the org location's `dsps[]`).
 * Statuses and moves: `BINDING_STATES` (contracts). Partial unique indexes make the 409s race-free:
 * a live binding holds its DSP store, and a location holds one live binding per DSP.
 */
export const locationBindings = pgTable(
  'location_bindings',
  {
    id: id(),
    partnerId: ref('partner_id', () => partners.id),
    orgId: ref('org_id', () => orgs.id),
    locationId: ref('location_id', () => orgLocations.id),
    /** The DSP integration whose token connects the store. */
    dspIntegrationId: ref('dsp_integration_id', () => integrations.id),
    dspPartnerId: ref('dsp_partner_id', () => partners.id),
    dspProviderId: text('dsp_provider_id').notNull(),
    dspStoreName: text('dsp_store_name').notNull(),
    status: text('status', { enum: BINDING_STATES.states }).notNull(),
    statusReason: text('status_reason'),
    /** Which of the two connection calls succeeded for the current round (both: APPROVED). */
    posConnected: boolean('pos_connected').notNull().default(false),
    dspConnected: boolean('dsp_connected').notNull().default(false),
    /** The store's status as the DSP last said (`store_status_update`); null: never said. */
    storeStatus: jsonb('store_status').$type<StoreStatus>(),
    /** The last event for the store the platform gave up delivering to the DSP (`orders.dsp` dead). */
    lastUndelivered: jsonb('last_undelivered').$type<UndeliveredCall>(),
    changeTime: timestamptz('change_time').notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('location_bindings_live_store')
      .on(t.dspPartnerId, t.dspProviderId)
      .where(sql`status in ('pending', 'APPROVED', 'needs_reconnection')`),
    uniqueIndex('location_bindings_live_location_dsp')
      .on(t.locationId, t.dspPartnerId)
      .where(sql`status in ('pending', 'APPROVED', 'needs_reconnection')`),
    index('location_bindings_location').on(t.locationId),
    index('location_bindings_dsp_integration').on(t.dspIntegrationId),
  ],
);
