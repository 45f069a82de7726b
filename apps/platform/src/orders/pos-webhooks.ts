import { and, eq, ne } from 'drizzle-orm';
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

/** The org locations (one per org that ingested it) of the POS's location id. */
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

export async function receivePosWebhook(ctx: AppContext, partner: Partner, body: PosWebhook): Promise<void> {
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
        const order = await lockOrder(
          tx,
          and(
            eq(orders.posPartnerId, partner.id),
            eq(orders.posLocationId, location_id),
            eq(orders.posOrderId, provider_id),
          )!,
        );
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
        await record(found[0]?.id ?? null);
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
