import { z } from 'zod';
import { SentPhoneE164 } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { sentPhoneCode } from '../../orders.ts';
import { statusEnum } from '../../states/machine.ts';
import { DELIVERY_STATES } from '../../states/delivery.ts';
import { SIGNED_WEBHOOK_ERRORS } from '../partner/shared.ts';

/** What an event provider posts to `POST /event-provider/{partner_slug}/webhook` (wire notes: "Event providers"). */

const ref = {
  order_id: z
    .string()
    .min(1)
    .max(200)
    .meta({ description: "The platform's id of the order: the `reference_id` of its events." }),
  location_id: z
    .string()
    .min(1)
    .max(200)
    .meta({ description: "The platform's id of the location: the `location_id` of its events." }),
};

// Optional fields may come as null (many serialisers write them so): null is absent.
const PHONE_CODE = z.string().max(40).nullish().meta({
  description: 'The code to dial after `number` when it is a relay (absent or null when none).',
});

/** The driver as the platform answers it: `phone.number` is E.164. */
export const ProviderDriver = z
  .object({
    name: z.string().min(1).max(200),
    phone: z.object({
      number: z.string().min(1).max(40).meta({ description: 'The number to call, E.164 (`+14155550199`).' }),
      code: PHONE_CODE,
    }),
  })
  .meta({ id: 'ProviderDriver', description: 'The driver who delivers the order.' });
export type ProviderDriver = z.infer<typeof ProviderDriver>;

/** A masking code as you send it: a whole number too (as a DSP may send it), kept as its decimal string. */
const SENT_PHONE_CODE = sentPhoneCode(z.string().max(40), z.number().int().nonnegative()).nullish().meta({
  description:
    'The code to dial after `number` when it is a relay: a string, or a whole number (kept as its decimal string); absent or null when none.',
});

/**
 * The driver as you send it: `phone.number` E.164, spaces, dashes, dots and parentheses taken out
 * (the platform stores and relays E.164 only); another number is 400 `validation_failed` naming
 * `body.object.driver.phone.number`.
 */
export const SentProviderDriver = z
  .object({
    name: z.string().min(1).max(200),
    phone: z.object({
      number: SentPhoneE164.meta({
        description:
          'The number to call, E.164: `+`, the country code, the number (`+14155550199`). Spaces, dashes, dots and parentheses are taken out (`+1 (415) 555-0199` is `+14155550199`); a number without `+` and its country code is refused (400).',
      }),
      code: SENT_PHONE_CODE,
    }),
  })
  .meta({ id: 'SentProviderDriver', description: 'The driver who delivers the order, as you send it.' });

export const AssignDriverWebhook = z
  .object({
    type: z.literal('order.assign.driver'),
    object: z.object({ ...ref, driver: SentProviderDriver }),
  })
  .meta({
    id: 'AssignDriverWebhook',
    description:
      'You assigned a driver (or another one took over before pickup). The restaurant is told who is coming.',
  });

export const PROVIDER_DELIVERY_STAGES = [
  'enroute_to_pickup',
  'arrived_at_pickup',
  'enroute_to_dropoff',
  'completed',
] as const;

export const UpdateDeliveryStatusWebhook = z
  .object({
    type: z.literal('order.update.delivery.status'),
    object: z.object({
      ...ref,
      status: z.enum(PROVIDER_DELIVERY_STAGES).meta({ description: 'Where the delivery is now.' }),
    }),
  })
  .meta({
    id: 'UpdateDeliveryStatusWebhook',
    description: 'The delivery moved on. The restaurant sees it on the order.',
  });

export const PROVIDER_WEBHOOK_TYPES = ['order.assign.driver', 'order.update.delivery.status'] as const;

export const EventProviderWebhook = z
  .discriminatedUnion('type', [AssignDriverWebhook, UpdateDeliveryStatusWebhook], {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? `type must be one of: ${PROVIDER_WEBHOOK_TYPES.join(', ')}`
        : undefined,
  })
  .meta({
    id: 'EventProviderWebhook',
    description: 'Every webhook an event provider sends, told apart by `type`.',
  });
export type EventProviderWebhook = z.infer<typeof EventProviderWebhook>;

export const ProviderDeliveryStatus = statusEnum(DELIVERY_STATES);

