import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { MenuFailureCode } from '@stream/contracts/apis/become-a-pos/menu-events';
import type { DbOrTx } from '../db/client.ts';
import { menuItems, menuPublications, webhookEvents } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import type { OrgLocation } from '../onboarding/bindings.ts';
import { sendStoreEventToDsp } from '../orders/calls.ts';
import type { MenuFile } from '@stream/contracts/apis/become-a-dsp/menu-file';
import { familyVariation, streamIdOf, type MappedObject } from './build.ts';
import type { CatalogRow } from './catalogs.ts';
import { planCatalogPull, recordMenuFailure, storesOf, type Binding } from './publish.ts';

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
  const { own, variation } = streamIdsOf(location.id, type, object.object_id);
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
  const objectUpdates = objectUpdatesOf(
    new Map([
      [own, { list: LISTS[type].list, isActive }],
      ...(variation && updated.some((u) => u.streamId === variation)
        ? [[variation, { list: 'variations', isActive }] as const]
        : []),
    ]),
  );
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
  if (!known) await planCatalogPull(tx, location.id, 'object.updated');
}

type List = (typeof LISTS)[keyof typeof LISTS]['list'];

/** The stream_ids of a POS object: its own, and for a family sold without items its variation too. */
function streamIdsOf(locationId: string, type: keyof typeof LISTS, objectId: string) {
  return {
    own: streamIdOf(locationId, LISTS[type].kind, objectId),
    variation: type === 'item_family' ? streamIdOf(locationId, 'item', familyVariation(objectId)) : null,
  };
}

/** `object_updates` of a `location.update`: each stream_id in its list. */
function objectUpdatesOf(states: Map<string, { list: List; isActive: boolean }>) {
  const out: Partial<Record<List, { stream_id: string; is_active: boolean }[]>> = {};
  for (const [streamId, { list, isActive }] of states)
    (out[list] ??= []).push({ stream_id: streamId, is_active: isActive });
  return out;
}

/**
 * After a store took a publication: the object updates the POS sent since the catalog it was built
 * from was pulled. The file shows them as that catalog did (on, if the POS turned it off meanwhile),
 * and taking it wrote that state to `menu_items`; so each one the file shows otherwise is applied
 * again, to `menu_items`, to the stored file (a DSP may download it later) and to the store, as one
 * `location.update` sent after the publication. The last update of an object wins.
 */
export async function replayLaterUpdates(
  tx: DbOrTx,
  store: { binding: Binding; location: OrgLocation },
  publication: { id: string; file: MenuFile | null },
  catalog: CatalogRow,
  mapping: ReadonlyMap<string, MappedObject>,
): Promise<void> {
  const later = await tx
    .select({ body: webhookEvents.body })
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.partnerId, store.location.sourcePartnerId),
        eq(webhookEvents.locationId, store.location.id),
        eq(webhookEvents.type, 'location.catalog.object.updated'),
        gt(webhookEvents.createdAt, catalog.fetchedAt),
      ),
    )
    .orderBy(asc(webhookEvents.createdAt), asc(webhookEvents.id));
  const states = new Map<string, { list: List; isActive: boolean }>();
  for (const { body } of later) {
    const object = (body as { object?: Parameters<typeof applyObjectUpdate>[2] }).object;
    const type = object?.object_type as keyof typeof LISTS;
    if (!object || !Object.hasOwn(LISTS, type)) continue;
    const isActive = object.object_update.is_active;
    const { own, variation } = streamIdsOf(store.location.id, type, object.object_id);
    states.set(own, { list: LISTS[type].list, isActive });
    if (variation) states.set(variation, { list: 'variations', isActive });
  }
  // Only what the file holds and shows otherwise.
  for (const [streamId, { isActive }] of states) {
    const mapped = mapping.get(streamId);
    if (!mapped || (mapped.isActive ?? true) === isActive) states.delete(streamId);
  }
  if (states.size === 0) return;
  for (const active of [true, false]) {
    const ids = [...states].filter(([, s]) => s.isActive === active).map(([id]) => id);
    if (ids.length > 0)
      await tx
        .update(menuItems)
        .set({ isActive: active })
        .where(and(eq(menuItems.locationId, store.location.id), inArray(menuItems.streamId, ids)));
  }
  if (publication.file) {
    await tx
      .update(menuPublications)
      .set({ file: withStates(publication.file, states) })
      .where(eq(menuPublications.id, publication.id));
  }
  await sendStoreEventToDsp(tx, store.binding, {
    type: 'location.update',
    location_id: store.binding.dspProviderId,
    object_updates: objectUpdatesOf(states),
  });
}

/** The file with `is_active` set on every object named in `states`, wherever it is nested. */
function withStates<T>(node: T, states: ReadonlyMap<string, { isActive: boolean }>): T {
  if (Array.isArray(node)) return node.map((n: unknown) => withStates(n, states)) as T;
  if (typeof node !== 'object' || node === null) return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withStates(v, states)])) as Record<
    string,
    unknown
  >;
  const state = typeof out.stream_id === 'string' ? states.get(out.stream_id) : undefined;
  if (state && 'is_active' in out) out.is_active = state.isActive;
  return out as T;
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
