import { and, eq, inArray, sql } from 'drizzle-orm';
import type { MenuFailureCode } from '@stream/contracts/apis/become-a-pos/menu-events';
import type { CatalogObjects } from '@stream/contracts/apis/become-a-pos/catalog';
import type { MenuFile } from '@stream/contracts/apis/become-a-dsp/menu-file';
import type { DbOrTx } from '../db/client.ts';
import { menuItems, menuPublications } from '../db/schema/index.ts';
import { ApiError } from '../http/errors.ts';
import { rowsOf } from '../db/sql.ts';
import type { OrgLocation } from '../onboarding/bindings.ts';
import { sendStoreEventToDsp } from '../orders/calls.ts';
import { activeAt, familyVariation, streamIdOf } from './build.ts';
import type { Catalog } from './catalog.ts';
import { catalogOf, type CatalogRow } from './catalogs.ts';
import { objectsOf } from './diff.ts';
import {
  isHead,
  planCatalogPull,
  planStorePublish,
  recordMenuFailure,
  storesOf,
  type Binding,
} from './publish.ts';

/**
 * `location.catalog.object.updated`: one catalog object turned on or off. An item family, item or
 * modifier is relayed to every bound DSP store as `location.update` by stream_id, without
 * republishing the menu; a category or modifier group, which `location.update` cannot name, is
 * published again to the stores whose menu it changes. New orders naming a turned-off object fail
 * `items_unavailable`. An object no published menu holds is picked up by a catalog pull instead. A
 * store that cannot take the update is told nothing and the POS hears why: UPDATE_ON_UNPUBLISHED
 * when the store has no published menu yet, OUTDATED_HEAD when the store's latest menu no longer
 * holds the object (the update names an older publication's). The update stands over later
 * publications (`standingUpdates`). A menu or a tax shapes the whole file (its menus, its taxes) and
 * has no place in `location.update` or in the standing updates: the catalog, which says whether it is
 * on, is pulled and published again, as for an object no menu holds.
 */

/** Where each kind goes in `object_updates` (none: only a publication shows it), and its stream_id's kind. */
const LISTS = {
  category: { list: null, kind: 'category' },
  item_family: { list: 'items', kind: 'item_family' },
  item: { list: 'variations', kind: 'item' },
  modifier_group: { list: null, kind: 'modifier_group' },
  modifier: { list: 'modifiers', kind: 'modifier' },
} as const;
type ObjectType = keyof typeof LISTS;
/** The kinds a catalog pull answers for (see above). */
const PULLED = ['menu', 'tax'];
const TYPES = [...Object.keys(LISTS), ...PULLED].join(', ');

