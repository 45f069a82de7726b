import { defineCapability } from '../http/api.ts';
import { registerOrderRoute } from './order.route.ts';

/** `/order/*`: the DSP webhook (orders, cancellations, store and delivery status). The work is in `orders/`. */
export const order = defineCapability('/order', (scope) => {
  registerOrderRoute(scope);
});
