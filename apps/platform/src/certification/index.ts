import { defineCapability } from '../http/api.ts';
import { registerRunMenuFilesRoute } from './runs-menu-files.route.ts';
import { registerRunWebhooksRoute } from './runs-webhooks.route.ts';
import { registerRunsRoutes } from './runs.route.ts';

/** `/certification/*`: certification runs the platform makes for a partner, their inbox and menu files. */
export const certification = defineCapability('/certification', (scope) => {
  registerRunsRoutes(scope);
  registerRunWebhooksRoute(scope);
  registerRunMenuFilesRoute(scope);
});