export async function applyObjectUpdate(
  tx: DbOrTx,
  location: OrgLocation,
  object: { object_id: string; object_type: string; object_update: { is_active: boolean } },
): Promise<void> {
  if (PULLED.includes(object.object_type)) return planCatalogPull(tx, location.id, 'object.updated');
  const type = object.object_type as ObjectType;
  if (!Object.hasOwn(LISTS, type)) {
    // Named from the request body, as the contract's own validation names every other webhook field.
    const message = `"${object.object_type}" is not one of ${TYPES}`;
    throw new ApiError('validation_failed', `body.object.object_type: ${message}.`, [
      { path: 'body.object.object_type', message },
    ]);
  }
  const isActive = object.object_update.is_active;
  const { list } = LISTS[type];
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
  const objectUpdates =
    list &&
    objectUpdatesOf(
      new Map([
        [own, { list, isActive }],
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
    } else if (!objectUpdates) {
      // A category or group: the store's menu built again if it shows the object, or may show it
      // now (one turned off in the catalog is in no file); a menu it does not change is not sent.
      if (head.holds || isActive) await planStorePublish(tx, binding, 'object.updated');
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

type List = NonNullable<(typeof LISTS)[ObjectType]['list']>;

/** The stream_ids of a POS object: its own, and for a family sold without items its variation too. */
function streamIdsOf(locationId: string, type: ObjectType, objectId: string) {
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
 * The state of each object the POS sent an update for, over `row` (its `catalog`): the newest
 * statement from the POS wins. Per object its last update stands through any publication of a
 * catalog that did not itself change that object's availability: until another update, or a catalog
 * version since the one the update arrived over (the location's latest then) gives the object
 * another availability, which then stands. An update that arrived before any catalog, or about an
 * object its catalog did not hold, gives way to the catalog. Only an update that says otherwise than
 * `catalog` needs the catalog's history (usually the few objects turned off), read object by object
 * in SQL rather than whole catalogs.
 */
export async function standingUpdates(
  db: DbOrTx,
  location: OrgLocation,
  row: CatalogRow,
  catalog: Catalog,
): Promise<StandingUpdate[]> {
  const object = sql.raw(`e.body->'object'`);
  const latest = rowsOf<{ type: string; objectId: string; isActive: boolean; at: string }>(
    await db.execute(sql`
      select distinct on (${object}->>'object_type', ${object}->>'object_id')
        ${object}->>'object_type' as "type", ${object}->>'object_id' as "objectId",
        (${object}->'object_update'->>'is_active')::boolean as "isActive", e.created_at as "at"
      from webhook_events e
      where e.partner_id = ${location.sourcePartnerId} and e.location_id = ${location.id}
        and e.type = 'location.catalog.object.updated'
      order by ${object}->>'object_type', ${object}->>'object_id', e.created_at desc, e.id desc`),
  );
  const at = (o: unknown) => activeAt(o as Parameters<typeof activeAt>[0], location.providerId);
  const states: StandingUpdate[] = [];
  const questioned: typeof latest = [];
  for (const u of latest) {
    if (!Object.hasOwn(LISTS, u.type)) continue;
    const o = catalog[u.type as ObjectType].get(u.objectId);
    if (!o) continue;
    if (at(o) === u.isActive)
      states.push({ type: u.type as ObjectType, objectId: u.objectId, isActive: u.isActive });
    else questioned.push(u);
  }
  if (questioned.length === 0) return states;
  // Each questioned object as every catalog version from the one its update arrived over to `row` has it.
  const history = rowsOf<{ type: ObjectType; objectId: string; isActive: boolean; since: unknown[] | null }>(
    await db.execute(sql`
      select q.type as "type", q.object_id as "objectId", q.is_active as "isActive",
        (select jsonb_agg(jsonb_path_query_first(c.catalog -> q.type, '$[*] ? (@.provider_id == $id)',
             jsonb_build_object('id', q.object_id)) order by c.version)
           from catalogs c
           where c.location_id = ${location.id}
             and c.version between least(u.version, ${row.version}::int) and ${row.version}::int) as "since"
      from jsonb_to_recordset(${JSON.stringify(questioned.map((u) => ({ type: u.type, object_id: u.objectId, is_active: u.isActive, at: u.at })))}::jsonb)
        as q(type text, object_id text, is_active boolean, at timestamptz)
      left join lateral (select max(b.version) as version from catalogs b
        where b.location_id = ${location.id} and b.created_at <= q.at) u on true`),
  );
  for (const { type, objectId, isActive, since } of history) {
    const first = since?.[0];
    // Unless a catalog spoke since: then its state (the opposite of the update's) stands.
    const stands = !!first && since.every((o) => !!o && at(o) === at(first));
    states.push({ type, objectId, isActive: stands ? isActive : !isActive });
  }
  return states;
}

export interface StandingUpdate {
  type: ObjectType;
  objectId: string;
  isActive: boolean;
}

/** The catalog as the POS last said it: `catalog` with each updated object's state. */
export function withUpdates(
  catalog: Catalog,
  updates: readonly StandingUpdate[],
  posLocationId: string,
): Catalog {
  for (const { type, objectId, isActive } of updates) {
    const objects = catalog[type] as Map<string, CatalogObjects[ObjectType]>;
    const o = objects.get(objectId);
    if (!o) continue;
    // A copy (the stored catalog's objects may be shared); the location's own `is_active` gives way too.
    const overrides = 'location_overrides' in o ? o.location_overrides : undefined;
    objects.set(objectId, {
      ...o,
      is_active: isActive,
      ...(overrides
        ? {
            location_overrides: overrides.map((l) =>
              l.location_id === posLocationId ? { ...l, is_active: undefined } : l,
            ),
          }
        : {}),
    });
  }
  return catalog;
}

/**
 * The catalog a publication is built from: `row` with the updates that stand over it (and those), and
 * its problems (a blank menu's reason points at them).
 */
export async function catalogAsSaid(db: DbOrTx, location: OrgLocation, row: CatalogRow) {
  const { catalog, problems } = catalogOf(row);
  const updates = await standingUpdates(db, location, row, catalog);
  return { catalog: withUpdates(catalog, updates, location.providerId), updates, problems };
}

/**
 * After a store took a publication: the standing updates its file shows otherwise (one the POS sent
 * after the file was built: a publication can wait for a DSP that is down, an update does not) are
 * applied to the stored file (a DSP may download it later) and told to the store, as one
 * `location.update` sent after the publication. (Categories and modifier groups have no place in a
 * `location.update`: a publication carries them, `applyObjectUpdate` plans one.)
 */
export async function replayLaterUpdates(
  tx: DbOrTx,
  store: { binding: Binding; location: OrgLocation },
  publication: { id: string; file: MenuFile | null },
  updates: readonly StandingUpdate[],
): Promise<void> {
  if (!publication.file) return;
  const shown = objectsOf(publication.file);
  const states = new Map<string, { list: List; isActive: boolean }>();
  for (const { type, objectId, isActive } of updates) {
    const { list } = LISTS[type];
    if (!list) continue;
    const { own, variation } = streamIdsOf(store.location.id, type, objectId);
    for (const [streamId, as] of [
      [own, list],
      ...(variation ? [[variation, 'variations'] as const] : []),
    ] as const) {
      const was = shown.get(streamId)?.fields.get('is_active');
      if (was !== undefined && was !== String(isActive)) states.set(streamId, { list: as, isActive });
    }
  }
  if (states.size === 0) return;
  await tx
    .update(menuPublications)
    .set({ file: withStates(publication.file, states) })
    .where(eq(menuPublications.id, publication.id));
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
    .where(isHead(bindingId));
  return head;
}
