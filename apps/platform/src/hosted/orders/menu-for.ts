import { and, asc, eq, sql } from 'drizzle-orm';
import type { OrderInput } from '@stream/contracts/apis/hr-orders/order';
import type { Menu } from '@stream/contracts/apis/hr-menu/menu';
import type { ServiceType } from '@stream/contracts/hosted';
import { settleRevocation, tokenLiveSql, type PartnerAuth } from '../../auth/bearer.ts';
import type { DbOrTx } from '../../db/client.ts';
import { prepared } from '../../db/prepared.ts';
import { companyGrants, hostedMenus, stores } from '../../db/schema/index.ts';
import { ApiError } from '../../http/errors.ts';
import { hostedStoreOf, storeNotVisible, type HostedStore } from '../access.ts';
import { menuOf } from '../menus/store-menus.ts';

/**
 * One round trip for what pricing needs: is the caller's token live (`tokenLiveSql`, so `POST
 * /PriceOrder` needs no revocation query of its own), the store if its company is granted to the
 * caller, and the store's menus. Always at least one row.
 */
const storeWithMenus = prepared('hosted_store_menus', (db, name) =>
  db
    .select({ live: tokenLiveSql(sql.placeholder('familyId')), store: stores, menu: hostedMenus })
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
): Promise<{ store: HostedStore; menu: Menu }> {
  const rows = await storeWithMenus(db).execute({
    storeId,
    partnerId: auth.partnerId,
    familyId: auth.familyId,
  });
  settleRevocation(auth, rows[0]!.live);
  const row = rows[0]!.store;
  if (!row) throw storeNotVisible(storeId);
  const store = hostedStoreOf(row);
  const menus = rows.flatMap((r) => (r.menu ? [r.menu] : []));
  if (order.menuName !== undefined) {
    const named = menus.find((m) => m.name === order.menuName);
    if (!named) throw new ApiError('not_found', `The store has no menu named "${order.menuName}".`);
    return { store, menu: menuOf(named) };
  }
  const menu =
    menus.find((m) => m.serviceTypes.includes(serviceType)) ??
    menus.find((m) => m.serviceTypes.includes('None'));
  if (!menu) {
    throw new ApiError(
      'order_invalid',
      `Store ${storeId} has no menu for ${serviceType}; name one in data.menuName.`,
      [{ path: 'body.data.menuName', message: `no menu serves ${serviceType}` }],
    );
  }
  return { store, menu: menuOf(menu) };
}
