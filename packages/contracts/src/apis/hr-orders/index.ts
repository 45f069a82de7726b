import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import type { HostedMessage } from '../../envelopes.ts';
import {
  BusinessDate,
  HOSTED_BODY_ERRORS,
  HOSTED_ERRORS,
  IdempotencyHeaders,
  REPLAYED_HEADER,
  ServiceType,
  StoreAndServiceHeaders,
  StoreHeaders,
  hostedAnswer,
  integerParam,
  PG_INT_MAX,
} from '../../hosted.ts';
import { DEMO_STORE_ID } from '../hr-menu/demo.ts';
import {
  CartStatus,
  CreditCardPayment,
  HostedOrder,
  OrderInput,
  OrderStatusAnswer,
  PricedOrder,
} from './order.ts';

/** The Order API (restaurant-apis.md section 7): price, place, read, cancel and pay orders. */

const common = {
  api: 'hr-orders',
  servedBy: 'platform',
  security: { kind: 'bearer', scopes: ['orders'] },
  tags: ['Orders'],
  externalDocs: { url: '/docs/restaurant-apis/order-api', description: 'Order API guide' },
} as const;

const STORE = `Name the store in \`X-Store\`; a store of a company not granted to you, or an order of another store, is 404
\`not_found\`.`;
const orderId = z.object({
  id: integerParam(z.number().int().min(1).max(PG_INT_MAX).meta({ description: 'The order id.' })),
});
const ok = (message: string, data: unknown, messagesDetails: HostedMessage[] = []) => ({
  data,
  message,
  messagesDetails,
});

const applyDefaultModifiers = z.boolean().default(false).meta({
  description:
    "Add the item's default modifiers the order does not list (each at quantity 1, included in the price).",
});

export const EXAMPLE_ORDER = {
  orderType: 'Pickup',
  deferDue: '2026-12-01T18:30:00-05:00',
  items: [
    {
      id: 'margherita-lg',
      qty: 1,
      price: 0,
      orderModifiers: [
        { id: 'thin', quantity: 1 },
        { id: 'pepperoni', quantity: 1 },
      ],
    },
    { id: 'garlic-knots', qty: 2, price: 0 },
    { id: 'soda', qty: 2, price: 0 },
  ],
  discounts: [{ sourceDiscount: 'weekday-pizza' }, { sourceDiscount: 'knots-bogo' }],
  customer: { firstName: 'Ana', lastName: 'Lima', phoneNumber: '+12125550123', email: 'ana@example.com' },
  orderSource: 'thirdparty',
  sourceReferenceId: 'ext-48213',
} as const;

/** What the demo store's menu makes of `EXAMPLE_ORDER` (checked by the tests). */
export const EXAMPLE_PRICED = {
  orderType: 'Pickup',
  deferDue: '2026-12-01T18:30:00-05:00',
  menuName: 'Main',
  businessDate: '2026-12-01',
  items: [
    {
      itemNumber: 1,
      id: 'margherita-lg',
      qty: 1,
      originalUnitPrice: 1800,
      price: 1800,
      orderModifiers: [
        { id: 'thin', displayName: 'Thin crust', selectedHalf: 'Whole', selectedSide: false, isLite: false, preselectedDefaultQuantity: 1, quantity: 1, price: 0, orderModifiers: [] },
        { id: 'pepperoni', displayName: 'Pepperoni', selectedHalf: 'Whole', selectedSide: false, isLite: false, preselectedDefaultQuantity: 0, quantity: 1, price: 0, orderModifiers: [] },
      ],
      discounts: [{ id: 'd1', sourceDiscount: 'weekday-pizza', displayName: '20% off pizzas, Monday to Friday', discountType: 'PercentOff', discountScope: 'Item', discountValue: 360, valid: true }],
    },
    {
      itemNumber: 2,
      id: 'garlic-knots',
      qty: 2,
      originalUnitPrice: 600,
      price: 1200,
      orderModifiers: [],
      discounts: [{ id: 'd2', sourceDiscount: 'knots-bogo', displayName: 'Buy one garlic knots, get one free', discountType: 'PercentOff', discountScope: 'BOGO', discountValue: 600, valid: true }],
    },
    { itemNumber: 3, id: 'soda', qty: 2, originalUnitPrice: 250, price: 500, orderModifiers: [], discounts: [] },
  ],
  discounts: [
    { id: 'd1', sourceDiscount: 'weekday-pizza', displayName: '20% off pizzas, Monday to Friday', discountType: 'PercentOff', discountScope: 'Item', discountValue: 360, valid: true },
    { id: 'd2', sourceDiscount: 'knots-bogo', displayName: 'Buy one garlic knots, get one free', discountType: 'PercentOff', discountScope: 'BOGO', discountValue: 600, valid: true },
  ],
  fees: [],
  taxes: [{ taxName: 'NY Sales Tax', taxableAmount: 2540, taxAmount: 225 }],
  subtotal: 3500,
  discountTotal: 960,
  feeTotal: 0,
  taxTotal: 225,
  total: 2765,
  tipTotal: 0,
  paymentTotal: 0,
  customer: EXAMPLE_ORDER.customer,
  orderSource: 'thirdparty',
  sourceReferenceId: 'ext-48213',
  taxRemittanceHandledByFacilitator: false,
} as const; // prettier-ignore

