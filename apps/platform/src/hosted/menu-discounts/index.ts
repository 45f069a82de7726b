import { defineCapability } from '../../http/api.ts';
import { queryAnyCase } from '../query-any-case.ts';
import { registerMenuDiscountsRoute } from './menu-discounts.route.ts';

/** `/MenuDiscounts`: the discounts of a store's menus (hosted Menu API). */
export const menuDiscounts = defineCapability('/MenuDiscounts', (scope) => {
  queryAnyCase(scope);
  registerMenuDiscountsRoute(scope);
});
