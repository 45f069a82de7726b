import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { MenuFailureCode } from '@stream/contracts/apis/become-a-pos/menu-events';
import type { DbOrTx } from '../db/client.ts';
import { menuItems, menuPublications } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import type { OrgLocation } from '../onboarding/bindings.ts';
import { sendStoreEventToDsp } from '../orders/calls.ts';
import { familyVariation, streamIdOf } from './build.ts';
import { planCatalogPull, recordMenuFailure, storesOf } from './publish.ts';

/**
 * `location.catalog.object.updated`: one item family, item or modifier turned on or off, relayed to
 * every bound DSP store as `location.update` by stream_id, without republishing the menu; new
 * orders naming a turned-off object fail `items_unavailable`. An object no published menu holds is
 * picked up by a catalog pull instead. A store that cannot take the update is told nothing and the
 * POS hears why: UPDATE_ON_UNPUBLISHED when the store has no published menu yet, OUTDATED_HEAD when
 * the store's latest menu no longer holds the object (the update names an older publication's).
 */

/** Where each kind goes in `object_updates`, and the catalog kind its stream_id is made of. */
const LISTS = {
  item_family: { list: 'items', kind: 'item_family' },
  item: { list: 'variations', kind: 'item' },
  modifier: { list: 'modifiers', kind: 'modifier' },
} as const;

export async function applyObjectUpdate(
  tx: DbOrTx,
  location: OrgLocation,
  object: { object_id: string; object_type: string; object_update: { is_active: boolean } },
): Promise<void> {
  const type = object.object_type as keyof typeof LISTS;
  if (!Object.hasOwn(LISTS, type)) {
    throw new ApiError('validation_failed', 'object_type must be item_family, item or modifier.', [
      {
        path: 'object.object_type',
        message: `"${object.object_type}" is not one of item_family, item, modifier`,
      },
    ]);
  }
  const isActive = object.object_update.is_active;
  const own = streamIdOf(location.id, LISTS[type].kind, object.object_id);
  // A family sold without items is also its own variation.
  const variation =
    type === 'item_family' ? streamIdOf(location.id, 'item', familyVariation(object.object_id)) : null;
  const updated = await tx
    .update(menuItems)
    .set({ isActive })
    .where(
      and(
        eq(menuItems.locationId, location.id),
        inArray(menuItems.streamId, variation ? [own, variation] : [own]),
      ),
    )
    .returning({ streamId: menuItems.streamId });
  // Unknown to every published menu: a new object, which the pull below publishes.
  const known = updated.length > 0;
  const objectUpdates = {
    [LISTS[type].list]: [{ stream_id: own, is_active: isActive }],
    ...(variation && updated.some((u) => u.streamId === variation)
      ? { variations: [{ stream_id: variation, is_active: isActive }] }
      : {}),
  };
  for (const store of await storesOf(tx, location.id)) {
    const { binding } = store;
    const head = await headOf(tx, binding.id, own);
    const refuse = (code: MenuFailureCode, reason: string) =>
      recordMenuFailure(
        tx,
        { ...store, location },
        { code, reason, cause: 'object.updated', catalogId: head?.catalogId ?? null },
      );
    if (!head) {
      await refuse(
        'UPDATE_ON_UNPUBLISHED',
        `Store ${binding.dspProviderId} has no published menu yet; ${object.object_id} will be as the catalog says once its menu is published.`,
      );
    } else if (!known) {
      continue;
    } else if (!head.holds) {
      await refuse(
        'OUTDATED_HEAD',
        `The latest menu of store ${binding.dspProviderId} (${head.id}) no longer holds ${object.object_id}: the update is for an older menu. Publish again if it should be on sale.`,
      );
    } else {
      await sendStoreEventToDsp(tx, binding, {
        type: 'location.update',
        location_id: binding.dspProviderId,
        object_updates: objectUpdates,
      });
    }
  }
  if (!known) await planCatalogPull(tx, location.id);
}

/** The store's latest published menu, and whether its file holds `streamId` (without reading it out). */
async function headOf(tx: DbOrTx, bindingId: string, streamId: string) {
  const [head] = await tx
    .select({
      id: menuPublications.id,
      catalogId: menuPublications.catalogId,
      holds: sql<boolean>`jsonb_path_exists(${menuPublications.file}, '$.**.stream_id ? (@ == $id)', ${JSON.stringify({ id: streamId })}::jsonb)`,
    })
    .from(menuPublications)
    .where(and(eq(menuPublications.bindingId, bindingId), eq(menuPublications.status, 'published')))
    .orderBy(desc(menuPublications.createdAt))
    .limit(1);
  return head;
}
