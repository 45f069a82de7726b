import { defineCapability } from '../http/api.ts';
import { registerOrdersRoute } from './orders.route.ts';
import { registerTimelineRoute } from './timeline.route.ts';

/** `/orders/*`: reading routed orders and their timelines (Partner API). */
export const orders = defineCapability('/orders', (scope) => {
  registerOrdersRoute(scope);
  registerTimelineRoute(scope);
});
