import { z } from 'zod';
import { defineOperation } from '../../operation.ts';
import { OrderFailureDetails, OrderFailureReason } from '../../orders.ts';
import { MERCHANT_TOKEN_ERRORS } from '../become-a-pos/locations.ts';

/**
 * What the platform posts to a DSP's `POST /stream-dsp/v1/event` (wire notes, "DSP side"): flat
 * bodies told apart by `type`, each naming the DSP's `location_id` (the store).
 */

const location_id = z.string().min(1).meta({ description: 'Your id of the store.' });
const order_id = z.string().min(1).meta({ description: 'Your id of the order.' });
const event = <T extends string, S extends z.ZodRawShape>(
  type: T,
  id: string,
  description: string,
  shape: S,
) => z.object({ type: z.literal(type), location_id, ...shape }).meta({ id, description });

export const LocationPauseEvent = event(
  'location.pause',
  'LocationPauseEvent',
  'Stop taking orders for the store.',
  {
    until_ms: z
      .number()
      .int()
      .optional()
      .meta({ description: 'Epoch ms when it resumes by itself; absent: until `location.resume`.' }),
  },
);
export const LocationResumeEvent = event(
  'location.resume',
  'LocationResumeEvent',
  'Take orders for the store again.',
  {},
);
export const LocationPublishEvent = event(
  'location.publish',
  'LocationPublishEvent',
  'A new menu is ready: download it.',
  {
    download_url: z.string().meta({ description: 'Where to download the menu file.' }),
  },
);
const ObjectUpdate = z.object({ stream_id: z.string(), is_active: z.boolean() });
export const LocationUpdateEvent = event(
  'location.update',
  'LocationUpdateEvent',
  'Menu objects turned on or off.',
  {
    object_updates: z.object({
      items: z.array(ObjectUpdate).optional(),
      variations: z.array(ObjectUpdate).optional(),
      modifiers: z.array(ObjectUpdate).optional(),
    }),
  },
);
export const OrderAcceptEvent = event(
  'location.order.accept',
  'OrderAcceptEvent',
  'The restaurant accepted the order.',
  {
    order_id,
    estimated_ready_at_ms: z
      .number()
      .int()
      .meta({ description: 'When the food will be ready (epoch ms), from the POS prep time.' }),
  },
);
export const OrderFailEvent = event('location.order.fail', 'OrderFailEvent', 'The order was not accepted.', {
  order_id,
  failure_reason: OrderFailureReason,
  failure_details: OrderFailureDetails,
});
export const OrderStatusChangeEvent = event(
  'location.order.notify_status_change',
  'OrderStatusChangeEvent',
  'The restaurant moved the order on.',
  { order_id, order_status_update: z.enum(['ready_for_pickup', 'completed']) },
);
export const OrderCancelEvent = event(
  'location.order.cancel',
  'OrderCancelEvent',
  'The restaurant cancelled the order.',
  {
    order_id,
  },
);

export const DSP_EVENT_TYPES = [
  'location.pause',
  'location.resume',
  'location.publish',
  'location.update',
  'location.order.accept',
  'location.order.fail',
  'location.order.notify_status_change',
  'location.order.cancel',
] as const;

export const DspEvent = z
  .discriminatedUnion('type', [
    LocationPauseEvent,
    LocationResumeEvent,
    LocationPublishEvent,
    LocationUpdateEvent,
    OrderAcceptEvent,
    OrderFailEvent,
    OrderStatusChangeEvent,
    OrderCancelEvent,
  ])
  .meta({ id: 'DspEvent', description: 'Every event the platform sends a DSP, told apart by `type`.' });
export type DspEvent = z.infer<typeof DspEvent>;

export const dspReceiveEvent = defineOperation({
  api: 'become-a-dsp',
  operationId: 'dspReceiveEvent',
  method: 'POST',
  path: '/stream-dsp/v1/event',
  summary: 'Receive a store, menu or order event',
  description: `The platform posts every event about a store here, with the merchant's bearer token: pauses
and resumes, menus, and the outcome and progress of each order. Bodies are flat (\`{type, location_id, ...}\`).
Any 2xx acknowledges it (a body is ignored). Anything else, or no answer within 15 s, is retried with
exponential backoff and the same \`Idempotency-Key\` header, so drop an event whose key you have seen. Events
of one order (and of one store) are sent one at a time, in order.`,
  tags: ['Events'],
  tagDescriptions: { Events: 'What the platform tells you about stores, menus and orders.' },
  security: { kind: 'merchant-bearer' },
  servedBy: 'partner',
  request: {
    body: DspEvent,
    example: {
      type: 'location.order.accept',
      location_id: 'store-1001',
      order_id: 'dsp-order-8812',
      estimated_ready_at_ms: 1763901800000,
    },
    examples: {
      accept: {
        summary: 'Order accepted',
        value: {
          type: 'location.order.accept',
          location_id: 'store-1001',
          order_id: 'dsp-order-8812',
          estimated_ready_at_ms: 1763901800000,
        },
      },
      fail: {
        summary: 'Order failed',
        value: {
          type: 'location.order.fail',
          location_id: 'store-1001',
          order_id: 'dsp-order-8812',
          failure_reason: 'items_unavailable',
          failure_details: {
            invalid_item_ids: ['var_01HZX3'],
            error_message: 'Carnitas taco is out of stock.',
          },
        },
      },
      status: {
        summary: 'Order ready',
        value: {
          type: 'location.order.notify_status_change',
          location_id: 'store-1001',
          order_id: 'dsp-order-8812',
          order_status_update: 'ready_for_pickup',
        },
      },
      cancel: {
        summary: 'Cancelled by the restaurant',
        value: { type: 'location.order.cancel', location_id: 'store-1001', order_id: 'dsp-order-8812' },
      },
      pause: {
        summary: 'Store paused',
        value: { type: 'location.pause', location_id: 'store-1001', until_ms: 1763903600000 },
      },
      resume: { summary: 'Store resumed', value: { type: 'location.resume', location_id: 'store-1001' } },
      update: {
        summary: 'Menu items turned off',
        value: {
          type: 'location.update',
          location_id: 'store-1001',
          object_updates: { items: [{ stream_id: 'ifm_Qx3v9Jc2LmPz8TnWb5Ke0A', is_active: false }] },
        },
      },
    },
  },
  responses: { 200: { description: 'Received. Any 2xx counts; the platform reads no body.' } },
  errors: ['validation_failed', ...MERCHANT_TOKEN_ERRORS],
});
