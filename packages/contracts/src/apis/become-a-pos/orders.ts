import { z } from 'zod';
import { partnerId } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { DeliveryStatus, DriverDetails, FulfillmentType, deliveryAddressFields } from '../../orders.ts';
import { MAX_PREP_TIME_MINUTES, MERCHANT_TOKEN_ERRORS, PrepTimeMinutes } from './locations.ts';

/**
 * What the platform sends a POS at `POST /stream-pos/v1/orders` (platform.md section 3 "POS
 * contract", wire notes): `{type, object}` with `order.created`, `order.updated` or `order.canceled`.
 * The same order shape is what a POS sends back for an in-store order (`order.created` webhook).
 */

const money = (description: string) =>
  z
    .number()
    .int()
    .meta({ description: `${description} Integer, in the smallest currency unit.` });
const currency = z.string().meta({ description: 'Upper-case ISO-4217, e.g. `USD`.' });

export const PosCustomer = z
  .object({
    id: z.string().optional(),
    name: z.string().optional(),
    phone: z.string().optional().meta({ description: 'E.164.' }),
    phone_code: z
      .string()
      .optional()
      .meta({ description: 'The masking code to dial when `phone` is a relay.' }),
    email: z.string().optional(),
  })
  .meta({ id: 'PosCustomer' });
export type PosCustomer = z.infer<typeof PosCustomer>;

export interface PosLineItemModifier {
  provider_id: string;
  modifier_group_provider_id?: string | undefined;
  name: string;
  quantity: number;
  price_amount: number;
  price_currency: string;
  modifiers: PosLineItemModifier[];
  container_deposit?: number | undefined;
}
export const PosLineItemModifier: z.ZodType<PosLineItemModifier> = z
  .lazy(() =>
    z.object({
      provider_id: z.string().meta({ description: 'Your id of the modifier.' }),
      modifier_group_provider_id: z.string().optional(),
      name: z.string(),
      quantity: z.number().int(),
      price_amount: money('Unit price.'),
      price_currency: currency,
      modifiers: z.array(PosLineItemModifier).meta({ description: 'Nested modifiers.' }),
      container_deposit: money('Deposit.').optional(),
    }),
  )
  .meta({ id: 'PosLineItemModifier' });

export const PosLineItem = z
  .object({
    provider_id: z.string().meta({ description: 'Your id of the item (variation).' }),
    item_family_provider_id: z.string().optional(),
    name: z.string(),
    quantity: z.number().int(),
    price_amount: money('Unit price.'),
    price_currency: currency,
    modifiers: z.array(PosLineItemModifier),
    special_instructions: z.string().optional(),
    container_deposit: money('Deposit.').optional(),
    discount_id: z.string().optional(),
    customer_id: z.string().optional(),
  })
  .meta({ id: 'PosLineItem' });
export type PosLineItem = z.infer<typeof PosLineItem>;

export const PosDiscount = z
  .object({
    provider_id: z.string(),
    amount: money('The discount.'),
    items: z.array(z.string()).meta({
      description: 'The `provider_id`s of the line items it applies to; empty for the whole order.',
    }),
  })
  .meta({ id: 'PosDiscount' });
export type PosDiscount = z.infer<typeof PosDiscount>;

export const PosDeliveryAddress = z.object(deliveryAddressFields).meta({ id: 'PosDeliveryAddress' });

export const PosOrder = z
  .object({
    location_id: z.string().meta({ description: 'Your id of the location.' }),
    idempotency_key: z.string().meta({
      description: "The platform's order id: the same on every attempt, and the `order_id` of later updates.",
    }),
    source_order_id: z.string().meta({ description: "The DSP's id of the order." }),
    source: z.string().meta({ description: 'The marketplace (`OrderSource`).' }),
    brand: z.string().meta({ description: 'The brand ordered through (`OrderBrand`).' }),
    fulfillment_type: FulfillmentType,
    customers: z.array(PosCustomer),
    // Deprecated, yet in the spec's required list (platform.md section 5): always sent, empty when unknown.
    customer_name: z.string().meta({
      description: 'Deprecated: `customers[0].name`; empty when the marketplace sent none.',
      deprecated: true,
    }),
    customer_email: z
      .string()
      .optional()
      .meta({ description: 'Deprecated: `customers[0].email`.', deprecated: true }),
    customer_phone: z.string().meta({
      description: 'Deprecated: `customers[0].phone`; empty when the marketplace sent none.',
      deprecated: true,
    }),
    customer_phone_code: z.string().meta({
      description: 'Deprecated: `customers[0].phone_code`; empty when the number is not masked.',
      deprecated: true,
    }),
    line_items: z.array(PosLineItem),
    special_instructions: z.string().optional(),
    should_include_utensils: z.boolean(),
    is_future_order: z.boolean(),
    placed_at: z.number().int().meta({ description: 'When the customer ordered (epoch ms).' }),
    requested_for: z
      .number()
      .int()
      .optional()
      .meta({ description: 'When the food should be ready (epoch ms).' }),
    subtotal: money('Sum of the line items.'),
    tax: money('Tax.'),
    tax_withheld_by_dsp: z.boolean(),
    service_charge: money('Service charge.').optional(),
    driver_tip: money('Driver tip (`merchant_managed_delivery`).').optional(),
    restaurant_tip: money('Tip for the restaurant (`pickup`, `dine_in`).').optional(),
    delivery_fee: money('Delivery fee (`merchant_managed_delivery`), its tax included.').optional(),
    delivery_address: PosDeliveryAddress.optional(),
    fulfillment_instructions: z.string().optional(),
    discounts: z.array(PosDiscount),
    unpaid: z.boolean().optional().meta({ description: 'Take payment at the window (`drive_thru` only).' }),
  })
  .meta({ id: 'PosOrder', description: 'A new order as the POS receives it.' });
