import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { DeliveryStatus, DriverDetails, OrderFailureDetails, OrderFailureReason } from '../../orders.ts';
import { OrderStatus } from '../become-a-dsp/orders.ts';
import { BEARER_ERRORS, EXAMPLE, Id } from './shared.ts';

/**
 * The order as the platform holds it, and its timeline (modelled on Svix's message and attempt
 * records): every inbound event, state change and outbound call with each of its attempts.
 */

const when = z.iso.datetime();

export const RoutedOrder = z
  .object({
    _id: z
      .string()
      .meta({ description: "The platform's id of the order (`ord_…`), the POS's `idempotency_key`." }),
    status: OrderStatus,
    failure_reason: OrderFailureReason.nullable(),
    failure_details: OrderFailureDetails.nullable(),
    org_id: z.string().nullable(),
    location_id: z.string().nullable().meta({ description: 'The org location (`loc_…`) the order went to.' }),
    dsp: z.object({
      partner_id: z.string(),
      order_id: z.string().meta({ description: "The DSP's id of the order." }),
      location_id: z.string().meta({ description: "The DSP's id of the store." }),
    }),
    pos: z
      .object({
        partner_id: z.string(),
        location_id: z.string().meta({ description: "The POS's id of the location." }),
        provider_id: z.string().nullable().meta({ description: "The POS's id of the order, once accepted." }),
      })
      .nullable(),
    fulfillment_type: z.string(),
    is_future_order: z.boolean(),
    requested_for: when.nullable(),
    release_at: when.nullable().meta({ description: 'For a scheduled order: when it goes to the POS.' }),
    estimated_ready_at: when.nullable(),
    delivery_status: DeliveryStatus.nullable(),
    driver_details: DriverDetails.nullable(),
    created_at: when,
    updated_at: when,
  })
  .meta({ id: 'RoutedOrder', description: 'An order routed from a DSP to a POS.' });
export type RoutedOrder = z.infer<typeof RoutedOrder>;

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int(),
    started_at: when,
    finished_at: when.nullable().meta({ description: 'Null while in flight (or cut off by a crash).' }),
    status: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The partner's HTTP status; null when none came." }),
    latency_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    response: z.string().nullable().meta({ description: "The first 2 KiB of the partner's answer." }),
  })
  .meta({ id: 'DeliveryAttempt' });

export const TimelineEntry = z
  .object({
    seq: z.number().int(),
    at: when,
    kind: z.enum(['received', 'status', 'sent', 'refused', 'gave_up']).meta({
      description:
        "`received`: a webhook about the order came in; `status`: the order changed state; `sent`: the platform called a partner (see `attempts`); `refused`: an event that did not fit the state, answered 409 and not applied; `gave_up`: the platform stopped retrying a call (its `sent` entry's delivery is `dead`): `type` is what was not delivered, `partner_id` to whom, `detail` the last attempt's error.",
    }),
    type: z.string().meta({
      description: 'The webhook or event type (`new_order`, `location.order.accept`, …), or the new status.',
    }),
    partner_id: z.string().nullable().meta({ description: 'Who sent it, or who it was sent to.' }),
    from: OrderStatus.nullable(),
    to: OrderStatus.nullable(),
    detail: z.string().nullable().meta({ description: 'Why, in a sentence.' }),
    body: z.unknown().optional().meta({ description: 'The body received or sent.' }),
    delivery: z
      .object({
        job_id: z.string(),
        state: z.enum(['pending', 'running', 'succeeded', 'dead']),
        attempts: z.array(DeliveryAttempt),
      })
      .optional()
      .meta({ description: 'For `sent`: the delivery and each attempt.' }),
  })
  .meta({ id: 'TimelineEntry' });

export const OrderTimeline = z
  .object({ order_id: z.string(), entries: z.array(TimelineEntry) })
  .meta({ id: 'OrderTimeline', description: 'Everything that happened to the order, oldest first.' });
export type OrderTimeline = z.infer<typeof OrderTimeline>;

