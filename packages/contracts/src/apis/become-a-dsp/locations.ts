import { z } from 'zod';
import { partnerId } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import {
  EXAMPLE_ADDRESS,
  LOCATIONS_OPERATION,
  LocationConnectionRequest,
  MERCHANT_TOKEN_ERRORS,
  PartnerLocationAddress,
  connectionAnswer,
  connectionChange,
} from '../become-a-pos/locations.ts';

export const DspLocation = z
  .object({
    provider_id: partnerId('Your id of the store.'),
    name: z.string(),
    address: PartnerLocationAddress.nullish(),
  })
  .meta({
    id: 'DspLocation',
    description:
      'A store of the merchant account the access token belongs to. The platform needs `provider_id` and `name`.',
  });
export type DspLocation = z.infer<typeof DspLocation>;

export const DspLocationList = z.object({ locations: z.array(DspLocation) }).meta({ id: 'DspLocationList' });

export const DspConnectionQuery = z
  .object({ location_id: z.string().min(1).meta({ description: 'The `provider_id` of the store.' }) })
  .meta({ id: 'DspConnectionQuery' });

const path = '/stream-dsp/v1/locations/connection';
const example = { location_id: 'store-1001' };

export const dspListLocations = defineOperation({
  ...LOCATIONS_OPERATION,
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
  errors: MERCHANT_TOKEN_ERRORS,
});

export const dspConnectLocation = defineOperation({
  ...LOCATIONS_OPERATION,
  api: 'become-a-dsp',
  operationId: 'dspConnectLocation',
  method: 'POST',
  path,
  summary: 'Connect a store to the platform',
  description:
    'The platform calls this when a merchant connects a store; from then on it publishes the menu and receives orders for it. Answer 400 when the store cannot be connected.',
  request: { body: LocationConnectionRequest, example },
  ...connectionChange('Connected.'),
});

export const dspGetLocationConnection = defineOperation({
  ...LOCATIONS_OPERATION,
  api: 'become-a-dsp',
  operationId: 'dspGetLocationConnection',
  method: 'GET',
  path,
  summary: 'Whether a store is connected',
  description: 'Answers whether the store is connected to the platform.',
  request: { query: DspConnectionQuery, example },
  ...connectionAnswer('The connection state.', example.location_id, true),
});

export const dspDisconnectLocation = defineOperation({
  ...LOCATIONS_OPERATION,
  api: 'become-a-dsp',
  operationId: 'dspDisconnectLocation',
  method: 'DELETE',
  path,
  summary: 'Disconnect a store from the platform',
  description:
    'The platform calls this when a merchant disconnects a store; stop sending its orders. Disconnecting a store that is not connected succeeds. Answer 400 when it cannot be disconnected.',
  request: { body: LocationConnectionRequest, example },
  ...connectionChange('Disconnected.'),
});
