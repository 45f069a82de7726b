import { and, asc, eq, sql } from 'drizzle-orm';
import type { OrderInput } from '@stream/contracts/apis/hr-orders/order';
import type { Menu } from '@stream/contracts/apis/hr-menu/menu';
import type { StoreOrderType } from '@stream/contracts/apis/hr-stores/index';
import type { ServiceType } from '@stream/contracts/hosted';
import { settleRevocation, tokenLiveSql, type PartnerAuth } from '../../auth/bearer.ts';
import type { DbOrTx } from '../../db/client.ts';
import { prepared } from '../../db/prepared.ts';
import { companyGrants, hostedMenus, stores } from '../../db/schema/index.ts';
import { ApiError } from '../../http/errors.ts';
import { storeNotVisible, zoneOf, type HostedStore } from '../access.ts';
import { menuOf } from '../menus/store-menus.ts';
import { BoundedMap } from '../../shared/bounded-map.ts';

/**
 * One round trip for what pricing needs: is the caller's token live (`tokenLiveSql`, so `POST
 * /PriceOrder` needs no revocation query of its own), the store if its company is granted to the
 * caller, and which menus it has at which revision (not the menus themselves: see `parsedMenus`).
 * Always at least one row.
 */
const storeWithMenus = prepared('hosted_store_menus', (db, name) =>
  db
    .select({
      live: tokenLiveSql(sql.placeholder('familyId')),
      storeId: stores.id,
      timeZone: stores.timeZone,
      // The row's version: its order types are read only when it changed (`orderTypesAt`).
      storeVersion: sql<string | null>`${stores}.xmin::text`,
      menuId: hostedMenus.id,
      name: hostedMenus.name,
      serviceTypes: hostedMenus.serviceTypes,
      revision: hostedMenus.revision,
    })
    .from(sql`(select 1) as one`)
    .leftJoin(
      stores,
      and(
        eq(stores.id, sql.placeholder('storeId')),
        sql`exists (select 1 from ${companyGrants} where ${companyGrants.companyId} = ${stores.companyId} and ${companyGrants.partnerId} = ${sql.placeholder('partnerId')})`,
      ),
    )
    .leftJoin(hostedMenus, eq(hostedMenus.storeId, stores.id))
    .orderBy(asc(hostedMenus.id))
    .prepare(name),
);

const menuById = prepared('hosted_menu_by_id', (db, name) =>
  db
    .select({ id: hostedMenus.id, menu: hostedMenus.menu, revision: hostedMenus.revision })
    .from(hostedMenus)
    .where(eq(hostedMenus.id, sql.placeholder('id')))
    .prepare(name),
);

/**
 * Parsed menus by revision, kept by this process for pricing: a menu is read (13 KB of JSON for the
 * demo) only when its revision is new here. Every write of a menu gives it a new random revision,
 * and the revision is read with the token check on every call, so a price is never computed from a
 * menu older than the one stored. Frozen, so nothing can change a copy another request shares.
 * Bounded; the oldest entry goes first.
 */
const PARSED_MENUS_CAPACITY = 500;
const parsedMenus = new BoundedMap<string, Menu>(PARSED_MENUS_CAPACITY);

async function menuAtRevision(db: DbOrTx, id: number, revision: string): Promise<Menu> {
  const hit = parsedMenus.get(revision);
  if (hit) return hit;
  // Written since the first statement? Then this is the newer menu, kept under its own revision.
  const [row] = await menuById(db).execute({ id });
  if (!row)
    throw new ApiError('not_found', 'The menu was deleted while the order was priced; send it again.');
  const menu = deepFreeze(menuOf(row));
  parsedMenus.set(row.revision, menu);
  return menu;
}

/**
 * A store's order types by the version of its row (`xmin`: a new one with every write of the row),
 * kept by this process as menus are by revision: pricing reads the version with the token check,
 * and the order types only when they changed. Frozen, bounded, the oldest entry first out.
 */
const orderTypesByVersion = new BoundedMap<string, readonly StoreOrderType[]>(PARSED_MENUS_CAPACITY);

async function orderTypesAt(
  db: DbOrTx,
  storeId: number,
  version: string,
): Promise<readonly StoreOrderType[]> {
  const hit = orderTypesByVersion.get(`${storeId}@${version}`);
  if (hit) return hit;
  const [row] = await db
    .select({ orderTypes: stores.orderTypes, version: sql<string>`${stores}.xmin::text` })
    .from(stores)
    .where(eq(stores.id, storeId));
  const types = deepFreeze(row?.orderTypes ?? []);
  // Under the version read now: written since the first statement, it is the newer one.
  if (row) orderTypesByVersion.set(`${storeId}@${row.version}`, types);
  return types;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * The store and the menu an order is priced against: the one it names, else the store's menu for
 * the service type (one that lists it before a `None` default menu).
 */
export async function storeAndMenuForOrder(
  db: DbOrTx,
  auth: PartnerAuth,
  storeId: number,
  serviceType: ServiceType,
  order: Pick<OrderInput, 'menuName'>,
): Promise<{
  store: Pick<HostedStore, 'id' | 'zone'> & { orderTypes: readonly StoreOrderType[] };
  menu: Menu;
}> {
  const rows = await storeWithMenus(db).execute({
    storeId,
    partnerId: auth.partnerId,
    familyId: auth.familyId,
  });
  settleRevocation(auth, rows[0]!.live);
  const first = rows[0]!;
  if (first.storeId === null) throw storeNotVisible(storeId);
  const store = {
    id: first.storeId,
    zone: zoneOf(first.timeZone!),
    orderTypes: await orderTypesAt(db, first.storeId, first.storeVersion!),
  };
  const menus = rows.filter((r) => r.menuId !== null);
  const chosen =
    order.menuName !== undefined
      ? menus.find((m) => m.name === order.menuName)
      : (menus.find((m) => m.serviceTypes!.includes(serviceType)) ??
        menus.find((m) => m.serviceTypes!.includes('None')));
  if (!chosen && order.menuName !== undefined) {
    throw new ApiError('not_found', `The store has no menu named "${order.menuName}".`);
  }
  if (!chosen) {
    throw new ApiError(
      'order_invalid',
      `Store ${storeId} has no menu for ${serviceType}; name one in data.menuName.`,
      [{ path: 'body.data.menuName', message: `no menu serves ${serviceType}` }],
    );
  }
  return { store, menu: await menuAtRevision(db, chosen.menuId!, chosen.revision!) };
}
