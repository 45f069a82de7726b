import { z } from 'zod';
import { BusinessDate, Cents, DueTime, MenuObjectId } from '../../hosted.ts';
import { DiscountScope, DiscountType, MAX_MODIFIER_LEVELS } from '../hr-menu/menu.ts';
import { HOSTED_ORDER_MACHINE } from '../../states/hosted-orders.ts';
import { statusEnum } from '../../states/machine.ts';

/**
 * A hosted order (restaurant-apis.md section 3, Order API) with section 5's field limits. What the
 * partner sends and what the platform answers are one schema: prices and totals the partner sends
 * are accepted and discarded, and the pricing engine fills them in.
 */

const Text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const Name = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(
      // ’ (U+2019) and ʼ (U+02BC) too: the apostrophe a phone's keyboard types in O’Brien.
      /^\p{L}[\p{L}\p{M} .'\u2019\u02bc-]*$/u,
      'must start with a letter and hold only letters, spaces, apostrophes, hyphens and periods',
    );

export const HalfSelection = z.enum(['Whole', 'Left', 'Right']).meta({ id: 'HalfSelection' });
export type HalfSelection = z.infer<typeof HalfSelection>;

export const OrderSourceName = z
  .enum([
    'pos',
    'hrush',
    'hrushmobile',
    'fb',
    'fbmobile',
    'ios',
    'android',
    'grubhub',
    'doordash',
    'thirdparty',
    'unknown',
    'ubereats',
    'postmates',
    'textai',
    'menufy',
    'kanekt365',
    'talkai',
    'doordashvoice',
    'chowly',
    'itsaheckmate',
    'deliverect',
    'ezcater',
  ]) // prettier-ignore
  .meta({ id: 'HostedOrderSource' });

export const RejectReason = z
  .enum([
    'storeClosed',
    'posOffline',
    'itemOutOfStock',
    'kitchenBusy',
    'missingInfo',
    'orderValidation',
    'pricing',
    'notIntegrated',
    'other',
    'internalTimeout',
    'internalMenuDataIntegrity',
  ]) // prettier-ignore
  .meta({ id: 'RejectReason' });
export type RejectReason = z.infer<typeof RejectReason>;

export const HostedOrderStatus = statusEnum(HOSTED_ORDER_MACHINE);
export type HostedOrderStatus = z.infer<typeof HostedOrderStatus>;

export interface OrderModifier {
  id: string;
  name?: string | undefined;
  displayName?: string | undefined;
  selectedHalf: HalfSelection;
  selectedSide: boolean;
  isLite: boolean;
  preselectedDefaultQuantity?: number | undefined;
  quantity: number;
  price?: number | undefined;
  orderModifiers: OrderModifier[];
}
/**
 * The modifier at `level` (1: on an item), written out level by level down to the deepest a menu
 * allows rather than as a recursive schema: without a reference cycle Zod generates the code that
 * checks a request (`z.compile`, see the platform's `http/request-check.ts`), and the reference shows
 * where the nesting stops.
 */
const orderModifierAt = (level: number): z.ZodType<OrderModifier, unknown> =>
  z.object({
    id: MenuObjectId,
    name: Text(100).optional(),
    displayName: Text(100).optional(),
    selectedHalf: HalfSelection.default('Whole').meta({
      description: 'Left or Right: on one half of a half item.',
    }),
    selectedSide: z
      .boolean()
      .default(false)
      .meta({ description: 'On the side (the modifier must `allowSide`).' }),
    isLite: z.boolean().default(false).meta({ description: 'Light amount (the modifier must `allowLite`).' }),
    preselectedDefaultQuantity: z.number().int().min(0).max(10).optional().meta({
      description: 'Answer only: the quantity the item comes with (1 for a default modifier, else 0).',
    }),
    quantity: z.number().int().min(0, 'must be 0 to 10').max(10, 'must be 0 to 10').default(1).meta({
      description: '0 removes a default modifier ("no onions").',
    }),
    price: z
      .number()
      .optional()
      .meta({ description: 'Ignored when sent; the answer gives the charged cents.' }),
    orderModifiers:
      level === MAX_MODIFIER_LEVELS
        ? z
            .array(z.unknown())
            .max(0, `modifiers nest at most ${MAX_MODIFIER_LEVELS} levels`)
            .default([])
            .meta({ description: `Always empty: modifiers nest at most ${MAX_MODIFIER_LEVELS} levels.` })
        : z
            .array(orderModifierAt(level + 1))
            .default([])
            .meta({ description: 'Modifiers of this modifier.' }),
  }) as z.ZodType<OrderModifier, unknown>;
export const OrderModifier = orderModifierAt(1).meta({ id: 'OrderModifier' });

export const OrderDiscount = z
  .object({
    id: z
      .string()
      .max(25)
      .optional()
      .meta({ description: 'Answer only: the applied discount’s id on this order.' }),
    sourceDiscount: MenuObjectId.meta({ description: 'The `id` of one of the menu’s `availableDiscounts`.' }),
    displayName: Text(100).optional(),
    discountType: DiscountType.optional(),
    discountScope: DiscountScope.optional(),
    discountValue: z
      .number()
      .optional()
      .meta({ description: 'Answer only: the cents this discount took off.' }),
    validationCode: z.string().max(25).optional(),
    valid: z.boolean().optional().meta({
      description: 'Answer only: whether it applied; when not, a WARNING in `messagesDetails` says why.',
    }),
  })
  .meta({ id: 'OrderDiscount' });
export type OrderDiscount = z.infer<typeof OrderDiscount>;

export const OrderItem = z
  .object({
    qty: z.number().int().min(1, 'must be at least 1').max(999),
    menuGroupId: MenuObjectId.optional(),
    id: MenuObjectId.meta({ description: 'The menu item (1 to 25 characters).' }),
    leftHalfItemId: MenuObjectId.optional(),
    rightHalfItemId: MenuObjectId.optional(),
    itemNumber: z.number().int().min(0).optional().meta({ description: 'Answer: the line number, from 1.' }),
    originalUnitPrice: z.number().optional().meta({ description: 'Answer: the unit price before tiers.' }),
    price: z.number().meta({
      description:
        'Required; what you send is discarded. The answer gives the line total in cents (units times unit price with modifiers).',
    }),
    noteText: Text(200).optional(),
    orderModifiers: z.array(OrderModifier).default([]),
    discounts: z
      .array(OrderDiscount)
      .optional()
      .meta({ description: 'Answer: discounts applied to this line.' }),
  })
  .refine((i) => (i.leftHalfItemId === undefined) === (i.rightHalfItemId === undefined), {
    message: 'a half item needs both leftHalfItemId and rightHalfItemId',
    path: ['rightHalfItemId'],
  })
  .meta({ id: 'OrderItem' });
export type OrderItem = z.infer<typeof OrderItem>;

export const Fee = z
  .object({ feeName: z.string().min(1).max(25), feeAmount: z.number().int() })
  .meta({ id: 'Fee' });
export const Tax = z
  .object({
    taxName: z.string().min(1).max(25),
    taxableAmount: z.number().int(),
    taxAmount: z.number().int(),
  })
  .meta({ id: 'Tax' });

export const Payment = z
  .object({
    paymentNumber: z.number().int(),
    paymentType: z.string(),
    paymentTypeCategory: z.string(),
    last4Digits: z.string().nullable(),
    tip: z.number().int(),
    amount: z.number().int(),
    paymentTime: z.iso.datetime().meta({
      description:
        "When the platform recorded the payment (UTC; for a captured authorization, when the authorization was recorded). The gateway's own time is the transaction's `transactionDateTime`, kept with the transaction record.",
    }),
  })
  .meta({ id: 'Payment' });

export const Stage = z
  .object({ name: z.string(), startTime: z.iso.datetime(), endTime: z.iso.datetime().nullable() })
  .meta({ id: 'Stage', description: 'A stretch of the order’s life (one per status it held).' });

export const AddressType = z.enum(['business', 'hotel', 'school', 'apartment', 'residential']);

export const Customer = z
  .object({
    id: Text(50).optional(),
    loyaltyId: Text(50).optional(),
    firstName: Name(25).optional(),
    lastName: Name(25).optional(),
    // The spec limits these by length only (restaurant-apis.md section 5): a phone number such as
    // "212 555 0123 x4" and a region such as "D" are a partner's to send.
    phoneNumber: Text(20).optional(),
    email: z
      .string()
      .max(80, 'must be at most 80 characters')
      .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an e-mail address such as ana@example.com')
      .optional(),
    streetnumber: Text(10).optional(),
    street: Text(40).optional(),
    additionalAddressInfo: Text(25).optional(),
    city: Text(25).optional(),
    state: Text(2).optional(),
    postalcode: Text(10).optional(),
    locationName: Text(25).optional(),
    addressType: AddressType.optional(),
    zoneName: Text(25).optional().meta({
      description:
        "The customer's delivery zone, as DeliveryMetrics names it: a delivery order is charged its fee (`Zone Fee`).",
    }),
  })
  .meta({ id: 'HostedCustomer' });

/** What a partner sends to price or place an order. */
export const OrderInput = z
  .object({
    orderType: MenuObjectId.meta({ description: 'The `id` of one of the menu’s `orderTypes`.' }),
    deferDue: DueTime.meta({
      description:
        'When the customer wants the order (now for as soon as possible), with its offset; its year as written (not in UTC) from 2000 to 2099. A time already past is now: the order is due when it is sent, and its hours, business date, discount windows and ready time are read then (a WARNING when it was more than 5 minutes past).',
    }),
    items: z.array(OrderItem).min(1, 'must hold at least one item').max(200),
    menuName: Text(100).optional().meta({
      description: "The menu to price against; default: the store's menu for the `X-Service-Type`.",
    }),
    discounts: z
      .array(OrderDiscount)
      .max(20)
      .default([])
      .meta({ description: 'Discounts the customer asks for.' }),
    customer: Customer.optional(),
    preperationNote: Text(200).optional(),
    deliveryNote: Text(200).optional(),
    orderSource: OrderSourceName.default('thirdparty'),
    sourceReferenceId: Text(25).optional().meta({ description: 'Your id of the order.' }),
    taxRemittanceHandledByFacilitator: z.boolean().default(false),
    extendedProperties: z.record(z.string().max(50), z.string().max(500)).optional(),
  })
  .loose()
  .meta({ id: 'HostedOrderInput' });
export type OrderInput = z.infer<typeof OrderInput>;

const money = (description: string) => z.number().int().meta({ description });

/** An order as priced (PriceOrder) or placed. */
export const PricedOrder = z
  .object({
    orderType: z.string(),
    deferDue: z.string(),
    menuName: z.string(),
    businessDate: BusinessDate.meta({
      description:
        "The date in the store's time zone the order is due: `deferDue`'s, or the day it was sent when `deferDue` is past.",
    }),
    items: z.array(OrderItem),
    discounts: z.array(OrderDiscount),
    fees: z.array(Fee),
    taxes: z.array(Tax),
    subtotal: money('Sum of the lines (inclusive taxes inside).'),
    discountTotal: money('Sum of the applied discounts.'),
    feeTotal: money('Sum of the fees.'),
    taxTotal: money('Sum of the taxes, inclusive ones too.'),
    total: money(
      'subtotal - discountTotal + feeTotal + the taxes not included in prices; at most 2147483647 (an order priced above it is 422 `order_invalid` naming `body.data.items`).',
    ),
    tipTotal: money('Sum of the payments’ tips.'),
    paymentTotal: money('Sum of the successful payments (tips not included).'),
    customer: Customer.optional(),
    preperationNote: z.string().optional(),
    deliveryNote: z.string().optional(),
    orderSource: OrderSourceName,
    sourceReferenceId: z.string().optional(),
    taxRemittanceHandledByFacilitator: z.boolean(),
    extendedProperties: z.record(z.string(), z.string()).optional(),
  })
  .meta({ id: 'PricedOrder' });
export type PricedOrder = z.infer<typeof PricedOrder>;

export const CartStatus = z
  .object({
    minimumOrderPriceMet: z.boolean().meta({
      description: "Whether the subtotal after discounts reaches the order type's `minOrderPrice`.",
    }),
  })
  .meta({ id: 'CartStatus' });

export const OrderStatusFields = z.object({
  id: z.number().int().meta({ description: "The platform's order number." }),
  status: HostedOrderStatus,
  estimatedTime: z.iso.datetime().nullable().meta({ description: 'When the order should be ready.' }),
  sourceReferenceId: z.string().nullable(),
  rejectReason: RejectReason.nullable(),
});

export const HostedOrder = PricedOrder.extend({
  ...OrderStatusFields.shape,
  orderNumber: z.number().int(),
  startTime: z.iso.datetime().meta({ description: 'When the order was placed.' }),
  payments: z.array(Payment),
  stages: z.array(Stage).optional().meta({ description: 'Given with `includeStageTimes=true` and on get.' }),
}).meta({ id: 'HostedOrder' });
export type HostedOrder = z.infer<typeof HostedOrder>;

export const OrderStatusAnswer = OrderStatusFields.meta({ id: 'HostedOrderStatusAnswer' });

export const TransactionType = z
  .enum([
    'SALE',
    'AUTHORIZATION',
    'FULL_CAPTURE',
    'PARTIAL_CAPTURE',
    'FULL_VOID',
    'PARTIAL_VOID',
    'FULL_REVERSAL',
    'PARTIAL_REVERSAL',
    'FULL_REFUND',
    'PARTIAL_REFUND',
    'SYSTEM_REVERSAL',
    'POINTS_RESERVATION',
    'POINTS_RELEASE',
  ]) // prettier-ignore
  .meta({ id: 'TransactionType' });

export const CreditCardPayment = z
  .object({
    transaction: z.object({
      gatewayTransactionId: z.string().min(1).max(64),
      amount: Cents.meta({ description: 'Cents charged for the order, tip not included.' }),
      tip: Cents.default(0),
      type: TransactionType,
      status: z.enum(['SUCCESS', 'FAILURE']),
      approvalCode: Text(20).optional(),
      orderId: z.string().max(64).optional(),
      avsResponseCode: Text(10).optional(),
      cvvResponseCode: Text(10).optional(),
      entry: Text(20).optional(),
      expressResponseCode: Text(10).optional(),
      expressResponseMessage: Text(100).optional(),
      hostedPaymentStatus: Text(30).optional(),
      terminalId: Text(30).optional(),
      netTranID: Text(64).optional(),
      transactionDateTime: z.iso.datetime({ offset: true }).optional(),
    }),
    paymentMethod: z.object({
      cardBrand: z.string().min(1).max(20),
      last4CardNumber: z.string().regex(/^\d{4}$/, 'must be the last 4 digits of the card'),
      expMonth: z.number().int().min(1).max(12),
      expYear: z.number().int().min(2000).max(2100),
    }),
    firstName: Text(25).optional(),
    lastName: Text(25).optional(),
  })
  .meta({ id: 'CreditCardPayment' });
export type CreditCardPayment = z.infer<typeof CreditCardPayment>;
