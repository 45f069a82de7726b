import { defineCapability } from '../../http/api.ts';
import { registerOutOfStockRoute } from './out-of-stock.route.ts';

/** `/OutOfStock`: what is out of stock across a store's menus (hosted Menu API). */
export const outOfStock = defineCapability('/OutOfStock', registerOutOfStockRoute);
