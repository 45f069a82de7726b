import { z } from 'zod';
import { epochMs, partnerId } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import {
  DeliveryStatus,
  SentDriverDetails,
  DspFulfillmentType,
  OrderFailureDetails,
  OrderFailureReason,
  SENT_PHONE_CODE,
} from '../../orders.ts';
import { statusEnum } from '../../states/machine.ts';
import { ORDER_STATES } from '../../states/orders.ts';
import { SIGNED_WEBHOOK_ERRORS } from '../partner/shared.ts';

/**
 * What a DSP posts to `POST /order/{partner_id}` (platform.md section 3, wire notes "DSP side").
 * These schemas check shape and types: a body they refuse is a synchronous 400 naming the field.
 * The business rules of section 5 (phones, currencies, which fees go with which fulfillment type)
 * are checked after the order is stored, by `apps/platform/src/orders/validate.ts` (which also
 * normalises a customer's phone to E.164, as a driver's is); an order
 * breaking one fails with `order_validation_error`, told to the DSP by `location.order.fail`.
 * A driver's phone is the schema's (`SentDriverDetails`): normalised to E.164 or refused 400, since
 * the platform relays it to the POS and a status update has no order to fail.
 */

const money = (description: string) =>
  z.number().meta({ description: `${description} Integer, in the smallest currency unit (150 = 1.50).` });
const optionalMoney = (description: string) => money(description).optional();
const text = z.string().max(10_000);

export const DspOrderModifier: z.ZodType<DspOrderModifier> = z
  .lazy(() =>
    z.object({
      id: z.string().min(1).meta({ description: "The modifier's stream_id in the published menu." }),
      modifier_group_id: z.string().optional(),
      name: text,
      quantity: z.number().meta({ description: 'A positive integer.' }),
      price: money('Unit price.'),
      currency: z.string().meta({ description: 'Lower-case ISO-4217, e.g. `usd`.' }),
      modifiers: z.array(DspOrderModifier).optional().meta({ description: 'Nested selections.' }),
    }),
  )
  .meta({
    id: 'DspOrderModifier',
    description: 'A modifier chosen for an item, with its own nested choices.',
  });
export interface DspOrderModifier {
  id: string;
  modifier_group_id?: string | undefined;
  name: string;
  quantity: number;
  price: number;
  currency: string;
  modifiers?: DspOrderModifier[] | undefined;
}

export const DspOrderItem = z
  .object({
    id: z.string().min(1).meta({ description: "The variation's stream_id in the published menu." }),
    item_id: z.string().optional().meta({ description: "The item's stream_id." }),
    category_id: z.string().optional(),
    customer_id: partnerId('Which of `customers` ordered it (group orders): its `id`.').optional(),
    name: text,
    quantity: z.number().meta({ description: 'A positive integer.' }),
    price: money('Unit price.'),
    currency: z.string().meta({ description: 'Lower-case ISO-4217, e.g. `usd`.' }),
    special_instructions: text.optional(),
    modifiers: z.array(DspOrderModifier).optional(),
  })
  .meta({ id: 'DspOrderItem' });
export type DspOrderItem = z.infer<typeof DspOrderItem>;

export const DspCustomer = z
  .object({
    id: partnerId('Your id of the customer.').optional(),
    name: text.optional(),
    email: z.string().optional(),
    phone: z.string().optional().meta({
      description:
        'E.164, e.g. `+14155550123`; spaces, dashes, dots and parentheses are taken out (`+1 (415) 555-0123` is `+14155550123`), and an empty one is no phone. Another (no `+` and country code, letters, an extension) fails the order with `order_validation_error`.',
    }),
    masked_phone_code: SENT_PHONE_CODE.meta({
      description:
        'The code to dial after `phone` when the number is a relay: a string, or a whole number (kept as its decimal string).',
    }),
  })
  .meta({ id: 'DspCustomer' });
export type DspCustomer = z.infer<typeof DspCustomer>;

export const DspDeliveryAddress = z
  .object({
    address_line_1: text.optional(),
    address_line_2: text.optional(),
    city: text.optional(),
    state: text.optional(),
    postal_code: text.optional(),
    country: text.optional(),
    latitude: z.number().optional(),
    longitude: z.number().optional(),
  })
  .meta({
    id: 'DspDeliveryAddress',
    description:
      'Where to deliver: a street address (`address_line_1`, `city`, `postal_code`, `country`), or coordinates only (`latitude` and `longitude`).',
  });