export const ProviderDeliveryAnswer = z
  .object({
    event_id: z.string().meta({ description: 'The id under which the platform recorded your webhook.' }),
    order_id: z.string(),
    delivery_status: ProviderDeliveryStatus,
    driver: ProviderDriver.nullable().meta({ description: 'The driver on the order, if any.' }),
  })
  .meta({ id: 'ProviderDeliveryAnswer', description: 'The delivery as it stands after your webhook.' });
export type ProviderDeliveryAnswer = z.infer<typeof ProviderDeliveryAnswer>;

export const eventProviderSendWebhook = defineOperation({
  api: 'integrate-with-events',
  operationId: 'eventProviderSendWebhook',
  method: 'POST',
  path: '/event-provider/{partner_slug}/webhook',
  summary: 'Assign a driver or update the delivery status',
  description: `Every webhook an event provider sends, \`{type, object}\`, signed with \`Stream-Webhook-Signature\`
(hex HMAC-SHA256 of the exact body bytes, your webhook secret). The platform commits it, applies it to the
order's delivery and relays it to the restaurant's POS as \`order.updated\` with \`delivery_status\` and
\`driver_details\`, then answers the delivery as it stands. A delivery \`completed\` completes the order too (the
marketplace is told it is \`completed\`); after the restaurant completed the order it is still a 200, applied and
relayed to the POS, and the marketplace is not told a second time.

The driver's \`phone.number\` is E.164 (\`+14155550199\`); spaces, dashes, dots and parentheses in it are taken out
(\`+1 (415) 555-0199\` is relayed as \`+14155550199\`), and a number that is not E.164 then (no \`+\` and country code,
letters, an extension) is a 400 naming \`body.object.driver.phone.number\`, and the driver is not assigned.

Name the order and location as its events do (\`reference_id\`, \`location_id\`). An order of a location you are
not enabled for is 404 \`order_not_found\`, as is an unknown one; an order you were sent an event of stays yours
to deliver after the location disables you. The delivery moves forward only (stages may be
skipped) and may get another driver until pickup; anything else is 409 \`invalid_transition\`, recorded and not
applied, and sending the status the delivery already has again changes nothing. The first provider to act on an
order delivers it: another is 409 \`delivery_held_by_another_provider\`. An order cancelled or not yet accepted
is 409 \`invalid_transition\`.`,
  tags: ['Order state events'],
  tagDescriptions: {
    'Order state events': 'What you send to the platform: driver assignment and delivery status.',
  },
  security: { kind: 'webhook-signature' },
  servedBy: 'platform',
  request: {
    params: z.object({ partner_slug: z.string().min(1).max(64).meta({ description: 'Your partner slug.' }) }),
    body: EventProviderWebhook,
    example: {
      type: 'order.assign.driver',
      object: {
        order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
        location_id: 'loc_5f1c2a9e0b3d4c6e8a7b9d01',
        driver: { name: 'Dana Cruz', phone: { number: '+14155550199', code: '1234' } },
      },
    },
    examples: {
      assign: {
        summary: 'Driver assigned',
        value: {
          type: 'order.assign.driver',
          object: {
            order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
            location_id: 'loc_5f1c2a9e0b3d4c6e8a7b9d01',
            driver: { name: 'Dana Cruz', phone: { number: '+14155550199', code: '1234' } },
          },
        },
      },
      status: {
        summary: 'On the way to the customer',
        value: {
          type: 'order.update.delivery.status',
          object: {
            order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
            location_id: 'loc_5f1c2a9e0b3d4c6e8a7b9d01',
            status: 'enroute_to_dropoff',
          },
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Recorded, applied and relayed to the POS.',
      schema: ProviderDeliveryAnswer,
      example: {
        event_id: 'evt_0c2e4a6c8e0a2c4e6a8c0e2a',
        order_id: 'ord_7a2c9e1f3b5d4a6c8e0f2b4d',
        delivery_status: 'driver_assigned',
        driver: { name: 'Dana Cruz', phone: { number: '+14155550199', code: '1234' } },
      },
    },
  },
  errors: [
    ...SIGNED_WEBHOOK_ERRORS,
    'order_not_found',
    'invalid_transition',
    'delivery_held_by_another_provider',
  ],
});
