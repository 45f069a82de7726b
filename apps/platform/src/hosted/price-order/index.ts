import { defineCapability } from '../../http/api.ts';
import { keepSentBodies } from '../ignored-fields.ts';
import { queryAnyCase } from '../query-any-case.ts';
import { registerPriceOrderRoute } from './price-order.route.ts';

/** `/PriceOrder`: pricing without placing (hosted Order API). */
export const priceOrderCapability = defineCapability('/PriceOrder', (scope) => {
  keepSentBodies(scope);
  queryAnyCase(scope);
  registerPriceOrderRoute(scope);
});