export type DspDeliveryAddress = z.infer<typeof DspDeliveryAddress>;

export const DspDiscount = z
  .object({
    id: partnerId('Your id of the discount.'),
    amount: money('The discount.'),
    item_id: z
      .string()
      .optional()
      .meta({ description: 'The item (variation id) it applies to; absent for the whole order.' }),
  })
  .meta({ id: 'DspDiscount' });
export type DspDiscount = z.infer<typeof DspDiscount>;

export const DspOrder = z
  .object({
    id: partnerId('Your id of the order: unique per DSP, and the idempotency key of the post.'),
    customer_facing_id: z
      .string()
      .optional()
      .meta({ description: 'The short number the customer and the courier quote.' }),
    source: z.string().optional().meta({
      description: 'The marketplace (`OrderSource`); defaults to the source the platform has for you.',
    }),
    brand: z.string().optional().meta({ description: 'An `OrderBrand`; defaults to the source.' }),
    status: z
      .enum(['scheduled'])
      .optional()
      .meta({ description: '`scheduled` for a future order (as `is_future_order`).' }),
    customers: z
      .array(DspCustomer)
      .optional()
      .meta({ description: 'Everyone in the order; the first is the main customer.' }),
    customer: DspCustomer.optional().meta({ description: 'Deprecated: send `customers`.', deprecated: true }),
    items: z.array(DspOrderItem),
    currency: z
      .string()
      .optional()
      .meta({ description: "Lower-case ISO-4217; defaults to the items' currency." }),
    subtotal: money('Sum of the items.'),
    tax: money('Tax.'),
    tax_withheld: z.boolean().optional().meta({ description: 'You remit the tax, not the restaurant.' }),
    service_charge: optionalMoney('Service charge.'),
    driver_tip: optionalMoney('Tip for the driver: `merchant_managed_delivery` only.'),
    store_tip: optionalMoney('Tip for the restaurant: `pickup` or `dine_in` only.'),
    delivery_fee: optionalMoney('Delivery fee: `merchant_managed_delivery` only.'),
    delivery_fee_taxes: optionalMoney('Tax on the delivery fee: `merchant_managed_delivery` only.'),
    discounts: z.array(DspDiscount).optional(),
    fulfillment_type: DspFulfillmentType,
    delivery_address: DspDeliveryAddress.optional().meta({
      description: 'Required for `merchant_managed_delivery` and `stream_managed_delivery`.',
    }),
    fulfillment_instructions: text
      .optional()
      .meta({ description: 'For the delivery: `merchant_managed_delivery` only.' }),
    special_instructions: text.optional(),
    estimated_ready_at_ms: z.unknown().optional().meta({
      description:
        'When the food should be ready (epoch ms); for a future order, when the customer wants it. Missing or invalid (not a time after the order): 30 minutes after the order.',
    }),
    should_include_utensils: z.boolean().optional().meta({ description: 'Default true.' }),
    is_future_order: z.boolean().optional(),
    unpaid: z
      .boolean()
      .optional()
      .meta({ description: 'Payment is taken at the restaurant: `drive_thru` only.' }),
  })
  .meta({ id: 'DspOrder', description: 'A new order, as the DSP sends it.' });
export type DspOrder = z.infer<typeof DspOrder>;

const locationId = partnerId('Your id of the store (the bound DSP store).');
const orderId = partnerId('Your id of the order (`order.id` of its `new_order`).');

export const NewOrderWebhook = z
  .object({ type: z.literal('new_order'), location_id: locationId, order: DspOrder })
  .meta({ id: 'NewOrderWebhook', description: 'A new order for the store.' });

export const CancelReason = z.string().max(500).meta({
  description:
    'One of customer_requested, customer_no_show, item_out_of_stock, store_closed, kitchen_too_busy, driver_unavailable, delivery_failed, pos_rejected, payment_failed, duplicate_order, other, unknown, or free text.',
});
export const CancelSource = z
  .enum(['customer', 'restaurant', 'driver', 'dsp', 'stream', 'unknown'])
  .meta({ id: 'CancelSource', description: 'Who cancelled.' });

