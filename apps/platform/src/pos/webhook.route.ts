import type { FastifyInstance } from 'fastify';
import { posSendWebhook } from '@stream/contracts/apis/become-a-pos/index';
import { mount } from '../http/route.ts';
import { receivePosWebhook } from '../orders/pos-webhooks.ts';
import { signedPartner } from '../webhooks/signature.ts';

/** POST /pos/{partner_slug}/webhook: every POS webhook, signed by the POS it names, answered 204 once committed. */
export function registerWebhookRoute(app: FastifyInstance): void {
  mount(app, posSendWebhook, async (req, reply) => {
    await receivePosWebhook(app.ctx, signedPartner(req, 'pos'), req.body);
    return reply.code(204).send();
  });
}
