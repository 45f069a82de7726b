import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, timestamptz } from './columns.ts';
import { orgLocations } from './onboarding.ts';
import { partners } from './partners.ts';

/** An order event given up on: which order, which event, when, and the last attempt's error. */
export interface UndeliveredEvent {
  order_id: string;
  type: string;
  at: string;
  error: string;
}

/**
 * Which event providers hear about a location's orders: one row per location and provider, ever
 * (enabling again re-enables the row). Only enabled rows receive the location's events.
 */
export const eventSubscriptions = pgTable(
  'event_subscriptions',
  {
    id: id(),
    locationId: ref('location_id', () => orgLocations.id),
    providerPartnerId: ref('provider_partner_id', () => partners.id),
    enabled: boolean('enabled').notNull().default(true),
    enabledAt: timestamptz('enabled_at').notNull().defaultNow(),
    disabledAt: timestamptz('disabled_at'),
    /** The last order event of the location the platform gave up delivering to the provider. */
    lastUndelivered: jsonb('last_undelivered').$type<UndeliveredEvent>(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('event_subscriptions_pair').on(t.locationId, t.providerPartnerId),
    index('event_subscriptions_enabled')
      .on(t.locationId)
      .where(sql`enabled`),
  ],
);
