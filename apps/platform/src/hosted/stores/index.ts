import { defineCapability } from '../../http/api.ts';
import { registerServiceTypesRoute } from './service-types.route.ts';
import { registerStoresRoute } from './stores.route.ts';
import { registerSystemConfigurationRoute } from './system-configuration.route.ts';

/** `/Stores/*`: the hosted Store API (search, a store, its service types and system message). */
export const hostedStoresCapability = defineCapability('/Stores', (scope) => {
  registerStoresRoute(scope);
  registerServiceTypesRoute(scope);
  registerSystemConfigurationRoute(scope);
});
