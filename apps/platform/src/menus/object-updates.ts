import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { menuItems } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { sendStoreEventToDsp } from '../orders/calls.ts';
import { familyVariation, streamIdOf } from './build.ts';
import { planCatalogPull, storesOf } from './publish.ts';

/**
 * `location.catalog.object.updated`: one item family, item or modifier turned on or off, relayed to
 * every bound DSP store as `location.update` by stream_id, without republishing the menu; new
 * orders naming a turned-off object fail `items_unavailable`. An object no published menu holds is
 * picked up by a catalog pull instead.
 */

/** Where each kind goes in `object_updates`, and the catalog kind its stream_id is made of. */
const LISTS = {
  item_family: { list: 'items', kind: 'item_family' },
  item: { list: 'variations', kind: 'item' },
  modifier: { list: 'modifiers', kind: 'modifier' },
} as const;

export async function applyObjectUpdate(
  tx: DbOrTx,
  location: { id: string },
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
  if (updated.length === 0) return planCatalogPull(tx, location.id);
  const objectUpdates = {
    [LISTS[type].list]: [{ stream_id: own, is_active: isActive }],
    ...(variation && updated.some((u) => u.streamId === variation)
      ? { variations: [{ stream_id: variation, is_active: isActive }] }
      : {}),
  };
  for (const { binding } of await storesOf(tx, location.id)) {
    await sendStoreEventToDsp(tx, binding, {
      type: 'location.update',
      location_id: binding.dspProviderId,
      object_updates: objectUpdates,
    });
  }
}
