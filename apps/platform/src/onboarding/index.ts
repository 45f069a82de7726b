import type { FastifyInstance } from 'fastify';
import { registerIntegrationsRoutes } from './integrations.route.ts';
import { registerIntegrationEntryRoute } from './integrations-entry.route.ts';
import { registerOAuthCallbackRoute } from './integrations-callback.route.ts';
import { registerLocationsRoute } from './locations.route.ts';
import { registerLocationsIngestRoute } from './locations-ingest.route.ts';
import { registerLocationsBindRoute } from './locations-bind.route.ts';
import { registerOrgLocationsRoute } from './org-locations.route.ts';
// The connection job kinds must be known to every process that runs a worker.
import './connection-jobs.ts';

/** Merchant onboarding: integrations over OAuth, locations, bindings (Partner API, scope `onboarding`). */
export function registerOnboarding(app: FastifyInstance): void {
  registerIntegrationsRoutes(app);
  registerIntegrationEntryRoute(app);
  registerOAuthCallbackRoute(app);
  registerLocationsRoute(app);
  registerLocationsIngestRoute(app);
  registerLocationsBindRoute(app);
  registerOrgLocationsRoute(app);
}
