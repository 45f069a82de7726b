import { z } from 'zod';
import { ObjectId } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { PAGE_ERRORS, PageFields, pageQuery, paginated } from './pagination.ts';
import { BEARER_ERRORS, EXAMPLE, Id } from './shared.ts';

/**
 * Which event providers hear about a location's orders: enabled per org location by the merchant's
 * white-label partner (or an operator with the CLI). Only enabled providers receive its events.
 */

export const EventProviderDelivery = z
  .object({
    state: z.enum(['closed', 'open', 'half_open']).meta({
      description:
        "`closed`: events are delivered. `open`: half of the last minute's deliveries failed, so deliveries are paused until `retry_at` (nothing is dropped). `half_open`: `retry_at` has passed; one event at a time probes the provider, and its first success closes the circuit.",
    }),
    failure_rate: z
      .number()
      .meta({ description: 'Share of failed deliveries in the current one-minute window (0 to 1).' }),
    alerting: z.boolean().meta({
      description:
        'True from a 10 % failure rate (of 10 or more deliveries in the minute), and while deliveries are paused (`open`, when `failure_rate` may read 0: nothing is sent).',
    }),
    opened_at: z.iso.datetime().nullable().meta({ description: 'When deliveries were paused, if they are.' }),
    retry_at: z.iso.datetime().nullable().meta({ description: 'When the next probe may go out, if paused.' }),
    last_error: z.string().nullable().meta({
      description:
        'The last delivery failure, kept once deliveries succeed again (`state` says how they go now).',
    }),
  })
  .meta({
    id: 'EventProviderDelivery',
    description: "How the platform's deliveries to the provider go (the same for every location).",
  });
export type EventProviderDelivery = z.infer<typeof EventProviderDelivery>;

export const UndeliveredEvent = z
  .object({
    order_id: z.string().meta({ description: "The order's id (`ord_…`), the event's `reference_id`." }),
    type: z
      .string()
      .meta({ description: 'The event: `order.confirmed`, `order.updated` or `order.canceled`.' }),
    at: z.iso.datetime().meta({ description: 'When the platform gave up.' }),
    error: z.string().meta({ description: "The last attempt's error." }),
  })
  .meta({ id: 'UndeliveredEvent', description: 'An order event the provider was never delivered.' });

export const LocationEventProvider = z
  .object({
    provider_id: ObjectId.meta({ description: "The event provider's partner id." }),
    slug: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    enabled_at: z.iso.datetime().meta({ description: 'When it was (last) enabled for the location.' }),
    disabled_at: z.iso.datetime().nullable(),
    delivery: EventProviderDelivery,
    last_undelivered: UndeliveredEvent.nullable().meta({
      description:
        "The last event of the location's orders the platform gave up delivering to the provider (after 3 days of retries, or at once when it cannot be delivered); null when none was.",
    }),
  })
  .meta({ id: 'LocationEventProvider', description: 'An event provider of a location.' });
export type LocationEventProvider = z.infer<typeof LocationEventProvider>;

const params = z.object({
  id: Id.meta({ description: 'The organisation id.' }),
  location_id: Id.meta({ description: 'The org location id (`loc_…`).' }),
});
const providerParams = params.extend({
  provider: z.string().min(1).max(64).meta({ description: "The event provider's slug or partner id." }),
});

const common = {
  api: 'partner',
  tags: ['Event providers'],
  security: { kind: 'bearer', scopes: ['onboarding'] },
  servedBy: 'platform',
} as const;
const visibility =
  'An organisation of another partner (or, for a partner token, another organisation) and a location not in the organisation answer 404 `not_found`.';

const example: LocationEventProvider = {
  provider_id: 'ptr_3c5e7a9c1e3a5c7e9a1c3e5a',
  slug: 'sandbox-events',
  name: 'Sandbox event provider',
  enabled: true,
  enabled_at: EXAMPLE.createdAt,
  disabled_at: null,
  delivery: {
    state: 'closed',
    failure_rate: 0,
    alerting: false,
    opened_at: null,
    retry_at: null,
    last_error: null,
  },
  last_undelivered: null,
};
const exampleParams = {
  id: 'org_0a6f80417335bbcde78ba436',
  location_id: 'loc_2b4d6f8a0c2e4a6c8e0a2c4e',
  provider: 'sandbox-events',
};

export const listLocationEventProviders = defineOperation({
  ...common,
  operationId: 'listLocationEventProviders',
  method: 'GET',
  path: '/onboarding/org/{id}/locations/{location_id}/event-providers',
  summary: "List a location's event providers",
  description: `Every event provider ever enabled for the location, enabled or not, with how deliveries to it go. ${visibility} ${paginated('first enabled first')}`,
  tagDescriptions: {
    'Event providers':
      "Choose which event providers (delivery fleets, dispatch services) hear about a location's orders.",
  },
  request: {
    params,
    query: z.object(pageQuery()),
    example: { id: exampleParams.id, location_id: exampleParams.location_id },
  },
  responses: {
    200: {
      description: 'The event providers of the location.',
      schema: z
        .object({ event_providers: z.array(LocationEventProvider), ...PageFields })
        .meta({ id: 'LocationEventProviderList' }),
      example: { event_providers: [example], has_more: false, next_cursor: null },
    },
  },
  errors: [...PAGE_ERRORS, ...BEARER_ERRORS, 'not_found'],
});

const single = z
  .object({ event_provider: LocationEventProvider })
  .meta({ id: 'LocationEventProviderAnswer' });

export const enableLocationEventProvider = defineOperation({
  ...common,
  operationId: 'enableLocationEventProvider',
  method: 'PUT',
  path: '/onboarding/org/{id}/locations/{location_id}/event-providers/{provider}',
  summary: 'Enable an event provider for a location',
  description: `From now on the provider receives the events of the orders the location receives from now on
(\`order.confirmed\` once the POS accepts one, and what follows it; an order received before, even one the POS accepts
later, sends it nothing) and may assign drivers and report delivery statuses for them. Enabling
an enabled provider changes nothing (the call is idempotent). A partner that is not an event provider is 404
\`event_provider_not_found\`. ${visibility}`,
  request: { params: providerParams, example: exampleParams },
  responses: { 200: { description: 'Enabled.', schema: single, example: { event_provider: example } } },
  errors: ['validation_failed', ...BEARER_ERRORS, 'not_found', 'event_provider_not_found'],
});

export const disableLocationEventProvider = defineOperation({
  ...common,
  operationId: 'disableLocationEventProvider',
  method: 'DELETE',
  path: '/onboarding/org/{id}/locations/{location_id}/event-providers/{provider}',
  summary: 'Disable an event provider for a location',
  description: `The provider hears of no new order of the location from now on; events already queued for it are
still delivered. It still hears the \`order.canceled\` of an order it was told of (it may be sending a driver), and
every event of an order it delivers, whose delivery it may finish. Disabling a disabled provider changes nothing. A
provider never enabled for the location is 404 \`event_provider_not_found\`. ${visibility}`,
  request: { params: providerParams, example: exampleParams },
  responses: {
    200: {
      description: 'Disabled.',
      schema: single,
      example: { event_provider: { ...example, enabled: false, disabled_at: EXAMPLE.createdAt } },
    },
  },
  errors: ['validation_failed', ...BEARER_ERRORS, 'not_found', 'event_provider_not_found'],
});

export const EVENT_PROVIDER_OPERATIONS = [
  listLocationEventProviders,
  enableLocationEventProvider,
  disableLocationEventProvider,
] as const;
