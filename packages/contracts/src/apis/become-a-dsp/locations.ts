import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import {
  EXAMPLE_ADDRESS,
  LocationConnection,
  LocationConnectionRequest,
  PartnerLocationAddress,
} from '../become-a-pos/locations.ts';

export const DspLocation = z
  .object({
    provider_id: z.string().min(1).meta({ description: 'Your id of the store.' }),
    name: z.string(),
    address: PartnerLocationAddress,
  })
  .meta({ id: 'DspLocation', description: 'A store of the merchant account the access token belongs to.' });
export type DspLocation = z.infer<typeof DspLocation>;

export const DspLocationList = z.object({ locations: z.array(DspLocation) }).meta({ id: 'DspLocationList' });

export const DspConnectionQuery = z
  .object({ location_id: z.string().min(1).meta({ description: 'The `provider_id` of the store.' }) })
  .meta({ id: 'DspConnectionQuery' });

const merchantErrors = ['missing_token', 'invalid_token', 'token_expired'] as const;
const common = { tags: ['Locations'], security: { kind: 'merchant-bearer' }, servedBy: 'partner' } as const;
const path = '/stream-dsp/v1/locations/connection';

export const dspListLocations = defineOperation({
  ...common,
  api: 'become-a-dsp',
  operationId: 'dspListLocations',
  tagDescriptions: { Locations: "The merchant's stores, and connecting them to the platform." },
  method: 'GET',
  path: '/stream-dsp/v1/locations',
  summary: "List the merchant's stores",
  description:
    'Every store of the merchant account the access token belongs to. The platform shows them to the merchant to pick which to connect.',
  responses: {
    200: {
      description: "The merchant's stores.",
      schema: DspLocationList,
      example: {
        locations: [{ provider_id: 'store-1001', name: 'Demo Tacos (Mission)', address: EXAMPLE_ADDRESS }],
      },
    },
  },
  errors: merchantErrors,
});

export const dspConnectLocation = defineOperation({
  ...common,
  api: 'become-a-dsp',
  operationId: 'dspConnectLocation',
  method: 'POST',
  path,
  summary: 'Connect a store to the platform',
  description:
    'The platform calls this when a merchant connects a store; from then on it publishes the menu and receives orders for it. Answer 400 when the store cannot be connected.',
  request: { body: LocationConnectionRequest, example: { location_id: 'store-1001' } },
  responses: {
    200: {
      description: 'Connected.',
      schema: LocationConnection,
      example: { location_id: 'store-1001', connected: true },
    },
  },
  errors: ['validation_failed', 'connection_failed', ...merchantErrors],
});

export const dspGetLocationConnection = defineOperation({
  ...common,
  api: 'become-a-dsp',
  operationId: 'dspGetLocationConnection',
  method: 'GET',
  path,
  summary: 'Whether a store is connected',
  description: 'Answers whether the store is connected to the platform.',
  request: { query: DspConnectionQuery, example: { location_id: 'store-1001' } },
  responses: {
    200: {
      description: 'The connection state.',
      schema: LocationConnection,
      example: { location_id: 'store-1001', connected: true },
    },
  },
  errors: ['validation_failed', 'connection_failed', ...merchantErrors],
});

export const dspDisconnectLocation = defineOperation({
  ...common,
  api: 'become-a-dsp',
  operationId: 'dspDisconnectLocation',
  method: 'DELETE',
  path,
  summary: 'Disconnect a store from the platform',
  description:
    'The platform calls this when a merchant disconnects a store; stop sending its orders. Disconnecting a store that is not connected succeeds. Answer 400 when it cannot be disconnected.',
  request: { body: LocationConnectionRequest, example: { location_id: 'store-1001' } },
  responses: {
    200: {
      description: 'Disconnected.',
      schema: LocationConnection,
      example: { location_id: 'store-1001', connected: false },
    },
  },
  errors: ['validation_failed', 'connection_failed', ...merchantErrors],
});