export type PosOrder = z.infer<typeof PosOrder>;

/** The order statuses a POS is sent in `order.updated` (section 4), plus `in_progress`: accepted, not ready. */
export const PosOrderUpdateStatus = z
  .enum([
    'in_progress',
    'ready_for_pickup',
    'out_for_delivery',
    'dsp_canceled',
    'merchant_canceled',
    'completed',
    'failed',
  ])
  .meta({
    id: 'PosOrderUpdateStatus',
    description:
      "Where the order is. `in_progress` (accepted, not ready yet) is Stream's addition to the spec's six, whose list has no value for an order you are still preparing: a driver heading to the restaurant is reported with it. Read an unknown value as the order's status unchanged.",
  });
export type PosOrderUpdateStatus = z.infer<typeof PosOrderUpdateStatus>;

export const PosOrderUpdate = z
  .object({
    location_id: z.string(),
    order_id: z
      .string()
      .meta({ description: "The platform's order id (the `idempotency_key` of `order.created`)." }),
    provider_id: z
      .string()
      .optional()
      .meta({ description: 'Your id of the order, from your answer to `order.created`.' }),
    status: PosOrderUpdateStatus,
    delivery_status: DeliveryStatus.optional(),
    driver_details: DriverDetails.optional(),
  })
  .meta({ id: 'PosOrderUpdate' });
export type PosOrderUpdate = z.infer<typeof PosOrderUpdate>;

export const PosOrderCancel = z
  .object({
    location_id: z.string(),
    order_id: z.string().meta({ description: "The platform's order id." }),
    provider_id: z.string().optional().meta({ description: 'Your id of the order.' }),
    cancel_reason: z.string().optional(),
  })
  .meta({
    id: 'PosOrderCancel',
    description: 'Carries both `order_id` and `provider_id`: POS builds read either.',
  });

export const PosOrderRequest = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('order.created'), object: PosOrder }),
    z.object({ type: z.literal('order.updated'), object: PosOrderUpdate }),
    z.object({ type: z.literal('order.canceled'), object: PosOrderCancel }),
  ])
  .meta({ id: 'PosOrderRequest', description: 'A new, updated or cancelled order.' });
export type PosOrderRequest = z.infer<typeof PosOrderRequest>;

export const PosOrderAnswer = z
  .object({
    order: z
      .object({
        provider_id: partnerId('Your id of the order.'),
        // Optional fields may come as null (many serialisers write them so): null is absent.
        prep_time_minutes: PrepTimeMinutes.nullish().meta({
          description: `When the food will be ready, in minutes (0 to ${MAX_PREP_TIME_MINUTES}); default (absent or null): the location's. More than ${MAX_PREP_TIME_MINUTES} makes the answer unusable: the order fails.`,
        }),
        async_acceptance: z.boolean().nullish().meta({
          description:
            'True: you took the order but will confirm it by webhook (`order.status.updated` `accepted`) within 60 s.',
        }),
      })
      .optional(),
  })
  .meta({
    id: 'PosOrderAnswer',
    description: 'Your answer to `order.created` (`order` is required there); any 2xx to the others.',
  });

/** One item or modifier out of stock in a refusal (`stockValidation`). */
export const PosStockRefusal = z
  .object({
    type: z.enum(['item', 'modifier']),
    provider_id: partnerId('Your id of the item or modifier, as in the order.'),
    quantity: z.number().nullish().meta({ description: 'How many are left; null or absent: none.' }),
  })
  .meta({ id: 'PosStockRefusal' });

/** Your total and the order's, when they differ (`orderTotalsValidation`). */
export const PosTotalsRefusal = z
  .object({ posTotal: z.number(), streamTotal: z.number() })
  .meta({ id: 'PosTotalsRefusal' });

/** Why the order as a whole is refused (`orderValidation`). */
export const PosOrderRefusal = z
  .object({
    order_error: z
      .string()
      .meta({ description: '`store_unavailable`, `invalid_cart`, `pos_offline` or `other`.' }),
    order_error_reason: z.string().nullish().meta({ description: 'In your words; null or absent: none.' }),
  })
  .meta({ id: 'PosOrderRefusal' });

