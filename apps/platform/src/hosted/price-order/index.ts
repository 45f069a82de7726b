import { defineCapability } from '../../http/api.ts';
import { registerPriceOrderRoute } from './price-order.route.ts';

/** `/PriceOrder`: pricing without placing (hosted Order API). */
export const priceOrderCapability = defineCapability('/PriceOrder', registerPriceOrderRoute);
