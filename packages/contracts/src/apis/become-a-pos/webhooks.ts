import { z } from 'zod';
import { epochMs, partnerId } from '../../common.ts';
import { defineOperation } from '../../operation.ts';
import { SIGNED_WEBHOOK_ERRORS } from '../partner/shared.ts';
import { PosOrder } from './orders.ts';

/** What a POS posts to `POST /pos/{partner_slug}/webhook` (wire notes: "Webhooks a POS sends"), all `{type, object}`. */

const location_id = partnerId('Your id of the location.');
const hook = <T extends string, O extends z.ZodType>(type: T, id: string, description: string, object: O) =>
  z.object({ type: z.literal(type), object }).meta({ id, description });

export const OrderStatusUpdatedWebhook = hook(
  'order.status.updated',
  'OrderStatusUpdatedWebhook',
  'The order moved on at the restaurant. `accepted` confirms an order you took with `async_acceptance`.',
  z.object({
    status: z.enum(['accepted', 'ready_for_pickup', 'completed', 'merchant_canceled']),
    provider_id: partnerId('Your id of the order.'),
    location_id,
  }),
);
export const LocationStatusUpdatedWebhook = hook(
  'location.status.updated',
  'LocationStatusUpdatedWebhook',
  'The location stopped (`inactive`) or resumed (`active`) taking orders.',
  z.object({
    status: z.enum(['active', 'inactive']),
    location_id,
    paused_until: epochMs().nullish().meta({
      description:
        'Epoch ms when an inactive location becomes active by itself; null or absent: until you say.',
    }),
  }),
);
export const LocationCatalogUpdatedWebhook = hook(
  'location.catalog.updated',
  'LocationCatalogUpdatedWebhook',
  'The catalog changed: the platform pulls it again, for the location or every location of the merchant.',
  z
    .object({
      location_id: location_id.optional(),
      merchant_id: partnerId('Your id of the merchant: every location of it.').optional(),
    })
    .refine((o) => o.location_id !== undefined || o.merchant_id !== undefined, {
      error: 'Send location_id (one location) or merchant_id (every location of the merchant).',
    }),
);
export const CatalogObjectUpdatedWebhook = hook(
  'location.catalog.object.updated',
  'CatalogObjectUpdatedWebhook',
  'One catalog object was turned on or off.',
  z.object({
    location_id,
    object_id: partnerId('Your id of the catalog object (its `provider_id`).'),
    object_type: z.string().meta({
      description:
        'The catalog kind of `object_id`: `category`, `item_family`, `item`, `modifier_group`, `modifier`, `menu` or `tax` (the last two make the platform pull your catalog again).',
    }),
    object_update: z.object({ is_active: z.boolean() }),
  }),
);
export const LocationConnectionOfflineWebhook = hook(
  'location.connection.offline',
  'LocationConnectionOfflineWebhook',
  'The location lost its connection to you: orders are refused until it sends `location.status.updated` `active`.',
  z.object({ location_id }),
);
export const InStoreOrderCreatedWebhook = hook(
  'order.created',
  'InStoreOrderCreatedWebhook',
  'An order placed in the store, recorded on the platform. The same shape as the orders the platform sends you, every field optional but `location_id`; name the order by your `provider_id` or by an `idempotency_key`.',
  PosOrder.partial()
    .extend({ location_id, provider_id: partnerId('Your id of the order.').optional() })
    .refine((o) => o.provider_id !== undefined || o.idempotency_key !== undefined, {
      error: 'Send provider_id (your id of the order) or idempotency_key, so the order can be told apart.',
    }),
);

export const POS_WEBHOOK_TYPES = [
  'order.status.updated',
  'location.status.updated',
  'location.catalog.updated',
  'location.catalog.object.updated',
  'location.connection.offline',
  'order.created',
] as const;

export const PosWebhook = z
  .discriminatedUnion(
    'type',
    [
      OrderStatusUpdatedWebhook,
      LocationStatusUpdatedWebhook,
      LocationCatalogUpdatedWebhook,
      CatalogObjectUpdatedWebhook,
      LocationConnectionOfflineWebhook,
      InStoreOrderCreatedWebhook,
    ],
    {
      error: (issue) =>
        issue.code === 'invalid_union' ? `type must be one of: ${POS_WEBHOOK_TYPES.join(', ')}` : undefined,
    },
  )
  .meta({ id: 'PosWebhook', description: 'Every webhook a POS sends, told apart by `type`.' });
export type PosWebhook = z.infer<typeof PosWebhook>;

export const posSendWebhook = defineOperation({
  api: 'become-a-pos',
  operationId: 'posSendWebhook',
  method: 'POST',
  path: '/pos/{partner_slug}/webhook',
  summary: 'Send an order status, location status, catalog change or in-store order',
  description: `Every webhook a POS sends, \`{type, object}\`, signed with \`Stream-Webhook-Signature\` (hex
HMAC-SHA256 of the exact body bytes, your webhook secret). The platform commits it, then answers 204.

Order statuses name the order by your \`provider_id\` (from your answer to \`order.created\`): \`accepted\`
confirms an order taken with \`async_acceptance\`; \`ready_for_pickup\`, \`completed\` and \`merchant_canceled\`
are relayed to the DSP. A status that does not fit the order's state is 409 \`invalid_transition\`.
\`location.status.updated\` pauses (\`inactive\`, until \`paused_until\` if given) or resumes every DSP store bound
to the location; \`location.connection.offline\` refuses its orders until it is \`active\` again. Catalog
webhooks are recorded. An unknown \`type\` is 400 naming the known ones; an unknown location or order is 404.
An optional field may be sent as \`null\`: it is taken as absent (a required one then fails as missing). Your
ids (\`location_id\`, \`provider_id\`, \`merchant_id\`, \`object_id\`) may be whole numbers: each is kept as its
decimal string.`,
  tags: ['Webhooks'],
  tagDescriptions: {
    Webhooks: 'What you send to the platform: order and location status, catalog changes, in-store orders.',
  },
  security: { kind: 'webhook-signature' },
  servedBy: 'platform',
  request: {
    params: z.object({ partner_slug: z.string().min(1).max(64).meta({ description: 'Your partner slug.' }) }),
    body: PosWebhook,
    // As at the DSP webhook and in your answers: a field sent as null is absent (many serialisers write
    // them so), and a required one left null is named as missing.
    nullIsAbsent: true,
    example: {
      type: 'order.status.updated',
      object: { status: 'ready_for_pickup', provider_id: 'pos-ord-1', location_id: 'loc-mission' },
    },
    examples: {
      ready: {
        summary: 'Order ready',
        value: {
          type: 'order.status.updated',
          object: { status: 'ready_for_pickup', provider_id: 'pos-ord-1', location_id: 'loc-mission' },
        },
      },
      paused: {
        summary: 'Location paused for an hour',
        value: {
          type: 'location.status.updated',
          object: { status: 'inactive', location_id: 'loc-mission', paused_until: 1763903600000 },
        },
      },
      offline: {
        summary: 'Location offline',
        value: { type: 'location.connection.offline', object: { location_id: 'loc-mission' } },
      },
      catalog: {
        summary: 'Catalog changed',
        value: { type: 'location.catalog.updated', object: { location_id: 'loc-mission' } },
      },
    },
  },
  responses: { 204: { description: 'Recorded (and applied).' } },
  errors: [...SIGNED_WEBHOOK_ERRORS, 'location_not_found', 'order_not_found', 'invalid_transition'],
});
