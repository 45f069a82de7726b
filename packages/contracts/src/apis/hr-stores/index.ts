import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import {
  CompanyId,
  DueTimeParam,
  HOSTED_BODY_ERRORS,
  HOSTED_ERRORS,
  IdempotencyHeaders,
  MenuObjectId,
  OrderTypeCategory,
  REPLAYED_HEADER,
  ServiceType,
  StoreId,
  StoreTimeZone,
  decimalParam,
  hostedAnswer,
} from '../../hosted.ts';
import { DEMO_COMPANY, DEMO_COMPANY_ID, DEMO_STORE_ID } from '../hr-menu/demo.ts';
import { OperationPeriod } from '../hr-menu/menu.ts';
import { describedAs } from '../../openapi/described-as.ts';

/**
 * The Store API (restaurant-apis.md section 7): store search by radius, a store, its service types,
 * system configuration, geofences, gateway credentials, order types and estimated times, delivery
 * metrics, and e-mail (plus `GET /Stores/{id}/Email/{emailId}`, each message's outcome).
 */

const common = {
  api: 'hr-stores',
  servedBy: 'platform',
  security: { kind: 'bearer', scopes: ['stores'] },
  tags: ['Stores'],
  externalDocs: { url: '/docs/restaurant-apis/store-api', description: 'Store API guide' },
} as const;

const WHO = `A store of a company not granted to you is 404 \`not_found\`, as one that does not exist.`;
const ok = (message: string, data: unknown) => ({ data, message, messagesDetails: [] });
const storeParams = z.object({ id: StoreId.meta({ description: 'The store id.' }) });

