import { and, eq, isNull, ne } from 'drizzle-orm';
import type { PosWebhook } from '@stream/contracts/apis/become-a-pos/index';
import type { AppContext } from '../context.ts';
import type { DbOrTx } from '../db/client.ts';
import { integrations, orders, orgLocations } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import type { OrgLocation } from '../onboarding/bindings.ts';
import type { Partner } from '../partners/service.ts';
import { applyObjectUpdate } from '../menus/object-updates.ts';
import { planCatalogPull } from '../menus/publish.ts';
import { addTimeline, lockOrder, recordWebhook } from './records.ts';
import { applyPosStatus, settle, type Settled } from './relay.ts';
import { markOffline, setLocationStatus } from './store-status.ts';

/**
 * `POST /pos/{partner_slug}/webhook`: what the platform does with each POS webhook, in one
 * transaction with the webhook's record, committed before the 204.
 */

/** The live locations of every integration of the merchant account `merchantId` at this POS. */
async function merchantLocationsOf(
  db: DbOrTx,
  posPartnerId: string,
  merchantId: string,
): Promise<OrgLocation[]> {
  const rows = await db
    .select({ location: orgLocations })
    .from(orgLocations)
    .innerJoin(integrations, eq(integrations.id, orgLocations.integrationId))
    .where(
      and(
        eq(orgLocations.sourcePartnerId, posPartnerId),
        eq(integrations.merchantId, merchantId),
        ne(orgLocations.status, 'deprovisioned'),
      ),
    );
  return rows.map((r) => r.location);
}

/** The org locations (one per org that ingested it) of the POS's location id. */
async function locationsOf(db: DbOrTx, posPartnerId: string, providerId: string): Promise<OrgLocation[]> {
  return db
    .select()
    .from(orgLocations)
    .where(
      and(
        eq(orgLocations.sourcePartnerId, posPartnerId),
        eq(orgLocations.providerId, providerId),
        ne(orgLocations.status, 'deprovisioned'),
      ),
    )
    .for('update');
}

const unknownLocation = (id: string) =>
  new ApiError('location_not_found', `No location ${id} of yours is connected to the platform.`);

/** The order a POS names by its own id at its location. */
const posOrderWhere = (posPartnerId: string, object: { location_id: string; provider_id: string }) =>
  and(
    eq(orders.posPartnerId, posPartnerId),
    eq(orders.posLocationId, object.location_id),
    eq(orders.posOrderId, object.provider_id),
  )!;

/** How long a status for an order not known by its provider_id yet waits for the POS's answer. */
export const ANSWER_WAIT = { ms: 3_000, everyMs: 50 };

/**
 * A POS may confirm an order the moment it answers `async_acceptance`, before the platform has
 * stored that answer and with it the order's provider_id. A status for an order not known yet by
 * its provider_id, while an order of the location is still on its way to the POS, waits for that
 * answer and is applied then, instead of being answered 404. The wait is outside any transaction
 * (on PGlite the answer needs the one connection). True once the order is known.
 */
async function awaitPosAnswer(
  ctx: AppContext,
  posPartnerId: string,
  object: { location_id: string; provider_id: string },
): Promise<boolean> {
  const inFlight = and(
    eq(orders.posPartnerId, posPartnerId),
    eq(orders.posLocationId, object.location_id),
    eq(orders.status, 'received'),
    isNull(orders.posOrderId),
  );
  const until = Date.now() + ANSWER_WAIT.ms;
  while (Date.now() < until) {
    const [waiting] = await ctx.db.select({ id: orders.id }).from(orders).where(inFlight).limit(1);
    if (!waiting) break;
    await new Promise((r) => setTimeout(r, ANSWER_WAIT.everyMs));
  }
  const where = posOrderWhere(posPartnerId, object);
  return (await ctx.db.select({ id: orders.id }).from(orders).where(where).limit(1)).length > 0;
}

export async function receivePosWebhook(ctx: AppContext, partner: Partner, body: PosWebhook): Promise<void> {
  try {
    await applyPosWebhook(ctx, partner, body);
  } catch (err) {
    const early =
      err instanceof ApiError && err.code === 'order_not_found' && body.type === 'order.status.updated';
    if (!early || !(await awaitPosAnswer(ctx, partner.id, body.object))) throw err;
    await applyPosWebhook(ctx, partner, body);
  }
}

async function applyPosWebhook(ctx: AppContext, partner: Partner, body: PosWebhook): Promise<void> {
  const settled: Settled<void> = await ctx.db.transaction(async (tx) => {
    const record = (locationId: string | null, orderId?: string) =>
      recordWebhook(tx, {
        partnerId: partner.id,
        type: body.type,
        body,
        locationId,
        orderId: orderId ?? null,
      });
    switch (body.type) {
      case 'order.status.updated': {
        const { provider_id, location_id, status } = body.object;
        const order = await lockOrder(tx, posOrderWhere(partner.id, body.object));
        if (!order) {
          throw new ApiError(
            'order_not_found',
            `No order ${provider_id} at location ${location_id}: use the provider_id you answered to order.created.`,
          );
        }
        const eventId = await record(order.locationId, order.id);
        await addTimeline(tx, order.id, {
          kind: 'received',
          type: body.type,
          partnerId: partner.id,
          eventId,
          detail: status,
        });
        return settle(await applyPosStatus(tx, order, status, eventId), () => undefined);
      }
      case 'location.status.updated':
      case 'location.connection.offline': {
        const found = await locationsOf(tx, partner.id, body.object.location_id);
        if (found.length === 0) throw unknownLocation(body.object.location_id);
        for (const location of found) {
          await record(location.id);
          if (body.type === 'location.connection.offline') await markOffline(tx, location);
          else await setLocationStatus(tx, location, body.object.status, body.object.paused_until ?? null);
        }
        return { value: undefined };
      }
      case 'order.created': {
        // An in-store order: recorded against the location (the platform routes no in-store orders).
        const found = await locationsOf(tx, partner.id, body.object.location_id);
        if (found.length === 0) throw unknownLocation(body.object.location_id);
        for (const location of found) await record(location.id);
        return { value: undefined };
      }
      default: {
        // Catalog changes: recorded, then a pull and publish, debounced (a burst makes one). A
        // merchant-wide catalog.updated (merchant_id, no location_id) reaches each of its locations.
        const id = body.object.location_id;
        const merchantId = 'merchant_id' in body.object ? body.object.merchant_id : undefined;
        const found = id
          ? await locationsOf(tx, partner.id, id)
          : merchantId
            ? await merchantLocationsOf(tx, partner.id, merchantId)
            : [];
        // A location the platform does not have is 404, as for the status webhooks (the POS must
        // learn its catalog changes go nowhere); a merchant with none connected (yet) is not an error.
        if (id && found.length === 0) throw unknownLocation(id);
        // Recorded for each org location: an object's standing update is read per location.
        if (found.length === 0) await record(null);
        for (const location of found) await record(location.id);
        if (body.type === 'location.catalog.updated')
          for (const location of found) await planCatalogPull(tx, location.id);
        if (body.type === 'location.catalog.object.updated')
          for (const location of found) await applyObjectUpdate(tx, location, body.object);
        return { value: undefined };
      }
    }
  });
  if ('refused' in settled) throw settled.refused;
}
