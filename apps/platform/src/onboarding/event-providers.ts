import { and, eq } from 'drizzle-orm';
import type { LocationEventProvider } from '@stream/contracts/apis/partner/event-providers';
import type { PartnerAuth } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import { orgLocations } from '../db/schema/index.ts';
import { providerPageOf, setProvider } from '../events/subscriptions.ts';
import type { PageQuery } from '../http/pagination.ts';
import { ApiError } from '../http/errors.ts';
import { findVisibleOrg } from './orgs.ts';

/**
 * The Partner API's side of event providers: a white-label partner enables them per location of
 * its organisations (the subscriptions themselves are `events/subscriptions.ts`).
 */

async function visibleLocation(ctx: AppContext, auth: PartnerAuth, orgId: string, locationId: string) {
  const org = await findVisibleOrg(ctx.db, auth, orgId);
  const [location] = await ctx.db
    .select({ id: orgLocations.id })
    .from(orgLocations)
    .where(and(eq(orgLocations.id, locationId), eq(orgLocations.orgId, org.id)));
  if (!location) throw new ApiError('not_found', `No location ${locationId} in this organisation.`);
  return location.id;
}

/** `GET /onboarding/org/{id}/locations/{location_id}/event-providers` */
export async function listLocationProviders(
  ctx: AppContext,
  auth: PartnerAuth,
  orgId: string,
  locationId: string,
  query: PageQuery,
): Promise<{ event_providers: LocationEventProvider[]; has_more: boolean; next_cursor: string | null }> {
  const id = await visibleLocation(ctx, auth, orgId, locationId);
  const { items, ...page } = await providerPageOf(ctx.db, id, query);
  return { event_providers: items, ...page };
}

/** `PUT` (enable) and `DELETE` (disable) `.../event-providers/{provider}`: both idempotent. */
export async function setLocationProvider(
  ctx: AppContext,
  auth: PartnerAuth,
  orgId: string,
  locationId: string,
  providerRef: string,
  enabled: boolean,
): Promise<{ event_provider: LocationEventProvider }> {
  const id = await visibleLocation(ctx, auth, orgId, locationId);
  return { event_provider: await setProvider(ctx.db, id, providerRef, enabled) };
}