export const PrimaryContact = z
  .object({
    id: z.string().optional(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    phoneNumber: z.string().optional(),
    email: z.string().optional(),
  })
  .meta({ id: 'PrimaryContact' });

export const Store = z
  .object({
    id: z.number().int(),
    companyId: z.number().int(),
    companyName: z.string(),
    name: z.string().max(30),
    phoneNumber: z.string().nullable(),
    email: z.string().nullable(),
    address: z.string().nullable(),
    additionalAddressInfo: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    postalcode: z.string().nullable(),
    primaryContact: PrimaryContact.nullable(),
    timeZone: StoreTimeZone,
    paymentAddressRequiredForPayments: z.boolean(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
  })
  .meta({ id: 'Store' });
export type Store = z.infer<typeof Store>;

export const StoreWithDistance = Store.extend({
  distance: z.number().meta({ description: 'Great-circle miles from the point searched, to 0.01.' }),
}).meta({ id: 'StoreWithDistance' });

/** A demo store as the Store API answers it. */
const storeExample = (demo: (typeof DEMO_COMPANY.stores)[number]) => ({
  id: demo.id,
  companyId: DEMO_COMPANY_ID,
  companyName: DEMO_COMPANY.company.name,
  name: demo.name,
  phoneNumber: demo.phoneNumber,
  email: demo.email,
  address: demo.address,
  additionalAddressInfo: null,
  city: demo.city,
  state: demo.state,
  postalcode: demo.postalcode,
  primaryContact: null,
  timeZone: demo.timeZone,
  paymentAddressRequiredForPayments: false,
  latitude: demo.latitude,
  longitude: demo.longitude,
});
const exampleStore = storeExample(DEMO_COMPANY.stores[0]);

/** Miles a search reaches when `Radius` is not given (restaurant-apis.md section 9). */
export const DEFAULT_RADIUS_MILES = 5;

export const searchStores = defineOperation({
  ...common,
  operationId: 'searchStores',
  method: 'GET',
  path: '/Stores',
  summary: 'Find stores near a point',
  description: `The company's stores within \`Radius\` miles (default ${DEFAULT_RADIUS_MILES}, at most 500) of the point, nearest
first, by great-circle distance (across the antimeridian and near the poles too). Name the company in \`X-Company\`; a
company not granted to you is 404 \`not_found\`. \`Latitude\` is -90 to 90, \`Longitude\` -180 to 180.`,
  tagDescriptions: { Stores: "A company's stores, found by where they are." },
  request: {
    headers: z.object({
      'x-company': CompanyId.meta({ description: 'The company whose stores to search (an integer id).' }),
    }),
    query: z.object({
      Latitude: decimalParam(z.number().min(-90, 'must be -90 to 90').max(90, 'must be -90 to 90'), 40.7484),
      Longitude: decimalParam(
        z.number().min(-180, 'must be -180 to 180').max(180, 'must be -180 to 180'),
        -73.9857,
      ),
      Radius: decimalParam(
        z.number().gt(0, 'must be more than 0 miles').max(500, 'must be at most 500 miles'),
        2.5,
        DEFAULT_RADIUS_MILES,
      ),
    }),
    example: {
      'x-company': String(DEMO_COMPANY_ID),
      Latitude: 40.7484,
      Longitude: -73.9857,
      Radius: 5,
    },
  },
  responses: {
    200: {
      description: 'The stores, nearest first.',
      schema: hostedAnswer(z.array(StoreWithDistance)),
      // The demo company's true answer (stores.test.ts checks it against the running API).
      example: ok('2 stores within 5 miles.', [
        { ...exampleStore, distance: 0.63 },
        { ...storeExample(DEMO_COMPANY.stores[1]), distance: 2.63 },
      ]),
    },
  },
  errors: HOSTED_ERRORS,
});

export const getStore = defineOperation({
  ...common,
  operationId: 'getStore',
  method: 'GET',
  path: '/Stores/{id}',
  summary: 'Get a store',
  description: `The store: its company, address, contact, time zone. ${WHO}`,
  request: { params: storeParams, example: { id: String(DEMO_STORE_ID) } },
  responses: {
    200: {
      description: 'The store.',
      schema: hostedAnswer(Store),
      example: ok(`Store ${DEMO_STORE_ID}.`, exampleStore),
    },
  },
  errors: HOSTED_ERRORS,
});

export const getStoreServiceTypes = defineOperation({
  ...common,
  operationId: 'getStoreServiceTypes',
  method: 'GET',
  path: '/Stores/{id}/ServiceTypes',
  summary: "List a store's service types",
  description: `The service types the store's menus serve (a menu serving \`None\` serves every one, so then all are listed). ${WHO}`,
  request: { params: storeParams, example: { id: String(DEMO_STORE_ID) } },
  responses: {
    200: {
      description: 'The service types.',
      schema: hostedAnswer(z.array(ServiceType)),
      example: ok('8 service types.', ServiceType.options),
    },
  },
  errors: HOSTED_ERRORS,
});

export const SystemConfiguration = z
  .object({
    message: z.string().max(25, 'must be at most 25 characters').nullable().meta({
      description: 'A short notice the store shows its customers (at most 25 characters); null when none.',
    }),
  })
  .meta({ id: 'SystemConfiguration' });

export const getSystemConfiguration = defineOperation({
  ...common,
  operationId: 'getSystemConfiguration',
  method: 'GET',
  path: '/Stores/{id}/SystemConfiguration',
  summary: "Get a store's system configuration",
  description: `The store's system message. ${WHO}`,
  request: { params: storeParams, example: { id: String(DEMO_STORE_ID) } },
  responses: {
    200: {
      description: 'The configuration.',
      schema: hostedAnswer(SystemConfiguration),
      example: ok(`System configuration of store ${DEMO_STORE_ID}.`, { message: 'Closed Dec 25' }),
    },
  },
  errors: HOSTED_ERRORS,
});

export const patchSystemConfiguration = defineOperation({
  ...common,
  operationId: 'patchSystemConfiguration',
  method: 'PATCH',
  path: '/Stores/{id}/SystemConfiguration',
  summary: "Change a store's system message",
  description: `Sets \`message\` (at most 25 characters; null clears it). Any other field is 400 \`validation_failed\` and
nothing changes. ${WHO}`,
  request: {
    params: storeParams,
    body: z.strictObject({ data: SystemConfiguration.strict() }),
    example: { data: { message: 'Closed Dec 25' } },
  },
  responses: {
    200: {
      description: 'The configuration as changed.',
      schema: hostedAnswer(SystemConfiguration),
      example: ok(`System message of store ${DEMO_STORE_ID} set.`, { message: 'Closed Dec 25' }),
    },
  },
  errors: HOSTED_BODY_ERRORS,
});

export const GeoCode = z
  .object({
    sequence: z.number().int().min(0),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
  })
  .meta({ id: 'GeoCode', description: 'A corner of a zone; corners are joined in `sequence` order.' });

export const GeoFence = z
  .object({
    id: z.string().min(1).max(25).meta({ description: 'The zone name.' }),
    delivery: z.boolean().meta({ description: 'Whether the store delivers in this zone.' }),
    additionalFee: z.number().min(0).meta({ description: 'Dollars (not cents) added to the delivery fee.' }),
    driverCompensation: z.number().min(0).meta({ description: 'Dollars (not cents) paid to the driver.' }),
    geoCodes: z.array(GeoCode).min(3, 'a zone needs at least 3 corners').max(1000),
  })
  .meta({
    id: 'GeoFence',
    description: 'A delivery zone: a polygon around the store; fees in dollars, as the spec says.',
  });
export type GeoFence = z.infer<typeof GeoFence>;

export const GatewayCredentials = z
  .object({
    id: z.string().min(1).max(50),
    accountToken: z
      .string()
      .min(1)
      .max(500)
      .meta({ description: 'Secret: stored encrypted, shown only to partners granted the company.' }),
    acceptorId: z.string().min(1).max(100),
    terminalId: z.string().min(1).max(100),
  })
  .meta({ id: 'GatewayCredentials', description: "The store's card-gateway account." });
export type GatewayCredentials = z.infer<typeof GatewayCredentials>;

const EstimatedTimeFields = {
  // The range first, and alone: past 2^53, `.int()` would add "must be at most 9007199254740991" and lead with it.
  estimatedTime: z
    .number()
    .min(0, { message: 'must be 0 or more minutes', abort: true })
    .max(1440, { message: 'must be at most 1440 minutes', abort: true })
    .int('must be a whole number of minutes')
    .meta({
      description: 'Minutes from order to ready.',
    }),
  estimatedTimeManager: z.string().max(50).nullable().meta({ description: 'Who set the estimated time.' }),
  estimatedTimeManagerDate: z.iso
    .datetime({
      offset: true,
      message: 'must be a date-time with its offset, such as 2026-12-01T19:05:00-05:00',
    })
    .nullable()
    .meta({ description: 'When they set it.' }),
};

export const StoreOrderType = z
  .object({
    id: MenuObjectId,
    ...EstimatedTimeFields,
    orderTypeCategory: OrderTypeCategory,
    serviceTypes: z.array(ServiceType).default(['None']).meta({
      description: 'The service types it is offered for (`None`: every one).',
    }),
    paymentTypes: z
      .array(z.object({ id: z.string().max(50), paymentTypeCategory: z.string().max(50) }))
      .default([]),
    orderChannels: z.array(z.object({ id: z.string().max(50), name: z.string().max(100) })).default([]),
    operationPeriods: z.array(OperationPeriod).default([]).meta({
      description: 'When the store takes this order type, in its time zone; empty: always.',
    }),
  })
  .meta({ id: 'StoreOrderType' });
export type StoreOrderType = z.infer<typeof StoreOrderType>;

const exampleGeoFence = DEMO_COMPANY.stores[0].geoFences[0];

export const listGeoFences = defineOperation({
  ...common,
  operationId: 'listGeoFences',
  method: 'GET',
  path: '/Stores/{id}/GeoFences',
  summary: "List a store's delivery zones",
  description: `The store's geofences: each zone's polygon, whether it delivers there, and its \`additionalFee\` and
\`driverCompensation\` **in dollars** (the one place money is not in cents). ${WHO}`,
  request: { params: storeParams, example: { id: String(DEMO_STORE_ID) } },
  responses: {
    200: {
      description: 'The zones.',
      schema: hostedAnswer(z.array(GeoFence)),
      example: ok('1 zone.', [exampleGeoFence]),
    },
  },
  errors: HOSTED_ERRORS,
});

export const getGatewayCredentials = defineOperation({
  ...common,
  operationId: 'getGatewayCredentials',
  method: 'GET',
  path: '/Stores/{id}/GatewayCredentials',
  summary: "Get a store's gateway credentials",
  description: `The store's card-gateway accounts. The \`accountToken\` is stored encrypted and shown only to partners
granted the store's company. ${WHO}`,
  request: { params: storeParams, example: { id: String(DEMO_STORE_ID) } },
  responses: {
    200: {
      description: 'The credentials.',
      schema: hostedAnswer(z.array(GatewayCredentials)),
      example: ok('1 credential.', DEMO_COMPANY.stores[0].gatewayCredentials),
    },
  },
  errors: HOSTED_ERRORS,
});

/** The demo store's order types as the API answers them: Pickup (every service type) and Delivery. */
const [exampleOrderType, exampleDeliveryType] = DEMO_COMPANY.stores[0].orderTypes.map((t) =>
  StoreOrderType.parse(t),
) as [StoreOrderType, StoreOrderType];
const orderTypeParams = storeParams.extend({
  orderType: MenuObjectId.meta({
    description: 'The order type id, in any case (`pickup` is `Pickup`); an exact match wins.',
  }),
});

export const listStoreOrderTypes = defineOperation({
  ...common,
  operationId: 'listStoreOrderTypes',
  method: 'GET',
  path: '/Stores/{id}/OrderTypes',
  summary: "List a store's order types",
  description: `The store's order types with their estimated times, or with \`serviceType\` those offered for it. ${WHO}`,
  request: {
    params: storeParams,
    query: z.object({ serviceType: ServiceType.optional() }),
    example: { id: String(DEMO_STORE_ID), serviceType: 'DoorDash' },
  },
  responses: {
    200: {
      description: 'The order types.',
      schema: hostedAnswer(z.array(StoreOrderType)),
      example: ok('2 order types.', [exampleOrderType, exampleDeliveryType]),
    },
  },
  errors: HOSTED_ERRORS,
});

export const getStoreOrderType = defineOperation({
  ...common,
  operationId: 'getStoreOrderType',
  method: 'GET',
  path: '/Stores/{id}/OrderTypes/{orderType}',
  summary: 'Get an order type',
  description: `One order type of the store. ${WHO}`,
  request: { params: orderTypeParams, example: { id: String(DEMO_STORE_ID), orderType: 'Pickup' } },
  responses: {
    200: {
      description: 'The order type.',
      schema: hostedAnswer(StoreOrderType),
      example: ok('Order type Pickup.', exampleOrderType),
    },
  },
  errors: HOSTED_ERRORS,
});

export const patchStoreOrderType = defineOperation({
  ...common,
  operationId: 'patchStoreOrderType',
  method: 'PATCH',
  path: '/Stores/{id}/OrderTypes/{orderType}',
  summary: "Change an order type's estimated time",
  description: `Sets any of \`estimatedTime\` (minutes, 0 to 1440), \`estimatedTimeManager\` and \`estimatedTimeManagerDate\`.
Any other field, or none of them, is 400 \`validation_failed\` and nothing changes. ${WHO}`,
  request: {
    params: orderTypeParams,
    body: z.strictObject({
      // An empty patch changes nothing: refused, not answered "changed".
      data: z
        .strictObject(EstimatedTimeFields)
        .partial()
        .refine((data) => Object.keys(data).length > 0, {
          message: 'must set at least one of estimatedTime, estimatedTimeManager, estimatedTimeManagerDate',
          // Only when nothing else is wrong: a misspelt field is named alone.
          when: (payload) => payload.issues.length === 0,
        }),
    }),
    example: {
      data: {
        estimatedTime: 35,
        estimatedTimeManager: 'Dana (shift lead)',
        estimatedTimeManagerDate: '2026-12-01T17:05:00-05:00',
      },
    },
  },
  responses: {
    200: {
      description: 'The order type as changed.',
      schema: hostedAnswer(StoreOrderType),
      example: ok('Order type Pickup changed.', {
        ...exampleOrderType,
        estimatedTime: 35,
        estimatedTimeManager: 'Dana (shift lead)',
        estimatedTimeManagerDate: '2026-12-01T17:05:00-05:00',
      }),
    },
  },
  errors: HOSTED_BODY_ERRORS,
});

/** `true` or `false` in either case, as .NET's bool binding reads it (and writes `True`); documented as the boolean. */
const BooleanParam = z
  .string()
  .regex(/^(true|false)$/i, 'must be true or false')
  .transform((v) => v.toLowerCase() === 'true')
  .default(false);
describedAs.set(BooleanParam, z.boolean().default(false));

/**
 * A part of an address in a query string, its messages saying what to send with an example (Zod's
 * would ask a partner to "send a string"): `min` to `max` characters.
 */
const addressParam = (what: string, example: string, max: number, min = 1) => {
  const send = `${what}, such as ${example}`;
  const length = min === max ? `${min} characters` : `${min} to ${max} characters`;
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? `is required but missing; send ${send}.` : `must be ${send}, sent once.`,
    })
    .min(min, `must be ${send} (${length})`)
    .max(max, `must be ${send} (${length})`);
};

