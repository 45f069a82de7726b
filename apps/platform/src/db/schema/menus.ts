import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import type { MenuFile } from '@stream/contracts/apis/become-a-dsp/menu-file';
import type { MenuFailureCode } from '@stream/contracts/apis/become-a-pos/menu-events';
import { createdAt, id, ref, timestamptz } from './columns.ts';
import { locationBindings, orgLocations } from './onboarding.ts';

/**
 * Catalogs and menus (`menus/`): each POS location's catalog as pulled, one version per change;
 * each menu file published to a DSP store; and the stream_id -> provider_id map of the published
 * menus that order translation reads.
 */
export const catalogs = pgTable(
  'catalogs',
  {
    id: id(),
    locationId: ref('location_id', () => orgLocations.id),
    version: integer('version').notNull(),
    /** The normalised catalog (`StoredCatalog`) and the problems found in it. */
    catalog: jsonb('catalog').$type<Record<string, unknown[]>>().notNull(),
    problems: jsonb('problems').$type<unknown[]>().notNull(),
    /** sha256 of the catalog as normalised: a pull that changes nothing makes no version. */
    digest: text('digest').notNull(),
    /**
     * The stored catalog names only objects it holds: `saveCatalog` stores it normalised, references
     * settled. False on rows older than the flag (migration 0028), settled again as read (`catalogOf`).
     */
    referencesSettled: boolean('references_settled').notNull().default(false),
    fetchedAt: timestamptz('fetched_at').notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('catalogs_location_version').on(t.locationId, t.version)],
);

export const MENU_PUBLICATION_STATES = ['publishing', 'published', 'failed'] as const;

export const menuPublications = pgTable(
  'menu_publications',
  {
    id: id(),
    bindingId: ref('binding_id', () => locationBindings.id),
    locationId: ref('location_id', () => orgLocations.id),
    /** Null for a failure that built no file (an object update refused, a binding the DSP refused). */
    catalogId: text('catalog_id').references(() => catalogs.id),
    form: text('form', { enum: ['v1', 'v2'] }).notNull(),
    file: jsonb('file').$type<MenuFile>(),
    status: text('status', { enum: MENU_PUBLICATION_STATES }).notNull(),
    failureCode: text('failure_code').$type<MenuFailureCode>(),
    failureReason: text('failure_reason'),
    /** What triggered it: `binding`, `catalog.updated`, `partner`, `operator`. */
    cause: text('cause').notNull(),
    createdAt: createdAt(),
    finishedAt: timestamptz('finished_at'),
  },
  (t) => [
    index('menu_publications_binding').on(t.bindingId, t.createdAt),
    // A location's publications, newest first, page by page (`GET /menus/locations/{id}/publications`).
    index('menu_publications_location').on(t.locationId, t.createdAt, t.id),
    uniqueIndex('menu_publications_in_flight')
      .on(t.bindingId)
      .where(sql`status = 'publishing'`),
  ],
);

/** What each stream_id of a location's published menus stands for at the POS. */
export const menuItems = pgTable(
  'menu_items',
  {
    locationId: ref('location_id', () => orgLocations.id),
    streamId: text('stream_id').notNull(),
    kind: text('kind').notNull(),
    providerId: text('provider_id').notNull(),
    familyProviderId: text('family_provider_id'),
    /** Turned off by the POS (`location.catalog.object.updated`, or the catalog): orders with it fail `items_unavailable`. */
    isActive: boolean('is_active').notNull().default(true),
    /**
     * On an `item_family` row: the provider_ids of every category (on or off) that lists the family in
     * the location's served menus. When every one of them is off (`is_active` false), so are its
     * items: an order naming them fails `items_unavailable`. Null on other rows, and on rows written
     * before it was recorded: not known, so refusing nothing.
     */
    categoryProviderIds: text('category_provider_ids').array(),
  },
  (t) => [
    primaryKey({ columns: [t.locationId, t.streamId] }),
    // Order intake's lookup (`menus/order-ids.ts`): an item's family, and that family's categories, by
    // provider_id (without it each id scanned all its location's rows: ~47 ms an order at 5,000 items).
    index('menu_items_families_categories')
      .on(t.locationId, t.kind, t.providerId)
      .where(sql`kind in ('item_family', 'category')`),
  ],
);
