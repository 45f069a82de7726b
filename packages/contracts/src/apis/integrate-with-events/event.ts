import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { OrderSource, deliveryAddressFields } from '../../orders.ts';

/** What the platform posts to an event provider's `POST /event` (platform.md section 3, wire notes "Event providers"). */

const cents = (description: string) =>
  z
    .number()
    .int()
    .meta({ description: `${description} Integer, in the smallest currency unit (150 = 1.50).` });

export const EventOrderStatus = z.enum(['in_progress', 'ready_for_pickup', 'dsp_canceled', 'canceled']).meta({
  id: 'EventOrderStatus',
  description:
    'Where the order is: `in_progress` (accepted, being prepared), `ready_for_pickup`, `dsp_canceled` (cancelled by the marketplace) or `canceled` (cancelled by the restaurant).',
});

/**
 * The fulfillment types of the events contract (section 4: the POS's, without `stream_managed_delivery`
 * and `drive_thru`). The platform sends a `stream_managed_delivery` order as `delivery` (a courier
 * delivers it, booked through the platform: the provider's business) and a `drive_thru` order as
 * `pickup` (the customer collects it at the restaurant).
 */
export const EventFulfillmentType = z
  .enum(['curbside', 'delivery', 'dine_in', 'merchant_managed_delivery', 'pickup'])
  .meta({
    id: 'EventFulfillmentType',
    description:
      'How the customer gets the order. A `stream_managed_delivery` order is sent as `delivery`, a `drive_thru` order as `pickup`.',
  });
export type EventFulfillmentType = z.infer<typeof EventFulfillmentType>;

export interface EventOrderItem {
  id: string;
  name: string;
  quantity: number;
  price: number;
  modifiers: EventOrderItem[];
}
export const EventOrderItem: z.ZodType<EventOrderItem> = z
  .lazy(() =>
    z.object({
      id: z.string().meta({ description: "The restaurant's (POS) id of the item or modifier." }),
      name: z.string(),
      quantity: z.number().int().meta({ description: 'How many.' }),
      price: cents('Unit price.'),
      modifiers: z.array(EventOrderItem).meta({ description: 'The choices made for it, nested.' }),
    }),
  )
  .meta({ id: 'EventOrderItem', description: 'A line of the order, or a modifier chosen for one.' });

export const EventCustomer = z
  .object({
    name: z.string().optional(),
    phone: z.string().optional().meta({ description: 'E.164.' }),
    phone_code: z
      .string()
      .optional()
      .meta({ description: 'The code to dial after `phone` when the marketplace masks the number.' }),
    email: z.string().optional(),
  })
  .meta({ id: 'EventCustomer', description: 'The customer who ordered (the first, for a group order).' });

export const EventDeliveryAddress = z.object(deliveryAddressFields).meta({
  id: 'EventDeliveryAddress',
  description: 'Where to deliver: a street address, or coordinates only (`latitude`, `longitude`).',
});

export const EventOrder = z
  .object({
    id: z.string().meta({ description: "The platform's id of the order (the event's `reference_id`)." }),
    status: EventOrderStatus,
    source: OrderSource,
    dsp_order_id: z.string().meta({ description: "The marketplace's id of the order." }),
    dsp_order_number: z
      .string()
      .meta({ description: 'The short number the customer and the courier quote (else `dsp_order_id`).' }),
    fulfillment_type: EventFulfillmentType,
    estimated_fulfillment_time: z
      .number()
      .int()
      .meta({ description: 'When the food is expected to be ready, epoch milliseconds.' }),
    customer: EventCustomer,
    delivery_address: EventDeliveryAddress.optional().meta({
      description: 'For a delivery (`delivery`, `merchant_managed_delivery`): where to take it.',
    }),
    instructions: z
      .string()
      .optional()
      .meta({ description: "The customer's instructions (the order's, then the delivery's)." }),
    currency: z.string().meta({ description: 'Upper-case ISO-4217, e.g. `USD`.' }),
    items: z.array(EventOrderItem),
    subtotal: cents('Sum of the items.'),
    tax: cents('Tax.'),
    driver_tip: cents('Tip for the driver (0 when none).'),
    delivery_fee: cents('Delivery fee (0 when none).'),
    delivery_fee_tax: cents('Tax on the delivery fee (0 when none).'),
    total: cents(
      'What the customer pays: subtotal, tax, service charge, tips, delivery fee and its tax, less discounts; never below 0.',
    ),
    unpaid: z.boolean().meta({ description: 'True when payment is taken at the restaurant.' }),
  })
  .meta({ id: 'EventOrder', description: 'The order as it stands after the event.' });
export type EventOrder = z.infer<typeof EventOrder>;

const envelope = {
  location_id: z.string().min(1).meta({
    description: "The platform's id of the restaurant location (`loc_…`): quote it in your webhooks.",
  }),
  reference_id: z.string().min(1).meta({
    description: "The platform's id of the order (`ord_…`): quote it as `order_id` in your webhooks.",
  }),
};