export const DistanceUnit = z.enum(['mi', 'km']).meta({ id: 'DistanceUnit' });

export const DeliveryMetric = z
  .object({
    zoneName: z
      .string()
      .nullable()
      .meta({
        description:
          'The zone (geofence) that decides the address, also one that does not deliver; null outside every zone. ' +
          'Where zones overlap, a zone that does not deliver wins, else the first one listed.',
      }),
    deliverable: z
      .boolean()
      .meta({ description: 'Whether the store delivers to the address: it is in a zone that delivers.' }),
    distance: z
      .number()
      .meta({ description: 'Straight (great-circle) distance from the store, in `distanceUOM`, to 0.01.' }),
    drivingDistance: z.number().nullable().meta({
      description:
        'Road distance, when asked for and a route service is configured; else null (with a WARNING).',
    }),
    distanceUOM: DistanceUnit,
    deliveryFee: z
      .number()
      .int()
      .meta({
        description:
          "Cents: the zone's `additionalFee` (dollars) in cents where it delivers; 0 in a zone that does not deliver " +
          'and outside every zone.',
      }),
    latitude: z.number(),
    longitude: z.number(),
  })
  .meta({ id: 'DeliveryMetric' });
export type DeliveryMetric = z.infer<typeof DeliveryMetric>;

