import { defineCapability } from '../../http/api.ts';
import { keepSentBodies } from '../ignored-fields.ts';
import { queryAnyCase } from '../query-any-case.ts';
import { registerMenusRoute } from './menus.route.ts';
import { registerMenuOutOfStockRoute } from './out-of-stock.route.ts';

/** `/Menus/*`: a store's menus (hosted Menu API). */
export const hostedMenusCapability = defineCapability('/Menus', (scope) => {
  keepSentBodies(scope);
  queryAnyCase(scope);
  registerMenusRoute(scope);
  registerMenuOutOfStockRoute(scope);
});
