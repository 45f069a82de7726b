import { defineCapability } from '../../http/api.ts';
import { queryNamesAnyCase } from '../query-names.ts';
import { registerOutOfStockRoute } from './out-of-stock.route.ts';

/** `/OutOfStock`: what is out of stock across a store's menus (hosted Menu API). */
export const outOfStock = defineCapability('/OutOfStock', (scope) => {
  queryNamesAnyCase(scope);
  registerOutOfStockRoute(scope);
});