export const PricedCart = PricedOrder.extend({ cartStatus: CartStatus }).meta({ id: 'PricedCart' });

export const priceOrder = defineOperation({
  ...common,
  operationId: 'priceOrder',
  method: 'POST',
  path: '/PriceOrder',
  summary: 'Price an order',
  description: `Prices the order against the store's menu without placing it: every price you send is discarded and
recomputed (order-type and tier prices, halves, modifiers, defaults and credits, discounts, taxes, delivery fee), and
\`cartStatus.minimumOrderPriceMet\` says whether the order type's minimum is reached. A discount that does not apply is
listed with \`valid: false\` and a WARNING saying why. An item or modifier the menu does not have, or a modifier rule
broken, is 422 \`order_invalid\` with one entry per problem. The order is priced for when it is due: \`deferDue\`, or now when
that is past (with a WARNING \`body.data.deferDue\` when it is more than 5 minutes past). Name the channel in
\`X-Service-Type\`. ${STORE}`,
  externalDocs: { url: '/docs/restaurant-apis/pricing', description: 'Pricing rules' },
  request: {
    headers: StoreAndServiceHeaders,
    body: z.object({ applyDefaultModifiers, data: OrderInput }),
    nullIsAbsent: true,
    example: { applyDefaultModifiers: false, data: EXAMPLE_ORDER },
  },
  responses: {
    200: {
      description: 'The priced order.',
      schema: hostedAnswer(PricedCart),
      example: ok('Priced: 27.65 to pay.', { ...EXAMPLE_PRICED, cartStatus: { minimumOrderPriceMet: true } }),
    },
  },
  errors: [...HOSTED_BODY_ERRORS, 'order_invalid'],
});

export const CreateOrderData = OrderInput.extend({
  creditCardPayments: z.array(CreditCardPayment).max(10).default([]).meta({
    description: 'Payments already taken; each is applied as `ApplyCreditCardPayment` would, once per card.',
  }),
}).meta({ id: 'HostedOrderCreate' });

const placedExample = {
  ...EXAMPLE_PRICED,
  id: 4711,
  orderNumber: 4711,
  status: 'accepted',
  estimatedTime: '2026-12-01T23:30:00.000Z',
  rejectReason: null,
  startTime: '2026-12-01T22:41:07.000Z',
  payments: [],
  // One stage per status held: `created` ends as the order is accepted, in the same transaction.
  stages: [
    { name: 'created', startTime: '2026-12-01T22:41:07.000Z', endTime: '2026-12-01T22:41:07.000Z' },
    { name: 'accepted', startTime: '2026-12-01T22:41:07.000Z', endTime: null },
  ],
};