export const getDeliveryMetrics = defineOperation({
  ...common,
  operationId: 'getDeliveryMetrics',
  method: 'GET',
  path: '/Stores/{id}/DeliveryMetrics',
  summary: 'Delivery metrics for an address',
  description: `Geocodes the address, finds the store's zone that holds it (point in polygon; concave zones too), and answers
whether the store delivers there, the straight distance, the driving distance when \`includeDrivingDistance=true\` and a
route service is configured (else null, with a WARNING), and the delivery fee in cents. In a zone that does not deliver
(it wins over the zones it overlaps) the answer is not deliverable with a fee of 0, as outside every zone, the zone named. \`distanceUOM\` is \`mi\` (default)
or \`km\`. An address the geocoder cannot place is 422 \`address_not_found\`; a store with no latitude and longitude
is 422 \`store_not_located\`. ${WHO}`,
  request: {
    params: storeParams,
    query: z.object({
      streetNumber: addressParam('the street number', '350', 10),
      streetName: addressParam('the street name', 'W 24th St', 40),
      city: addressParam('the city', 'New York', 25),
      state: addressParam("the state's 2-letter code", 'NY', 2, 2),
      postalCode: addressParam('the postal code', '10011', 10),
      includeDrivingDistance: BooleanParam,
      distanceUOM: DistanceUnit.default('mi'),
    }),
    example: {
      id: String(DEMO_STORE_ID),
      streetNumber: '350',
      streetName: 'W 24th St',
      city: 'New York',
      state: 'NY',
      postalCode: '10011',
      distanceUOM: 'mi',
    },
  },
  responses: {
    200: {
      description: 'The metrics.',
      schema: hostedAnswer(DeliveryMetric),
      example: ok('Deliverable: zone Chelsea, 0.17 mi.', {
        zoneName: 'Chelsea',
        deliverable: true,
        distance: 0.17,
        drivingDistance: null,
        distanceUOM: 'mi',
        deliveryFee: 150,
        latitude: 40.7465,
        longitude: -73.9988,
      }),
    },
  },
  errors: [...HOSTED_ERRORS, 'address_not_found', 'store_not_located', 'geo_service_unavailable'],
});

