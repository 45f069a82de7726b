import { and, asc, eq, inArray, or } from 'drizzle-orm';
import type { z } from 'zod';
import type {
  BindLocationsRequest,
  BoundLocation,
  OnboardingAddress,
  OrgLocation as OrgLocationWire,
} from '@stream/contracts/apis/partner/onboarding-locations';
import type { PartnerAuth } from '../auth/bearer.ts';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { newId } from '../db/ids.ts';
import { locationBindings, orgLocations, partners } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import {
  creationOrder,
  pageOf,
  pageOfAll,
  pageWindow,
  limitToWindow,
  type PageQuery,
  type PageWindow,
} from '../http/pagination.ts';
import { findVisibleOrg } from './orgs.ts';
import { providersOf } from '../events/subscriptions.ts';
import {
  LIVE_BINDING_STATES,
  moveBindings,
  moveLocation,
  type Binding,
  type OrgLocation,
} from './bindings.ts';
import { enqueueConnect } from './connection-jobs.ts';
import { normaliseAddress } from '../shared/address.ts';
import { assertActive, findVisibleIntegration, type Integration } from './integrations.ts';
import { merchant } from './merchant.ts';
import { PARTNER_OPERATIONS, asPartnerFailure, type AnswerOf } from '../connectors/index.ts';

/** Listing, ingesting and binding locations of an onboarding, and the org's locations. */

type PartnerLocation = AnswerOf<(typeof PARTNER_OPERATIONS)['pos' | 'dsp']['locations']>['locations'][number];

/** The merchant's locations at the integration's partner (the integration must be active). */
async function partnerLocations(ctx: AppContext, row: Integration): Promise<PartnerLocation[]> {
  assertActive(row);
  try {
    return (await merchant.call(ctx, row.id, PARTNER_OPERATIONS[row.type].locations)).locations;
  } catch (err) {
    throw asPartnerFailure(err);
  }
}

async function sourceSlug(db: DbOrTx, partnerId: string): Promise<string> {
  const [p] = await db.select({ slug: partners.slug }).from(partners).where(eq(partners.id, partnerId));
  return p?.slug ?? partnerId;
}

/** The partner's list has no creation time: its ids are the only order it keeps from one call to the next. */
const PARTNER_LOCATIONS_ORDER = { name: 'partner-locations', parts: ['text'], direction: 'asc' } as const;
const ORG_LOCATIONS_ORDER = creationOrder('org-locations', orgLocations.createdAt, orgLocations.id);

/** `GET /onboarding/locations?onboarding_id`: a page of the partner's list, read whole each time. */
export async function listOnboardingLocations(
  ctx: AppContext,
  auth: PartnerAuth,
  onboardingId: string,
  query: PageQuery,
) {
  const window = pageWindow(PARTNER_LOCATIONS_ORDER, query);
  const row = await findVisibleIntegration(ctx.db, auth, onboardingId);
  const { items, ...page } = pageOfAll(window, await partnerLocations(ctx, row), (l) => [l.provider_id]);
  const source = await sourceSlug(ctx.db, row.sourcePartnerId);
  return {
    ...page,
    locations: items.map((l) => ({
      provider_id: l.provider_id,
      name: l.name,
      address: normaliseAddress(l.address),
      source,
      timezone: ('timezone' in l ? l.timezone : null) ?? null,
    })),
  };
}

function typeMismatch(row: Integration, wanted: 'pos' | 'dsp', what: string): ApiError {
  return new ApiError(
    'integration_type_mismatch',
    `${what} needs a ${wanted.toUpperCase()} integration; ${row.id} is a ${row.type.toUpperCase()} one.`,
    [{ path: 'body.onboarding_id', message: `must be a ${wanted} integration` }],
  );
}

function unknownLocations(paths: { path: string; id: string }[], where: string): ApiError {
  return new ApiError(
    'unknown_location',
    `${paths.map((p) => `"${p.id}"`).join(', ')} ${paths.length === 1 ? 'is' : 'are'} not ${where}.`,
    paths.map((p) => ({ path: p.path, message: `not ${where}` })),
  );
}

/**
 * `POST /onboarding/locations/ingest`: the chosen POS locations become org locations, with the
 * names and addresses the POS lists (not the caller's). Idempotent per org, POS and location.
 */