export const createOrder = defineOperation({
  ...common,
  operationId: 'createOrder',
  method: 'POST',
  path: '/Orders',
  summary: 'Place an order',
  description: `Prices the order as \`PriceOrder\` does and stores it. It is \`accepted\` when its order type (and each item's
group) is open when it is due (\`deferDue\`, or now when that is past) in the store's time zone, on the menu and in the store's
own order type (Store API), every item and modifier is in stock and the order type's minimum is reached; \`estimatedTime\` is
then when it is due, or now plus the store order type's \`estimatedTime\` minutes (the menu's \`deferPrepMinutes\` for a
store that lists no order types) when that is later. An order type the store does not offer for \`X-Service-Type\` is 422 \`order_invalid\`.
Otherwise it is stored \`rejected\` and answered 422 \`order_rejected\` with the order in \`data\` and its \`rejectReason\`
(\`storeClosed\`, \`itemOutOfStock\`, \`orderValidation\`). Card payments in \`creditCardPayments\` are applied in the same
transaction. Send an \`Idempotency-Key\` to retry safely: the retry is answered what the first call was (a
rejected order included) and places nothing. ${STORE}`,
  request: {
    headers: StoreAndServiceHeaders.extend(IdempotencyHeaders.shape),
    body: z.object({ applyDefaultModifiers, data: CreateOrderData }),
    nullIsAbsent: true,
    example: { applyDefaultModifiers: false, data: EXAMPLE_ORDER },
  },
  responses: {
    201: {
      description: 'The order, accepted.',
      schema: hostedAnswer(HostedOrder),
      headers: REPLAYED_HEADER,
      example: ok('Order 4711 accepted; ready at 2026-12-01T23:30:00.000Z.', placedExample),
    },
    422: {
      description:
        '`order_rejected`: the order was stored as rejected (`data` is the order); `order_invalid`: it cannot be priced, `payment_exceeds_balance`, `capture_without_authorization`, `capture_amount_zero`, `capture_exceeds_authorization` or `transaction_type_not_accepted`: a card payment in `creditCardPayments` is refused as `ApplyCreditCardPayment` would refuse it, or `idempotency_key_reused`: the `Idempotency-Key` named another request (`data` is null, nothing stored). The first `messagesDetails` entry names the code.',
      schema: hostedAnswer(HostedOrder.nullable()),
      headers: REPLAYED_HEADER,
      example: {
        // The example order wanted at 23:30, after Pickup closes at 23:00 (a time still to come: an order
        // due in the past is due now).
        data: {
          ...placedExample,
          deferDue: '2026-12-01T23:30:00-05:00',
          status: 'rejected',
          estimatedTime: null,
          rejectReason: 'storeClosed',
          stages: [
            { ...placedExample.stages[0] },
            { name: 'rejected', startTime: '2026-12-01T22:41:07.000Z', endTime: null },
          ],
        },
        message:
          "Order 4711 rejected: Pickup is closed at 2026-12-01 23:30 (Tuesday) in the store's time zone.",
        messagesDetails: [
          {
            id: 'order_rejected',
            message:
              "Order 4711 rejected: Pickup is closed at 2026-12-01 23:30 (Tuesday) in the store's time zone.",
            messageType: 'ERROR',
          },
        ],
      },
    },
  },
  errors: [...HOSTED_BODY_ERRORS, 'card_already_applied'],
});

export const getHostedOrder = defineOperation({
  ...common,
  operationId: 'getHostedOrder',
  method: 'GET',
  path: '/Orders/{id}',
  summary: 'Get an order',
  description: `The order as placed, with its payments and stages (one per status it held). ${STORE}`,
  request: {
    headers: StoreHeaders,
    params: orderId,
    example: { 'x-store': String(DEMO_STORE_ID), id: 4711 },
  },
  responses: {
    200: {
      description: 'The order.',
      schema: hostedAnswer(HostedOrder),
      example: ok('Order 4711.', placedExample),
    },
  },
  errors: HOSTED_ERRORS,
});

const statusExample = {
  id: 4711,
  status: 'accepted',
  estimatedTime: '2026-12-01T23:30:00.000Z',
  sourceReferenceId: 'ext-48213',
  rejectReason: null,
};

