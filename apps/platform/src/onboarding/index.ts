import { defineCapability } from '../http/api.ts';
import { registerOrgRoute } from './org.route.ts';
import { registerIntegrationsRoutes } from './integrations.route.ts';
import { registerIntegrationEntryRoute } from './integrations-entry.route.ts';
import { registerOAuthCallbackRoute } from './oauth-callback.route.ts';
import { registerLocationsRoute } from './locations.route.ts';
import { registerLocationsIngestRoute } from './locations-ingest.route.ts';
import { registerLocationsBindRoute } from './locations-bind.route.ts';
import { registerOrgLocationsRoute } from './org-locations.route.ts';
import { registerOrgLocationEventProvidersRoutes } from './org-locations-event-providers.route.ts';
// The connection job kinds must be known to every process that runs a worker.
import './connection-jobs.ts';

/** `/onboarding/*`: organisations, integrations over OAuth, locations, bindings, event providers. */
export const onboarding = defineCapability('/onboarding', (scope) => {
  registerOrgRoute(scope);
  registerIntegrationsRoutes(scope);
  registerIntegrationEntryRoute(scope);
  registerOAuthCallbackRoute(scope);
  registerLocationsRoute(scope);
  registerLocationsIngestRoute(scope);
  registerLocationsBindRoute(scope);
  registerOrgLocationsRoute(scope);
  registerOrgLocationEventProvidersRoutes(scope);
});
