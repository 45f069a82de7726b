import type { OrderInput } from '@stream/contracts/apis/hr-orders/order';
import type { Menu } from '@stream/contracts/apis/hr-menu/menu';
import type { ServiceType } from '@stream/contracts/hosted';
import type { DbOrTx } from '../../db/client.ts';
import { ApiError } from '../../http/errors.ts';
import { findStoreMenu, listStoreMenus, menuOf } from '../menus/store-menus.ts';

/**
 * The menu an order is priced against: the one it names, else the store's menu for the service
 * type (one that lists it before a `None` default menu).
 */
export async function menuForOrder(
  db: DbOrTx,
  storeId: number,
  serviceType: ServiceType,
  order: Pick<OrderInput, 'menuName'>,
): Promise<Menu> {
  if (order.menuName !== undefined) return menuOf(await findStoreMenu(db, storeId, order.menuName));
  const menus = await listStoreMenus(db, storeId, serviceType);
  const menu = menus.find((m) => m.serviceTypes.includes(serviceType)) ?? menus[0];
  if (!menu) {
    throw new ApiError(
      'order_invalid',
      `Store ${storeId} has no menu for ${serviceType}; name one in data.menuName.`,
      [{ path: 'body.data.menuName', message: `no menu serves ${serviceType}` }],
    );
  }
  return menuOf(menu);
}