export const getHostedOrderStatus = defineOperation({
  ...common,
  operationId: 'getHostedOrderStatus',
  method: 'GET',
  path: '/Orders/{id}/Status',
  summary: "Get an order's status",
  description: `The order's status, estimated time and reject reason. ${STORE}`,
  request: {
    headers: StoreHeaders,
    params: orderId,
    example: { 'x-store': String(DEMO_STORE_ID), id: 4711 },
  },
  responses: {
    200: {
      description: 'The status.',
      schema: hostedAnswer(OrderStatusAnswer),
      example: ok('Order 4711 is accepted.', statusExample),
    },
  },
  errors: HOSTED_ERRORS,
});

const yes = z.enum(['true', 'false']).transform((v) => v === 'true');

export const listHostedOrders = defineOperation({
  ...common,
  operationId: 'listHostedOrders',
  method: 'GET',
  path: '/Orders',
  summary: 'List orders by business date',
  description: `The store's orders whose business date (the date in the store's time zone the order is due: \`deferDue\`'s, or
the day it was sent when \`deferDue\` was past) lies in
\`businessDateFrom\`..\`businessDateTo\` (both included, at most 3 days; one alone: that date; neither: the store's today), newest first, narrowed
by the other filters; at most the newest 1000, with a WARNING \`orders_truncated\` when more match. Stages only with
\`includeStageTimes=true\`. A longer or reversed range is 400
\`date_range_too_long\`, its \`querystring.businessDateTo\` entry saying the latest date to ask for. ${STORE}`,
  request: {
    headers: StoreHeaders,
    query: z.object({
      businessDateFrom: BusinessDate.optional(),
      businessDateTo: BusinessDate.optional().meta({
        description:
          'The last business date, included: at most 2 days after `businessDateFrom`, and not before it (else 400 `date_range_too_long` naming it).',
      }),
      includeStageTimes: yes.default(false),
      sourceReferenceId: z.string().min(1).max(25).optional(),
      customerId: z.string().min(1).max(50).optional(),
      phoneNumber: z.string().min(1).max(20).optional().meta({
        description:
          "Only orders whose customer's `phoneNumber` is this, as the order holds it. Percent-encode a `+` as `%2B` (a bare `+` in a query string is a space).",
      }),
      serviceType: ServiceType.optional().meta({
        description: 'Only orders placed with this `X-Service-Type`.',
      }),
    }),
    example: {
      'x-store': String(DEMO_STORE_ID),
      businessDateFrom: '2026-12-01',
      businessDateTo: '2026-12-03',
    },
  },
  responses: {
    200: {
      description: 'The orders.',
      schema: hostedAnswer(z.array(HostedOrder)),
      example: ok('1 order.', [{ ...placedExample, stages: undefined }]),
    },
  },
  errors: [...HOSTED_ERRORS, 'date_range_too_long'],
});

/** What both cancels answer. */
const cancelled = {
  responses: {
    200: {
      description: 'The order, cancelled.',
      schema: hostedAnswer(OrderStatusAnswer),
      example: ok('Order 4711 cancelled.', { ...statusExample, status: 'cancelled' }),
    },
  },
  errors: [...HOSTED_ERRORS, 'order_status_unprocessable'],
} as const;

export const cancelHostedOrder = defineOperation({
  ...common,
  operationId: 'cancelHostedOrder',
  method: 'POST',
  path: '/Orders/{id}/Cancel',
  summary: 'Cancel an order',
  description: `Cancels an order that is \`accepted\` (or \`unknown\`). Cancelling a cancelled order answers it again (200);
any other status (ready, on its way, completed, rejected) is 422 \`order_status_unprocessable\`, whose details list
the moves its status allows. No body is needed. ${STORE}`,
  request: {
    headers: StoreHeaders,
    params: orderId,
    example: { 'x-store': String(DEMO_STORE_ID), id: 4711 },
  },
  ...cancelled,
});