export const EstimatedTime = z
  .object({
    orderType: z.string(),
    desiredDueTime: z.iso.datetime().meta({ description: 'What was asked (now when not given), in UTC.' }),
    estimatedTime: z.iso.datetime().meta({ description: 'When the order can be ready, in UTC.' }),
    estimatedMinutes: z.number().int().meta({ description: 'The order type’s minutes from order to ready.' }),
    timeZone: StoreTimeZone,
    adjusted: z
      .boolean()
      .meta({ description: 'True when the store is closed then, and the time moved to its next opening.' }),
  })
  .meta({ id: 'EstimatedTime' });

export const getEstimatedTime = defineOperation({
  ...common,
  operationId: 'getEstimatedTime',
  method: 'GET',
  path: '/Stores/{id}/OrderTypes/{orderType}/EstimatedTime',
  summary: 'When an order would be ready',
  description: `For an order placed now and wanted at \`desiredDueTime\` (default: now), when it can be ready: the later of
the desired time and now plus the order type's \`estimatedTime\` minutes. When the store is closed for the order type then
(its \`operationPeriods\`, in the store's time zone), the order is ready its minutes after the next opening
(\`adjusted: true\`); a type with no periods is always open. ${WHO}`,
  request: {
    params: orderTypeParams,
    query: z.object({ desiredDueTime: DueTimeParam.optional() }),
    example: { id: String(DEMO_STORE_ID), orderType: 'Pickup', desiredDueTime: '2026-12-01T18:30:00-05:00' },
  },
  responses: {
    200: {
      description: 'The estimate.',
      schema: hostedAnswer(EstimatedTime),
      example: ok('Ready at 2026-12-01T23:30:00.000Z.', {
        orderType: 'Pickup',
        desiredDueTime: '2026-12-01T23:30:00.000Z',
        estimatedTime: '2026-12-01T23:30:00.000Z',
        estimatedMinutes: 20,
        timeZone: 'Eastern Standard Time',
        adjusted: false,
      }),
    },
  },
  errors: HOSTED_ERRORS,
});

