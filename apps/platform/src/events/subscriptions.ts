import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type {
  EventProviderDelivery,
  LocationEventProvider,
} from '@stream/contracts/apis/partner/event-providers';
import type { DbOrTx } from '../db/client.ts';
import { newId } from '../db/ids.ts';
import { prepared } from '../db/prepared.ts';
import { eventSubscriptions, orgLocations, partners, type UndeliveredEvent } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import {
  creationOrder,
  pageOf,
  pageWindow,
  rowsToRead,
  type Page,
  type PageQuery,
} from '../http/pagination.ts';
import { circuitsOf, type CircuitState } from '../jobs/circuit.ts';
import { findPartner, type Partner } from '../partners/service.ts';

/**
 * Which event providers hear about which location's orders (`event_subscriptions`): enabled and
 * disabled by the merchant's white-label partner (Partner API) or an operator (CLI). Only the
 * providers enabled when an order moves are sent its event.
 */

export type Subscription = typeof eventSubscriptions.$inferSelect;

/** The partner `ref` (slug or id) names, if it is an event provider. */
export async function findEventProvider(db: DbOrTx, ref: string): Promise<Partner | undefined> {
  const partner = await findPartner(db, ref);
  return partner?.kind === 'events' ? partner : undefined;
}

const enabledOf = prepared('events_enabled_providers', (db, name) =>
  db
    .select({ id: eventSubscriptions.providerPartnerId })
    .from(eventSubscriptions)
    .where(
      and(
        eq(eventSubscriptions.locationId, sql.placeholder('locationId')),
        eq(eventSubscriptions.enabled, true),
        sql`${eventSubscriptions.enabledAt} <= coalesce(${sql.placeholder('since')}::timestamptz, now())`,
      ),
    )
    .orderBy(asc(eventSubscriptions.createdAt))
    .prepare(name),
);

/**
 * The providers enabled for a location now (partner ids); with `since`, those enabled by then too
 * (the ones that hear an order received at `since`).
 */
export async function enabledProviders(
  db: DbOrTx,
  locationId: string | null,
  since?: Date,
): Promise<string[]> {
  if (!locationId) return [];
  return (await enabledOf(db).execute({ locationId, since: since?.toISOString() ?? null })).map((r) => r.id);
}

/** Enables the provider for the location (again); an enabled one keeps its `enabled_at`. */
export async function enableProvider(db: DbOrTx, locationId: string, providerId: string): Promise<void> {
  await db
    .insert(eventSubscriptions)
    .values({ id: newId('evs'), locationId, providerPartnerId: providerId })
    .onConflictDoUpdate({
      target: [eventSubscriptions.locationId, eventSubscriptions.providerPartnerId],
      set: {
        enabled: true,
        enabledAt: sql`case when ${eventSubscriptions.enabled} then ${eventSubscriptions.enabledAt} else now() end`,
        disabledAt: null,
      },
    });
}

/** Disables the provider for the location; false when it was never enabled there. */
export async function disableProvider(db: DbOrTx, locationId: string, providerId: string): Promise<boolean> {
  const rows = await db
    .update(eventSubscriptions)
    .set({
      enabled: false,
      disabledAt: sql`case when ${eventSubscriptions.enabled} then now() else ${eventSubscriptions.disabledAt} end`,
    })
    .where(
      and(
        eq(eventSubscriptions.locationId, locationId),
        eq(eventSubscriptions.providerPartnerId, providerId),
      ),
    )
    .returning({ id: eventSubscriptions.id });
  return rows.length > 0;
}

/**
 * Records on the location's subscription that the provider was never delivered an event, for the
 * merchant's partner to see (`last_undelivered`): the provider is down, so telling it is no use.
 */
export async function recordUndelivered(
  db: DbOrTx,
  locationId: string,
  providerId: string,
  event: Omit<UndeliveredEvent, 'at'>,
): Promise<void> {
  await db
    .update(eventSubscriptions)
    .set({ lastUndelivered: { ...event, at: new Date().toISOString() } })
    .where(
      and(
        eq(eventSubscriptions.locationId, locationId),
        eq(eventSubscriptions.providerPartnerId, providerId),
      ),
    );
}

/**
 * The providers of these locations as the Partner API shows them, with how deliveries to each go,
 * by location (only the enabled ones with `enabledOnly`).
 */
export async function providersOf(
  db: DbOrTx,
  locationIds: readonly string[],
  opts: { enabledOnly?: boolean; provider?: string } = {},
): Promise<Map<string, LocationEventProvider[]>> {
  const byLocation = new Map<string, LocationEventProvider[]>(locationIds.map((id) => [id, []]));
  if (locationIds.length === 0) return byLocation;
  const rows = await subscriptionRows(
    db,
    and(
      inArray(eventSubscriptions.locationId, [...locationIds]),
      opts.enabledOnly ? eq(eventSubscriptions.enabled, true) : undefined,
      opts.provider ? eq(eventSubscriptions.providerPartnerId, opts.provider) : undefined,
    ),
  );
  const providers = await asWire(db, rows);
  rows.forEach((r, i) => byLocation.get(r.s.locationId)!.push(providers[i]!));
  return byLocation;
}