export async function ingestLocations(
  ctx: AppContext,
  auth: PartnerAuth,
  input: { onboarding_id: string; locations: { provider_id: string }[] },
): Promise<{ locations: { _id: string; provider_id: string }[] }> {
  const row = await findVisibleIntegration(ctx.db, auth, input.onboarding_id);
  if (row.type !== 'pos') throw typeMismatch(row, 'pos', 'Ingesting locations');
  const listed = new Map((await partnerLocations(ctx, row)).map((l) => [l.provider_id, l]));
  const wanted = [...new Set(input.locations.map((l) => l.provider_id))];
  const missing = input.locations
    .map((l, i) => ({ path: `body.locations[${i}].provider_id`, id: l.provider_id }))
    .filter((l) => !listed.has(l.id));
  if (missing.length) throw unknownLocations(missing, `a location the POS lists for this merchant`);

  const ids = new Map<string, string>();
  try {
    await ctx.db.transaction(async (tx) => {
      const existing = await tx
        .select()
        .from(orgLocations)
        .where(
          and(
            eq(orgLocations.orgId, row.orgId),
            eq(orgLocations.sourcePartnerId, row.sourcePartnerId),
            inArray(orgLocations.providerId, wanted),
          ),
        );
      const byProvider = new Map(existing.map((l) => [l.providerId, l]));
      for (const providerId of wanted) {
        const l = listed.get(providerId)!;
        const details = {
          name: l.name,
          address: normaliseAddress(l.address),
          timezone: ('timezone' in l ? l.timezone : null) ?? null,
          prepTimeMinutes: ('prep_time_minutes' in l ? l.prep_time_minutes : null) ?? null,
        };
        const found = byProvider.get(providerId);
        if (!found) {
          const id = newId('loc');
          await tx.insert(orgLocations).values({
            id,
            partnerId: row.partnerId,
            orgId: row.orgId,
            integrationId: row.id,
            sourcePartnerId: row.sourcePartnerId,
            providerId,
            status: 'pending',
            ...details,
          });
          ids.set(providerId, id);
          continue;
        }
        await reingest(tx, found, row, details);
        ids.set(providerId, found.id);
      }
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ApiError('conflict', 'These locations are being ingested by another request; retry.');
    throw err;
  }
  return { locations: wanted.map((provider_id) => ({ _id: ids.get(provider_id)!, provider_id })) };
}

/** Ingesting a known location refreshes its details; a deprovisioned one comes back under this integration. */
async function reingest(
  tx: DbOrTx,
  found: OrgLocation,
  row: Integration,
  details: {
    name: string;
    address: OnboardingAddress;
    timezone: string | null;
    prepTimeMinutes: number | null;
  },
): Promise<void> {
  if (found.status === 'waiting_for_deprovision') {
    throw new ApiError(
      'invalid_transition',
      `Location ${found.id} is still being deprovisioned; ingest it again once it is deprovisioned.`,
    );
  }
  if (found.status === 'deprovisioned') await moveLocation(tx, found, 'pending', null);
  // The integration it was ingested through last holds it: its grant makes the POS calls, and
  // deleting an older integration of the same POS no longer deprovisions it.
  await tx
    .update(orgLocations)
    .set({ ...details, integrationId: row.id, updatedAt: new Date() })
    .where(eq(orgLocations.id, found.id));
}

type BindItem = z.output<typeof BindLocationsRequest>['locations'][number];

/**
 * `POST /onboarding/locations/bind`: one pending binding per (POS location, DSP store) and its two
 * connection jobs, in one transaction. Conflicts are checked here and enforced by the partial
 * unique indexes, so two racing binds cannot both hold a store.
 */
export async function bindLocations(
  ctx: AppContext,
  auth: PartnerAuth,
  input: z.output<typeof BindLocationsRequest>,
): Promise<{ locations: BoundLocation[] }> {
  const dsp = await findVisibleIntegration(ctx.db, auth, input.onboarding_id);
  if (dsp.type !== 'dsp') throw typeMismatch(dsp, 'dsp', 'Binding');
  assertDistinct(input.locations);
  const stores = new Set((await partnerLocations(ctx, dsp)).map((l) => l.provider_id));
  const unknownStores = input.locations
    .map((l, i) => ({ path: `body.locations[${i}].dsp_provider_id`, id: l.dsp_provider_id }))
    .filter((l) => !stores.has(l.id));
  if (unknownStores.length) throw unknownLocations(unknownStores, 'a store the DSP lists for this merchant');

  try {
    return await ctx.db.transaction(async (tx) => {
      const out: BoundLocation[] = [];
      for (const [i, item] of input.locations.entries()) {
        const location = await resolveLocation(tx, dsp.orgId, item.pos_location_id, i);
        out.push(await bindOne(tx, dsp, location, item, i));
      }
      return { locations: out };
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new ApiError(
        'location_already_bound',
        'Another request bound one of these locations or stores at the same time.',
      );
    }
    throw err;
  }
}

function assertDistinct(items: BindItem[]): void {
  const seen = { loc: new Set<string>(), store: new Set<string>() };
  for (const [i, item] of items.entries()) {
    const dup = seen.loc.has(item.pos_location_id)
      ? { path: `body.locations[${i}].pos_location_id`, id: item.pos_location_id }
      : seen.store.has(item.dsp_provider_id)
        ? { path: `body.locations[${i}].dsp_provider_id`, id: item.dsp_provider_id }
        : null;
    if (dup) {
      throw new ApiError('location_already_bound', `"${dup.id}" appears twice in this request.`, [
        { path: dup.path, message: 'appears twice' },
      ]);
    }
    seen.loc.add(item.pos_location_id);
    seen.store.add(item.dsp_provider_id);
  }
}

/** An org location by `_id`, or by its POS `provider_id`, within the DSP integration's org. */
async function resolveLocation(tx: DbOrTx, orgId: string, ref: string, i: number): Promise<OrgLocation> {
  const rows = await tx
    .select()
    .from(orgLocations)
    .where(
      and(eq(orgLocations.orgId, orgId), or(eq(orgLocations.id, ref), eq(orgLocations.providerId, ref))),
    );
  const live = rows.filter((l) => l.status !== 'deprovisioned');
  const location = rows.find((l) => l.id === ref) ?? (live.length === 1 ? live[0] : undefined);
  const path = `body.locations[${i}].pos_location_id`;
  if (!location) throw unknownLocations([{ path, id: ref }], "a location of this integration's organisation");
  if (location.status === 'waiting_for_deprovision' || location.status === 'deprovisioned') {
    throw new ApiError(
      'location_not_bindable',
      `Location ${location.id} is ${location.status}; ingest it again first.`,
      [{ path, message: location.status }],
    );
  }
  return location;
}

async function bindOne(
  tx: DbOrTx,
  dsp: Integration,
  location: OrgLocation,
  item: BindItem,
  i: number,
): Promise<BoundLocation> {
  const live = await tx
    .select()
    .from(locationBindings)
    .where(
      and(
        eq(locationBindings.dspPartnerId, dsp.sourcePartnerId),
        inArray(locationBindings.status, LIVE_BINDING_STATES),
        or(
          eq(locationBindings.dspProviderId, item.dsp_provider_id),
          eq(locationBindings.locationId, location.id),
        ),
      ),
    );
  const store = live.find((b) => b.dspProviderId === item.dsp_provider_id);
  if (store && store.orgId !== dsp.orgId) {
    throw new ApiError(
      'store_held_by_another_org',
      `The DSP store "${item.dsp_provider_id}" is bound by another organisation.`,
      [{ path: `body.locations[${i}].dsp_provider_id`, message: 'bound by another organisation' }],
    );
  }
  const same = live.find((b) => b.dspProviderId === item.dsp_provider_id && b.locationId === location.id);
  if (same?.status === 'needs_reconnection' && live.length === 1)
    return wire(await rebind(tx, same, dsp, item));
  const clash = live[0];
  if (clash) {
    const what =
      clash.locationId === location.id
        ? `Location ${location.id} is already bound to the store "${clash.dspProviderId}" of this DSP`
        : `The store "${item.dsp_provider_id}" is already bound to location ${clash.locationId}`;
    throw new ApiError('location_already_bound', `${what} (binding ${clash.id}, ${clash.status}).`, [
      { path: `body.locations[${i}]`, message: 'already bound' },
    ]);
  }
  const [binding] = await tx
    .insert(locationBindings)
    .values({
      id: newId('bnd'),
      partnerId: dsp.partnerId,
      orgId: dsp.orgId,
      locationId: location.id,
      dspIntegrationId: dsp.id,
      dspPartnerId: dsp.sourcePartnerId,
      dspProviderId: item.dsp_provider_id,
      dspStoreName: item.dsp_store_name,
      status: 'pending',
    })
    .returning();
  await enqueueConnect(tx, binding!, { pos: location.sourcePartnerId, dsp: dsp.sourcePartnerId });
  return wire(binding!);
}

/** Binding a `needs_reconnection` pair again starts a new connection round. */
async function rebind(tx: DbOrTx, b: Binding, dsp: Integration, item: BindItem): Promise<Binding> {
  const [moved] = await moveBindings(tx, eq(locationBindings.id, b.id), 'pending');
  await tx
    .update(locationBindings)
    .set({ dspStoreName: item.dsp_store_name, dspIntegrationId: dsp.id })
    .where(eq(locationBindings.id, b.id));
  const [location] = await tx.select().from(orgLocations).where(eq(orgLocations.id, b.locationId));
  await enqueueConnect(tx, b, { pos: location!.sourcePartnerId, dsp: dsp.sourcePartnerId });
  return { ...(moved ?? b), dspStoreName: item.dsp_store_name };
}

const wire = (b: Binding): BoundLocation => ({
  _id: b.id,
  pos_location_id: b.locationId,
  dsp_provider_id: b.dspProviderId,
  dsp_store_name: b.dspStoreName,
  status: b.status,
});

/** `GET /onboarding/org/{id}/locations?location_id` */
export async function listOrgLocations(
  ctx: AppContext,
  auth: PartnerAuth,
  orgId: string,
  locationId: string | undefined,
  query: PageQuery,
): Promise<{ locations: OrgLocationWire[]; has_more: boolean; next_cursor: string | null }> {
  const window = pageWindow(ORG_LOCATIONS_ORDER.order, query);
  const org = await findVisibleOrg(ctx.db, auth, orgId);
  // One snapshot for both reads, so a binding approved in between cannot pair with a stale location.
  return ctx.db.transaction((tx) => readOrgLocations(tx, org.id, locationId, window), {
    isolationLevel: 'repeatable read',
    accessMode: 'read only',
  });
}

async function readOrgLocations(
  tx: DbOrTx,
  orgId: string,
  locationId: string | undefined,
  window: PageWindow,
): Promise<{ locations: OrgLocationWire[]; has_more: boolean; next_cursor: string | null }> {
  const rows = await limitToWindow(
    tx
      .select({ l: orgLocations, source: partners.slug, instant: ORG_LOCATIONS_ORDER.instant })
      .from(orgLocations)
      .innerJoin(partners, eq(partners.id, orgLocations.sourcePartnerId))
      .where(
        and(
          eq(orgLocations.orgId, orgId),
          locationId ? eq(orgLocations.id, locationId) : undefined,
          ORG_LOCATIONS_ORDER.where(window),
        ),
      )
      .orderBy(...ORG_LOCATIONS_ORDER.orderBy)
      .$dynamic(),
    window,
  );
  const { items: locations, ...page } = pageOf(window, rows, (r) => [r.instant, r.l.id]);
  if (locationId && !window.after && locations.length === 0)
    throw new ApiError('not_found', `No location ${locationId} in this organisation.`);
  const bindings = locations.length
    ? await tx
        .select({ b: locationBindings, source: partners.slug })
        .from(locationBindings)
        .innerJoin(partners, eq(partners.id, locationBindings.dspPartnerId))
        .where(
          inArray(
            locationBindings.locationId,
            locations.map((r) => r.l.id),
          ),
        )
        .orderBy(asc(locationBindings.createdAt), asc(locationBindings.id))
    : [];
  const providers = await providersOf(
    tx,
    locations.map((r) => r.l.id),
    { enabledOnly: true },
  );
  return {
    ...page,
    locations: locations.map(({ l, source }) => ({
      _id: l.id,
      name: l.name,
      source,
      provider_id: l.providerId,
      onboarding_id: l.integrationId,
      status: l.status,
      status_reason: l.statusReason,
      address: l.address,
      timezone: l.timezone,
      accepting_orders: {
        pos_status: l.posStatus,
        paused_until: l.pausedUntil?.toISOString() ?? null,
        offline_since: l.offlineSince?.toISOString() ?? null,
      },
      last_undelivered: l.lastUndelivered,
      dsps: bindings
        .filter(({ b }) => b.locationId === l.id)
        .map(({ b, source: dspSource }) => ({
          _id: b.id,
          name: b.dspStoreName,
          source: dspSource,
          provider_id: b.dspProviderId,
          status: b.status,
          reason: b.statusReason,
          change_time: b.changeTime.toISOString(),
          store_status: b.storeStatus,
          last_undelivered: b.lastUndelivered,
        })),
      event_providers: providers.get(l.id) ?? [],
    })),
  };
}