// Strict, every level: a misspelt field (\`ccEmail\`) would otherwise drop its recipients silently.
const EmailAddress = z.strictObject({
  email: z.email('must be an e-mail address').max(254),
  name: z.string().max(100).optional(),
});

/** A MIME type (RFC 2045: `type/subtype`, tokens), with optional `; name=value` parameters. */
const MIME_TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
const MIME_TYPE = new RegExp(
  `^${MIME_TOKEN}/${MIME_TOKEN}(\\s*;\\s*${MIME_TOKEN}=(${MIME_TOKEN}|"[^"\\r\\n]*"))*$`,
);

/** The largest e-mail request: the whole body, base64 attachments included (SMTP servers take 10 to 25 MB). */
export const EMAIL_BODY_LIMIT = 10 * 1024 * 1024;

export const EmailMessage = z
  .strictObject({
    toEmails: z.array(EmailAddress).min(1, 'needs at least one recipient').max(50),
    ccEmails: z.array(EmailAddress).max(50).default([]),
    bccEmails: z.array(EmailAddress).max(50).default([]),
    fromEmail: EmailAddress,
    subject: z.string().min(1).max(998),
    contents: z
      .array(
        z.strictObject({
          contentType: z.enum(['text/plain', 'text/html']),
          value: z.string().max(1_000_000),
        }),
      )
      .min(1, 'needs a text/plain or text/html content')
      .max(2)
      .refine(
        (list) => list.length < 2 || list[0]!.contentType !== list[1]!.contentType,
        'takes one text/plain and one text/html at most, not two of the same type',
      ),
    attachments: z
      .array(
        z.strictObject({
          // Bounded by the request's limit alone (700,000 characters was a 1 MiB body's share: a 600 KB PDF was refused).
          content: z
            .base64('must be base64')
            .max(
              EMAIL_BODY_LIMIT,
              `must be at most ${EMAIL_BODY_LIMIT} base64 characters (the whole request is at most ${EMAIL_BODY_LIMIT / 1024 / 1024} MiB)`,
            ),
          type: z
            .string()
            .max(100)
            // type/subtype, then any parameters (`; charset=utf-8`): nodemailer writes anything else into the
            // part's Content-Type as it is (`pdf`, or a line break dropped), and the attachment arrives broken.
            .regex(MIME_TYPE, 'must be a MIME type such as application/pdf (type/subtype)')
            .meta({ description: 'The MIME type, e.g. application/pdf.' }),
          filename: z.string().min(1).max(255),
          disposition: z.enum(['attachment', 'inline']).default('attachment'),
          contentId: z
            .string()
            .max(100)
            .optional()
            .meta({ description: 'For an inline image: the cid the HTML names.' }),
        }),
      )
      .max(10)
      .default([]),
    tags: z
      .strictObject({ siteId: z.string().max(50).optional(), emailType: z.string().max(50).optional() })
      .optional(),
  })
  .meta({ id: 'EmailMessage' });