const PROVIDERS_ORDER = creationOrder('event-providers', eventSubscriptions.createdAt, eventSubscriptions.id);

/** One page of the providers of one location, enabled or not (`GET .../event-providers`). */
export async function providerPageOf(
  db: DbOrTx,
  locationId: string,
  query: PageQuery,
): Promise<Page<LocationEventProvider>> {
  const window = pageWindow(PROVIDERS_ORDER.order, query);
  const rows = await subscriptionRows(
    db,
    and(eq(eventSubscriptions.locationId, locationId), PROVIDERS_ORDER.where(window)),
    rowsToRead(window),
  );
  const page = pageOf(window, rows, (r) => [r.instant, r.s.id]);
  return { ...page, items: await asWire(db, page.items) };
}

type SubscriptionRow = Awaited<ReturnType<typeof subscriptionRows>>[number];

/** Subscriptions with their provider's slug and name, in creation order. */
function subscriptionRows(db: DbOrTx, where: SQL | undefined, limit?: number) {
  const query = db
    .select({
      s: eventSubscriptions,
      slug: partners.slug,
      name: partners.name,
      instant: PROVIDERS_ORDER.instant,
    })
    .from(eventSubscriptions)
    .innerJoin(partners, eq(partners.id, eventSubscriptions.providerPartnerId))
    .where(where)
    .orderBy(...PROVIDERS_ORDER.orderBy);
  return limit === undefined ? query : query.limit(limit);
}

/** Subscriptions as the Partner API shows them, with how deliveries to each provider go. */
async function asWire(db: DbOrTx, rows: readonly SubscriptionRow[]): Promise<LocationEventProvider[]> {
  const circuits = await circuitsOf(db, [...new Set(rows.map((r) => r.s.providerPartnerId))]);
  return rows.map(({ s, slug, name }) => ({
    provider_id: s.providerPartnerId,
    slug,
    name,
    enabled: s.enabled,
    enabled_at: s.enabledAt.toISOString(),
    disabled_at: s.disabledAt?.toISOString() ?? null,
    delivery: deliveryOf(circuits.get(s.providerPartnerId)!),
    last_undelivered: s.lastUndelivered,
  }));
}

/** A provider's circuit as the Partner API and the CLI show it. */
export function deliveryOf(c: CircuitState): EventProviderDelivery {
  return {
    state: c.state,
    failure_rate: Math.round(c.failureRate * 1000) / 1000,
    alerting: c.alerting,
    opened_at: c.openedAt?.toISOString() ?? null,
    retry_at: c.retryAt?.toISOString() ?? null,
    last_error: c.lastError,
  };
}

/**
 * Enables (idempotent) or disables the provider `ref` (slug or id) for the location, answering
 * the subscription as it now stands; 404 `event_provider_not_found` for a partner that is no event
 * provider, or disabling one never enabled there.
 */
export async function setProvider(
  db: DbOrTx,
  locationId: string,
  ref: string,
  enabled: boolean,
): Promise<LocationEventProvider> {
  const provider = await findEventProvider(db, ref);
  const done =
    provider &&
    (enabled
      ? (await enableProvider(db, locationId, provider.id), true)
      : await disableProvider(db, locationId, provider.id));
  if (!provider || !done) {
    throw new ApiError(
      'event_provider_not_found',
      enabled
        ? `No event provider "${ref}"; use its slug or partner id.`
        : `No event provider "${ref}" was enabled for location ${locationId}.`,
    );
  }
  return (await providersOf(db, [locationId], { provider: provider.id })).get(locationId)![0]!;
}

/** The org location's providers, for an operator (404 `not_found` for an unknown location). */
export async function locationProviders(db: DbOrTx, locationId: string): Promise<LocationEventProvider[]> {
  const [location] = await db
    .select({ id: orgLocations.id })
    .from(orgLocations)
    .where(eq(orgLocations.id, locationId));
  if (!location) throw new ApiError('not_found', `No org location ${locationId}.`);
  return (await providersOf(db, [location.id])).get(location.id)!;
}

export interface ProviderCircuit {
  provider_id: string;
  slug: string;
  name: string;
  delivery: EventProviderDelivery;
}

/** Every event provider with how deliveries to it go (its circuit). */
export async function providerCircuits(db: DbOrTx): Promise<ProviderCircuit[]> {
  const rows = await db
    .select({ id: partners.id, slug: partners.slug, name: partners.name })
    .from(partners)
    .where(eq(partners.kind, 'events'))
    .orderBy(asc(partners.slug));
  const circuits = await circuitsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    provider_id: r.id,
    slug: r.slug,
    name: r.name,
    delivery: deliveryOf(circuits.get(r.id)!),
  }));
}
