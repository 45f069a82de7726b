import { z } from 'zod';
import { ObjectId } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { statusEnum } from '../../states/machine.ts';
import { BINDING_STATES, ORG_LOCATION_STATES } from '../../states/onboarding.ts';
import { PAGE_ERRORS, PageFields, pageQuery, paginated } from './pagination.ts';
import { BEARER_ERRORS, BODY_ERRORS, EXAMPLE, Id } from './shared.ts';
import { LocationEventProvider } from './event-providers.ts';

/** Locations of an onboarding: list the partner's, ingest POS ones into the org, bind them to DSP stores. */

export const OnboardingAddress = z
  .object({
    formatted_address: z.string().meta({ description: 'The whole address on one line.' }),
    address_line_1: z.string().nullable(),
    address_line_2: z.string().nullable(),
    address_line_3: z.string().nullable(),
    postal_code: z.string().nullable(),
    locality: z.string().nullable().meta({ description: 'City or town.' }),
    administrative_district_level_1: z.string().nullable().meta({
      description: 'State or region as ISO 3166-2 (`US-CA`); null when the partner gave none we recognise.',
    }),
    country: z.string().nullable().meta({ description: 'ISO 3166-1 alpha-2 (`US`).' }),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
  })
  .meta({ id: 'OnboardingAddress', description: 'A normalised postal address.' });
export type OnboardingAddress = z.infer<typeof OnboardingAddress>;

export const OnboardingLocation = z
  .object({
    provider_id: z.string().meta({ description: "The POS's or DSP's id of the location." }),
    name: z.string(),
    address: OnboardingAddress,
    source: z.string().meta({ description: 'The slug of the POS or DSP.' }),
    timezone: z.string().nullable().meta({ description: 'IANA time zone (POS locations).' }),
  })
  .meta({ id: 'OnboardingLocation', description: 'A location the merchant has at the POS or DSP.' });

export const OnboardingLocationList = z
  .object({ locations: z.array(OnboardingLocation), ...PageFields })
  .meta({ id: 'OnboardingLocationList' });

const OnboardingIdField = Id.meta({ description: 'The integration `_id`.' });

export const IngestLocationsRequest = z
  .object({
    onboarding_id: OnboardingIdField.meta({ description: 'An active POS integration.' }),
    locations: z
      .array(z.object({ provider_id: z.string().min(1).max(200) }))
      .min(1)
      .max(500)
      .meta({ description: 'The POS locations to add to the organisation.' }),
  })
  .meta({ id: 'IngestLocations' });

export const IngestedLocations = z
  .object({
    locations: z.array(
      z.object({
        _id: ObjectId.meta({ description: 'The org location id (`loc_...`); bind with it.' }),
        provider_id: z.string(),
      }),
    ),
  })
  .meta({ id: 'IngestedLocations' });

/** A binding's status; the machine is `BINDING_STATES`. */
export const BindingStatus = statusEnum(BINDING_STATES);

export const BindLocationsRequest = z
  .object({
    onboarding_id: OnboardingIdField.meta({
      description: 'An active DSP integration of the same organisation.',
    }),
    locations: z
      .array(
        z.object({
          pos_location_id: z.string().min(1).max(200).meta({
            description:
              "The org location `_id` from ingest (its POS `provider_id` is accepted too; where a `provider_id` equals another location's `_id`, the `_id` wins).",
          }),
          dsp_provider_id: z.string().min(1).max(200).meta({ description: "The DSP's id of the store." }),
          dsp_store_name: z.string().trim().min(1).max(200),
        }),
      )
      .min(1)
      .max(100),
  })
  .meta({ id: 'BindLocations' });

export const BoundLocation = z
  .object({
    _id: ObjectId.meta({ description: 'The binding id (`bnd_...`), also the `_id` in `dsps[]`.' }),
    pos_location_id: ObjectId,
    dsp_provider_id: z.string(),
    dsp_store_name: z.string(),
    status: BindingStatus,
  })
  .meta({ id: 'BoundLocation' });

export type BoundLocation = z.infer<typeof BoundLocation>;

