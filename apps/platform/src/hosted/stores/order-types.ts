import type { StoreOrderType } from '@stream/contracts/apis/hr-stores/index';
import type { ServiceType } from '@stream/contracts/hosted';
import { ApiError } from '../../http/errors.ts';

/**
 * A store's own order types (the Store API's): the service types each is offered for, its hours and
 * its current `estimatedTime`. PriceOrder and the Order API take an order on these terms, so what
 * `OrderTypes` and `EstimatedTime` answer is what an order gets.
 */

/**
 * The order type `/Stores/{id}/OrderTypes/{orderType}` names: the one of that id, else the one whose id
 * differs only in case (`pickup` for `Pickup`). The ids are the company file's, but in practice the
 * spec's closed list of order types (Pickup, Delivery, ...), which .NET binds in any case; two ids
 * that differ only in case name neither, and the 404 lists the ids.
 */
export function orderTypeNamed(
  storeId: number,
  types: readonly StoreOrderType[],
  id: string,
): StoreOrderType {
  const spelled = spelledAsListed(
    id,
    types.map((t) => t.id),
  );
  const found = types.find((t) => t.id === spelled);
  if (found) return found;
  throw new ApiError(
    'not_found',
    `Store ${storeId} has no order type ${id}; it has ${types.map((t) => t.id).join(', ') || 'none'} (GET /Stores/${storeId}/OrderTypes).`,
  );
}

/**
 * An id as `ids` spell it (order types, delivery zones): itself when listed, else the only one
 * differing from it in case (`pickup` for `Pickup`), else as sent (none, or two that differ only in
 * case: the exact one is needed).
 */
export function spelledAsListed(id: string, ids: readonly string[]): string {
  if (ids.includes(id)) return id;
  const lower = id.toLowerCase();
  const matches = new Set(ids.filter((other) => other.toLowerCase() === lower));
  return matches.size === 1 ? [...matches][0]! : id;
}

/** Offered for the service type (`None` in its list: for every one). */
export const offeredFor = (type: Pick<StoreOrderType, 'serviceTypes'>, serviceType: ServiceType): boolean =>
  type.serviceTypes.includes(serviceType) || type.serviceTypes.includes('None');

/**
 * The store's order type an order of `orderTypeId` for `serviceType` is taken under: undefined when
 * the store lists no order types (its menu decides alone); 422 `order_invalid` when it lists them
 * but does not offer this one for the service type.
 */
export function storeOrderTypeFor(
  storeId: number,
  types: readonly StoreOrderType[],
  orderTypeId: string,
  serviceType: ServiceType,
): StoreOrderType | undefined {
  if (types.length === 0) return undefined;
  const type = types.find((t) => t.id === orderTypeId);
  if (type && offeredFor(type, serviceType)) return type;
  const offered = types.filter((t) => offeredFor(t, serviceType)).map((t) => t.id);
  throw new ApiError(
    'order_invalid',
    `Store ${storeId} does not take ${orderTypeId} orders for ${serviceType}; it takes ${offered.join(', ') || 'none'} (GET /Stores/${storeId}/OrderTypes?serviceType=${serviceType}).`,
    [{ path: 'body.data.orderType', message: `not offered for ${serviceType} at this store` }],
  );
}