export const CancelOrderWebhook = z
  .object({
    type: z.literal('cancel_order'),
    location_id: locationId,
    order_id: orderId,
    cancel_reason: CancelReason.optional(),
    cancel_source: CancelSource.optional(),
  })
  .meta({ id: 'CancelOrderWebhook', description: 'The order was cancelled on your side.' });

export const StoreStatusUpdateWebhook = z
  .object({
    type: z.literal('store_status_update'),
    location_id: locationId,
    status_update: z
      .object({
        status: z.enum(['online', 'paused']),
        start_time: epochMs().optional().meta({ description: 'Epoch ms; default now.' }),
        end_time: epochMs().optional().meta({ description: 'Epoch ms; omitted: until told otherwise.' }),
      })
      .refine((u) => u.start_time === undefined || u.end_time === undefined || u.end_time > u.start_time, {
        path: ['end_time'],
        error: 'must be after start_time.',
      }),
  })
  .meta({
    id: 'StoreStatusUpdateWebhook',
    description: 'The store was paused or put back online on your side.',
  });

export const DeliveryStatusUpdateWebhook = z
  .object({
    type: z.literal('delivery_status_update'),
    location_id: locationId,
    order_id: orderId,
    delivery_status: DeliveryStatus,
    driver_details: SentDriverDetails.optional(),
  })
  .meta({ id: 'DeliveryStatusUpdateWebhook', description: "Where the order's delivery is." });

export const DSP_WEBHOOK_TYPES = [
  'new_order',
  'cancel_order',
  'store_status_update',
  'delivery_status_update',
] as const;

export const DspWebhook = z
  .discriminatedUnion(
    'type',
    [NewOrderWebhook, CancelOrderWebhook, StoreStatusUpdateWebhook, DeliveryStatusUpdateWebhook],
    {
      error: (issue) =>
        issue.code === 'invalid_union' ? `type must be one of: ${DSP_WEBHOOK_TYPES.join(', ')}` : undefined,
    },
  )
  .meta({ id: 'DspWebhook', description: 'Every webhook a DSP sends, told apart by `type`.' });
export type DspWebhook = z.infer<typeof DspWebhook>;

export const OrderStatus = statusEnum(ORDER_STATES);

export const DspWebhookAnswer = z
  .object({
    event_id: z.string().meta({ description: 'The platform id of this webhook delivery (`evt_…`).' }),
    order_id: z
      .string()
      .optional()
      .meta({ description: "The platform's id of the order (`ord_…`), when the event names one." }),
    status: OrderStatus.optional().meta({ description: "The order's status after the event." }),
    failure_reason: OrderFailureReason.optional(),
    failure_details: OrderFailureDetails.optional(),
    queued: z.boolean().optional().meta({
      description:
        'True when the event waits for the order to reach the POS first; it is applied in order after it.',
    }),
  })
  .meta({
    id: 'DspWebhookAnswer',
    description:
      'What the platform did with the webhook. A new order posted again (same `order.id`) answers exactly what its first post answered.',
  });
export type DspWebhookAnswer = z.infer<typeof DspWebhookAnswer>;

const EXAMPLE_ORDER = {
  id: 'dsp-order-8812',
  customer_facing_id: '8812',
  brand: 'example-dsp',
  customers: [{ id: 'cus-1', name: 'Ada L.', email: 'ada@example.com', phone: '+14155550123' }],
  items: [
    {
      id: 'var_01HZX3',
      item_id: 'itm_01HZX2',
      name: 'Carnitas taco',
      quantity: 2,
      price: 450,
      currency: 'usd',
      modifiers: [{ id: 'mod_01HZX9', name: 'Extra salsa', quantity: 1, price: 50, currency: 'usd' }],
    },
  ],
  subtotal: 950,
  tax: 85,
  store_tip: 100,
  fulfillment_type: 'pickup',
  estimated_ready_at_ms: 1763900000000,
};