export const BoundLocationList = z
  .object({ locations: z.array(BoundLocation) })
  .meta({ id: 'BoundLocationList' });

/** An org location's status; the machine is `ORG_LOCATION_STATES`. */
export const OrgLocationStatus = statusEnum(ORG_LOCATION_STATES);

export const UndeliveredCall = z
  .object({
    type: z.string().meta({
      description:
        "What was not delivered: to a DSP store, a `DspEvent`'s `type` (`location.order.accept`, `location.order.fail`, `location.order.notify_status_change`, `location.order.cancel`, `location.pause`, `location.resume`, `location.update`); to a POS location, `order.updated` or `order.canceled`.",
    }),
    order_id: z
      .string()
      .nullable()
      .meta({ description: "The order's id (`ord_…`) for a call about an order; null for a store event." }),
    at: z.iso.datetime().meta({ description: 'When the platform gave up.' }),
    error: z.string().meta({ description: "The last attempt's error." }),
  })
  .meta({
    id: 'UndeliveredCall',
    description: 'A call the platform gave up making to a partner: the partner never heard it.',
  });
export type UndeliveredCall = z.infer<typeof UndeliveredCall>;

export const OrgLocationDsp = z
  .object({
    _id: ObjectId.meta({ description: 'The binding id.' }),
    name: z.string().meta({ description: 'The DSP store name given at bind.' }),
    source: z.string().meta({ description: 'The slug of the DSP.' }),
    provider_id: z.string().meta({ description: "The DSP's id of the store." }),
    status: BindingStatus,
    reason: z
      .string()
      .nullable()
      .meta({ description: 'Why it is `needs_reconnection` (or was deprovisioned abnormally).' }),
    change_time: z.iso.datetime().meta({ description: 'When the status last changed.' }),
    store_status: z
      .object({
        status: z.enum(['online', 'paused']),
        start_time: z.number().int().nullable(),
        end_time: z.number().int().nullable(),
        updated_at: z.iso.datetime(),
      })
      .nullable()
      .meta({
        description: "The store's status as the DSP last reported it (`store_status_update`); null: never.",
      }),
    last_undelivered: UndeliveredCall.nullable().meta({
      description:
        "The last event for this store the platform gave up delivering to the DSP (after an hour of retries, or at once when the merchant's grant must be renewed); null when none was. The order's timeline holds every attempt.",
    }),
  })
  .meta({ id: 'OrgLocationDsp' });

export const OrgLocation = z
  .object({
    _id: ObjectId,
    name: z.string(),
    source: z.string().meta({ description: 'The slug of the POS.' }),
    provider_id: z.string().meta({ description: "The POS's id of the location." }),
    onboarding_id: ObjectId.meta({ description: 'The POS integration it was ingested through.' }),
    status: OrgLocationStatus,
    status_reason: z.string().nullable().meta({
      description:
        'Why the location is where it is, when something went wrong (e.g. its disconnection at the POS gave up).',
    }),
    address: OnboardingAddress,
    timezone: z.string().nullable(),
    accepting_orders: z.object({
      pos_status: z
        .enum(['active', 'inactive'])
        .meta({ description: 'As the POS last said (`location.status.updated`).' }),
      paused_until: z.iso
        .datetime()
        .nullable()
        .meta({ description: 'When an inactive location resumes by itself.' }),
      offline_since: z.iso
        .datetime()
        .nullable()
        .meta({ description: 'Set by `location.connection.offline` until the POS says `active` again.' }),
    }),
    last_undelivered: UndeliveredCall.nullable().meta({
      description:
        "The last update or cancellation of an order the platform gave up delivering to the POS (after an hour of retries, or at once when the merchant's grant must be renewed): the kitchen never heard it. Null when none was; the order's timeline holds every attempt.",
    }),
    dsps: z.array(OrgLocationDsp),
    event_providers: z
      .array(LocationEventProvider)
      .meta({ description: 'The event providers enabled for the location (they hear about its orders).' }),
  })
  .meta({
    id: 'OrgLocation',
    description: 'A POS location of an organisation, with its DSP bindings and event providers.',
  });

