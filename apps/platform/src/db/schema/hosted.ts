import { sql } from 'drizzle-orm';
import {
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import type { MenuInput } from '@stream/contracts/apis/hr-menu/menu';
import type { PricedOrder } from '@stream/contracts/apis/hr-orders/order';
import type { GatewayCredentials, GeoFence, StoreOrderType } from '@stream/contracts/apis/hr-stores/index';
import { createdAt, ref, timestamptz, updatedAt } from './columns.ts';
import { partners } from './partners.ts';

/**
 * The hosted restaurant APIs (`hosted/`): companies and their stores (integer ids, as the APIs
 * name them), which partners may reach them, each store's menus (one validated document each, so a
 * JSON Patch applies to exactly what the API shows), and the orders placed with their stages and
 * card transactions.
 */
export const companies = pgTable('companies', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const stores = pgTable(
  'stores',
  {
    id: integer('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    name: text('name').notNull(),
    phoneNumber: text('phone_number'),
    email: text('email'),
    address: text('address'),
    additionalAddressInfo: text('additional_address_info'),
    city: text('city'),
    state: text('state'),
    postalcode: text('postalcode'),
    /** One of section 9's names (`Eastern Standard Time`); `STORE_TIME_ZONES` maps it to IANA. */
    timeZone: text('time_zone').notNull(),
    latitude: doublePrecision('latitude'),
    longitude: doublePrecision('longitude'),
    primaryContact: jsonb('primary_contact').$type<Record<string, string>>(),
    paymentAddressRequiredForPayments: boolean('payment_address_required').notNull().default(false),
    /** The Store API's system configuration message (at most 25 characters). */
    systemMessage: text('system_message'),
    /** Delivery zones (`GeoFence[]`; fees in dollars, as the Store API shows them). */
    geoFences: jsonb('geo_fences').$type<GeoFence[]>().notNull().default([]),
    /** `StoreOrderType[]`: estimated times, payment types, channels. */
    orderTypes: jsonb('order_types').$type<StoreOrderType[]>().notNull().default([]),
    /** `GatewayCredentials[]` with each `accountToken` sealed by `encrypt` (ENCRYPTION_KEY). */
    gatewayCredentials: jsonb('gateway_credentials').$type<GatewayCredentials[]>().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('stores_company').on(t.companyId),
    // Store search: a company's stores in a latitude range, longitudes read from the index.
    index('stores_position').on(t.companyId, t.latitude, t.longitude),
  ],
);

/** A partner may call the hosted APIs for the stores of the companies granted to it (CLI). */
export const companyGrants = pgTable(
  'company_grants',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    partnerId: ref('partner_id', () => partners.id),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.companyId, t.partnerId] }),
    index('company_grants_partner').on(t.partnerId),
  ],
);

export const hostedMenus = pgTable(
  'hosted_menus',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id),
    /** The menu's `displayName`: its name in `/Menus/{menuName}`. */
    name: text('name').notNull(),
    serviceTypes: text('service_types').array().notNull(),
    /** The menu as `MenuInput` parses it (defaults filled), without its id. */
    menu: jsonb('menu').$type<MenuInput>().notNull(),
    /**
     * A new random value on every update of the row (a trigger, migration 0015): the key of the
     * parsed menus a process keeps for pricing, unique across rows, databases and processes.
     */
    revision: uuid('revision').notNull().defaultRandom(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('hosted_menus_store_name').on(t.storeId, t.name)],
);

export const hostedOrders = pgTable(
  'hosted_orders',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id),
    /** The partner that placed it. */
    partnerId: ref('partner_id', () => partners.id),
    serviceType: text('service_type').notNull(),
    status: text('status').notNull(),
    rejectReason: text('reject_reason'),
    sourceReferenceId: text('source_reference_id'),
    customerId: text('customer_id'),
    phoneNumber: text('phone_number'),
    businessDate: date('business_date', { mode: 'string' }).notNull(),
    estimatedTime: timestamptz('estimated_time'),
    /** The order as priced (`PricedOrder`, payments not included: they are `card_transactions`). */
    order: jsonb('order').$type<PricedOrder>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('hosted_orders_store_date').on(t.storeId, t.businessDate),
    index('hosted_orders_reference').on(t.storeId, t.sourceReferenceId),
  ],
);

/** One per status an order held: `startTime` when it entered it, `endTime` when it left. */
export const hostedOrderStages = pgTable(
  'hosted_order_stages',
  {
    orderId: integer('order_id')
      .notNull()
      .references(() => hostedOrders.id),
    name: text('name').notNull(),
    startTime: timestamptz('start_time').notNull().defaultNow(),
    endTime: timestamptz('end_time'),
  },
  (t) => [index('hosted_order_stages_order').on(t.orderId, t.startTime)],
);

export const cardTransactions = pgTable(
  'card_transactions',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    orderId: integer('order_id')
      .notNull()
      .references(() => hostedOrders.id),
    /** `brand|last4|MM|YYYY`: a card pays an order once (successfully). */
    cardKey: text('card_key').notNull(),
    /** On a capture: the authorization (or points reservation) it completes. */
    authorizationId: integer('authorization_id').references((): AnyPgColumn => cardTransactions.id),
    status: text('status', { enum: ['SUCCESS', 'FAILURE'] }).notNull(),
    type: text('type').notNull(),
    amount: integer('amount').notNull(),
    tip: integer('tip').notNull(),
    cardBrand: text('card_brand').notNull(),
    last4: text('last4').notNull(),
    /** The transaction, payment method and names as the partner sent them. */
    payment: jsonb('payment').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('card_transactions_order').on(t.orderId, t.id),
    // The card's one payment: a successful SALE, AUTHORIZATION or POINTS_RESERVATION of more than 0
    // (`payments.ts` PAYING). Captures, failures and zero-amount card checks are recorded beside it.
    uniqueIndex('card_transactions_once_per_card')
      .on(t.orderId, t.cardKey)
      .where(
        sql`status = 'SUCCESS' AND type IN ('SALE', 'AUTHORIZATION', 'POINTS_RESERVATION') AND (amount > 0 OR tip > 0)`,
      ),
    // An authorization is captured once.
    uniqueIndex('card_transactions_one_capture')
      .on(t.authorizationId)
      .where(sql`status = 'SUCCESS'`),
  ],
);

/** E-mail a partner sends on a store's behalf: stored, then sent by the outbox (`stores.email`). */
export const storeEmails = pgTable(
  'store_emails',
  {
    id: text('id').primaryKey(),
    storeId: integer('store_id')
      .notNull()
      .references(() => stores.id),
    partnerId: ref('partner_id', () => partners.id),
    /** The message as the partner sent it (`EmailMessage`). */
    message: jsonb('message').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: ['queued', 'sent', 'failed'] })
      .notNull()
      .default('queued'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    messageId: text('message_id'),
    sentAt: timestamptz('sent_at'),
    createdAt: createdAt(),
  },
  (t) => [index('store_emails_store').on(t.storeId, t.createdAt)],
);