/**
 * A refusal is read list by list and entry by entry (`apps/platform/src/orders/pos-rejection.ts`): a
 * list or field sent as null is absent (many serialisers write them so), and an entry the platform cannot
 * read is skipped without spoiling the others.
 */
export const PosValidationError = z
  .object({
    posValidation: z.object({
      stockValidation: z.array(PosStockRefusal).nullish().meta({
        description:
          'Items or modifiers out of stock (`quantity`: how many are left): the DSP is told which.',
      }),
      orderTotalsValidation: z
        .array(PosTotalsRefusal)
        .nullish()
        .meta({ description: "Your total differs from the order's." }),
      orderValidation: z.array(PosOrderRefusal).nullish(),
      unknownValidation: z.unknown().optional().meta({ description: 'Deprecated.', deprecated: true }),
    }),
  })
  .meta({
    id: 'PosValidationError',
    description:
      'Why you refuse the order (400). Send the lists that apply; a list or field you leave null is absent. Stream reads each list, and each entry, on its own: an entry it cannot read (a `provider_id` missing) is skipped, not the whole refusal.',
  });
export type PosValidationError = z.infer<typeof PosValidationError>;

const created = {
  location_id: 'loc-mission',
  idempotency_key: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
  source_order_id: 'dsp-order-8812',
  source: 'example-dsp',
  brand: 'example-dsp',
  fulfillment_type: 'pickup',
  customers: [{ id: 'cus-1', name: 'Ada L.', phone: '+14155550123', email: 'ada@example.com' }],
  customer_name: 'Ada L.',
  customer_phone: '+14155550123',
  customer_phone_code: '',
  customer_email: 'ada@example.com',
  line_items: [
    {
      provider_id: 'taco-carnitas',
      name: 'Carnitas taco',
      quantity: 2,
      price_amount: 450,
      price_currency: 'USD',
      modifiers: [
        {
          provider_id: 'salsa-extra',
          name: 'Extra salsa',
          quantity: 1,
          price_amount: 50,
          price_currency: 'USD',
          modifiers: [],
        },
      ],
    },
  ],
  should_include_utensils: true,
  is_future_order: false,
  placed_at: 1763898200000,
  requested_for: 1763900000000,
  subtotal: 950,
  tax: 85,
  tax_withheld_by_dsp: false,
  restaurant_tip: 100,
  discounts: [],
};

export const posReceiveOrder = defineOperation({
  api: 'become-a-pos',
  operationId: 'posReceiveOrder',
  method: 'POST',
  path: '/stream-pos/v1/orders',
  summary: 'Receive a new, updated or cancelled order',
  description: `The platform posts orders here with the merchant's bearer token, as \`{type, object}\`.

**\`order.created\`**: answer 2xx with \`{order: {provider_id, prep_time_minutes?}}\` to accept, or with
\`async_acceptance: true\` to confirm later by webhook (\`order.status.updated\` with \`accepted\`, or
\`merchant_canceled\` to decline) within 60 s. Refuse with 400 and a \`posValidation\` body: out-of-stock
items, totals that differ, or an \`orderValidation\` error (\`store_unavailable\`, \`pos_offline\`,
\`invalid_cart\`, \`other\`). A network error, a timeout or a 5xx is retried with backoff, with the same
\`idempotency_key\` and \`Idempotency-Key\` header, for up to 2 minutes: make a repeated key answer the
order you already made.

**\`order.updated\`** (delivery progress, driver) and **\`order.canceled\`**: any 2xx.`,
  tags: ['Orders'],
  tagDescriptions: { Orders: 'Orders the platform sends you, and how you answer them.' },
  security: { kind: 'merchant-bearer' },
  servedBy: 'partner',
  request: {
    body: PosOrderRequest,
    example: { type: 'order.created', object: created },
    examples: {
      created: { summary: 'A new order', value: { type: 'order.created', object: created } },
      updated: {
        summary: 'Driver on the way',
        value: {
          type: 'order.updated',
          object: {
            location_id: 'loc-mission',
            order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
            provider_id: 'pos-ord-1',
            status: 'in_progress',
            delivery_status: 'enroute_to_pickup',
            driver_details: { name: 'Sam', phone: { number: '+14155550199' } },
          },
        },
      },
      canceled: {
        summary: 'Cancelled by the DSP',
        value: {
          type: 'order.canceled',
          object: {
            location_id: 'loc-mission',
            order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
            provider_id: 'pos-ord-1',
          },
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Accepted (or, for updates and cancellations, received).',
      schema: PosOrderAnswer,
      example: { order: { provider_id: 'pos-ord-1', prep_time_minutes: 20 } },
    },
    400: {
      description: 'The order is refused.',
      schema: PosValidationError,
      example: {
        posValidation: { stockValidation: [{ type: 'item', provider_id: 'taco-carnitas', quantity: 0 }] },
      },
    },
  },
  errors: [...MERCHANT_TOKEN_ERRORS],
});