export type OrgLocation = z.infer<typeof OrgLocation>;

export const OrgLocationList = z
  .object({ locations: z.array(OrgLocation), ...PageFields })
  .meta({ id: 'OrgLocationList' });

const exampleAddress: OnboardingAddress = {
  formatted_address: '2299 Mission St, Suite 2, San Francisco, CA 94110, US',
  address_line_1: '2299 Mission St',
  address_line_2: 'Suite 2',
  address_line_3: null,
  postal_code: '94110',
  locality: 'San Francisco',
  administrative_district_level_1: 'US-CA',
  country: 'US',
  latitude: null,
  longitude: null,
};
const ex = {
  onboardingId: 'onb_4c1d9e7f2a3b5c6d7e8f9a0b',
  dspOnboardingId: 'onb_9e8d7c6b5a4f3e2d1c0b9a8f',
  locationId: 'loc_2b4d6f8a0c2e4a6c8e0a2c4e',
  bindingId: 'bnd_6a8c0e2a4c6e8a0c2e4a6c8e',
};

const common = {
  api: 'partner',
  tags: ['Onboarding'],
  security: { kind: 'bearer', scopes: ['onboarding'] },
  servedBy: 'platform',
} as const;
const visibility =
  'An integration or organisation of another partner (or, for a partner token, of another organisation) answers 404.';
const partnerCallErrors = [
  'integration_not_active',
  'integration_needs_reconnection',
  'partner_unreachable',
  'partner_not_configured',
] as const;
/** Ingest and bind both name an integration of one type and locations the partner must list. */
const locationsBodyErrors = [
  ...BODY_ERRORS,
  ...BEARER_ERRORS,
  'not_found',
  'integration_type_mismatch',
  'unknown_location',
] as const;

export const listOnboardingLocations = defineOperation({
  ...common,
  operationId: 'listOnboardingLocations',
  method: 'GET',
  path: '/onboarding/locations',
  summary: "List the merchant's locations at the POS or DSP",
  description: [
    "Reads the partner's `/locations` with the merchant's token and answers them with normalised addresses",
    '(ISO 3166-2 region, formatted line). The integration must be `active`. A partner that rejects the',
    "merchant's grant on refresh turns the integration `needs_reconnection` (409). " + visibility,
    paginated(
      'by `provider_id` (the partner is asked for its whole list each time; a location it adds during a walk shows up in it only if its `provider_id` sorts after the page you are on)',
    ),
  ].join('\n'),
  request: { query: z.object({ onboarding_id: OnboardingIdField, ...pageQuery() }) },
  responses: {
    200: {
      description: "The merchant's locations.",
      schema: OnboardingLocationList,
      example: {
        locations: [
          {
            provider_id: 'loc-mission',
            name: 'Demo Tacos Mission',
            address: exampleAddress,
            source: 'sandbox-pos',
            timezone: 'America/Los_Angeles',
          },
        ],
        has_more: false,
        next_cursor: null,
      },
    },
  },
  errors: [...PAGE_ERRORS, ...BEARER_ERRORS, 'not_found', ...partnerCallErrors],
});

export const ingestLocations = defineOperation({
  ...common,
  operationId: 'ingestLocations',
  method: 'POST',
  path: '/onboarding/locations/ingest',
  summary: 'Add POS locations to the organisation',
  description: [
    "Makes the chosen POS locations locations of the integration's organisation (status `pending` until a DSP",
    'binding is approved) and answers their `_id`s. Names and addresses are read from the POS, not from you.',
    'Ingesting a location again answers the same `_id` (a deprovisioned one comes back `pending`; one still',
    'being deprovisioned answers 409 `invalid_transition`). A `provider_id` the POS does not list answers 400',
    '`unknown_location`; a DSP integration answers 400 `integration_type_mismatch`. ' + visibility,
  ].join('\n'),
  request: {
    body: IngestLocationsRequest,
    example: { onboarding_id: ex.onboardingId, locations: [{ provider_id: 'loc-mission' }] },
  },
  responses: {
    200: {
      description: 'The org locations.',
      schema: IngestedLocations,
      example: { locations: [{ _id: ex.locationId, provider_id: 'loc-mission' }] },
    },
  },
  errors: [...locationsBodyErrors, 'invalid_transition', 'conflict', ...partnerCallErrors],
});

