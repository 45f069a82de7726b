import { z } from 'zod';
import { partnerId } from '../../common.ts';
import { defineOperation } from '../../operation.ts';

/** The longest preparation time a POS may state: a day. More is refused as an unusable answer. */
export const MAX_PREP_TIME_MINUTES = 1440;
export const PrepTimeMinutes = z
  .number()
  .nonnegative()
  .max(MAX_PREP_TIME_MINUTES, `must be at most ${MAX_PREP_TIME_MINUTES} minutes (a day)`);

/**
 * A location's street address as a POS or DSP reports it (US-style fields). Send every field you
 * have; the platform normalises what it gets and does not refuse a location for a missing one.
 */
export const PartnerLocationAddress = z
  .object({
    address_line_1: z.string().nullish(),
    address_line_2: z.string().nullish(),
    city: z.string().nullish(),
    state: z.string().nullish().meta({ description: 'State or region code, e.g. `CA`.' }),
    postal_code: z.string().nullish(),
    country: z.string().nullish().meta({ description: 'ISO 3166-1 alpha-2, e.g. `US`.' }),
  })
  .meta({ id: 'PartnerLocationAddress' });
export type PartnerLocationAddress = z.infer<typeof PartnerLocationAddress>;

export const PosLocation = z
  .object({
    provider_id: partnerId('Your id of the location.'),
    name: z.string(),
    address: PartnerLocationAddress.nullish(),
    timezone: z.string().nullish().meta({ description: 'IANA time zone, e.g. `America/Los_Angeles`.' }),
    prep_time_minutes: PrepTimeMinutes.int()
      .nullish()
      .meta({
        description: `Usual preparation time, whole minutes (0 to ${MAX_PREP_TIME_MINUTES}).`,
      }),
    connection_status: z.string().optional().meta({
      description: 'Whether the location is online: `online` or `offline`. Read, not acted on.',
    }),
  })
  .meta({
    id: 'PosLocation',
    description:
      'A location of the merchant account the access token belongs to. The platform needs `provider_id` and `name`; send the rest when you have it.',
  });
export type PosLocation = z.infer<typeof PosLocation>;

export const PosLocationList = z.object({ locations: z.array(PosLocation) }).meta({ id: 'PosLocationList' });

/** Body of the connection calls, POS and DSP alike. */
export const LocationConnectionRequest = z
  .object({ location_id: z.string().min(1).meta({ description: 'The `provider_id` of the location.' }) })
  .meta({ id: 'LocationConnectionRequest' });

export const LocationConnection = z
  .object({ location_id: z.string(), connected: z.boolean() })
  .meta({ id: 'LocationConnection', description: 'Whether the location is connected to the platform.' });
export type LocationConnection = z.infer<typeof LocationConnection>;

export const EXAMPLE_ADDRESS = {
  address_line_1: '2299 Mission St',
  address_line_2: 'Suite 2',
  city: 'San Francisco',
  state: 'CA',
  postal_code: '94110',
  country: 'US',
};

/** Errors of the `merchant-bearer` security: every location call can answer these. */
export const MERCHANT_TOKEN_ERRORS = ['missing_token', 'invalid_token', 'token_expired'] as const;
const CONNECTION_ERRORS = ['validation_failed', 'connection_failed', ...MERCHANT_TOKEN_ERRORS] as const;

/** What every location operation a POS or DSP builds shares. */
export const LOCATIONS_OPERATION = {
  tags: ['Locations'],
  security: { kind: 'merchant-bearer' },
  servedBy: 'partner',
} as const;

/** The answer and errors of `GET` connection: whether `location_id` is connected. */
export const connectionAnswer = (description: string, location_id: string, connected: boolean) => ({
  responses: {
    200: { description, schema: LocationConnection, example: { location_id, connected } },
  },
  errors: CONNECTION_ERRORS,
});

/**
 * The answer and errors of a connection change (connect, disconnect), POS and DSP alike. The spec
 * defines no body: any 2xx is success (200 with any JSON, 201, 204 with no body), 400 is refusal.
 */
export const connectionChange = (description: string) => ({
  responses: {
    200: {
      description: `${description} Any 2xx counts as success and the platform reads no body: answer 204, or 200 with \`{location_id, connected}\` as \`GET\` does, as you like.`,
    },
  },
  errors: CONNECTION_ERRORS,
});

export const posListLocations = defineOperation({
  ...LOCATIONS_OPERATION,
  api: 'become-a-pos',
  operationId: 'posListLocations',
  method: 'GET',
  path: '/stream-pos/v1/locations',
  summary: "List the merchant's locations",
  description:
    'Every location of the merchant account the access token belongs to. The platform shows them to the merchant to pick which to connect.',
  tagDescriptions: { Locations: "The merchant's locations, and connecting them to the platform." },
  responses: {
    200: {
      description: "The merchant's locations.",
      schema: PosLocationList,
      example: {
        locations: [
          {
            provider_id: 'loc-mission',
            name: 'Demo Tacos Mission',
            address: EXAMPLE_ADDRESS,
            timezone: 'America/Los_Angeles',
            prep_time_minutes: 20,
            connection_status: 'offline',
          },
        ],
      },
    },
  },
  errors: MERCHANT_TOKEN_ERRORS,
});

const path = '/stream-pos/v1/location/connection';
const request = { body: LocationConnectionRequest, example: { location_id: 'loc-mission' } };

export const posConnectLocation = defineOperation({
  ...LOCATIONS_OPERATION,
  api: 'become-a-pos',
  operationId: 'posConnectLocation',
  method: 'PUT',
  path,
  summary: 'Connect a location to the platform',
  description:
    'The platform calls this when a merchant connects a location. From then on send its webhooks (catalog, status, in-store orders) to the platform. Answer 400 when the location cannot be connected.',
  request,
  ...connectionChange('Connected.'),
});

export const posDisconnectLocation = defineOperation({
  ...LOCATIONS_OPERATION,
  api: 'become-a-pos',
  operationId: 'posDisconnectLocation',
  method: 'DELETE',
  path,
  summary: 'Disconnect a location from the platform',
  description:
    'The platform calls this when a merchant disconnects a location; stop sending its webhooks. Disconnecting a location that is not connected succeeds. Answer 400 when it cannot be disconnected.',
  request,
  ...connectionChange('Disconnected.'),
});
