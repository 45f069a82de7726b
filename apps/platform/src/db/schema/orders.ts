import {
  bigint,
  boolean,
  doublePrecision,
  index,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import type {
  DeliveryStatus,
  DriverDetails,
  OrderFailureDetails,
  OrderFailureReason,
} from '@stream/contracts';
import { DELIVERY_STATES, ORDER_STATES } from '@stream/contracts/states';
import { createdAt, id, ref, timestamptz, updatedAt } from './columns.ts';
import { locationBindings, orgLocations } from './onboarding.ts';
import { orgs, partners } from './partners.ts';
import { jobs } from './jobs.ts';

/**
 * Every webhook a partner sent the platform (DSP, POS), committed before the 2xx: the raw record
 * of what came in. Order timelines point at these rows.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: id(),
    partnerId: ref('partner_id', () => partners.id),
    type: text('type').notNull(),
    body: jsonb('body').$type<unknown>().notNull(),
    /** The order it concerns, when there is one. */
    orderId: text('order_id'),
    /** The org location it concerns, when known. */
    locationId: text('location_id').references(() => orgLocations.id),
    createdAt: createdAt(),
  },
  (t) => [
    index('webhook_events_partner').on(t.partnerId, t.createdAt),
    // The object updates that stand over a location's catalog are read at every publication.
    index('webhook_events_object_updates')
      .on(t.locationId, t.createdAt)
      .where(sql`type = 'location.catalog.object.updated'`),
  ],
);

/**
 * An order a DSP sent, on its way to (or at) a POS. Statuses and moves: `ORDER_STATES` (contracts).
 * One row per DSP partner and DSP order id: the unique index is what makes a repeated post one order.
 */
export const orders = pgTable(
  'orders',
  {
    id: id(),
    dspPartnerId: ref('dsp_partner_id', () => partners.id),
    /** The DSP's id of the order, and of the store it was posted for. */
    dspOrderId: text('dsp_order_id').notNull(),
    dspLocationId: text('dsp_location_id').notNull(),
    /** Null when the store is bound to no location (`location_not_found`). */
    bindingId: text('binding_id').references(() => locationBindings.id),
    locationId: text('location_id').references(() => orgLocations.id),
    orgId: text('org_id').references(() => orgs.id),
    posPartnerId: text('pos_partner_id').references(() => partners.id),
    /** The POS's id of the location, and of the order once it accepted it. */
    posLocationId: text('pos_location_id'),
    posOrderId: text('pos_order_id'),
    status: text('status', { enum: ORDER_STATES.states }).notNull(),
    failureReason: text('failure_reason').$type<OrderFailureReason>(),
    failureDetails: jsonb('failure_details').$type<OrderFailureDetails>(),
    fulfillmentType: text('fulfillment_type').notNull(),
    isFutureOrder: boolean('is_future_order').notNull().default(false),
    requestedFor: timestamptz('requested_for'),
    /** A scheduled order goes to the POS at this time. */
    releaseAt: timestamptz('release_at'),
    estimatedReadyAt: timestamptz('estimated_ready_at'),
    /** The `prep_time_minutes` of the POS's answer, kept for an `async_acceptance` until it confirms. */
    posPrepMinutes: doublePrecision('pos_prep_minutes'),
    deliveryStatus: text('delivery_status').$type<DeliveryStatus>(),
    driverDetails: jsonb('driver_details').$type<DriverDetails>(),
    /** The event provider delivering the order (the first to assign a driver or report a status). */
    deliveryProviderId: text('delivery_provider_id').references(() => partners.id),
    /** Its delivery's state (`DELIVERY_STATES`); null: no provider has acted on the order yet. */
    providerDeliveryStatus: text('provider_delivery_status', { enum: DELIVERY_STATES.states }),
    /** The order as the DSP sent it (validated shape), and as the POS is sent it. */
    dspOrder: jsonb('dsp_order').$type<Record<string, unknown>>().notNull(),
    posOrder: jsonb('pos_order').$type<Record<string, unknown>>(),
    /** What the first post was answered: every repeat of the post answers it again. */
    answer: jsonb('answer').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('orders_dsp_order').on(t.dspPartnerId, t.dspOrderId),
    index('orders_pos_order').on(t.posPartnerId, t.posLocationId, t.posOrderId),
    index('orders_location').on(t.locationId, t.createdAt),
  ],
);

/**
 * What happened to an order, in order: webhooks received (`event_id`), state changes, calls made
 * (`job_id`; their attempts are the job's `delivery_attempts`), events refused with 409 and calls
 * given up after their retries (`gave_up`).
 */
export const orderTimeline = pgTable(
  'order_timeline',
  {
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().primaryKey(),
    orderId: ref('order_id', () => orders.id),
    kind: text('kind', { enum: ['received', 'status', 'sent', 'refused', 'gave_up'] }).notNull(),
    type: text('type').notNull(),
    partnerId: text('partner_id'),
    fromStatus: text('from_status'),
    toStatus: text('to_status'),
    detail: text('detail'),
    eventId: text('event_id').references(() => webhookEvents.id),
    jobId: text('job_id').references(() => jobs.id, { onDelete: 'set null' }),
    /** What was sent (for `sent`); a received body lives on its webhook event. */
    body: jsonb('body').$type<unknown>(),
    createdAt: createdAt(),
  },
  (t) => [index('order_timeline_order').on(t.orderId, t.seq)],
);
