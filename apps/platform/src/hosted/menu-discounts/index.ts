import { defineCapability } from '../../http/api.ts';
import { queryNamesAnyCase } from '../query-names.ts';
import { registerMenuDiscountsRoute } from './menu-discounts.route.ts';

/** `/MenuDiscounts`: the discounts of a store's menus (hosted Menu API). */
export const menuDiscounts = defineCapability('/MenuDiscounts', (scope) => {
  queryNamesAnyCase(scope);
  registerMenuDiscountsRoute(scope);
});
