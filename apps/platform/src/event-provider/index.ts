import { defineCapability } from '../http/api.ts';
import { registerWebhookRoute } from './webhook.route.ts';

/** `/event-provider/*`: the event providers' webhook (driver assignment, delivery status). The work is in `events/`. */
export const eventProvider = defineCapability('/event-provider', (scope) => {
  registerWebhookRoute(scope);
});