export const bindLocations = defineOperation({
  ...common,
  operationId: 'bindLocations',
  method: 'POST',
  path: '/onboarding/locations/bind',
  summary: 'Bind POS locations to DSP stores',
  description: [
    'Binds org locations to stores of an active DSP integration of the same organisation. Each binding starts',
    '`pending`; the platform then connects the location at the POS (`PUT /stream-pos/v1/location/connection`)',
    'and the store at the DSP (`POST /stream-dsp/v1/locations/connection`), retrying with backoff. When both',
    'succeed the binding is `APPROVED`; if either gives up it is `needs_reconnection` with the reason. Follow',
    'progress with `GET /onboarding/org/{id}/locations`.',
    'A location already bound to that DSP, or a store already bound in the org, answers 409',
    '`location_already_bound`; a store bound by another organisation 409 `store_held_by_another_org`. Binding a',
    '`needs_reconnection` pair again retries it. ' + visibility,
  ].join('\n'),
  request: {
    body: BindLocationsRequest,
    example: {
      onboarding_id: ex.dspOnboardingId,
      locations: [
        {
          pos_location_id: ex.locationId,
          dsp_provider_id: 'store-1001',
          dsp_store_name: 'Demo Tacos (Mission)',
        },
      ],
    },
  },
  responses: {
    200: {
      description: 'The bindings, `pending` until both partners accepted the connection.',
      schema: BoundLocationList,
      example: {
        locations: [
          {
            _id: ex.bindingId,
            pos_location_id: ex.locationId,
            dsp_provider_id: 'store-1001',
            dsp_store_name: 'Demo Tacos (Mission)',
            status: 'pending',
          },
        ],
      },
    },
  },
  errors: [
    ...locationsBodyErrors,
    'location_not_bindable',
    'location_already_bound',
    'store_held_by_another_org',
    ...partnerCallErrors,
  ],
});

export const listOrgLocations = defineOperation({
  ...common,
  operationId: 'listOrgLocations',
  method: 'GET',
  path: '/onboarding/org/{id}/locations',
  summary: "List an organisation's locations, their DSP bindings and event providers",
  description: `Every location ingested into the organisation (or only \`location_id\`), with its \`dsps[]\` and their statuses, and the event providers enabled for it. ${visibility} ${paginated('oldest first (by ingestion)')}`,
  request: {
    params: z.object({ id: Id.meta({ description: 'The organisation id.' }) }),
    query: z.object({
      location_id: Id.optional().meta({ description: 'Only this org location.' }),
      ...pageQuery(),
    }),
  },
  responses: {
    200: {
      description: 'The locations.',
      schema: OrgLocationList,
      example: {
        locations: [
          {
            _id: ex.locationId,
            name: 'Demo Tacos Mission',
            source: 'sandbox-pos',
            provider_id: 'loc-mission',
            onboarding_id: ex.onboardingId,
            status: 'active',
            status_reason: null,
            address: exampleAddress,
            timezone: 'America/Los_Angeles',
            accepting_orders: { pos_status: 'active', paused_until: null, offline_since: null },
            last_undelivered: null,
            dsps: [
              {
                _id: ex.bindingId,
                name: 'Demo Tacos (Mission)',
                source: 'sandbox-dsp',
                provider_id: 'store-1001',
                status: 'APPROVED',
                reason: null,
                change_time: EXAMPLE.createdAt,
                store_status: null,
                last_undelivered: null,
              },
            ],
            event_providers: [],
          },
        ],
        has_more: false,
        next_cursor: null,
      },
    },
  },
  errors: [...PAGE_ERRORS, ...BEARER_ERRORS, 'not_found'],
});

export const ONBOARDING_LOCATION_OPERATIONS = [
  listOnboardingLocations,
  ingestLocations,
  bindLocations,
  listOrgLocations,
] as const;
