import type { FastifyInstance } from 'fastify';
import { eventProviderSendWebhook } from '@stream/contracts/apis/integrate-with-events/index';
import { receiveProviderWebhook } from '../events/provider-webhooks.ts';
import { mount } from '../http/route.ts';
import { signedPartner } from '../webhooks/signature.ts';

/** POST /event-provider/{partner_slug}/webhook: driver assignment and delivery status, answered with the delivery once committed. */
export function registerWebhookRoute(app: FastifyInstance): void {
  mount(app, eventProviderSendWebhook, async (req) =>
    receiveProviderWebhook(app.ctx, signedPartner(req, 'events'), req.body),
  );
}
