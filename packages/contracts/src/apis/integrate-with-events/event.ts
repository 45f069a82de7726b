import { z } from 'zod';
import { defineOperation } from '../../operation.ts';

export const OrderEventType = z
  .enum(['order.confirmed', 'order.updated', 'order.canceled'])
  .meta({ id: 'OrderEventType', description: 'What happened to the order.' });
export type OrderEventType = z.infer<typeof OrderEventType>;

/** What the platform posts to an event provider. The order's own shape is described in the order events guide. */
export const OrderEvent = z
  .object({
    type: OrderEventType,
    location_id: z.string().min(1).meta({ description: "The platform's id of the location." }),
    reference_id: z
      .string()
      .min(1)
      .meta({ description: "The platform's id of the order; quote it in your webhooks." }),
    order: z.record(z.string(), z.unknown()).meta({ description: 'The order as it stands after the event.' }),
  })
  .meta({ id: 'OrderEvent' });
export type OrderEvent = z.infer<typeof OrderEvent>;

export const EventSignatureHeaders = z.object({
  'x-stream-signature': z.string().meta({
    description: 'Lower-case hex HMAC-SHA256 of the exact body bytes, keyed with your webhook secret.',
  }),
});

export const eventsReceiveEvent = defineOperation({
  api: 'integrate-with-events',
  operationId: 'eventsReceiveEvent',
  method: 'POST',
  path: '/event',
  summary: 'Receive an order event',
  description: `The platform posts every order event here. Verify \`X-Stream-Signature\` over the raw
body before parsing it. Any 2xx acknowledges the event; anything else, or no answer within the
timeout, is retried with exponential backoff, so handle the same \`reference_id\` and \`type\` twice.`,
  tags: ['Order events'],
  tagDescriptions: { 'Order events': 'What the platform tells you about the orders you deliver.' },
  security: { kind: 'event-signature' },
  servedBy: 'partner',
  request: {
    headers: EventSignatureHeaders,
    body: OrderEvent,
    example: {
      type: 'order.confirmed',
      location_id: 'loc_5f1c2a9e0b3d4c6e8a7b9d01',
      reference_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
      order: { id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d', status: 'confirmed' },
    },
  },
  responses: { 204: { description: 'Received.' } },
  errors: ['validation_failed', 'signature_missing', 'signature_malformed', 'signature_mismatch'],
});