const params = z.object({ order_id: Id.meta({ description: "The platform's order id (`ord_…`)." }) });
const ORDER_ERRORS = ['validation_failed', ...BEARER_ERRORS, 'order_not_found'] as const;
const example = {
  _id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
  status: 'accepted',
  failure_reason: null,
  failure_details: null,
  org_id: EXAMPLE.orgId,
  location_id: 'loc_5f1c2a9e0b3d4c6e8a7b9d01',
  dsp: { partner_id: EXAMPLE.partnerId, order_id: 'dsp-order-8812', location_id: 'store-1001' },
  pos: { partner_id: 'ptr_0a1b2c3d4e5f6a7b8c9d0e1f', location_id: 'loc-mission', provider_id: 'pos-ord-1' },
  fulfillment_type: 'pickup',
  is_future_order: false,
  requested_for: null,
  release_at: null,
  estimated_ready_at: '2025-03-14T09:46:53.000Z',
  delivery_status: null,
  driver_details: null,
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.createdAt,
};
const DESCRIPTION_WHO =
  "Any token of a partner on the order may read it: its DSP, its POS, the white-label partner of the location's organisation, or an event provider that was sent an event of it (or delivers it). Anyone else gets 404.";

export const getOrder = defineOperation({
  api: 'partner',
  operationId: 'getOrder',
  method: 'GET',
  path: '/orders/{order_id}',
  summary: 'Get an order',
  description: `The order as it stands. ${DESCRIPTION_WHO}`,
  tags: ['Orders'],
  tagDescriptions: { Orders: 'Orders routed from DSPs to POS systems, and their timelines.' },
  security: { kind: 'bearer', scopes: [] },
  servedBy: 'platform',
  request: { params, example: { order_id: example._id } },
  responses: {
    200: { description: 'The order.', schema: z.object({ order: RoutedOrder }), example: { order: example } },
  },
  errors: ORDER_ERRORS,
});

export const getOrderTimeline = defineOperation({
  api: 'partner',
  operationId: 'getOrderTimeline',
  method: 'GET',
  path: '/orders/{order_id}/timeline',
  summary: "Get an order's timeline",
  description: `Every webhook received about the order, every change of state, every call made to a partner with each
attempt (status, latency, the partner's answer), oldest first. ${DESCRIPTION_WHO} The DSP, the POS and the
white-label partner read every entry. An event provider reads its part only: the changes of state (\`status\`),
the events sent to it with their attempts, its own webhooks and their refusals, and \`gave_up\` for an event it
never got; not the other partners' webhooks nor the calls made to them.`,
  tags: ['Orders'],
  security: { kind: 'bearer', scopes: [] },
  servedBy: 'platform',
  request: { params, example: { order_id: example._id } },
  responses: {
    200: {
      description: 'The timeline.',
      schema: OrderTimeline,
      example: {
        order_id: example._id,
        entries: [
          {
            seq: 1,
            at: EXAMPLE.createdAt,
            kind: 'received',
            type: 'new_order',
            partner_id: EXAMPLE.partnerId,
            from: null,
            to: null,
            detail: null,
          },
          {
            seq: 2,
            at: EXAMPLE.createdAt,
            kind: 'status',
            type: 'received',
            partner_id: null,
            from: null,
            to: 'received',
            detail: 'validated',
          },
          {
            seq: 3,
            at: EXAMPLE.createdAt,
            kind: 'sent',
            type: 'order.created',
            partner_id: 'ptr_0a1b2c3d4e5f6a7b8c9d0e1f',
            from: null,
            to: null,
            detail: null,
            delivery: {
              job_id: 'job_1f2e3d4c5b6a79880716253a',
              state: 'succeeded',
              attempts: [
                {
                  attempt: 1,
                  started_at: EXAMPLE.createdAt,
                  finished_at: EXAMPLE.createdAt,
                  status: 200,
                  latency_ms: 41,
                  error: null,
                  response: '{"order":{"provider_id":"pos-ord-1","prep_time_minutes":20}}',
                },
              ],
            },
          },
          {
            seq: 4,
            at: EXAMPLE.createdAt,
            kind: 'status',
            type: 'accepted',
            partner_id: null,
            from: 'received',
            to: 'accepted',
            detail: 'POS accepts',
          },
        ],
      },
    },
  },
  errors: ORDER_ERRORS,
});

export const ORDER_OPERATIONS = [getOrder, getOrderTimeline] as const;