export type EmailMessage = z.infer<typeof EmailMessage>;

export const EmailOutcome = z
  .object({
    id: z.string().meta({ description: "The platform's id of the message (`eml_…`)." }),
    status: z.enum(['queued', 'sent', 'failed']).meta({
      description:
        '`queued`: waiting or being retried; `sent`: the SMTP server accepted it; `failed`: it gave up.',
    }),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    messageId: z.string().nullable().meta({ description: 'The Message-ID the SMTP server accepted.' }),
    sentAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'EmailOutcome' });

const emailExample = {
  toEmails: [{ email: 'ana@example.com', name: 'Ana Lima' }],
  fromEmail: { email: 'orders@pizza.example', name: 'Stream Pizza Chelsea' },
  subject: 'Your receipt',
  contents: [{ contentType: 'text/plain', value: 'Thanks for your order!' }],
  attachments: [
    {
      content: 'UmVjZWlwdCAjNDcxMQ==',
      type: 'text/plain',
      filename: 'receipt.txt',
      disposition: 'attachment',
    },
  ],
  tags: { siteId: 'chelsea', emailType: 'receipt' },
};
const queuedExample = ok('1 message queued.', [
  {
    id: 'eml_5d2f1a7c9b3e4f5a6b7c8d9e',
    status: 'queued',
    attempts: 0,
    lastError: null,
    messageId: null,
    sentAt: null,
  },
]);
const emailRequest = {
  params: storeParams,
  headers: IdempotencyHeaders,
  body: z.strictObject({ data: z.array(EmailMessage).min(1).max(20) }),
  nullIsAbsent: true,
  bodyLimit: EMAIL_BODY_LIMIT,
  example: { data: [emailExample] },
};

