import { defineCapability } from '../../http/api.ts';
import { keepSentBodies } from '../ignored-fields.ts';
import { queryNamesAnyCase } from '../query-names.ts';
import { registerPriceOrderRoute } from './price-order.route.ts';

/** `/PriceOrder`: pricing without placing (hosted Order API). */
export const priceOrderCapability = defineCapability('/PriceOrder', (scope) => {
  keepSentBodies(scope);
  queryNamesAnyCase(scope);
  registerPriceOrderRoute(scope);
});