export const cancelHostedOrderByReference = defineOperation({
  ...common,
  operationId: 'cancelHostedOrderByReference',
  method: 'POST',
  path: '/Orders/Cancel',
  summary: 'Cancel an order by your reference',
  description: `Cancels the store's order placed with this \`sourceReferenceId\` and \`X-Service-Type\` (the newest, when you
reused the reference). The same rules as Cancel. ${STORE}`,
  request: {
    headers: StoreAndServiceHeaders,
    query: z.object({ sourceReferenceId: z.string().min(1).max(25) }),
    example: {
      'x-store': String(DEMO_STORE_ID),
      'x-service-type': 'DoorDash',
      sourceReferenceId: 'ext-48213',
    },
  },
  ...cancelled,
});

export const applyCreditCardPayment = defineOperation({
  ...common,
  operationId: 'applyCreditCardPayment',
  method: 'POST',
  path: '/Orders/{id}/ApplyCreditCardPayment',
  summary: 'Apply a credit-card payment',
  description: `Records a card transaction on the order. A \`SALE\`, \`AUTHORIZATION\` or \`POINTS_RESERVATION\` is the card's
(brand, last 4 digits, expiry) one payment of the order: its \`amount\` counts in \`paymentTotal\`, its \`tip\` in
\`tipTotal\`; a second one with the card is 409 \`card_already_applied\`, and one that would take \`paymentTotal\` past
\`total\` is 422 \`payment_exceeds_balance\`. A \`FULL_CAPTURE\` or \`PARTIAL_CAPTURE\` completes the card's authorization
(or points reservation): its amount (up to the authorized one, else 422 \`capture_exceeds_authorization\`) and tip
replace the authorized ones in the same payment. A capture of 0 cents with a tip captures the tip alone (a card that
carries only the tip of an order paid by other means); 0 cents and no tip is 422 \`capture_amount_zero\`. With no
uncaptured authorization of the card it is 422 \`capture_without_authorization\`. Voids, reversals, refunds and releases are 422 \`transaction_type_not_accepted\`. A
\`FAILURE\`, or a success of 0 cents and no tip (a card check), is recorded and pays nothing. A cancelled or rejected order
is 422 \`order_status_unprocessable\`. Send an \`Idempotency-Key\` to retry safely: the retry is answered what the first call was and records
nothing.
${STORE}`,
  request: {
    headers: StoreHeaders.extend(IdempotencyHeaders.shape),
    params: orderId,
    body: z.object({ data: CreditCardPayment }),
    nullIsAbsent: true,
    example: {
      data: {
        transaction: {
          gatewayTransactionId: 'txn_7Hq2',
          amount: 2765,
          tip: 400,
          type: 'SALE',
          status: 'SUCCESS',
          approvalCode: '083412',
          transactionDateTime: '2026-12-01T18:31:02-05:00',
        },
        paymentMethod: { cardBrand: 'Visa', last4CardNumber: '4242', expMonth: 12, expYear: 2029 },
        firstName: 'Ana',
        lastName: 'Lima',
      },
    },
  },
  responses: {
    200: {
      description: 'The order with the payment.',
      schema: hostedAnswer(HostedOrder),
      headers: REPLAYED_HEADER,
      example: ok('Payment 1 applied to order 4711.', {
        ...placedExample,
        tipTotal: 400,
        paymentTotal: 2765,
        payments: [
          {
            paymentNumber: 1,
            paymentType: 'Visa',
            paymentTypeCategory: 'CreditCard',
            last4Digits: '4242',
            tip: 400,
            amount: 2765,
            paymentTime: '2026-12-01T23:31:02.000Z',
          },
        ],
      }),
    },
  },
  errors: [
    ...HOSTED_BODY_ERRORS,
    'card_already_applied',
    'payment_exceeds_balance',
    'capture_without_authorization',
    'capture_amount_zero',
    'capture_exceeds_authorization',
    'transaction_type_not_accepted',
    'order_status_unprocessable',
    'idempotency_key_reused',
  ],
});

export const HR_ORDER_OPERATIONS = [
  listHostedOrders,
  createOrder,
  getHostedOrder,
  getHostedOrderStatus,
  cancelHostedOrder,
  applyCreditCardPayment,
  cancelHostedOrderByReference,
  priceOrder,
];