/** What both e-mail calls answer. */
const emailAnswers = {
  responses: {
    202: {
      description: 'Queued.',
      schema: hostedAnswer(z.array(EmailOutcome)),
      headers: REPLAYED_HEADER,
      example: queuedExample,
    },
  },
  errors: [...HOSTED_BODY_ERRORS, 'idempotency_key_reused'],
} as const;

export const sendStoreEmail = defineOperation({
  ...common,
  operationId: 'sendStoreEmail',
  method: 'POST',
  path: '/Stores/{id}/Email',
  summary: "Send e-mail on a store's behalf",
  description: `Queues the messages and answers 202 with an id for each: they are stored before the answer and sent through
the platform's SMTP server by the outbox, retried with backoff while the server refuses them for a while (a 4xx or no answer, for an hour), each sent
once; one the server refuses for good (a 5xx) is \`failed\` at once, with its answer. Read each message's outcome with \`GET /Stores/{id}/Email/{emailId}\`. Attachments are base64. The whole
request is at most ${EMAIL_BODY_LIMIT / 1024 / 1024} MiB (413 \`payload_too_large\`): send large messages one per call. A field
the schema does not name is 400, so a misspelt recipient list is never dropped silently. Send an
\`Idempotency-Key\` to retry safely: the retry is answered the same ids and queues nothing. ${WHO}`,
  request: emailRequest,
  ...emailAnswers,
});

/** The WARNING every PostEmail answer carries. */
export const POST_EMAIL_DEPRECATED = {
  id: 'deprecated',
  message: 'PostEmail is deprecated: use POST /Stores/{id}/Email.',
  messageType: 'WARNING',
} as const;

export const postStoreEmail = defineOperation({
  ...common,
  operationId: 'postStoreEmail',
  method: 'POST',
  path: '/Stores/{id}/PostEmail',
  summary: 'Send e-mail (deprecated)',
  description: `Deprecated: use \`POST /Stores/{id}/Email\`, which this does exactly (its answer carries a WARNING saying so). ${WHO}`,
  deprecated: true,
  request: emailRequest,
  ...emailAnswers,
  responses: {
    202: {
      ...emailAnswers.responses[202],
      example: { ...queuedExample, messagesDetails: [POST_EMAIL_DEPRECATED] },
    },
  },
});

export const getStoreEmail = defineOperation({
  ...common,
  operationId: 'getStoreEmail',
  method: 'GET',
  path: '/Stores/{id}/Email/{emailId}',
  summary: "A message's outcome",
  description: `Whether a message was sent, how many attempts it took and the last error. ${WHO}`,
  request: {
    params: storeParams.extend({
      emailId: z.string().regex(/^eml_[A-Za-z0-9]{1,64}$/, 'must be a message id (eml_…)'),
    }),
    example: { id: String(DEMO_STORE_ID), emailId: 'eml_5d2f1a7c9b3e4f5a6b7c8d9e' },
  },
  responses: {
    200: {
      description: 'The outcome.',
      schema: hostedAnswer(EmailOutcome),
      example: ok('Sent.', {
        id: 'eml_5d2f1a7c9b3e4f5a6b7c8d9e',
        status: 'sent',
        attempts: 1,
        lastError: null,
        messageId: '<b1f0@pizza.example>',
        sentAt: '2026-12-01T23:31:05.000Z',
      }),
    },
  },
  errors: HOSTED_ERRORS,
});

export const HR_STORE_OPERATIONS = [
  searchStores,
  getStore,
  getStoreServiceTypes,
  getSystemConfiguration,
  patchSystemConfiguration,
  listGeoFences,
  getGatewayCredentials,
  listStoreOrderTypes,
  getStoreOrderType,
  patchStoreOrderType,
  getDeliveryMetrics,
  getEstimatedTime,
  sendStoreEmail,
  postStoreEmail,
  getStoreEmail,
];
