import { z } from 'zod';
import { SentPhoneE164, sentHttpUrlOrEmpty } from './common.ts';

/**
 * The order vocabulary both sides share (platform.md sections 4, 5, 8, 9): fulfillment types,
 * sources and brands, delivery statuses, failure reasons. The DSP and POS wire shapes
 * (`apis/become-a-dsp/orders.ts`, `apis/become-a-pos/orders.ts`) are built from these.
 */

/** How the customer gets the order, as the POS sees it (`drive_thru` only for unpaid orders). */
export const FulfillmentType = z
  .enum([
    'curbside',
    'delivery',
    'dine_in',
    'merchant_managed_delivery',
    'pickup',
    'stream_managed_delivery',
    'drive_thru',
  ])
  .meta({
    id: 'FulfillmentType',
    description:
      "`delivery`: the marketplace's courier delivers; `merchant_managed_delivery`: the restaurant delivers; `stream_managed_delivery`: a delivery provider booked through the platform delivers. `drive_thru` is the only type an `unpaid` order may have.",
  });
export type FulfillmentType = z.infer<typeof FulfillmentType>;

/** What a DSP may send: the POS types, and `kiosk` (the platform passes it to the POS as `pickup`). */
export const DspFulfillmentType = z.enum([...FulfillmentType.options, 'kiosk']).meta({
  id: 'DspFulfillmentType',
  description:
    'The fulfillment types a DSP may send: every POS type, and `kiosk` (sent to the POS as `pickup`).',
});
export type DspFulfillmentType = z.infer<typeof DspFulfillmentType>;

/** The fulfillment types whose order needs a delivery address (spec section 5). */
export const ADDRESSED_FULFILLMENT_TYPES: readonly DspFulfillmentType[] = [
  'merchant_managed_delivery',
  'stream_managed_delivery',
];

export const ORDER_SOURCES = [
  'uber',
  'grubhub',
  'doordash',
  'example-dsp',
  'jet',
  'deliveroo',
  'skipthedishes',
  'flipdish',
  'chownow',
] as const;
export const OrderSource = z
  .enum(ORDER_SOURCES)
  .meta({ id: 'OrderSource', description: 'The marketplace an order comes from.' });
export type OrderSource = z.infer<typeof OrderSource>;

export const OrderBrand = z
  .enum([...ORDER_SOURCES, 'yelp', 'eat24', 'caviar', 'storefront', 'postmates'])
  .meta({
    id: 'OrderBrand',
    description: "The brand the customer ordered through (a source, or one of a source's brands).",
  });
export type OrderBrand = z.infer<typeof OrderBrand>;

/** Where a delivery is, as the DSP reports it (all fifteen of section 4). */
export const DeliveryStatus = z
  .enum([
    'pending',
    'pending_driver_confirmation',
    'enroute_to_pickup',
    'arrived_at_pickup',
    'enroute_to_dropoff',
    'arrived_at_dropoff',
    'completed',
    'failed_to_assign_driver',
    'failed_to_deliver',
    'failed_to_pickup',
    'failed',
    'merchant_canceled',
    'enroute_to_return',
    'arrived_at_return',
    'returned',
  ])
  .meta({ id: 'DeliveryStatus', description: 'Where the delivery of an order is.' });
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** A location's preparation time when its POS gives none: platform.md section 9's example prep time. */
export const DEFAULT_PREP_TIME_MINUTES = 30;

/**
 * The fields of a delivery address as the platform sends it on (to the POS in `order.created`, to an
 * event provider in its order events); each contract names its own schema from these.
 */
export const deliveryAddressFields = {
  address_line_1: z.string().optional(),
  address_line_2: z.string().optional(),
  city: z.string().optional(),
  state: z.string().optional(),
  postal_code: z.string().optional(),
  country: z.string().optional(),
  latitude: z.number().optional(),
  longitude: z.number().optional(),
};

/** Why an order failed, as the DSP is told in `location.order.fail` (section 8). */
export const OrderFailureReason = z
  .enum([
    'restaurant_not_accepting_orders',
    'location_not_found',
    'pos_missing_items',
    'items_unavailable',
    'order_validation_error',
    'unknown',
  ])
  .meta({ id: 'OrderFailureReason', description: 'Why the order was not accepted.' });
export type OrderFailureReason = z.infer<typeof OrderFailureReason>;

export const OrderFailureDetails = z
  .object({
    invalid_item_ids: z.array(z.string()).meta({
      description:
        'Your item or modifier ids at fault (`pos_missing_items`, `items_unavailable`); else empty.',
    }),
    error_message: z
      .string()
      .optional()
      .meta({ description: 'What went wrong, in a sentence a person can act on.' }),
  })
  .meta({ id: 'OrderFailureDetails' });
export type OrderFailureDetails = z.infer<typeof OrderFailureDetails>;

/** A driver's details but its phone (`DriverDetails`, `SentDriverDetails`). */
const driverFields = {
  source: z.string().optional().meta({ description: 'Whose fleet: `doordash` or `uber`.' }),
  name: z.string().optional(),
  picture_url: z.string().optional(),
  vehicle_info: z
    .object({
      make: z.string().optional(),
      model: z.string().optional(),
      color: z.string().optional(),
      license_plate: z.string().optional(),
      is_autonomous: z.boolean().optional(),
    })
    .optional(),
  handoff_instructions: z.string().optional(),
  passcode: z.string().optional(),
};
const PHONE_CODE = z.string().optional();
/** A masking code as a partner sends it: `text`, or a whole number (many send `1234`) kept as its decimal string. */
export const sentPhoneCode = (text = z.string(), number = z.number().int()) =>
  z.union([text, number]).transform(String);
export const SENT_PHONE_CODE = sentPhoneCode().optional().meta({
  description:
    'The masking code to dial after `number`: a string, or a whole number (kept as its decimal string).',
});

/**
 * A driver as the platform passes it on (to the POS in `order.updated`, in the Partner API): `phone.number`
 * is always E.164.
 */
export const DriverDetails = z
  .object({
    ...driverFields,
    phone: z
      .object({
        number: z.string().meta({ description: 'The number to call, E.164 (`+14155550199`).' }),
        code: PHONE_CODE,
      })
      .optional()
      .meta({
        description: '`number` to call (E.164); `code` is the masking code when the number is a relay.',
      }),
  })
  .meta({ id: 'DriverDetails', description: 'Who is delivering the order.' });
export type DriverDetails = z.infer<typeof DriverDetails>;

/**
 * A driver as a DSP reports it (`delivery_status_update`): its `phone.number` is E.164, written with
 * spaces, dashes, dots or parentheses if need be (taken out: the platform stores and relays E.164);
 * another number is 400 `validation_failed` naming the field, and the update is not applied.
 */
export const SentDriverDetails = z
  .object({
    ...driverFields,
    picture_url: sentHttpUrlOrEmpty().optional().meta({
      description:
        'An absolute http(s) URL, relayed to the POS; another is refused (400). Empty (`""`): no picture.',
    }),
    phone: z
      .object({
        number: SentPhoneE164.meta({
          description:
            'The number to call, E.164: `+`, the country code, the number (`+14155550199`). Spaces, dashes, dots and parentheses are taken out (`+1 (415) 555-0199` is `+14155550199`); a number without `+` and its country code is refused (400).',
        }),
        code: SENT_PHONE_CODE,
      })
      .optional()
      .meta({ description: '`number` to call; `code` is the masking code when the number is a relay.' }),
  })
  .meta({ id: 'SentDriverDetails', description: 'Who is delivering the order, as you report it.' });