export const OrderConfirmedEvent = z
  .object({ type: z.literal('order.confirmed'), ...envelope, order: EventOrder })
  .meta({
    id: 'OrderConfirmedEvent',
    description:
      'The restaurant accepted the order. The first event of every order; `status` is `in_progress`.',
  });
export const OrderUpdatedEvent = z
  .object({
    type: z.literal('order.updated'),
    ...envelope,
    order: EventOrder.extend({ status: z.literal('ready_for_pickup') }),
  })
  .meta({ id: 'OrderUpdatedEvent', description: 'The food is ready for pickup.' });
export const OrderCanceledEvent = z
  .object({
    type: z.literal('order.canceled'),
    ...envelope,
    order: EventOrder.extend({ status: z.enum(['canceled', 'dsp_canceled']) }),
  })
  .meta({
    id: 'OrderCanceledEvent',
    description:
      'The order was cancelled after it was confirmed: by the restaurant (`canceled`) or by the marketplace (`dsp_canceled`). Stop the delivery.',
  });

export const ORDER_EVENT_TYPES = ['order.confirmed', 'order.updated', 'order.canceled'] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

export const OrderEvent = z
  .discriminatedUnion('type', [OrderConfirmedEvent, OrderUpdatedEvent, OrderCanceledEvent])
  .meta({ id: 'OrderEvent', description: 'Every event the platform sends, told apart by `type`.' });
export type OrderEvent = z.infer<typeof OrderEvent>;

export const EventSignatureHeaders = z.object({
  'x-stream-signature': z.string().meta({
    description: 'Lower-case hex HMAC-SHA256 of the exact body bytes, keyed with your webhook secret.',
  }),
});

const exampleOrder: EventOrder = {
  id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
  status: 'in_progress',
  source: 'doordash',
  dsp_order_id: 'dd-5521',
  dsp_order_number: '5521',
  fulfillment_type: 'merchant_managed_delivery',
  estimated_fulfillment_time: 1763901000000,
  customer: { name: 'Sam Lee', phone: '+14155550123' },
  delivery_address: {
    address_line_1: '1 Market St',
    city: 'San Francisco',
    state: 'CA',
    postal_code: '94105',
    country: 'US',
  },
  instructions: 'Leave at the door.',
  currency: 'USD',
  items: [
    {
      id: 'taco-carnitas',
      name: 'Carnitas taco',
      quantity: 2,
      price: 450,
      modifiers: [{ id: 'salsa-verde', name: 'Salsa verde', quantity: 1, price: 50, modifiers: [] }],
    },
  ],
  subtotal: 950,
  tax: 85,
  driver_tip: 300,
  delivery_fee: 299,
  delivery_fee_tax: 27,
  total: 1661,
  unpaid: false,
};
const ref = { location_id: 'loc_5f1c2a9e0b3d4c6e8a7b9d01', reference_id: exampleOrder.id };
export const ORDER_EVENT_EXAMPLES = {
  confirmed: { type: 'order.confirmed', ...ref, order: exampleOrder },
  updated: { type: 'order.updated', ...ref, order: { ...exampleOrder, status: 'ready_for_pickup' } },
  canceled: { type: 'order.canceled', ...ref, order: { ...exampleOrder, status: 'dsp_canceled' } },
} as const satisfies Record<string, OrderEvent>;

export const eventsReceiveEvent = defineOperation({
  api: 'integrate-with-events',
  operationId: 'eventsReceiveEvent',
  method: 'POST',
  path: '/event',
  summary: 'Receive an order event',
  description: `The platform posts every event about the orders of the locations you are enabled for. Verify
\`X-Stream-Signature\` over the raw body before parsing it, and answer any 2xx (\`200 {}\`, \`204\`) once you have
kept the event. Anything else, or no answer within 15 seconds, is retried with exponential backoff (1 s doubling
to 5 minutes, for up to 3 days), so the same \`reference_id\` and \`type\` may come twice. The events of one order
reach you in order: never \`order.updated\` or \`order.canceled\` before that order's \`order.confirmed\`, even
across retries (only an event given up after its 3 days lets the next one of its order go). When half of a minute's deliveries to you fail, the platform pauses your deliveries (nothing is
dropped) and probes with one event at a time until you answer again.`,
  tags: ['Order events'],
  tagDescriptions: { 'Order events': 'What the platform tells you about the orders you deliver.' },
  security: { kind: 'event-signature' },
  servedBy: 'partner',
  request: {
    headers: EventSignatureHeaders,
    body: OrderEvent,
    example: ORDER_EVENT_EXAMPLES.confirmed,
    examples: {
      confirmed: { summary: 'order.confirmed', value: ORDER_EVENT_EXAMPLES.confirmed },
      updated: { summary: 'order.updated', value: ORDER_EVENT_EXAMPLES.updated },
      canceled: { summary: 'order.canceled', value: ORDER_EVENT_EXAMPLES.canceled },
    },
  },
  responses: { 204: { description: 'Received (any 2xx acknowledges it).' } },
  errors: ['validation_failed', 'signature_missing', 'signature_malformed', 'signature_mismatch'],
});
