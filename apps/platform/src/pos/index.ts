import { defineCapability } from '../http/api.ts';
import { registerWebhookRoute } from './webhook.route.ts';

/** `/pos/*`: the POS webhook (order and location status, catalog changes, in-store orders). The work is in `orders/`. */
export const pos = defineCapability('/pos', (scope) => {
  registerWebhookRoute(scope);
});
