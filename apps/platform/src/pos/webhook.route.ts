import type { FastifyInstance } from 'fastify';
import { posSendWebhook } from '@stream/contracts/apis/become-a-pos/index';
import { ApiError } from '../http/errors.ts';
import { mount } from '../http/route.ts';
import { receivePosWebhook } from '../orders/pos-webhooks.ts';

/** POST /pos/{partner_slug}/webhook: every POS webhook (signed), answered 204 once committed. */
export function registerWebhookRoute(app: FastifyInstance): void {
  mount(app, posSendWebhook, async (req, reply) => {
    const partner = req.partner!;
    if (partner.kind !== 'pos') {
      throw new ApiError(
        'unknown_partner',
        `Partner ${req.params.partner_slug} is not a POS; send POS webhooks with a POS's slug.`,
      );
    }
    await receivePosWebhook(app.ctx, partner, req.body);
    return reply.code(204).send();
  });
}