export const dspSendWebhook = defineOperation({
  api: 'become-a-dsp',
  operationId: 'dspSendWebhook',
  method: 'POST',
  path: '/order/{partner_id}',
  summary: 'Send an order, a cancellation, a store status or a delivery status',
  description: `Every webhook a DSP sends, told apart by \`type\`. Sign the exact body bytes with
\`Stream-Webhook-Signature\` (hex HMAC-SHA256, your webhook secret).

The event is committed before the platform answers 2xx. A body that is not the schema is a 400 naming the
field, and nothing is stored. **New orders** are answered \`202\` at once: the platform validates the order,
sends it to the POS and tells you the outcome with \`location.order.accept\` or \`location.order.fail\` at your
\`/stream-dsp/v1/event\`. Posting the same \`order.id\` again (a retry, concurrent or later) never makes a
second order: it answers what the first post answered. An order that fails before the POS (unknown store,
a rule of the contract broken, the store paused) says so in the answer too. **Cancellations and delivery
statuses** name the order by your id; one that does not fit the order's state is 409 \`invalid_transition\`,
and one for an order still on its way to the POS is queued behind it (\`queued: true\`). An optional field
may be sent as \`null\`: it is taken as absent (a required one then fails as missing). A driver's
\`driver_details.phone.number\` is E.164 (\`+14155550199\`); spaces, dashes, dots and parentheses in it are taken
out (\`+1 (415) 555-0199\` is relayed as \`+14155550199\`), and a number that is not E.164 then (no \`+\` and country
code, letters, an extension) is a 400 naming \`body.driver_details.phone.number\`: the status update is not applied,
so send it again with the number fixed, or without \`phone\`.`,
  tags: ['Webhooks'],
  tagDescriptions: {
    Webhooks: 'What you send to the platform: orders, cancellations, store and delivery status.',
  },
  security: { kind: 'webhook-signature' },
  servedBy: 'platform',
  request: {
    params: z.object({ partner_id: z.string().min(1).max(64).meta({ description: 'Your partner id.' }) }),
    body: DspWebhook,
    nullIsAbsent: true,
    example: { type: 'new_order', location_id: 'store-1001', order: EXAMPLE_ORDER },
    examples: {
      new_order: {
        summary: 'A new order',
        value: { type: 'new_order', location_id: 'store-1001', order: EXAMPLE_ORDER },
      },
      cancel_order: {
        summary: 'A cancellation',
        value: {
          type: 'cancel_order',
          location_id: 'store-1001',
          order_id: 'dsp-order-8812',
          cancel_reason: 'customer_requested',
          cancel_source: 'customer',
        },
      },
      store_status_update: {
        summary: 'Store paused for an hour',
        value: {
          type: 'store_status_update',
          location_id: 'store-1001',
          status_update: { status: 'paused', start_time: 1763900000000, end_time: 1763903600000 },
        },
      },
      delivery_status_update: {
        summary: 'Driver on the way',
        value: {
          type: 'delivery_status_update',
          location_id: 'store-1001',
          order_id: 'dsp-order-8812',
          delivery_status: 'enroute_to_pickup',
          driver_details: {
            source: 'doordash',
            name: 'Sam',
            phone: { number: '+14155550199', code: '1234' },
          },
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Applied: a cancellation, store status or delivery status.',
      schema: DspWebhookAnswer,
      example: {
        event_id: 'evt_5c1d9e0f2a3b4c5d6e7f8a9b',
        order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
        status: 'dsp_canceled',
      },
    },
    202: {
      description:
        'A new order, stored; its outcome follows as an event. Also a cancellation or delivery status queued behind an order still on its way to the POS.',
      schema: DspWebhookAnswer,
      example: {
        event_id: 'evt_1a2b3c4d5e6f7a8b9c0d1e2f',
        order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
        status: 'received',
      },
      examples: {
        received: {
          summary: 'On its way to the POS',
          value: {
            event_id: 'evt_1a2b3c4d5e6f7a8b9c0d1e2f',
            order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
            status: 'received',
          },
        },
        failed: {
          summary: 'Failed before the POS',
          value: {
            event_id: 'evt_9f8e7d6c5b4a3f2e1d0c9b8a',
            order_id: 'ord_2b4d6f8a0c1e3a5c7e9b1d3f',
            status: 'failed',
            failure_reason: 'order_validation_error',
            failure_details: {
              invalid_item_ids: [],
              error_message:
                'order.customers[0].phone: must be an E.164 phone number such as +14155550123 (+ and the country code; spaces, dashes, dots and parentheses are ignored), not "4155550123".',
            },
          },
        },
      },
    },
  },
  errors: [...SIGNED_WEBHOOK_ERRORS, 'location_not_found', 'order_not_found', 'invalid_transition'],
});
