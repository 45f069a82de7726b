import { defineCapability } from '../../http/api.ts';
import { keepSentBodies } from '../ignored-fields.ts';
import { queryAnyCase } from '../query-any-case.ts';
import { registerDeliveryMetricsRoute } from './delivery-metrics.route.ts';
import { registerEmailRoute } from './email.route.ts';
import { registerPostEmailRoute } from './post-email.route.ts';
import { registerGatewayCredentialsRoute } from './gateway-credentials.route.ts';
import { registerGeoFencesRoute } from './geo-fences.route.ts';
import { registerOrderTypesRoute } from './order-types.route.ts';
import { registerEstimatedTimeRoute } from './order-types-estimated-time.route.ts';
import { registerServiceTypesRoute } from './service-types.route.ts';
import { registerStoresRoute } from './stores.route.ts';
import { registerSystemConfigurationRoute } from './system-configuration.route.ts';

/** `/Stores/*`: the hosted Store API (search, a store, its service types, system message, zones, credentials, order types). */
export const hostedStoresCapability = defineCapability('/Stores', (scope) => {
  queryAnyCase(scope);
  // Body field names in any case, as the Menu and Order APIs read them; the bodies stay strict.
  keepSentBodies(scope);
  registerStoresRoute(scope);
  registerServiceTypesRoute(scope);
  registerSystemConfigurationRoute(scope);
  registerGeoFencesRoute(scope);
  registerGatewayCredentialsRoute(scope);
  registerOrderTypesRoute(scope);
  registerDeliveryMetricsRoute(scope);
  registerEstimatedTimeRoute(scope);
  registerEmailRoute(scope);
  registerPostEmailRoute(scope);
});
