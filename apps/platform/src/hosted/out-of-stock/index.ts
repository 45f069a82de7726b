import { defineCapability } from '../../http/api.ts';
import { queryAnyCase } from '../query-any-case.ts';
import { registerOutOfStockRoute } from './out-of-stock.route.ts';

/** `/OutOfStock`: what is out of stock across a store's menus (hosted Menu API). */
export const outOfStock = defineCapability('/OutOfStock', (scope) => {
  queryAnyCase(scope);
  registerOutOfStockRoute(scope);
});
